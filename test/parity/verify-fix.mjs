#!/usr/bin/env node
// Verifies, against the REAL Pi, the claim "`check --fix` turns every repairable broken session into one that Pi
// opens with the same entries" for every fault fixture (fixtures/fault-*.jsonl).
//
// How to run (from the repo root, after `npx tsc -p server`):
//
//     node test/parity/verify-fix.mjs [--only <substring>] [--jobs N] [--json] [--unsafe-fixes]
//
// With --unsafe-fixes the CLI runs as `check --fix --unsafe-fixes` (the fixes that guess too: recovered cut-off
// entries, deleted lines that cannot be recovered, re-linked dangling parents), and the same verdicts apply; an
// entry the fix recovered is one Pi did not load from the original, counted as "extra".
//
// Inputs (nothing else is read): the fixtures next to this file, the built CLI (bin/pi-session-lsp.js -> out/), and
// the two real Pi packages, found by piPackages.mjs (its header says where it looks).
//
// For each fixture:
//   1. copy it to a temp folder and run `node bin/pi-session-lsp.js check --fix --format json COPY` (writes COPY.bak
//      and the fixed COPY); record what it fixed and what diagnostics are left;
//   2. for each Pi version, on a fresh COPY of the ORIGINAL and of the FIXED file (never the fixture itself), in a
//      child process killed with SIGKILL on timeout (Pi hangs on parentId cycles; its index installs SIGTERM handlers):
//      `SessionManager.open(copy)` (did it throw / hang / change the file?), `getEntries()`, `buildSessionContext()`
//      and `getTree()` (did they finish?). Every child seeds Math.random / crypto.randomUUID / randomBytes /
//      getRandomValues the same way for the original and the fixed file, so ids Pi invents (v1 migration) match;
//      the original's context/tree get only 5 s (informative: 1.6.0 throws RangeError on a cycle after 5-15 s, so
//      "no result in 5 s" vs "threw RangeError" there depends on machine load);
//   3. compare the entries Pi loaded from the FIXED file with a baseline:
//      - the entries Pi loaded from the ORIGINAL, when Pi opened it (unchanged, or migrated v1/v2);
//      - otherwise (Pi threw, or replaced the file by a fresh header) every line of the original that parses as a
//        JSON object and is not a `type: "session"` header ("parseable entries").
//      Bare non-object lines (`false`, `0`) that Pi 0.74.2 returns as "entries" are not counted as entries; when
//      the fix deletes one, the table says so. Entries are matched in file order by content with `id` and `parentId`
//      left out (the fix gives duplicate-id holders fresh ids and re-links one parentId per cycle on purpose). For matched pairs it then counts how many
//      kept their id, and how many parentIds do not map to the same (renamed) parent: those are re-links.
//
// Verdict per fixture (and exit status 1 if any row is not OK):
//   OK            the fixed file opens in both Pis without being changed or refused (a v1/v2 migration on open is
//                 accepted when Pi migrated the original too), buildSessionContext and getTree finish, every baseline
//                 entry is kept;
//   STILL-BROKEN  Pi still throws / hangs / rewrites on the fixed file, or buildSessionContext / getTree throw or hang;
//   WORSE         the fixed file loses baseline entries, or something that worked on the original fails on the fixed file.
//
// Output: a Markdown table on stdout (and one JSON object per fixture with --json), progress on stderr.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PI_PACKAGES, sessionManagerOf } from "./piPackages.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const FIXTURES = path.join(HERE, "fixtures");
const CLI = path.join(REPO, "bin", "pi-session-lsp.js");

const VERSIONS = {
  "0.74.2": { ...PI_PACKAGES["0.74.2"], timeoutMs: 5000 },
  // 1.6.0 throws RangeError on a cycle after 5-15 s; a healthy file takes milliseconds.
  "1.6.0": { ...PI_PACKAGES["1.6.0"], timeoutMs: 30000 },
};
/** The original's context is only informative: a short timeout (a cycle never finishes in 0.74.2; 1.6.0 needs > 5 s). */
const ORIGINAL_CONTEXT_TIMEOUT_MS = 5000;
const STARTUP_TIMEOUT_MS = 60000;

// =====================================================================================================
// Child: one Pi version, one file: open + entries + context
// =====================================================================================================

