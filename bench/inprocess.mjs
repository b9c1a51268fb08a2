#!/usr/bin/env node
// bench/inprocess.mjs: the in-process benchmark of pi-session-lsp (`npm run bench:inprocess`): the
// server's own functions timed inside one process, with no transport (`npm run bench`, bench/run.mjs,
// measures what a user sees: over stdio and as whole processes).
//
// What it measures, on the ~40 MB / ~50,000-entry / 400 KB-line session that bench/generate.mjs
// writes to bench/out/session-40mb.jsonl (generated once, reused while its parameters and the
// generator are unchanged), using the compiled server modules in ../out (run `npm run build` first;
// `npm run bench` does):
//   1. the file: size, line count, entry count, longest line;
//   2. "JSON.parse only": split the text on "\n" and JSON.parse every non-blank line (what Pi's
//      parseSessionEntries does), keeping the values; the floor any checker has to pay;
//   3. "full check": `new SessionDocument(uri, "jsonl", 1, text)` + `computeDiagnostics(doc)`, each
//      repetition on a fresh document, split into construct (split + per-line parse), analyze
//      (`doc.analysis`) and diagnostics; plus the diagnostics by severity (a valid file gives none);
//   4. the ratio full check / JSON.parse only (target <= 1.5);
//   5. re-analysis after an edit on an already analysed document: `doc.update([...], version + 1)`
//      then `computeDiagnostics(doc)`, for (a) one-character insertions into a string value of
//      entries in the middle of the file, each on a different line, not undone; (b) appending a
//      new entry line (a user message under the current leaf) at the end; and, for information,
//      (c) a one-character insertion into each ~400 KB line. Target: median <= 50 ms;
//   6. memory: RSS / heap after the check in this process, and in two child processes that do only
//      one thing each (JSON.parse only; construct + check), so their peak RSS
//      (`process.resourceUsage().maxRSS`) is not inflated by the other measurements;
//   7. features on the 40 MB session (`FEATURES`): hover (on the header, on an entry deep in the
//      main chain, inside a ~400 KB line), document symbols (cap 5,000, the server's default) and,
//      for information, the whole outline without a cap, folding ranges (limit 5,000), definition
//      (a parentId deep in the chain), references (the id of a branch point) and type hierarchy
//      (prepare + subtypes); the built context: listing the code lenses, resolving the header's
//      lens (the active context), a branch-tip lens mid-file and the last compaction's lens, the
//      `piSession/buildContext` computation (in-process, the JSON result object) for the active leaf
//      and for that branch tip and, for information, `JSON.stringify` of the active leaf's result
//      (what the stdio transport adds; the result is computed untimed first); fading hints over the
//      whole file; inlay hints for 100-line viewports (mid kept context after the last compaction,
//      the last 100 lines, compacted history) and, for information, for the whole document at once
//      (capped at 10,000). Each in a child process of its own (`featureChild`) on a freshly
//      opened document, timed as an editor meets it: cold (the first request after open and
//      analysis), after an edit (median and p90 over --feature-rounds rounds of a one-character edit
//      mid-file, the re-analysis, then the request; the re-analysis is timed and reported apart),
//      and warm (the same number of repeats without edits). Targets: hover, outline and folding
//      answer within 20 ms after an edit (the median); code lenses (listing and resolving) and
//      `piSession/buildContext` within 50 ms (issue 4).
// Timings are wall-clock (`performance.now()`), medians over repetitions that follow one warm-up;
// the JSON.parse-only and full-check repetitions alternate, so both see the same machine state; a
// `global.gc()` (needs --expose-gc) runs before each timed repetition, outside the timing, so every
// repetition starts from the same heap. Edits run without forced GCs, as in an editor. The machine
// may be shared: the header reports the share of the CPUs other processes used during the timings
// (from /proc/stat) and warns above 10%, when the numbers are not worth comparing.
//
// See also bench/profile.mjs (CPU profiles of the same workloads) and bench/cpuprofile-summary.mjs.
//
// Output: a readable table with targets and PASS/FAIL, then one line of JSON with every number.
// Exit status 0 regardless of the targets: this prints numbers, it is not a test.
//
// The compiled server is loaded from ../out, or from the directory in $OUT (to compare two builds).
//
// Usage: node --expose-gc bench/inprocess.mjs [--reps N] [--edits N] [--feature-rounds N] [--force-generate]

import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureSession } from "./generate.mjs";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TARGET_RATIO = 1.5;
const TARGET_EDIT_MS = 50;
export const URI = "file:///bench/session-40mb.jsonl";

/** Where the compiled server is loaded from: ../out, or the directory in $OUT (to compare two builds). */
const OUT_DIR = resolve(process.env.OUT ?? fileURLToPath(new URL("../out", import.meta.url)));

export function loadServer() {
  try {
    const load = (module) => require(`${OUT_DIR}/${module}`);
    const navigation = load("features/navigation.js");
    const hierarchy = load("features/hierarchy.js");
    const codeLens = load("features/codeLens.js");
    return {
      SessionDocument: load("core/session/document.js").SessionDocument,
      computeDiagnostics: load("features/diagnostics.js").computeDiagnostics,
      computeHover: load("features/hover.js").computeHover,
      computeDocumentSymbols: load("features/symbols.js").computeDocumentSymbols,
      computeFoldingRanges: load("features/folding.js").computeFoldingRanges,
      computeDefinition: navigation.computeDefinition,
      computeReferences: navigation.computeReferences,
      prepareHierarchy: hierarchy.prepareHierarchy,
      typeHierarchySubtypes: hierarchy.typeHierarchySubtypes,
      computeCodeLenses: codeLens.computeCodeLenses,
      resolveCodeLens: codeLens.resolveCodeLens,
      computeContextRequest: load("features/contextRequest.js").computeContextRequest,
      computeFadingHints: load("features/fading.js").computeFadingHints,
      computeInlayHints: load("features/inlayHints.js").computeInlayHints,
      computeCompletion: load("features/completion.js").computeCompletion,
    };
  } catch (error) {
    console.error(`bench: cannot load the compiled server from ${OUT_DIR} (${error.message}). Run \`npm run build\` first.`);
    process.exit(2);
  }
}

