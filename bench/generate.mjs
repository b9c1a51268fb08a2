#!/usr/bin/env node
// bench/generate.mjs: a deterministic generator of a large, VALID Pi session file for the benchmark.
//
// What it produces: one v3 session of about 40 MB in the shapes the real Pi writes (see
// /work/shared/docs/session-format.md and test/parity/fixtures/written-*.jsonl):
//   - a v3 header (UUIDv7 id), then ~50,000 entries in one deep main chain (depth ~49,500);
//   - a short side branch every few hundred entries (2-6 entries hanging off an earlier turn), about
//     half of them followed, on the main chain, by a `branch_summary` whose `fromId` is the abandoned
//     branch tip (Pi 1.x's `branchWithSummary`);
//   - a few `compaction` entries whose `firstKeptEntryId` names a user message some turns above them;
//   - `model_change` / `thinking_level_change` entries, `label` entries (targets: earlier entries),
//     and `session_info` entries;
//   - turns of: user message (string content) -> assistant messages (content arrays of thinking,
//     text and toolCall blocks; api/provider/model/usage with cost/stopReason/timestamp) ->
//     toolResult messages (toolCallId = a toolCall of the assistant message just above, content =
//     text blocks) -> a final assistant message with stopReason "stop";
//   - a handful of ~400 KB tool outputs (so the file has ~400 KB lines); every other line is small.
// Ids are unique 8-char lowercase hex strings; timestamps start at a fixed instant and increase in
// file order, so every entry is later than its parent.
//
// Determinism: all randomness comes from a seeded PRNG (sfc32); no clock, no Math.random. The same
// parameters give a byte-identical file (its SHA-256 is recorded next to it).
//
// Reuse: the file is written to bench/out/session-40mb.jsonl together with
// bench/out/session-40mb.jsonl.meta.json (parameters, a hash of this script, size, SHA-256). A later
// call with the same parameters and an unchanged generator reuses the file instead of rewriting it.
//
// Usage:
//   node bench/generate.mjs [--force] [--out FILE]   writes (or reuses) the file, prints a summary
//   import { ensureSession } from "./generate.mjs"    the same, from the benchmark

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_PATH = join(HERE, "out", "session-40mb.jsonl");

export const DEFAULT_PARAMS = Object.freeze({
  seed: 20260302,
  /** Entries to generate (the header not counted); the last turn is completed, so a few more. */
  entries: 50_000,
  /** Tool outputs of ~bigLineChars characters each, spread evenly over the file. */
  bigLines: 6,
  bigLineChars: 400_000,
  /** A side branch starts every branchEvery[0]..branchEvery[1] entries and has branchLength entries. */
  branchEvery: [200, 400],
  branchLength: [2, 6],
  /** Share of side branches followed by a branch_summary on the main chain. */
  branchSummaryShare: 0.5,
  compactions: 4,
  /** Roughly one label every labelEvery entries. */
  labelEvery: 1500,
  /** Roughly one model or thinking-level change every changeEvery entries. */
  changeEvery: 2500,
  /** Multiplies the lengths of generated texts (tool outputs, thinking, prose); tunes the file size. */
  textScale: 0.55,
  startTime: "2026-03-02T10:00:00.000Z",
  cwd: "/home/dev/project",
});

// ---- PRNG ------------------------------------------------------------------------------------

function makeRng(seed) {
  // sfc32, seeded through splitmix32 so that nearby seeds give unrelated streams.
  let s = seed >>> 0;
  const splitmix = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix(),
    b = splitmix(),
    c = splitmix(),
    d = splitmix();
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) u32();
  const float = () => u32() / 4294967296;
  return {
    u32,
    float,
    /** Integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(float() * (hi - lo + 1)),
    pick: (array) => array[Math.floor(float() * array.length)],
    chance: (p) => float() < p,
    /** Heavy-tailed length: median ~`median`, occasionally many times it. */
    length: (median, max) => Math.min(max, Math.round(median * Math.exp((float() + float() + float() - 1.5) * 1.6))),
  };
}

// ---- Text ------------------------------------------------------------------------------------

