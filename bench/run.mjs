#!/usr/bin/env node
// bench/run.mjs: the large-file benchmark of pi-session-lsp (`npm run bench`).
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
//      (`process.resourceUsage().maxRSS`) is not inflated by the other measurements.
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
// Usage: node --expose-gc bench/run.mjs [--reps N] [--edits N] [--force-generate]

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

export function loadServer() {
  try {
    return {
      SessionDocument: require("../out/core/document.js").SessionDocument,
      computeDiagnostics: require("../out/features/diagnostics.js").computeDiagnostics,
    };
  } catch (error) {
    console.error(`bench: cannot load the compiled server from out/ (${error.message}). Run \`npm run build\` first.`);
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

/** Starts a measurement of how much CPU other processes take while we run. */
function otherLoadMeter() {
  const start = { machine: machineCpu(), own: process.cpuUsage() };
  return () => {
    const machine = machineCpu();
    if (!machine || !start.machine) return undefined;
    const own = process.cpuUsage(start.own);
    const other = machine.busy - start.machine.busy - (own.user + own.system);
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
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runMemoryChild(mode, path) {
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--memory-child", mode, path], { encoding: "utf8", maxBuffer: 1 << 20 });
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
    const entry = { type: "message", id: n.toString(16), parentId: leaf.id, timestamp: new Date(time).toISOString(), message: { role: "user", content: `Benchmark append ${appended}: one more prompt.`, timestamp: time - 1 } };
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

// ---- Main ------------------------------------------------------------------------------------------

function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--memory-child") return memoryChild(args[1], args[2]);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const reps = option("--reps", 5);
  const editCount = option("--edits", 20);
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
  const otherShare = otherLoad();

  // 6b. Memory of isolated processes.
  const memParse = runMemoryChild("parse", path);
  const memCheck = runMemoryChild("check", path);

  // ---- Report ----
  const parseStats = stats(parseSamples);
  const checkStats = stats(checkSamples);
  const ratio = checkStats.median / parseStats.median;
  const verdict = (ok) => (ok ? "PASS" : "FAIL");
  const rows = [];
  const row = (what, value, target = "", result = "") => rows.push([what, value, target, result]);
  const section = (title) => rows.push([title]);
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
  row("diagnostics", `${diagnostics.length}: ${bySeverity.error} error, ${bySeverity.warning} warning, ${bySeverity.information} information, ${bySeverity.hint} hint`);
  row("full check / JSON.parse only", `${ratio.toFixed(2)}x`, `<= ${TARGET_RATIO}x`, verdict(ratio <= TARGET_RATIO));
  section("Re-analysis after an edit: doc.update + computeDiagnostics (median; p90; max)");
  const editRow = (what, e) => row(what, `${ms(e.median)}  (p90 ${e.p90.toFixed(1)}, max ${e.max.toFixed(1)}; update ${e.updateMedian.toFixed(1)} + diag ${e.diagnosticsMedian.toFixed(1)})`, `<= ${TARGET_EDIT_MS} ms`, verdict(e.median <= TARGET_EDIT_MS));
  editRow(`1-char edit in the middle, ${midRuns.length} lines`, edits.middle);
  editRow(`append an entry line at the end, x${appendRuns.length}`, edits.append);
  editRow(`1-char edit in a ~400 KB line, ${bigRuns.length} lines (info)`, edits.bigLine);
  row("diagnostics after all edits", String(bigRuns.at(-1)?.count ?? appendRuns.at(-1)?.count ?? 0));
  section("Memory");
  row("this process after the check: RSS / heap used", `${mib(afterCheck.rss)} / ${mib(afterCheck.heapUsed)}`);
  row("this process: peak RSS (maxRSS, all phases)", mib(benchMaxRss));
  row("child, JSON.parse only: RSS / heap used / peak RSS", `${mib(memParse.rss)} / ${mib(memParse.heapUsed)} / ${mib(memParse.maxRss)}`);
  row("child, full check: RSS / heap used / peak RSS", `${mib(memCheck.rss)} / ${mib(memCheck.heapUsed)} / ${mib(memCheck.maxRss)}`);
  row("child: RSS before reading / heap of the file text alone", `${mib(memCheck.baselineRss)} / ${mib(memCheck.textHeap)}`);

  const widths = [0, 0, 0];
  for (const r of rows) if (r.length > 1) for (let i = 0; i < 3; i++) widths[i] = Math.max(widths[i], r[i].length);
  const loadAfter = loadavg()[0];
  const busy = otherShare !== undefined ? otherShare > 0.1 : loadBefore > cpus().length / 2;
  const lines = [
    `pi-session-lsp benchmark — Node ${process.version}, ${process.platform}-${process.arch}, ${cpus().length} CPUs${typeof global.gc === "function" ? "" : " (no --expose-gc)"}`,
    `other processes' share of the CPUs during the timings: ${otherShare === undefined ? "unknown" : `${(100 * otherShare).toFixed(0)}%`}; load average before / after: ${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}${busy ? "\nWARNING: the machine was busy during the run; timings are inflated and noisy" : ""}`,
  ];
  for (const r of rows) {
    if (r.length === 1) lines.push("", r[0], "-".repeat(widths[0] + widths[1] + widths[2] + 12));
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
    fullCheckMs: { ...checkStats, construct: round(median(phases.construct)), analyze: round(median(phases.analyze)), diagnostics: round(median(phases.diagnostics)) },
    diagnostics: { total: diagnostics.length, ...bySeverity },
    ratio: { value: round(ratio, 3), target: TARGET_RATIO, pass: ratio <= TARGET_RATIO },
    editMs: {
      target: TARGET_EDIT_MS,
      middle: { ...edits.middle, pass: edits.middle.median <= TARGET_EDIT_MS },
      append: { ...edits.append, pass: edits.append.median <= TARGET_EDIT_MS },
      bigLine: { ...edits.bigLine, pass: edits.bigLine.median <= TARGET_EDIT_MS },
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