const gc = typeof global.gc === "function" ? global.gc : () => {};

// ---- Workloads -------------------------------------------------------------------------------

/** What Pi's parseSessionEntries does, minus the whole-text trim: split, skip blank lines, parse. */
export function parseOnly(text) {
  const lines = text.split("\n");
  const values = [];
  for (const line of lines) if (line.trim() !== "") values.push(JSON.parse(line));
  return values;
}

// ---- Statistics and formatting ----------------------------------------------------------------

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(samples) {
  return { median: round(median(samples)), min: round(Math.min(...samples)), max: round(Math.max(...samples)), samples: samples.map((x) => round(x)) };
}

const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const ms = (x) => `${x.toFixed(1)} ms`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;
const int = (n) => n.toLocaleString("en-US");

/**
 * Times each workload `reps` times after `warmup` untimed runs of each. The workloads take turns
 * (A B A B ...) so that both see the same machine conditions, which matters for their ratio.
 * Before each run, every workload's `reset()` drops what its previous run left alive (so each run
 * starts with the same live heap: the text) and a full GC runs, both outside the timing. The last
 * run's results stay alive.
 */
function measureInterleaved(workloads, { reps, warmup = 1 }) {
  const samples = workloads.map(() => []);
  for (let i = 0; i < warmup + reps; i++) {
    workloads.forEach((w, k) => {
      for (const other of workloads) other.reset();
      gc();
      const t0 = performance.now();
      w.run();
      const elapsed = performance.now() - t0;
      if (i >= warmup) samples[k].push(elapsed);
    });
  }
  return samples;
}

// ---- Machine load ------------------------------------------------------------------------------

/** Busy and total CPU time of the whole machine so far, in microseconds (Linux /proc/stat), or undefined. */
function machineCpu() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = fields[3] + (fields[4] ?? 0);
    const tick = 1e6 / 100; // USER_HZ is 100 on Linux
    return { busy: (total - idle) * tick, total: total * tick };
  } catch {
    return undefined;
  }
}

/**
 * Starts a measurement of how much CPU other processes take while we run. The function it returns
 * takes the CPU time (microseconds) our own child processes used meanwhile, which is not "other".
 */
function otherLoadMeter() {
  const start = { machine: machineCpu(), own: process.cpuUsage() };
  return (childMicros = 0) => {
    const machine = machineCpu();
    if (!machine || !start.machine) return undefined;
    const own = process.cpuUsage(start.own);
    const other = machine.busy - start.machine.busy - (own.user + own.system) - childMicros;
    return Math.max(0, other / (machine.total - start.machine.total));
  };
}

// ---- Memory child ------------------------------------------------------------------------------

/** Runs in a child process: one workload, then reports memory as JSON on stdout. */
function memoryChild(mode, path) {
  const { SessionDocument, computeDiagnostics } = loadServer();
  gc();
  const baseline = process.memoryUsage();
  let text = readFileSync(path, "utf8");
  gc();
  const withText = process.memoryUsage();
  let kept;
  if (mode === "parse") {
    kept = parseOnly(text);
  } else {
    kept = new SessionDocument(URI, "jsonl", 1, text);
    computeDiagnostics(kept);
  }
  // Drop our own reference to the text: whatever the result still holds of it is counted.
  text = undefined;
  gc();
  const after = process.memoryUsage();
  const out = {
    mode,
    baselineRss: baseline.rss,
    baselineHeapUsed: baseline.heapUsed,
    textHeap: withText.heapUsed - baseline.heapUsed,
    rss: after.rss,
    heapUsed: after.heapUsed,
    external: after.external,
    maxRss: process.resourceUsage().maxRSS * 1024,
    keptItems: Array.isArray(kept) ? kept.length : kept.lineCount,
    cpuMicros: ownCpuMicros(),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** CPU time this process has used since it started, in microseconds. */
function ownCpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function runMemoryChild(mode, path) {
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--memory-child", mode, path], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`memory child (${mode}) failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop());
}

// ---- Edits ---------------------------------------------------------------------------------------

const STRING_VALUE = /"(?:text|content|thinking|summary)":"/;

/** The position just inside the first text/content/thinking/summary string value of a line. */
function stringValueStart(text) {
  const match = STRING_VALUE.exec(text);
  return match ? match.index + match[0].length : -1;
}

/**
 * The edits of the benchmark, as functions of the document's current state (each returns one LSP
 * content change, or undefined when there is none left):
 *   middle: a one-character insertion into a string value of a different entry line each time,
 *           starting at the middle of the file (lines below 50,000 characters, one every ~97 lines);
 *   append: a new user-message entry under the current leaf, inserted as a new last line;
 *   bigLine: a one-character insertion into each line of 100,000 characters or more.
 */
export function editScenarios(doc) {
  const middle = [];
  for (let line = Math.floor(doc.lineCount / 2); line < doc.lineCount; line += 97) {
    for (let l = line; l < Math.min(doc.lineCount, line + 97); l++) {
      const character = doc.lines[l].length < 50_000 ? stringValueStart(doc.lines[l]) : -1;
      if (character >= 0) {
        middle.push({ line: l, character });
        break;
      }
    }
  }
  const big = [];
  for (let line = 0; line < doc.lineCount; line++) {
    const character = doc.lines[line].length >= 100_000 ? stringValueStart(doc.lines[line]) : -1;
    if (character >= 0) big.push({ line, character });
  }
  const insertX = (positions) => {
    let next = 0;
    return () => {
      const at = positions[next++];
      return at && { range: { start: at, end: at }, text: "x" };
    };
  };
  let appended = 0;
  const append = () => {
    const a = doc.analysis; // memoised by the previous computeDiagnostics
    const leaf = a.leaf;
    let n = 0xbe000000 + appended;
    while (a.byId.has(n.toString(16))) n += 0x100;
    appended++;
    const time = (leaf.parsed.time ?? Date.parse("2026-04-01T00:00:00.000Z")) + 60_000;
    const entry = {
      type: "message",
      id: n.toString(16),
      parentId: leaf.id,
      timestamp: new Date(time).toISOString(),
      message: { role: "user", content: `Benchmark append ${appended}: one more prompt.`, timestamp: time - 1 },
    };
    const last = doc.lineCount - 1; // the empty piece after the final newline
    return { range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } }, text: `${JSON.stringify(entry)}\n` };
  };
  return { middle: insertX(middle), append, bigLine: insertX(big) };
}