const WORDS = (
  "the a an of to in for on with by from as is are was be this that it its we you they should could would will " +
  "function module parser session entry line file test tests type types value values error errors diagnostic " +
  "server client request response document range position offset index cache analysis tree branch leaf root " +
  "parent child children node path context message messages tool call result output input token tokens cost " +
  "compaction summary label header version id ids timestamp json string number object array field fields " +
  "schema check checks report fix fixes update edit read write bash command run build compile bundle import " +
  "export default const let async await return if else while loop map set get has delete push pop slice " +
  "split join trim parse stringify locate span spans walk stack queue memory time fast slow large small " +
  "first last next previous current new old real invalid valid missing dangling duplicate cycle order"
).split(" ");
const PROSE_EXTRA = ["naïve", "café", "→", "—", "“quoted”", "`code`", "**bold**", "e.g.", "i.e.", "(see above)", "~50k", "O(n)", "O(n²)"];
const IDENTS = [
  "doc",
  "entry",
  "line",
  "lines",
  "parsed",
  "analysis",
  "byId",
  "parent",
  "children",
  "range",
  "span",
  "text",
  "value",
  "result",
  "index",
  "offset",
  "count",
  "cache",
  "node",
  "stack",
  "path",
  "items",
  "config",
  "options",
  "state",
  "leaf",
  "root",
];
const FILES = [
  "src/core/session/document.ts",
  "src/core/line/parse.ts",
  "src/core/session/analysis.ts",
  "src/core/line/locate.ts",
  "src/core/line/schema.ts",
  "src/features/diagnostics.ts",
  "src/features/hover.ts",
  "src/features/definition.ts",
  "src/lsp/server.ts",
  "src/cli/check.ts",
  "test/document.test.ts",
  "test/parse.test.ts",
  "test/analysis.test.ts",
  "README.md",
  "package.json",
  "tsconfig.json",
  "docs/session-format.md",
  "src/util/strings.ts",
  "src/util/ranges.ts",
];
const COMMANDS = [
  "npm test",
  "npm run build",
  "npx tsc --noEmit -p .",
  "git status --short",
  "git diff --stat",
  "ls -la src/core",
  'rg -n "parentId" src',
  "node bin/pi-session-lsp.js check test/fixtures",
  "npx vitest run test/parse.test.ts",
  "wc -l src/**/*.ts",
  "git log --oneline -n 20",
  "cat package.json | head -40",
];

class TextMaker {
  constructor(rng, scale) {
    this.rng = rng;
    this.scale = scale;
  }

  sentence() {
    const { rng } = this;
    const n = rng.int(5, 18);
    const words = [];
    for (let i = 0; i < n; i++) words.push(rng.chance(0.04) ? rng.pick(PROSE_EXTRA) : rng.pick(WORDS));
    const s = words.join(" ");
    return s.charAt(0).toUpperCase() + s.slice(1) + rng.pick([".", ".", ".", "?", ":"]);
  }

  /** Prose of about `chars` characters, in paragraphs, sometimes with a list or inline code. */
  prose(chars) {
    const { rng } = this;
    let out = "";
    while (out.length < chars) {
      if (out.length > 0) out += rng.chance(0.25) ? "\n\n" : " ";
      if (rng.chance(0.08)) out += `\n- ${this.sentence()}\n- ${this.sentence()}\n`;
      else if (rng.chance(0.05)) out += `\`${rng.pick(IDENTS)}.${rng.pick(IDENTS)}()\``;
      else out += this.sentence();
    }
    return out;
  }

  codeLine() {
    const { rng } = this;
    const a = rng.pick(IDENTS),
      b = rng.pick(IDENTS),
      c = rng.pick(IDENTS);
    const indent = "  ".repeat(rng.int(0, 3));
    switch (rng.int(0, 9)) {
      case 0:
        return `${indent}const ${a} = ${b}.${c}(${rng.pick(IDENTS)});`;
      case 1:
        return `${indent}if (${a}.${b} === undefined) return "${rng.pick(WORDS)} ${rng.pick(WORDS)}";`;
      case 2:
        return `${indent}for (let i = 0; i < ${a}.length; i++) ${b}.push(${a}[i]!);`;
      case 3:
        return `${indent}// ${this.sentence()}`;
      case 4:
        return `${indent}export function ${a}${b.charAt(0).toUpperCase()}${b.slice(1)}(${c}: string): number {`;
      case 5:
        return `${indent}}`;
      case 6:
        return `${indent}throw new Error(\`${rng.pick(WORDS)} \${${a}} is not a ${rng.pick(WORDS)}\`);`;
      case 7:
        return `${indent}const re = /"(${a}|${b})"\\s*:\\s*"([^"\\\\]*)"/;`;
      case 8:
        return `${indent}\t${a}: ${rng.int(0, 99999)}, ${b}: "${rng.pick(WORDS)}",`;
      default:
        return `${indent}return ${a} ?? ${b};`;
    }
  }