function hashSeed(str) {
  let h = 2166136261 >>> 0;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

async function installDeterminism(seed) {
  let state = hashSeed(seed);
  const next = () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const fill = (view) => {
    const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < b.length; i++) b[i] = Math.floor(next() * 256);
    return view;
  };
  const crypto = (await import("node:crypto")).default;
  const { syncBuiltinESMExports } = await import("node:module");
  crypto.randomUUID = () => {
    const b = fill(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  crypto.randomBytes = (n, cb) => {
    const buf = fill(Buffer.alloc(n));
    if (cb) process.nextTick(cb, null, buf);
    return buf;
  };
  crypto.randomFillSync = (v) => fill(v);
  globalThis.crypto.getRandomValues = (v) => fill(v);
  globalThis.crypto.randomUUID = crypto.randomUUID;
  syncBuiltinESMExports();
  Math.random = next;
  const RealDate = Date;
  let now = Date.UTC(2026, 3, 1, 12, 0, 0);
  class FakeDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now++);
      else super(...args);
    }
    static now() {
      return now++;
    }
  }
  globalThis.Date = FakeDate;
}

const emit = (o) => fs.writeSync(1, `${JSON.stringify(o)}\n`);
const errText = (e) => `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}`;

async function childMain(task) {
  await installDeterminism(task.seed);
  const mod = await import(pathToFileURL(sessionManagerOf(task.pkg)).href);
  const before = fs.readFileSync(task.file, "utf8");
  emit({ op: "open", start: true });
  let sm;
  try {
    sm = mod.SessionManager.open(task.file);
  } catch (e) {
    emit({ op: "open", status: "threw", error: errText(e) });
    return;
  }
  const after = fs.readFileSync(task.file, "utf8");
  let entries;
  try {
    entries = sm.getEntries();
  } catch (_e) {
    entries = null;
  }
  emit({
    op: "open",
    status: "ok",
    fileChanged: after !== before,
    appendOnly: after !== before && before.length > 0 && after.startsWith(before),
    afterLines: after.split("\n").filter((l) => l.trim()).length,
    entries,
    leafId: sm.getLeafId() ?? null,
  });
  emit({ op: "context", start: true });
  try {
    const ctx = sm.buildSessionContext();
    emit({ op: "context", status: "ok", messages: ctx.messages.length, ctx: JSON.stringify(ctx) });
  } catch (e) {
    emit({ op: "context", status: "threw", error: errText(e) });
  }
  emit({ op: "tree", start: true });
  try {
    emit({ op: "tree", status: "ok", roots: sm.getTree().length });
  } catch (e) {
    emit({ op: "tree", status: "threw", error: errText(e) });
  }
}

// =====================================================================================================
// Parent
// =====================================================================================================

/** Runs open+context for one file copy; `ms` is the timeout of each call. Never touches `file`'s original. */
function probe(version, file, seed, ctxTimeoutMs) {
  const v = VERSIONS[version];
  return new Promise((resolve) => {
    const child = spawn(v.node, [fileURLToPath(import.meta.url), "--child", JSON.stringify({ pkg: v.pkg, file, seed })], {
      cwd: path.dirname(file),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: path.dirname(file),
        PI_CODING_AGENT_DIR: path.join(path.dirname(file), ".pi-agent"),
        TZ: "UTC",
        LANG: "C",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const res = {};
    let buf = "";
    let stderr = "";
    let current = "<startup>";
    let timer;
    let killedFor = null;
    const arm = (ms, op) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        killedFor = op;
        child.kill("SIGKILL");
      }, ms);
    };
    arm(STARTUP_TIMEOUT_MS, current);
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.start) {
          current = msg.op;
          arm(msg.op === "open" ? v.timeoutMs : ctxTimeoutMs, msg.op);
        } else {
          clearTimeout(timer);
          current = null;
          res[msg.op] = msg;
        }
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (current)
        res[current] =
          killedFor === current
            ? { status: "hung", ms: current === "open" ? v.timeoutMs : ctxTimeoutMs }
            : { status: "crashed", error: `exit ${code ?? signal}: ${stderr.trim().split("\n").pop() ?? ""}` };
      resolve(res);
    });
  });
}