/** Applies up to `count` changes from `next` (one per version), each followed by computeDiagnostics. */
export function runEdits(doc, computeDiagnostics, next, count, onEdit = () => {}) {
  const runs = [];
  for (let i = 0; i < count; i++) {
    const change = next();
    if (!change) break;
    runs.push(timeEdit(doc, computeDiagnostics, change));
    onEdit(i);
  }
  return runs;
}

function timeEdit(doc, computeDiagnostics, change) {
  const t0 = performance.now();
  doc.update([change], doc.version + 1);
  const t1 = performance.now();
  const diagnostics = computeDiagnostics(doc);
  const t2 = performance.now();
  return { update: t1 - t0, diagnostics: t2 - t1, total: t2 - t0, count: diagnostics.length };
}

function editStats(runs) {
  const totals = runs.map((r) => r.total);
  return {
    ...stats(totals),
    p90: round(percentile(totals, 90)),
    updateMedian: round(median(runs.map((r) => r.update))),
    diagnosticsMedian: round(median(runs.map((r) => r.diagnostics))),
    diagnosticsAfter: runs.length ? runs[runs.length - 1].count : 0,
  };
}

// ---- Features ------------------------------------------------------------------------------------

/** The issue's target for hover, outline and folding: an answer within 20 ms, after an edit. */
const TARGET_FEATURE_MS = 20;
/** Issue 4's target for the code lenses (listing and resolving) and `piSession/buildContext`: 50 ms, after an edit. */
const TARGET_CONTEXT_MS = 50;
/** The outline cap the server uses by default (piSession.maxSymbols). */
const MAX_SYMBOLS = 5000;

const at = (line, character) => ({ line, character });

/** The position `skip` characters after the first `needle` on `line` (by default just past it). */
function after(doc, line, needle, skip = needle.length) {
  const i = doc.lines[line].indexOf(needle);
  if (i < 0) throw new Error(`bench: no ${needle} on line ${line + 1}`);
  return at(line, i + skip);
}

/** An assistant message on the active path, 90% of the way down the main chain. */
function deepEntry(a) {
  const path = a.activePath;
  for (let i = Math.floor(path.length * 0.9); i < path.length; i++) {
    if (path[i].parsed.object?.message?.role === "assistant") return path[i];
  }
  throw new Error("bench: no assistant message deep in the active path");
}

/** The deepest entry of the active path with two children or more (a branch point). */
function branchPoint(a) {
  for (let i = a.activePath.length - 1; i >= 0; i--) if (a.childrenOf(a.activePath[i]).length >= 2) return a.activePath[i];
  throw new Error("bench: no branch point on the active path");
}

/** The last line of 100,000 characters or more that holds an entry on the active path. */
function bigEntryLine(doc, a) {
  for (let line = doc.lineCount - 1; line >= 0; line--) {
    const entry = a.entryAtLine[line];
    if (doc.lines[line].length >= 100_000 && entry && a.onActivePath[entry.index]) return line;
  }
  throw new Error("bench: no line of 100,000 characters or more on the active path");
}

const where = (a, entry) => `line ${int(entry.line + 1)}, depth ${int(a.depth[entry.index])}`;