  /** Source code of about `chars` characters. */
  snippet(chars) {
    let out = "";
    while (out.length < chars) out += `${this.codeLine()}\n`;
    return out.trimEnd();
  }

  /** A numbered file listing like a read tool prints, about `chars` characters. */
  code(chars) {
    let n = this.rng.int(1, 400);
    return this.snippet(chars).replace(/^/gm, () => `${String(n++).padStart(4)}\t`);
  }

  /** Command output (tests, compiler, logs) of about `chars` characters. */
  shell(chars) {
    const { rng } = this;
    let out = "";
    while (out.length < chars) {
      const file = rng.pick(FILES);
      switch (rng.int(0, 5)) {
        case 0:
          out += ` ✓ ${file} (${rng.int(1, 60)} tests) ${rng.int(1, 900)}ms\n`;
          break;
        case 1:
          out += `${file}:${rng.int(1, 500)}:${rng.int(1, 80)} - error TS${rng.int(2000, 2999)}: ${this.sentence()}\n`;
          break;
        case 2:
          out += `[${String(rng.int(0, 23)).padStart(2, "0")}:${String(rng.int(0, 59)).padStart(2, "0")}:${String(rng.int(0, 59)).padStart(2, "0")}] INFO ${this.sentence()} {"${rng.pick(IDENTS)}":${rng.int(0, 1e6)},"ok":true}\n`;
          break;
        case 3:
          out += `-rw-r--r--  1 dev dev ${String(rng.int(0, 99999)).padStart(6)} Mar  2 10:${String(rng.int(0, 59)).padStart(2, "0")} ${file}\n`;
          break;
        case 4:
          out += `    at ${rng.pick(IDENTS)} (C:\\Users\\dev\\project\\${file.replace(/\//g, "\\")}:${rng.int(1, 500)}:${rng.int(1, 80)})\n`;
          break;
        default:
          out += `${this.codeLine()}\n`;
      }
    }
    return out.trimEnd();
  }

  base64(chars) {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let out = "";
    for (let i = 0; i < chars; i++) out += alphabet[this.rng.u32() & 63];
    return out;
  }

  base62(chars) {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let out = "";
    for (let i = 0; i < chars; i++) out += alphabet[this.rng.u32() % 62];
    return out;
  }

  /** A scaled heavy-tailed length. */
  len(median, max) {
    return Math.max(1, Math.round(this.rng.length(median, max) * this.scale));
  }
}

// ---- Session ---------------------------------------------------------------------------------