/** Parseable entries of a file: lines that parse as a JSON object (not an array), minus `type: "session"` headers. */
function parseableEntries(text) {
  const out = [];
  for (let line of text.replace(/^\uFEFF/, "").split("\n")) {
    line = line.trim();
    if (!line) continue;
    let v;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (v && typeof v === "object" && !Array.isArray(v) && v.type !== "session") out.push(v);
  }
  return out;
}

// Link fields are ids, which a fix may renew (duplicate ids) or choose (the v1 migration, whose
// stable ids differ from the random ones Pi invents); matching ignores them.
const strip = (e) => {
  if (!e || typeof e !== "object") return JSON.stringify(e);
  const { id, parentId, firstKeptEntryId, ...rest } = e;
  return JSON.stringify(rest);
};

const isObject = (e) => e !== null && typeof e === "object" && !Array.isArray(e);

/**
 * Matches baseline entries to fixed entries in order by content (id/parentId ignored). Bare non-object values
 * (`false`, `0`, `""` lines that Pi 0.74.2 returns as "entries") are not entries Pi can use: they are counted apart
 * (`bareDropped`), not as lost entries.
 */
function compareEntries(allBase, fixed) {
  const base = allBase.filter(isObject);
  const bare = allBase.filter((e) => !isObject(e)).map((e) => JSON.stringify(e));
  const fixedBare = fixed.filter((e) => !isObject(e)).map((e) => JSON.stringify(e));
  const bareDropped = bare.filter((b) => !fixedBare.includes(b));
  fixed = fixed.filter(isObject);
  let k = 0;
  const pairs = [];
  const missing = [];
  for (const b of base) {
    const key = strip(b);
    let m = -1;
    for (let i = k; i < fixed.length; i++)
      if (strip(fixed[i]) === key) {
        m = i;
        break;
      }
    if (m < 0) {
      missing.push(b);
      continue;
    }
    pairs.push([b, fixed[m]]);
    k = m + 1;
  }
  const idMap = new Map(pairs.map(([b, f]) => [b?.id, f?.id]));
  let idChanged = 0;
  let relinked = 0;
  for (const [b, f] of pairs) {
    if (b?.id !== f?.id) idChanged++;
    const expectParent = idMap.has(b?.parentId) ? idMap.get(b?.parentId) : b?.parentId;
    if (f?.parentId !== expectParent) relinked++;
  }
  return {
    total: base.length,
    kept: pairs.length,
    extra: fixed.length - pairs.length,
    idChanged,
    relinked,
    bareDropped,
    missing: missing.map((e) => (e && typeof e === "object" ? (e.id ?? e.type) : e)),
  };
}

/** Outcome of open on a file: ok | appended | migrated | fresh-header (entries dropped) | threw | hung | crashed. */
function openOutcome(r, parseableCount) {
  const o = r.open;
  if (!o) return { kind: "crashed", text: "no result" };
  if (o.status !== "ok") return { kind: o.status, text: o.status === "threw" ? `open threw (${o.error.replace(/: \/.*$/, "")})` : `open ${o.status}` };
  if (!o.fileChanged) return { kind: "ok", text: "opens" };
  if (o.appendOnly) return { kind: "appended", text: "opens, appends \\n" };
  if ((o.entries?.length ?? 0) === 0 && o.afterLines <= 1)
    return parseableCount > 0
      ? { kind: "fresh-header", text: "rewrote to a fresh header (entries dropped)" }
      : { kind: "fresh-header", text: "rewrote to a fresh header (nothing to drop)" };
  return { kind: "migrated", text: "opens, rewrites (migration)" };
}

function ctxOutcome(r) {
  const c = r.context;
  if (!c) return { kind: "n/a", text: "" };
  if (c.status === "ok") return { kind: "ok", text: `${c.messages} msgs` };
  if (c.status === "hung") return { kind: "hung", text: `context no result in ${c.ms / 1000} s` };
  return { kind: c.status, text: `context ${c.status} (${(c.error ?? "").replace(/^(\w+): .*/, "$1")})` };
}