/** A hover's answer: its size and the start of its first line. */
function hoverAnswer(hover) {
  if (!hover) return "no hover";
  const text = hover.contents.value;
  const first = text.split("\n")[0].replace(/\*\*|`/g, "");
  return `${int(text.length)} chars: ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`;
}

const countSymbols = (list) => list.reduce((n, s) => n + 1 + (s.children ? countSymbols(s.children) : 0), 0);
const symbolLevels = (list) => list.reduce((d, s) => Math.max(d, s.children ? 1 + symbolLevels(s.children) : 1), 0);
const symbolsAnswer = (r) => `${int(countSymbols(r.symbols))} symbols, ${symbolLevels(r.symbols)} levels${r.truncated ? ", truncated" : ""}`;

/** The listed (unresolved) lenses of a kind. Listing memoises nothing, so this leaves no state behind. */
const listedLenses = (doc, s, kind) => s.computeCodeLenses(doc).filter((l) => l.data.kind === kind);

/** The listed branch-tip lens nearest the middle of the file. */
function middleBranchLens(doc, s) {
  const mid = doc.lineCount / 2;
  let best;
  for (const l of listedLenses(doc, s, "branch")) if (!best || Math.abs(l.data.line - mid) < Math.abs(best.data.line - mid)) best = l;
  if (!best) throw new Error("bench: no branch-tip lens");
  return best;
}

/** The lens of the last compaction in the file. */
function lastCompactionLens(doc, s) {
  const lens = listedLenses(doc, s, "compaction").at(-1);
  if (!lens) throw new Error("bench: no compaction lens");
  return lens;
}

/**
 * The first line of the context Pi keeps (0-based): the line after the last compaction on the active
 * path, or 0. Found without `contextSelection`, whose memo would spare the first request its cost.
 */
function keptStart(a) {
  for (let i = a.activePath.length - 1; i >= 0; i--) if (a.activePath[i].type === "compaction") return a.activePath[i].line + 1;
  return 0;
}

/** A viewport of 100 lines from `first` (0-based), as an editor asks for its inlay hints. */
const viewport = (first) => ({ start: at(first, 0), end: at(first + 99, Number.MAX_SAFE_INTEGER) });
const viewportLines = (first) => Array.from({ length: 100 }, (_, i) => first + i);

const short = (text, max = 70) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function lensesAnswer(lenses) {
  const byKind = {};
  for (const l of lenses) byKind[l.data.kind] = (byKind[l.data.kind] ?? 0) + 1;
  return `${int(lenses.length)} lenses: ${Object.entries(byKind)
    .map(([k, n]) => `${int(n)} ${k}`)
    .join(", ")}`;
}

const resolvedAnswer = (lens) => (lens.command ? lens.command.title : "no command");

function contextAnswer(answer) {
  if (!answer.ok) return `refused: ${answer.message}`;
  const { stats, error } = answer.result;
  if (error) return `no context: ${short(error.message)}`;
  const compaction = stats.compaction ? `, after the compaction on line ${int(stats.compaction.line + 1)}` : "";
  return `${int(stats.messages)} messages, ~${int(stats.estimatedTokens)} tokens${compaction}`;
}

/** A completion list's answer: how many items, whether cut, and the first label. */
function completionAnswer(list) {
  const first = list.items[0];
  return `${int(list.items.length)} items${list.isIncomplete ? " (incomplete)" : ""}${first ? `, first: ${short(String(first.label), 40)}` : ""}`;
}

/** The last line of the file holding an entry with a string parentId (an entry near the end). */
function lastParentIdLine(doc) {
  for (let line = doc.lineCount - 1; line >= 0; line--) if (doc.lines[line].includes('"parentId":"')) return line;
  throw new Error("bench: no entry with a parentId");
}

/** A toolResult message on the active path, 90% of the way down the main chain. */
function deepToolResult(a) {
  const path = a.activePath;
  for (let i = Math.floor(path.length * 0.9); i < path.length; i++) {
    const m = path[i].parsed.object?.message;
    if (m?.role === "toolResult" && typeof m.toolCallId === "string") return path[i];
  }
  throw new Error("bench: no toolResult deep in the active path");
}

/**
 * The bench file has no blank line, so the blank-line completion runs on a variant of it opened
 * with one empty line inserted before its last entry line (the text is changed once, before the
 * document is opened; nothing else differs).
 */
function withBlankBeforeLastEntry(text) {
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  const start = text.lastIndexOf("\n", end - 1) + 1;
  return `${text.slice(0, start)}\n${text.slice(start)}`;
}

/** The last empty line that is not the piece after the final newline. */
function lastBlankLine(doc) {
  for (let line = doc.lineCount - 2; line >= 0; line--) if (doc.lines[line] === "") return line;
  throw new Error("bench: no blank line");
}

function inlayAnswer(hints) {
  const parents = hints.filter((h) => String(h.label).startsWith("←")).length;
  const sample = hints.find((h) => !String(h.label).startsWith("←"))?.label ?? hints[0]?.label;
  return `${int(hints.length)} hints (${int(parents)} parent, ${int(hints.length - parents)} tokens)${sample ? `, e.g. ${short(String(sample), 40)}` : ""}`;
}

/**
 * The feature requests of the benchmark, each as an editor sends it. `setup(doc, server)` runs on
 * the freshly analysed document (untimed) and returns where the request points, the lines that the
 * edits must leave alone (so the position stays valid), the request itself (`run`), and a short
 * description of an answer, printed as a check that the request hit what it was meant to.
 * `prepare`, when present, runs untimed before every timed `run` (after the edit's re-analysis, if
 * any) and its value is passed to `run`. Requests with a `target` (milliseconds) are held to it after
 * an edit; `info` ones are not editor requests with the default settings, or not requests at all.
 */
export const FEATURES = [
  {
    key: "hoverHeader",
    title: "hover: on the header",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const line = doc.analysis.headerLine;
      const position = after(doc, line, '"id":"');
      return { where: `line ${line + 1}`, lines: [line], run: () => s.computeHover(doc, position), answer: hoverAnswer };
    },
  },
  {
    key: "hoverDeep",
    title: "hover: an entry deep in the main chain",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const entry = deepEntry(a);
      const position = after(doc, entry.line, '"message":', 2); // on the key: the entry hover
      return { where: where(a, entry), lines: [entry.line], run: () => s.computeHover(doc, position), answer: hoverAnswer };
    },
  },
  {
    key: "hoverBigLine",
    title: "hover: inside a ~400 KB line",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const line = bigEntryLine(doc, a);
      const position = at(line, Math.floor(doc.lines[line].length / 2));
      return {
        where: `${where(a, a.entryAtLine[line])}, char ${int(position.character)}`,
        lines: [line],
        run: () => s.computeHover(doc, position),
        answer: hoverAnswer,
      };
    },
  },
  {
    key: "documentSymbols",
    title: `outline: document symbols, cap ${int(MAX_SYMBOLS)}`,
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      return { where: "whole file", lines: [], run: () => s.computeDocumentSymbols(doc, { maxSymbols: MAX_SYMBOLS }), answer: symbolsAnswer };
    },
  },
  {
    key: "documentSymbolsFull",
    title: "outline without a cap (info)",
    info: true,
    setup(doc, s) {
      return { where: "whole file", lines: [], run: () => s.computeDocumentSymbols(doc, { maxSymbols: Number.MAX_SAFE_INTEGER }), answer: symbolsAnswer };
    },
  },
  {
    key: "foldingRanges",
    title: "folding ranges, limit 5,000",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const answer = (ranges) => {
        const byKind = {};
        for (const r of ranges) byKind[r.kind ?? "turn"] = (byKind[r.kind ?? "turn"] ?? 0) + 1;
        return `${int(ranges.length)} ranges: ${Object.entries(byKind)
          .map(([k, n]) => `${int(n)} ${k}`)
          .join(", ")}`;
      };
      return { where: "whole file", lines: [], run: () => s.computeFoldingRanges(doc, { maxRanges: 5000 }), answer };
    },
  },
  {
    key: "definition",
    title: "definition: a parentId deep in the chain",
    setup(doc, s) {
      const a = doc.analysis;
      const entry = deepEntry(a);
      const position = after(doc, entry.line, '"parentId":"', 13);
      const answer = (locations) =>
        locations.length === 1
          ? `line ${int(locations[0].range.start.line + 1)}${locations[0].range.start.line === a.parent[entry.index]?.line ? " (the parent)" : " (NOT the parent)"}`
          : `${locations.length} locations`;
      return { where: where(a, entry), lines: [entry.line], run: () => s.computeDefinition(doc, position), answer };
    },
  },
  {
    key: "references",
    title: "references: the id of a branch point",
    setup(doc, s) {
      const a = doc.analysis;
      const entry = branchPoint(a);
      const position = after(doc, entry.line, '"id":"', 7);
      return {
        where: where(a, entry),
        lines: [entry.line],
        run: () => s.computeReferences(doc, position, true),
        answer: (locations) => `${locations.length} locations (with the declaration)`,
      };
    },
  },
  {
    key: "typeHierarchy",
    title: "type hierarchy: prepare + subtypes, a branch point",
    setup(doc, s) {
      const a = doc.analysis;
      const entry = branchPoint(a);
      const position = after(doc, entry.line, '"timestamp":"', 5);
      const run = () => {
        const items = s.prepareHierarchy(doc, position);
        return { items, subtypes: items.length ? s.typeHierarchySubtypes(doc, items[0]) : [] };
      };
      return { where: where(a, entry), lines: [entry.line], run, answer: (r) => `${r.items.length} item, ${r.subtypes.length} subtypes` };
    },
  },
  {
    key: "codeLenses",
    title: "code lenses: list (unresolved)",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      return { where: "whole file", lines: [], run: () => s.computeCodeLenses(doc), answer: lensesAnswer };
    },
  },
  {
    key: "lensHeader",
    title: "code lens resolve: the header (active context)",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const lens = listedLenses(doc, s, "context")[0];
      return { where: `line ${lens.data.line + 1}`, lines: [lens.data.line], run: () => s.resolveCodeLens(doc, lens), answer: resolvedAnswer };
    },
  },
  {
    key: "lensBranch",
    title: "code lens resolve: a branch tip mid-file",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const lens = middleBranchLens(doc, s);
      return { where: where(a, a.entryAtLine[lens.data.line]), lines: [lens.data.line], run: () => s.resolveCodeLens(doc, lens), answer: resolvedAnswer };
    },
  },
  {
    key: "lensCompaction",
    title: "code lens resolve: the last compaction",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const lens = lastCompactionLens(doc, s);
      return { where: where(a, a.entryAtLine[lens.data.line]), lines: [lens.data.line], run: () => s.resolveCodeLens(doc, lens), answer: resolvedAnswer };
    },
  },
  {
    key: "contextActive",
    title: "piSession/buildContext: the active leaf (JSON)",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const a = doc.analysis;
      return { where: `leaf ${where(a, a.leaf)}`, lines: [a.leaf.line], run: () => s.computeContextRequest(doc, { uri: doc.uri }), answer: contextAnswer };
    },
  },
  {
    key: "contextBranch",
    title: "piSession/buildContext: a branch leaf mid-file (JSON)",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const lens = middleBranchLens(doc, s);
      const params = { uri: doc.uri, leafId: lens.data.entryId };
      return {
        where: `leaf ${where(a, a.entryAtLine[lens.data.line])}`,
        lines: [lens.data.line],
        run: () => s.computeContextRequest(doc, params),
        answer: contextAnswer,
      };
    },
  },
  {
    key: "contextProvider",
    title: "piSession/buildContext: the active leaf, stage provider (JSON)",
    target: TARGET_CONTEXT_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const params = { uri: doc.uri, stage: "provider" };
      const answer = (r) => {
        const p = r.ok ? r.result.providerStats : undefined;
        return p ? `${int(p.messages)} provider messages, ${int(p.dropped)} dropped, ${int(p.placeholders)} placeholders` : contextAnswer(r);
      };
      return { where: `leaf ${where(a, a.leaf)}`, lines: [a.leaf.line], run: () => s.computeContextRequest(doc, params), answer };
    },
  },
  {
    key: "contextStringify",
    title: "JSON.stringify of the active leaf's result (info)",
    info: true,
    setup(doc, s) {
      const a = doc.analysis;
      // The result is computed untimed before each run; only the serialisation stdio adds is timed.
      const prepare = () => s.computeContextRequest(doc, { uri: doc.uri }).result;
      const answer = (json) => `${mb(Buffer.byteLength(json))} of JSON`;
      return { where: `leaf ${where(a, a.leaf)}`, lines: [a.leaf.line], prepare, run: (result) => JSON.stringify(result), answer };
    },
  },
  {
    key: "fading",
    title: "fading hints: whole file",
    setup(doc, s) {
      const answer = (list) => `${int(list.length)} hints; the last: ${short(list.at(-1)?.message ?? "none")}`;
      return { where: "whole file", lines: [], run: () => s.computeFadingHints(doc), answer };
    },
  },
  {
    key: "inlayKept",
    title: "inlay hints: 100 lines mid kept context",
    setup(doc, s) {
      const start = keptStart(doc.analysis);
      const first = Math.floor((start + doc.lineCount) / 2);
      return {
        where: `lines ${int(first + 1)}–${int(first + 100)} (kept from line ${int(start + 1)})`,
        lines: viewportLines(first),
        run: () => s.computeInlayHints(doc, viewport(first)),
        answer: inlayAnswer,
      };
    },
  },
  {
    key: "inlayEnd",
    title: "inlay hints: the last 100 lines",
    setup(doc, s) {
      const first = Math.max(0, doc.lineCount - 101);
      return {
        where: `lines ${int(first + 1)}–${int(first + 100)}`,
        lines: viewportLines(first),
        run: () => s.computeInlayHints(doc, viewport(first)),
        answer: inlayAnswer,
      };
    },
  },
  {
    key: "inlayCompacted",
    title: "inlay hints: 100 lines of compacted history",
    setup(doc, s) {
      const first = Math.floor(keptStart(doc.analysis) / 2);
      return {
        where: `lines ${int(first + 1)}–${int(first + 100)}`,
        lines: viewportLines(first),
        run: () => s.computeInlayHints(doc, viewport(first)),
        answer: inlayAnswer,
      };
    },
  },
  {
    key: "completionParentId",
    title: "completion: in a parentId value near the end (ids)",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const line = lastParentIdLine(doc);
      const position = after(doc, line, '"parentId":"'); // just inside the quotes: nothing typed yet
      return {
        where: `${where(a, a.entryAtLine[line])}, char ${int(position.character)}`,
        lines: [line],
        run: () => s.computeCompletion(doc, position),
        answer: completionAnswer,
      };
    },
  },
  {
    key: "completionBlankLine",
    title: "completion: on a blank line near the end (new entries)",
    target: TARGET_FEATURE_MS,
    variant: withBlankBeforeLastEntry,
    setup(doc, s) {
      const line = lastBlankLine(doc);
      return {
        where: `line ${int(line + 1)} of ${int(doc.lineCount)} (inserted empty line)`,
        lines: [line],
        run: () => s.computeCompletion(doc, at(line, 0)),
        answer: completionAnswer,
      };
    },
  },
  {
    key: "completionToolCallId",
    title: "completion: in a toolResult's toolCallId deep in the chain",
    target: TARGET_FEATURE_MS,
    setup(doc, s) {
      const a = doc.analysis;
      const entry = deepToolResult(a);
      const position = after(doc, entry.line, '"toolCallId":"'); // just inside the quotes: nothing typed yet
      return { where: where(a, entry), lines: [entry.line], run: () => s.computeCompletion(doc, position), answer: completionAnswer };
    },
  },
  {
    key: "inlayWhole",
    title: "inlay hints: whole document, cap 10,000 (info)",
    info: true,
    setup(doc, s) {
      const range = { start: at(0, 0), end: at(doc.lineCount, 0) };
      return { where: "whole file", lines: [], run: () => s.computeInlayHints(doc, range), answer: inlayAnswer };
    },
  },
];

/**
 * Runs in a child process: one feature request, measured the way an editor meets it, then reports
 * as JSON on stdout. Each feature runs in a process of its own so that its cold request is the
 * first run of its code, and each request pays alone for the per-analysis memos it needs.
 *   cold:      open (new SessionDocument) and analyse the document, one GC, then the request;
 *   afterEdit: `rounds` times: a one-character edit in a string value mid-file (a new version: the
 *              analysis and every memo keyed by it are rebuilt), `doc.analysis` (timed on its own,
 *              as `reanalysis`), the feature's untimed `prepare`, if any, then the request (timed);
 *   warm:      `warmReps` repeats of the request on the last version (each after its `prepare`).
 */
function featureChild(key, path, rounds, warmReps) {
  const server = loadServer();
  const feature = FEATURES.find((f) => f.key === key);
  if (!feature) throw new Error(`bench: no feature ${key}`);
  let text = readFileSync(path, "utf8");
  if (feature.variant) text = feature.variant(text); // a document variant, made once before opening
  gc();
  const t0 = performance.now();
  const doc = new server.SessionDocument(URI, "jsonl", 1, text);
  const t1 = performance.now();
  void doc.analysis;
  const t2 = performance.now();
  text = undefined;
  const { where, lines, run, answer, prepare = () => undefined } = feature.setup(doc, server);
  let input = prepare();
  gc();
  const c0 = performance.now();
  const first = run(input);
  const cold = performance.now() - c0;
  const firstAnswer = answer(first);

  const next = editScenarios(doc).middle;
  const keep = new Set(lines);
  const reanalysis = [];
  const afterEdit = [];
  for (let i = 0; i < rounds; i++) {
    let change;
    do change = next();
    while (change && keep.has(change.range.start.line));
    if (!change) break;
    const e0 = performance.now();
    doc.update([change], doc.version + 1);
    void doc.analysis;
    const e1 = performance.now();
    input = prepare();
    const p1 = performance.now();
    run(input);
    const e2 = performance.now();
    reanalysis.push(e1 - e0);
    afterEdit.push(e2 - p1);
  }
  const warm = [];
  let last;
  for (let i = 0; i < warmReps; i++) {
    input = prepare();
    const w0 = performance.now();
    last = run(input);
    warm.push(performance.now() - w0);
  }
  const out = {
    key,
    where,
    answer: firstAnswer,
    answerAtEnd: last === undefined ? firstAnswer : answer(last),
    openMs: { construct: t1 - t0, analyze: t2 - t1 },
    cold,
    afterEdit,
    reanalysis,
    warm,
    cpuMicros: ownCpuMicros(),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runFeatureChild(key, path, rounds, warmReps) {
  const args = ["--expose-gc", fileURLToPath(import.meta.url), "--feature-child", key, path, String(rounds), String(warmReps)];
  const child = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`feature child (${key}) failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop());
}

