#!/usr/bin/env node
// bench/outline.mjs: timings of the outline (document symbols) and folding ranges on the 40 MB,
// 50,000-entry benchmark session (bench/generate.mjs writes it; reused when unchanged).
//
// What it measures, with the compiled server modules (`npm run build` first; OUT=<dir> to load them
// from another build directory):
//   first:  the first call after the document is opened and analysed (cold JIT);
//   edited: after each of N one-character edits in the middle of the file (a new version, so a new
//           analysis, as in an editor): the feature call alone, analysis excluded;
//   warm:   repeated calls on one analysed version.
// The outline uses the server's default cap (5,000 symbols); "full" is the whole outline without a
// cap, for information. Medians of wall-clock times. A script that prints numbers, not a test.
//
// Usage: node bench/outline.mjs [--reps N]

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ensureSession } from "./generate.mjs";
import { editScenarios } from "./run.mjs";

const require = createRequire(import.meta.url);
const OUT = resolve(process.env.OUT ?? new URL("../out", import.meta.url).pathname);
const { SessionDocument } = require(`${OUT}/core/document.js`);
const { computeDocumentSymbols } = require(`${OUT}/features/symbols.js`);
const { computeFoldingRanges } = require(`${OUT}/features/folding.js`);

const repsArg = process.argv.indexOf("--reps");
const REPS = repsArg > 0 ? Number(process.argv[repsArg + 1]) : 20;
const CAP = 5000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const time = (f) => {
  const t = performance.now();
  const result = f();
  return { ms: performance.now() - t, result };
};
const fmt = (ms) => `${ms.toFixed(2)} ms`;

const { path } = ensureSession();
const text = readFileSync(path, "utf8");
const doc = new SessionDocument("file:///bench/session-40mb.jsonl", "jsonl", 1, text);
const analysis = time(() => doc.analysis);

const symbols = () => computeDocumentSymbols(doc, { maxSymbols: CAP });
const folding = () => computeFoldingRanges(doc);
const firstSymbols = time(symbols);
const firstFolding = time(folding);

const edits = editScenarios(doc);
const edited = { symbols: [], folding: [], analysis: [] };
for (let i = 0; i < REPS; i++) {
  const change = edits.middle();
  if (!change) break;
  doc.update([change], doc.version + 1);
  edited.analysis.push(time(() => doc.analysis).ms);
  edited.symbols.push(time(symbols).ms);
  edited.folding.push(time(folding).ms);
}
const warm = { symbols: [], folding: [] };
for (let i = 0; i < REPS; i++) {
  warm.symbols.push(time(symbols).ms);
  warm.folding.push(time(folding).ms);
}
const full = time(() => computeDocumentSymbols(doc, { maxSymbols: Number.MAX_SAFE_INTEGER }));

const count = (list) => list.reduce((n, s) => n + 1 + (s.children ? count(s.children) : 0), 0);
const depthOf = (list) => list.reduce((d, s) => Math.max(d, s.children ? 1 + depthOf(s.children) : 1), 0);
const ranges = firstFolding.result;
const byKind = {};
for (const r of ranges) byKind[r.kind ?? "turn"] = (byKind[r.kind ?? "turn"] ?? 0) + 1;

console.log(`session: ${path} (${doc.lineCount.toLocaleString("en-US")} lines, ${doc.analysis.entries.length.toLocaleString("en-US")} entries); analysis ${fmt(analysis.ms)}, after an edit median ${fmt(median(edited.analysis))}`);
console.log(`outline (cap ${CAP}): ${count(firstSymbols.result.symbols)} symbols, ${depthOf(firstSymbols.result.symbols)} levels, truncated ${firstSymbols.result.truncated}`);
console.log(`  first ${fmt(firstSymbols.ms)}   after an edit median ${fmt(median(edited.symbols))} (max ${fmt(Math.max(...edited.symbols))})   warm median ${fmt(median(warm.symbols))}`);
console.log(`  whole outline, no cap: ${count(full.result.symbols)} symbols, ${depthOf(full.result.symbols)} levels, ${fmt(full.ms)}`);
console.log(`folding: ${ranges.length} ranges (${Object.entries(byKind).map(([k, n]) => `${n} ${k}`).join(", ")})`);
console.log(`  first ${fmt(firstFolding.ms)}   after an edit median ${fmt(median(edited.folding))} (max ${fmt(Math.max(...edited.folding))})   warm median ${fmt(median(warm.folding))}`);
