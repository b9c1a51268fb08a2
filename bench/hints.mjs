#!/usr/bin/env node
// bench/hints.mjs: fading diagnostics and inlay hints on the 40 MB benchmark session.
//
// Uses the compiled server in ../out (or $OUT; run `npx tsc -p server` first) and the session that
// bench/generate.mjs writes (generated if missing). On one freshly opened document it times:
//   - fading (`computeFadingHints`) over the whole file: cold (first call after open and analysis,
//     which builds the context selection) and warm (median of repeats);
//   - inlay hints (`computeInlayHints`) for 100-line viewports at three places (the middle of the
//     kept context after the last compaction, the last 100 lines, inside the compacted history):
//     first (the first request for that viewport: for the first place, the first request after open,
//     which builds the context; for the others, the context of that version is already built),
//     after an edit (median and p90 over N rounds of a
//     one-character edit mid-file; the re-analysis is timed apart), and warm (repeats, no edits);
//   - for information, one request for the whole document (what a client that asks for every
//     line at once gets; capped at the default 10,000 hints).
// Wall-clock medians with `performance.now()`; prints a table, then one line of JSON.
//
// Usage: node --expose-gc bench/hints.mjs [--rounds N] [--reps N]

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureSession } from "./generate.mjs";
import { editScenarios, URI } from "./run.mjs";

const require = createRequire(import.meta.url);
const OUT_DIR = resolve(process.env.OUT ?? fileURLToPath(new URL("../out", import.meta.url)));
const load = (module) => require(`${OUT_DIR}/${module}`);
const { SessionDocument } = load("core/document.js");
const { computeFadingHints } = load("features/fading.js");
const { computeInlayHints } = load("features/inlayHints.js");
const { contextSelection } = load("core/context.js");

const gc = typeof global.gc === "function" ? global.gc : () => {};
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROUNDS = option("--rounds", 15);
const REPS = option("--reps", 15);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(0.9 * xs.length) - 1)];
const r2 = (x) => Math.round(x * 100) / 100;
const time = (f) => {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
};

const { path } = ensureSession();
let text = readFileSync(path, "utf8");
gc();
const open = time(() => new SessionDocument(URI, "jsonl", 1, text));
const doc = open.value;
const analyze = time(() => doc.analysis);
text = undefined;
const a = doc.analysis;
const selection = contextSelection(a);

// Viewports: 100 lines each.
const viewport = (first) => ({ start: { line: first, character: 0 }, end: { line: first + 99, character: Number.MAX_SAFE_INTEGER } });
const keptStart = selection.compaction ? selection.compaction.line + 1 : 0;
const places = {
  kept: Math.floor((keptStart + doc.lineCount) / 2),
  end: Math.max(0, doc.lineCount - 101),
  compacted: Math.floor(keptStart / 2),
};

const result = { file: { lines: doc.lineCount, entries: a.entries.length, activePath: a.activePath.length, compactionLine: keptStart }, openMs: r2(open.ms), analyzeMs: r2(analyze.ms) };

// Fading over the whole file.
gc();
const fadeCold = time(() => computeFadingHints(doc));
const fadeWarm = [];
for (let i = 0; i < REPS; i++) fadeWarm.push(time(() => computeFadingHints(doc)).ms);
result.fading = { count: fadeCold.value.length, lastMessage: fadeCold.value.at(-1)?.message, coldMs: r2(fadeCold.ms), warmMs: r2(median(fadeWarm)) };

// Inlay hints per viewport: cold, after edits, warm.
result.inlay = {};
const next = editScenarios(doc).middle;
for (const [name, first] of Object.entries(places)) {
  const range = viewport(first);
  const keep = new Set(Array.from({ length: 100 }, (_, i) => first + i));
  const cold = time(() => computeInlayHints(doc, range));
  const reanalysis = [];
  const afterEdit = [];
  const fadeAfterEdit = [];
  for (let i = 0; i < ROUNDS; i++) {
    let change;
    do change = next();
    while (change && keep.has(change.range.start.line));
    if (!change) break;
    const e0 = performance.now();
    doc.update([change], doc.version + 1);
    void doc.analysis;
    const e1 = performance.now();
    computeInlayHints(doc, range);
    const e2 = performance.now();
    computeFadingHints(doc);
    const e3 = performance.now();
    reanalysis.push(e1 - e0);
    afterEdit.push(e2 - e1);
    fadeAfterEdit.push(e3 - e2);
  }
  const warm = [];
  let hints;
  for (let i = 0; i < REPS; i++) {
    const w = time(() => computeInlayHints(doc, range));
    warm.push(w.ms);
    hints = w.value;
  }
  result.inlay[name] = {
    lines: `${first + 1}-${first + 100}`,
    hints: hints.length,
    sample: hints.find((h) => !String(h.label).startsWith("←"))?.label ?? hints[0]?.label,
    coldMs: r2(cold.ms),
    afterEditMs: { median: r2(median(afterEdit)), p90: r2(p90(afterEdit)) },
    warmMs: r2(median(warm)),
    reanalysisMs: r2(median(reanalysis)),
    fadingAfterEditMs: r2(median(fadeAfterEdit)),
  };
}

// The whole document in one request (information).
const all = { start: { line: 0, character: 0 }, end: { line: doc.lineCount, character: 0 } };
doc.update([next()], doc.version + 1);
void doc.analysis;
const wholeCold = time(() => computeInlayHints(doc, all));
const wholeWarm = time(() => computeInlayHints(doc, all));
result.inlayWholeDocument = { hints: wholeCold.value.length, afterEditMs: r2(wholeCold.ms), warmMs: r2(wholeWarm.ms) };

console.log(`session: ${result.file.lines} lines, ${result.file.entries} entries, active path ${result.file.activePath}, last compaction on line ${keptStart}`);
console.log(`open ${result.openMs} ms, analyze ${result.analyzeMs} ms`);
console.log(`fading, whole file: ${result.fading.count} diagnostics; cold ${result.fading.coldMs} ms, warm ${result.fading.warmMs} ms`);
console.log(`  last: ${result.fading.lastMessage}`);
console.log("inlay hints, 100-line viewport   hints first ms  after edit ms (median/p90)  warm ms  [re-analysis ms, fading after edit ms]");
for (const [name, r] of Object.entries(result.inlay)) {
  console.log(`  ${name.padEnd(10)} lines ${r.lines.padEnd(13)} ${String(r.hints).padStart(5)} ${String(r.coldMs).padStart(8)} ${`${r.afterEditMs.median} / ${r.afterEditMs.p90}`.padStart(27)} ${String(r.warmMs).padStart(8)}  [${r.reanalysisMs}, ${r.fadingAfterEditMs}]   e.g. ${r.sample}`);
}
console.log(`inlay hints, whole document: ${result.inlayWholeDocument.hints} hints; after an edit ${result.inlayWholeDocument.afterEditMs} ms, warm ${result.inlayWholeDocument.warmMs} ms`);
console.log(JSON.stringify(result));