/** The numbers of one feature child, rounded, with its verdict against the target. */
function featureStats(feature, r) {
  const afterEdit = {
    median: round(median(r.afterEdit)),
    p90: round(percentile(r.afterEdit, 90)),
    max: round(Math.max(...r.afterEdit)),
    samples: r.afterEdit.map((x) => round(x)),
  };
  const result = {
    title: feature.title,
    where: r.where,
    answer: r.answer,
    coldMs: round(r.cold),
    afterEditMs: afterEdit,
    warmMs: { median: round(median(r.warm)), max: round(Math.max(...r.warm)) },
    reanalysisMs: { median: round(median(r.reanalysis)), p90: round(percentile(r.reanalysis, 90)), max: round(Math.max(...r.reanalysis)) },
    openMs: { construct: round(r.openMs.construct), analyze: round(r.openMs.analyze) },
  };
  if (r.answerAtEnd !== r.answer) result.answerAtEnd = r.answerAtEnd;
  if (feature.target) Object.assign(result, { target: feature.target, pass: afterEdit.median <= feature.target });
  return result;
}

// ---- Main ------------------------------------------------------------------------------------------

function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--memory-child") return memoryChild(args[1], args[2]);
  if (args[0] === "--feature-child") return featureChild(args[1], args[2], Number(args[3]), Number(args[4]));
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const reps = option("--reps", 5);
  const editCount = option("--edits", 20);
  const featureRounds = option("--feature-rounds", 20);
  if (typeof global.gc !== "function") console.error("bench: run with --expose-gc for stable numbers (npm run bench does).");

  const { SessionDocument, computeDiagnostics } = loadServer();
  const loadBefore = loadavg()[0];
  const otherLoad = otherLoadMeter();
  const { path, meta, generated } = ensureSession({ force: args.includes("--force-generate"), log: (m) => console.error(`bench: ${m}`) });

  const t0 = performance.now();
  const text = readFileSync(path, "utf8");
  const readMs = performance.now() - t0;
  const bytes = statSync(path).size;

  // 2 and 3. JSON.parse only, and the full check on a fresh document each time, interleaved.
  let parsedValues = 0;
  let values;
  let doc;
  let diagnostics;
  const phases = { construct: [], analyze: [], diagnostics: [] };
  const [parseSamples, checkSamples] = measureInterleaved(
    [
      {
        reset: () => (values = undefined),
        run: () => {
          values = parseOnly(text);
          parsedValues = values.length;
        },
      },
      {
        reset: () => {
          doc = undefined;
          diagnostics = undefined;
        },
        run: () => {
          const a = performance.now();
          doc = new SessionDocument(URI, "jsonl", 1, text);
          const b = performance.now();
          void doc.analysis;
          const c = performance.now();
          diagnostics = computeDiagnostics(doc);
          const e = performance.now();
          phases.construct.push(b - a);
          phases.analyze.push(c - b);
          phases.diagnostics.push(e - c);
        },
      },
    ],
    { reps },
  );
  // Phase samples of the timed repetitions only (the first came from the warm-up).
  for (const key of Object.keys(phases)) phases[key] = phases[key].slice(-reps);
  const bySeverity = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const d of diagnostics) bySeverity[["", "error", "warning", "information", "hint"][d.severity ?? 1]]++;

  // 1. File facts, from the analysed document.
  let maxLine = 0;
  let bigLines = 0;
  for (const line of doc.lines) {
    if (line.length > maxLine) maxLine = line.length;
    if (line.length >= 100_000) bigLines++;
  }
  const lineCount = doc.lineCount - (doc.lines[doc.lineCount - 1] === "" ? 1 : 0);
  const analysis = doc.analysis;
  const file = {
    path: relative(ROOT, path),
    generated,
    bytes,
    sha256: meta.sha256,
    lines: lineCount,
    entries: analysis.entries.length,
    activePathDepth: analysis.activePath.length,
    maxLineChars: maxLine,
    linesOver100k: bigLines,
    readMs: round(readMs),
  };

  // 6a. Memory in this process, right after the check (the document and the text alive).
  gc();
  const afterCheck = process.memoryUsage();

  // 5. Edits on the analysed document (one GC first; none between the edits).
  gc();
  const scenarios = editScenarios(doc);
  const midRuns = runEdits(doc, computeDiagnostics, scenarios.middle, editCount);
  const appendRuns = runEdits(doc, computeDiagnostics, scenarios.append, editCount);
  const bigRuns = runEdits(doc, computeDiagnostics, scenarios.bigLine, Infinity);

  const edits = { middle: editStats(midRuns), append: editStats(appendRuns), bigLine: editStats(bigRuns) };
  const benchMaxRss = process.resourceUsage().maxRSS * 1024;

  // 6b. Memory of isolated processes.
  const memParse = runMemoryChild("parse", path);
  const memCheck = runMemoryChild("check", path);

  // 7. Feature requests, each in a process of its own.
  const featureRuns = FEATURES.map((f) => [f, runFeatureChild(f.key, path, featureRounds, featureRounds)]);
  const features = Object.fromEntries(featureRuns.map(([f, r]) => [f.key, featureStats(f, r)]));
  const pooled = (pick) => featureRuns.flatMap(([, r]) => pick(r));
  const reanalysisAll = pooled((r) => r.reanalysis);
  const reanalysis = {
    median: round(median(reanalysisAll)),
    p90: round(percentile(reanalysisAll, 90)),
    max: round(Math.max(...reanalysisAll)),
    rounds: reanalysisAll.length,
  };
  const openConstruct = median(pooled((r) => [r.openMs.construct]));
  const openAnalyze = median(pooled((r) => [r.openMs.analyze]));
  const childCpu = [memParse, memCheck, ...featureRuns.map(([, r]) => r)].reduce((sum, r) => sum + r.cpuMicros, 0);
  const otherShare = otherLoad(childCpu);

  // ---- Report ----
  const parseStats = stats(parseSamples);
  const checkStats = stats(checkSamples);
  const ratio = checkStats.median / parseStats.median;
  const verdict = (ok) => (ok ? "PASS" : "FAIL");
  const rows = [];
  const row = (what, value, target = "", result = "") => rows.push([what, value, target, result]);
  const section = (title) => rows.push([title]);
  const note = (text) => rows.push({ note: text });
  const range = (s) => `${ms(s.median)}  (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;

  section("File");
  row("path", `${file.path} (${generated ? "generated now" : "reused"})`);
  row("size", `${mb(bytes)} (${int(bytes)} bytes)`);
  row("lines / entries", `${int(file.lines)} / ${int(file.entries)}`);
  row("depth of the active path", int(file.activePathDepth));
  row("longest line", `${int(maxLine)} chars (${bigLines} lines >= 100k)`);
  section(`Whole file (median of ${reps} after 1 warm-up, the two interleaved; min–max)`);
  row("JSON.parse only: split + JSON.parse every line", range(parseStats));
  row("full check: new SessionDocument + computeDiagnostics", range(checkStats));
  row("  construct (split + per-line parse)", ms(median(phases.construct)));
  row("  analyze (doc.analysis)", ms(median(phases.analyze)));
  row("  computeDiagnostics (analysis cached)", ms(median(phases.diagnostics)));
  row(
    "diagnostics",
    `${diagnostics.length}: ${bySeverity.error} error, ${bySeverity.warning} warning, ${bySeverity.information} information, ${bySeverity.hint} hint`,
  );
  row("full check / JSON.parse only", `${ratio.toFixed(2)}x`, `<= ${TARGET_RATIO}x`, verdict(ratio <= TARGET_RATIO));
  section("Re-analysis after an edit: doc.update + computeDiagnostics (median; p90; max)");
  const editRow = (what, e) =>
    row(
      what,
      `${ms(e.median)}  (p90 ${e.p90.toFixed(1)}, max ${e.max.toFixed(1)}; update ${e.updateMedian.toFixed(1)} + diag ${e.diagnosticsMedian.toFixed(1)})`,
      `<= ${TARGET_EDIT_MS} ms`,
      verdict(e.median <= TARGET_EDIT_MS),
    );
  editRow(`1-char edit in the middle, ${midRuns.length} lines`, edits.middle);
  editRow(`append an entry line at the end, x${appendRuns.length}`, edits.append);
  editRow(`1-char edit in a ~400 KB line, ${bigRuns.length} lines (info)`, edits.bigLine);
  row("diagnostics after all edits", String(bigRuns.at(-1)?.count ?? appendRuns.at(-1)?.count ?? 0));
  section(`Features on the 40 MB session (ms; each request in a process of its own, on a freshly opened document)`);
  note("cold: the first request right after the document was opened and analysed (first run of the feature's code, its memos built);");
  note(`after edit: median (p90) over ${featureRounds} rounds of [1-char edit mid-file -> re-analysis -> the request], the re-analysis`);
  note("  not counted in the request's time but reported on its own row below; warm: median of as many repeats without edits.");
  note(`Targets (issues): hover, outline and folding answer within ${TARGET_FEATURE_MS} ms; code lenses (listing, resolving) and`);
  note(`  piSession/buildContext within ${TARGET_CONTEXT_MS} ms (issue 4); completion within ${TARGET_FEATURE_MS} ms (issue 6);`);
  note("  PASS/FAIL is on the after-edit median. The blank-line completion runs on the file with one empty line inserted");
  note("  before its last entry line (the bench file has none), made once before the document is opened.");
  const cell = (x) => x.toFixed(1).padStart(6);
  for (const f of FEATURES) {
    const r = features[f.key];
    row(
      f.title,
      `cold ${cell(r.coldMs)}  after edit ${cell(r.afterEditMs.median)} (p90 ${cell(r.afterEditMs.p90)})  warm ${cell(r.warmMs.median)}`,
      f.target ? `<= ${f.target} ms` : "",
      f.target ? verdict(r.pass) : "",
    );
    row(`    ${r.where} -> ${r.answer}${r.answerAtEnd ? `; after the edits: ${r.answerAtEnd}` : ""}`, "");
  }
  row(
    "re-analysis per round (not in the times above)",
    `${ms(reanalysis.median)}  (p90 ${reanalysis.p90.toFixed(1)}, max ${reanalysis.max.toFixed(1)}; ${reanalysis.rounds} rounds)`,
  );
  row("open per process: construct + analysis (median)", `${ms(openConstruct)} + ${ms(openAnalyze)}`);
  section("Memory");
  row("this process after the check: RSS / heap used", `${mib(afterCheck.rss)} / ${mib(afterCheck.heapUsed)}`);
  row("this process: peak RSS (maxRSS, all phases)", mib(benchMaxRss));
  row("child, JSON.parse only: RSS / heap used / peak RSS", `${mib(memParse.rss)} / ${mib(memParse.heapUsed)} / ${mib(memParse.maxRss)}`);
  row("child, full check: RSS / heap used / peak RSS", `${mib(memCheck.rss)} / ${mib(memCheck.heapUsed)} / ${mib(memCheck.maxRss)}`);
  row("child: RSS before reading / heap of the file text alone", `${mib(memCheck.baselineRss)} / ${mib(memCheck.textHeap)}`);

  const widths = [0, 0, 0];
  for (const r of rows) if (r.length > 1 && r[1] !== "") for (let i = 0; i < 3; i++) widths[i] = Math.max(widths[i], r[i].length);
  const loadAfter = loadavg()[0];
  const busy = otherShare !== undefined ? otherShare > 0.1 : loadBefore > cpus().length / 2;
  const lines = [
    `pi-session-lsp benchmark — Node ${process.version}, ${process.platform}-${process.arch}, ${cpus().length} CPUs${typeof global.gc === "function" ? "" : " (no --expose-gc)"}`,
    `other processes' share of the CPUs during the timings: ${otherShare === undefined ? "unknown" : `${(100 * otherShare).toFixed(0)}%`}; load average before / after: ${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}${busy ? "\nWARNING: the machine was busy during the run; timings are inflated and noisy" : ""}`,
  ];
  for (const r of rows) {
    if (r.note) lines.push(`  ${r.note}`);
    else if (r.length === 1) lines.push("", r[0], "-".repeat(widths[0] + widths[1] + widths[2] + 12));
    else lines.push(`  ${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2].padEnd(widths[2])}  ${r[3]}`.trimEnd());
  }
  console.log(lines.join("\n"));
  console.log();
  const result = {
    bench: "pi-session-lsp",
    node: process.version,
    cpus: cpus().length,
    loadAverage: { before: round(loadBefore), after: round(loadAfter) },
    otherProcessesCpuShare: otherShare === undefined ? null : round(otherShare, 3),
    file,
    parsedValues,
    parseOnlyMs: parseStats,
    fullCheckMs: {
      ...checkStats,
      construct: round(median(phases.construct)),
      analyze: round(median(phases.analyze)),
      diagnostics: round(median(phases.diagnostics)),
    },
    diagnostics: { total: diagnostics.length, ...bySeverity },
    ratio: { value: round(ratio, 3), target: TARGET_RATIO, pass: ratio <= TARGET_RATIO },
    editMs: {
      target: TARGET_EDIT_MS,
      middle: { ...edits.middle, pass: edits.middle.median <= TARGET_EDIT_MS },
      append: { ...edits.append, pass: edits.append.median <= TARGET_EDIT_MS },
      bigLine: { ...edits.bigLine, pass: edits.bigLine.median <= TARGET_EDIT_MS },
    },
    features: {
      target: TARGET_FEATURE_MS,
      contextTarget: TARGET_CONTEXT_MS,
      rounds: featureRounds,
      reanalysisMs: reanalysis,
      openMs: { construct: round(openConstruct), analyze: round(openAnalyze) },
      ...features,
    },
    memory: {
      afterCheck: { rss: afterCheck.rss, heapUsed: afterCheck.heapUsed, external: afterCheck.external },
      benchMaxRss,
      parseOnlyChild: memParse,
      checkChild: memCheck,
    },
  };
  console.log(JSON.stringify(result));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