async function verifyFixture(name, unsafe) {
  const src = path.join(FIXTURES, name);
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-verify-fix-")));
  try {
    const original = fs.readFileSync(src, "utf8");
    const fixedPath = path.join(work, name);
    fs.copyFileSync(src, fixedPath);
    const cli = spawnSync(process.execPath, [CLI, "check", "--fix", ...(unsafe ? ["--unsafe-fixes"] : []), "--format", "json", fixedPath], {
      encoding: "utf8",
      timeout: 60000,
      killSignal: "SIGKILL",
    });
    let report = {};
    try {
      report = JSON.parse(cli.stdout.trim().split("\n").pop());
    } catch {
      report = { error: (cli.stderr || cli.stdout || `exit ${cli.status}`).trim() };
    }
    const fixedText = fs.readFileSync(fixedPath, "utf8");
    const changed = fixedText !== original;
    const fixedSummary = report.fixed
      ? Object.entries(report.fixed)
          .map(([c, n]) => (n > 1 ? `${c} ×${n}` : c))
          .join(", ")
      : report.error
        ? `CLI error: ${report.error}`
        : "nothing";
    const left = (report.diagnostics ?? []).filter((d) => d.severity === 1).map((d) => d.code);
    const parse = parseableEntries(original);
    const unsafeFixes = (report.unsafeFixes ?? []).map((u) => `line ${u.line ?? "?"}: ${u.summary}`);
    const row = { fixture: name, fixed: fixedSummary, unsafeFixes, changed, cliStatus: cli.status, errorsLeft: [...new Set(left)], versions: {} };
    for (const version of Object.keys(VERSIONS)) {
      const run = async (text, tag, ctxMs) => {
        const dir = path.join(work, `${version}-${tag}`);
        fs.mkdirSync(dir);
        const copy = path.join(dir, "session.jsonl");
        fs.writeFileSync(copy, text);
        return probe(version, copy, `verify:${version}:${name}`, ctxMs);
      };
      const o = await run(original, "orig", ORIGINAL_CONTEXT_TIMEOUT_MS);
      const f = changed ? await run(fixedText, "fixed", VERSIONS[version].timeoutMs) : o;
      const oOpen = openOutcome(o, parse.length);
      const fOpen = openOutcome(f, parseableEntries(fixedText).length);
      const oCtx = ctxOutcome(o);
      const fCtx = ctxOutcome(f);
      const origOpened = oOpen.kind === "ok" || oOpen.kind === "appended" || oOpen.kind === "migrated";
      const baseline = origOpened ? (o.open.entries ?? []) : parse;
      const cmp =
        f.open?.status === "ok" && f.open.entries
          ? compareEntries(baseline, f.open.entries)
          : {
              total: baseline.filter(isObject).length,
              kept: 0,
              extra: 0,
              idChanged: 0,
              relinked: 0,
              bareDropped: [],
              missing: baseline.filter(isObject).map((e) => e.id ?? e.type),
            };
      const sameCtx = origOpened && o.context?.status === "ok" && f.context?.status === "ok" ? o.context.ctx === f.context.ctx : null;
      const problems = [];
      let verdict = "OK";
      const fOpenGood = fOpen.kind === "ok" || fOpen.kind === "appended" || (fOpen.kind === "migrated" && oOpen.kind === "migrated");
      if (!fOpenGood) problems.push(`fixed: ${fOpen.text}`);
      if (fOpen.kind === "appended") problems.push("fixed file still changed by open (final newline)");
      if (f.open?.status === "ok" && fCtx.kind !== "ok") problems.push(`fixed: ${fCtx.text}`);
      const fTree = f.tree?.status ?? "n/a";
      if (f.open?.status === "ok" && fCtx.kind === "ok" && fTree !== "ok") problems.push(`fixed: getTree ${fTree}`);
      if (cmp.kept < cmp.total) problems.push(`lost ${cmp.total - cmp.kept} entr${cmp.total - cmp.kept === 1 ? "y" : "ies"} (${cmp.missing.join(", ")})`);
      const worse = (origOpened && !fOpenGood) || (oCtx.kind === "ok" && fCtx.kind !== "ok") || cmp.kept < cmp.total;
      if (worse) verdict = "WORSE";
      else if (!fOpenGood || (f.open?.status === "ok" && (fCtx.kind !== "ok" || fTree !== "ok"))) verdict = "STILL-BROKEN";
      row.versions[version] = {
        original: `${oOpen.text}${o.open?.status === "ok" ? `, ${o.open.entries?.length ?? "?"} entries; ${oCtx.text}${o.context?.status === "ok" && o.tree?.status !== "ok" ? `; getTree ${o.tree?.status ?? "n/a"}` : ""}` : ""}`,
        fixedOutcome: `${changed ? "" : "file unchanged: "}${fOpen.text}${f.open?.status === "ok" ? `, ${f.open.entries?.length ?? "?"} entries; ${fCtx.text}` : ""}`,
        baseline: origOpened ? "pi" : "parseable",
        kept: `${cmp.kept}/${cmp.total}`,
        idChanged: cmp.idChanged,
        relinked: cmp.relinked,
        extra: cmp.extra,
        bareDropped: cmp.bareDropped,
        sameContext: sameCtx,
        verdict,
        problems,
      };
    }
    return row;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

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

function cell(v) {
  const notes = [];
  if (v.idChanged) notes.push(`${v.idChanged} id${v.idChanged > 1 ? "s" : ""} renewed`);
  if (v.relinked) notes.push(`${v.relinked} re-linked`);
  if (v.extra) notes.push(`${v.extra} extra`);
  if (v.bareDropped.length) notes.push(`bare value ${v.bareDropped.join(", ")} that Pi returned as an entry is gone`);
  if (v.sameContext === false) notes.push("context differs");
  return `${v.verdict}: ${v.fixedOutcome}; kept ${v.kept}${v.baseline === "parseable" ? " parseable" : ""}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

async function main(argv) {
  const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null;
  const jobs = argv.includes("--jobs") ? Number(argv[argv.indexOf("--jobs") + 1]) : 2;
  const json = argv.includes("--json");
  const unsafe = argv.includes("--unsafe-fixes");
  for (const [version, v] of Object.entries(VERSIONS)) {
    if (!v.pkg || !v.node) {
      console.error(`Pi ${version} not found (see the header of this file for where it is looked up)`);
      process.exit(2);
    }
  }
  if (!fs.existsSync(path.join(REPO, "out", "main.js"))) {
    console.error("out/main.js missing: run `npx tsc -p server` first");
    process.exit(2);
  }
  const names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.startsWith("fault-") && f.endsWith(".jsonl") && (!only || f.includes(only)))
    .sort();
  const t0 = Date.now();
  const rows = await pool(names, jobs, async (name) => {
    const row = await verifyFixture(name, unsafe);
    console.error(
      `${name}: ${Object.entries(row.versions)
        .map(([ver, v]) => `${ver} ${v.verdict}`)
        .join(", ")}`,
    );
    return row;
  });
  const lines = [
    `| Fixture | check --fix${unsafe ? " --unsafe-fixes" : ""} changed | Pi 0.74.2 on the original | Pi 0.74.2 on the fixed file | Pi 1.6.0 on the original | Pi 1.6.0 on the fixed file |`,
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const fixedCol = r.changed
      ? r.fixed +
        (r.unsafeFixes.length ? ` (unsafe: ${r.unsafeFixes.join("; ")})` : "") +
        (r.errorsLeft.length ? `; errors left: ${r.errorsLeft.join(", ")}` : "")
      : `nothing${r.errorsLeft.length ? ` (errors left: ${r.errorsLeft.join(", ")})` : ""}`;
    const a = r.versions["0.74.2"];
    const b = r.versions["1.6.0"];
    lines.push(`| ${r.fixture} | ${fixedCol} | ${a.original} | ${cell(a)} | ${b.original} | ${cell(b)} |`);
  }
  console.log(lines.join("\n"));
  const bad = rows.filter((r) => Object.values(r.versions).some((v) => v.verdict !== "OK"));
  console.log(`\n${rows.length} fixtures, ${rows.length - bad.length} OK in both Pis, ${bad.length} not (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  for (const r of bad)
    for (const [ver, v] of Object.entries(r.versions))
      if (v.verdict !== "OK") console.log(`- ${r.fixture} (Pi ${ver}): ${v.verdict}: ${v.problems.join("; ")}`);
  if (json) for (const r of rows) console.log(JSON.stringify(r));
  process.exit(bad.length ? 1 : 0);
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