const MODELS = [
  { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", price: [3, 15, 0.3, 3.75] },
  { api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-1", price: [15, 75, 1.5, 18.75] },
  { api: "openai-responses", provider: "openai", model: "gpt-5", price: [1.25, 10, 0.125, 0] },
  { api: "google-generative-ai", provider: "google", model: "gemini-2.5-pro", price: [1.25, 10, 0.31, 0] },
];
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"];
const LABELS = ["checkpoint", "before refactor", "good state", "tests green", "try again from here", "bug repro", "release", "wip"];
const SESSION_NAMES = ["Refactor the session parser", "Session parser: incremental analysis", "LSP for Pi sessions"];

/** Generates the session text (a string ending with "\n"). */
export function generateSession(params = DEFAULT_PARAMS) {
  const p = { ...DEFAULT_PARAMS, ...params };
  const rng = makeRng(p.seed);
  const text = new TextMaker(rng, p.textScale);
  const out = [];
  const usedIds = new Set();
  let clock = Date.parse(p.startTime);
  let entryCount = 0;
  let tip = null; // parentId for the next entry
  let model = MODELS[0];
  let thinkingLevel = "medium";
  let cumulativeInput = 2000;

  const tick = (lo, hi) => (clock += rng.int(lo, hi));
  const iso = () => new Date(clock).toISOString();
  const newId = () => {
    for (;;) {
      const id = rng.u32().toString(16).padStart(8, "0");
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const emit = (object) => out.push(JSON.stringify(object));
  /** Appends an entry of `type` under `tip` and moves `tip` to it. */
  const append = (type, fields) => {
    const entry = { type, id: newId(), parentId: tip, timestamp: iso(), ...fields };
    emit(entry);
    entryCount++;
    tip = entry.id;
    return entry;
  };

  // Header: UUIDv7 from the start time, like Pi 0.73+.
  const hex = (n) => Array.from({ length: n }, () => (rng.u32() & 15).toString(16)).join("");
  const ms = clock.toString(16).padStart(12, "0");
  const sessionId = `${ms.slice(0, 8)}-${ms.slice(8)}-7${hex(3)}-${"89ab"[rng.u32() & 3]}${hex(3)}-${hex(12)}`;
  emit({ type: "session", version: 3, id: sessionId, timestamp: iso(), cwd: p.cwd });

  const usage = (outputTokens) => {
    const input = rng.int(1, 4000);
    const cacheRead = cumulativeInput;
    const cacheWrite = rng.int(0, 3000);
    cumulativeInput = Math.min(180_000, cumulativeInput + cacheWrite + input);
    const [pi, po, pr, pw] = model.price;
    const round = (x) => Math.round(x * 1e9) / 1e9;
    const cost = {
      input: round((input * pi) / 1e6),
      output: round((outputTokens * po) / 1e6),
      cacheRead: round((cacheRead * pr) / 1e6),
      cacheWrite: round((cacheWrite * pw) / 1e6),
    };
    cost.total = round(cost.input + cost.output + cost.cacheRead + cost.cacheWrite);
    return { input, output: outputTokens, cacheRead, cacheWrite, totalTokens: input + outputTokens + cacheRead + cacheWrite, cost };
  };

  const toolCallArgs = (tool) => {
    switch (tool) {
      case "read":
        return { path: rng.pick(FILES) };
      case "bash":
        return rng.chance(0.3) ? { command: rng.pick(COMMANDS), timeout: 120 } : { command: rng.pick(COMMANDS) };
      case "edit":
        return { path: rng.pick(FILES), oldText: text.snippet(text.len(120, 2000)), newText: text.snippet(text.len(140, 2000)) };
      default:
        return { path: rng.pick(FILES), content: text.snippet(text.len(600, 8000)) };
    }
  };

  const assistant = (toolCalls) => {
    const content = [];
    const thinks = thinkingLevel !== "off" && model.provider === "anthropic" && rng.chance(0.55);
    if (thinks) content.push({ type: "thinking", thinking: text.prose(text.len(220, 4000)), thinkingSignature: text.base64(rng.int(60, 400)) });
    if (toolCalls.length === 0 || rng.chance(0.35)) content.push({ type: "text", text: text.prose(text.len(toolCalls.length === 0 ? 400 : 90, 6000)) });
    for (const call of toolCalls) content.push({ type: "toolCall", id: call.id, name: call.name, arguments: toolCallArgs(call.name) });
    const requestStart = clock;
    tick(1500, 40_000);
    const message = { role: "assistant", content, api: model.api, provider: model.provider, model: model.model };
    if (model.provider !== "google") message.responseId = model.provider === "anthropic" ? `msg_01${text.base62(22)}` : `resp_${hex(32)}`;
    message.usage = usage(rng.int(20, 2500));
    message.stopReason = toolCalls.length > 0 ? "toolUse" : "stop";
    message.timestamp = requestStart;
    return append("message", { message });
  };

  let nextBig = 0;
  const bigAt = Array.from({ length: p.bigLines }, (_, i) => Math.floor((p.entries * (i + 0.5)) / p.bigLines));

  const toolResult = (call) => {
    tick(20, 4000);
    let output;
    let details;
    let isError = false;
    if (nextBig < bigAt.length && entryCount >= bigAt[nextBig]) {
      // A huge output: a long log or a big generated file.
      nextBig++;
      // Grown to the target line length, measured as JSON (escapes included), less the entry's own fields.
      const chunks = [];
      for (let length = 0; length < p.bigLineChars - 400; ) {
        const chunk = call.name === "read" ? text.code(2000) : text.shell(2000);
        chunks.push(chunk);
        length += JSON.stringify(chunk).length - 1;
      }
      output = chunks.join("\n");
    } else {
      switch (call.name) {
        case "read":
          output = text.code(text.len(700, 30_000));
          break;
        case "bash":
          isError = rng.chance(0.08);
          output = text.shell(text.len(350, 30_000));
          if (isError) output += `\n\nCommand exited with code ${rng.int(1, 2)}`;
          break;
        case "edit":
          output = `Successfully replaced text in ${rng.pick(FILES)}.`;
          details = { diff: text.snippet(text.len(200, 3000)).replace(/^/gm, () => rng.pick(["+", "-", " "])), firstChangedLine: rng.int(1, 400) };
          break;
        default:
          output = `Successfully wrote ${rng.int(100, 20000)} bytes to ${rng.pick(FILES)}`;
      }
    }
    const message = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: output }] };
    if (details) message.details = details;
    message.isError = isError;
    message.timestamp = clock;
    tick(1, 5);
    return append("message", { message });
  };

  const user = () => {
    tick(5000, 180_000);
    const content = rng.chance(0.15)
      ? `${text.prose(text.len(150, 2000))}\n\n\`\`\`ts\n${text.snippet(text.len(300, 5000))}\n\`\`\``
      : text.prose(text.len(110, 3000));
    const message = { role: "user", content, timestamp: clock };
    tick(1, 5);
    return append("message", { message });
  };

  /** One turn: a user message, tool rounds, a final answer; at most `budget` entries (>= 2). */
  const turn = (budget, onUser) => {
    const u = user();
    onUser?.(u);
    let left = budget - 1;
    const rounds = rng.int(0, 5);
    for (let r = 0; r < rounds && left >= 3; r++) {
      const n = Math.min(left - 2, rng.chance(0.8) ? 1 : rng.int(2, 3));
      const calls = [];
      for (let i = 0; i < n; i++) calls.push({ id: `toolu_01${text.base62(22)}`, name: rng.pick(["read", "read", "bash", "bash", "edit", "write"]) });
      assistant(calls);
      for (const call of calls) toolResult(call);
      left -= 1 + n;
    }
    assistant([]);
  };

  // ---- The main chain ----
  append("model_change", { provider: model.provider, modelId: model.model });
  tick(1, 3);
  append("thinking_level_change", { thinkingLevel });

  /** Main-chain user messages, oldest first: branch points and compaction boundaries. */
  const mainUsers = [];
  const mainEntries = [];
  const compactAt = Array.from({ length: p.compactions }, (_, i) => Math.floor((p.entries * (i + 1)) / (p.compactions + 1)));
  let nextCompaction = 0;
  let nextBranch = rng.int(p.branchEvery[0], p.branchEvery[1]);
  let nextLabel = rng.int(p.labelEvery / 2, p.labelEvery * 1.5);
  let nextChange = rng.int(p.changeEvery / 2, p.changeEvery * 1.5);
  let named = false;
  let lastCompactionKept = 0;

  let renamed = false;
  // Every pass ends with a main-chain turn, so the last line (Pi's leaf) is the main tip.
  for (;;) {
    turn(Infinity, (u) => mainUsers.push(u));
    // Remember some main-chain entries as label targets (cheap: one per turn).
    mainEntries.push(tip);

    if (!named && mainUsers.length >= 3) {
      named = true;
      tick(1000, 20_000);
      append("session_info", { name: SESSION_NAMES[0] });
    }
    if (entryCount >= p.entries) break;

    if (nextCompaction < compactAt.length && entryCount >= compactAt[nextCompaction]) {
      nextCompaction++;
      // Keep the last few turns; the kept boundary is a user message (a valid cut point).
      const keepFrom = Math.max(lastCompactionKept, mainUsers.length - rng.int(3, 12));
      lastCompactionKept = keepFrom;
      const kept = mainUsers[keepFrom];
      tick(20_000, 90_000);
      const readFiles = Array.from({ length: rng.int(1, 6) }, () => rng.pick(FILES));
      const modifiedFiles = Array.from({ length: rng.int(0, 4) }, () => rng.pick(FILES));
      const summary = `## Goal\n${text.sentence()}\n\n## Progress\n${Array.from({ length: rng.int(4, 12) }, () => `- ${text.sentence()}`).join("\n")}\n\n## Key decisions\n${text.prose(text.len(900, 6000))}\n\n## Next steps\n- ${text.sentence()}`;
      append("compaction", {
        summary,
        firstKeptEntryId: kept.id,
        tokensBefore: rng.int(120_000, 190_000),
        details: { readFiles: [...new Set(readFiles)], modifiedFiles: [...new Set(modifiedFiles)] },
      });
      cumulativeInput = 8000;
    }

    if (entryCount >= nextLabel) {
      nextLabel = entryCount + rng.int(p.labelEvery / 2, p.labelEvery * 1.5);
      tick(500, 5000);
      const target = rng.chance(0.5) ? mainUsers[rng.int(Math.max(0, mainUsers.length - 50), mainUsers.length - 1)].id : rng.pick(mainEntries);
      append("label", { targetId: target, label: `${rng.pick(LABELS)} ${rng.int(1, 99)}` });
    }

    if (entryCount >= nextChange) {
      nextChange = entryCount + rng.int(p.changeEvery / 2, p.changeEvery * 1.5);
      tick(500, 5000);
      if (rng.chance(0.5)) {
        model = rng.pick(MODELS.filter((m) => m !== model));
        append("model_change", { provider: model.provider, modelId: model.model });
      } else {
        thinkingLevel = rng.pick(THINKING_LEVELS.filter((l) => l !== thinkingLevel));
        append("thinking_level_change", { thinkingLevel });
      }
    }

    if (entryCount >= nextBranch && mainUsers.length > 4) {
      nextBranch = entryCount + rng.int(p.branchEvery[0], p.branchEvery[1]);
      // Go back to one of the last few user messages and re-prompt from its parent.
      const from = mainUsers[rng.int(mainUsers.length - 4, mainUsers.length - 1)];
      const mainTip = tip;
      tip = from.parentId;
      turn(rng.int(p.branchLength[0], p.branchLength[1]));
      const branchTip = tip;
      // Back to the main tip; Pi 1.x's branchWithSummary stores the abandoned tip as fromId.
      tip = mainTip;
      if (rng.chance(p.branchSummaryShare)) {
        tick(5000, 30_000);
        append("branch_summary", { fromId: branchTip, summary: text.prose(text.len(500, 3000)), details: { readFiles: [rng.pick(FILES)], modifiedFiles: [] } });
      }
    }

    if (named && !renamed && entryCount > p.entries / 2) {
      renamed = true;
      tick(1000, 20_000);
      append("session_info", { name: SESSION_NAMES[1] });
    }
  }
  if (nextBig < bigAt.length) throw new Error(`only ${nextBig} of ${bigAt.length} big outputs were placed`);
  return `${out.join("\n")}\n`;
}

// ---- Reuse -----------------------------------------------------------------------------------

function generatorHash() {
  return createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 16);
}

/**
 * Returns the path of a session generated with `params`, generating it only when there is no file
 * from the same parameters and the same generator script.
 */
export function ensureSession({ path = DEFAULT_PATH, params = DEFAULT_PARAMS, force = false, log = () => {} } = {}) {
  const p = { ...DEFAULT_PARAMS, ...params };
  const metaPath = `${path}.meta.json`;
  const wanted = { params: p, generator: generatorHash() };
  if (!force && existsSync(path) && existsSync(metaPath)) {
    try {
      const meta = JSON.parse(readFileSync(metaPath, "utf8"));
      if (JSON.stringify({ params: meta.params, generator: meta.generator }) === JSON.stringify(wanted) && statSync(path).size === meta.bytes) {
        log(`reusing ${path} (${meta.bytes} bytes, sha256 ${meta.sha256.slice(0, 16)}…)`);
        return { path, meta, generated: false };
      }
    } catch {
      // An unreadable meta file: regenerate.
    }
  }
  const started = performance.now();
  const text = generateSession(p);
  const bytes = Buffer.byteLength(text);
  const sha256 = createHash("sha256").update(text).digest("hex");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  const meta = { ...wanted, bytes, sha256 };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  log(`generated ${path} (${bytes} bytes, sha256 ${sha256.slice(0, 16)}…) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { path, meta, generated: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf("--out");
  const path = outIndex >= 0 ? resolve(args[outIndex + 1]) : DEFAULT_PATH;
  const { meta } = ensureSession({ path, force: args.includes("--force"), log: (m) => console.log(m) });
  console.log(JSON.stringify({ path, bytes: meta.bytes, sha256: meta.sha256 }));
}
