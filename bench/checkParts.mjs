#!/usr/bin/env node
// bench/checkParts.mjs: where `check FILE`'s time goes, part by part, inside one process (issue 32).
// `check` is held to the floor of reading the file and `JSON.parse`-ing every line; this prints what
// each layer above that floor adds, on the same lines, so that a change to one part is measured on
// that part instead of on a whole process whose time moves by a tenth with the machine's load.
//
// The line parse, on the file's lines held in memory (split on "\n" as Pi splits), each repetition
// taking the parts in turn so that all see the same machine:
//   json       `JSON.parse` of every line: the floor's own work, without its read;
//   records    `parseLineWith` without findings: the floor plus each line's facts and record;
//   findings   with the findings but not the credentials' (`withSecrets: false`);
//   parse      `parseLine`, everything a line costs the streamed check;
//   anchors    `nextAnchor` over every line alone: the credential search's scan;
//   secrets    `findSecrets` over every line alone: the scan and the checks at each anchor.
// No value is kept (`parseWithoutKeeping`), as before the streamed check's tail.
// Then the streamed check itself, each repetition on the file read afresh: `stream` (read, decode,
// parse: `readStreamedForCheck`) and `diagnostics` (`collectDiagnostics` on that document).
//
// Timings are wall-clock medians (and minima) over --reps repetitions after one warm-up, with the
// load average before and after: on a shared machine compare two builds by running this for each,
// taking turns, with $OUT naming the other build's out/ directory.
//
// Usage: node bench/checkParts.mjs [FILE] [--reps 7]   (FILE: bench/out/session-50000.jsonl by default;
//        requires the build, `npm run build`)

import { closeSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = process.env.OUT ?? join(ROOT, "out");
const require = createRequire(import.meta.url);
const { parseLine, parseLineWith } = require(join(OUT, "core/line/parse.js"));
const { nextAnchor } = require(join(OUT, "core/line/secretAnchors.js"));
const { findSecrets } = require(join(OUT, "core/line/secrets.js"));
const values = require(join(OUT, "core/line/values.js"));
const { readStreamedForCheck } = require(join(OUT, "io/checkRead.js"));
const { collectDiagnostics, MAX_PER_CODE } = require(join(OUT, "features/api/diagnostics.js"));

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 7;
const file = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--reps") ?? join(ROOT, "bench", "out", "session-50000.jsonl");

const lines = readFileSync(file, "utf8").split("\n");
const bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);

/** Every part of the line parse: a function over one line, its result folded into a number so that nothing is optimised away. */
const LINE_PARTS = {
  json: (line) => {
    try {
      return JSON.parse(line) === null ? 0 : 1;
    } catch {
      return 0;
    }
  },
  records: (line) => parseLineWith(line, undefined, false).kind.length,
  findings: (line) => parseLineWith(line, undefined, true, false).kind.length,
  parse: (line) => parseLine(line).kind.length,
  anchors: (line) => {
    let found = 0;
    for (let m = nextAnchor(line, 0); m; m = nextAnchor(line, m.index + m.hit.length)) found++;
    return found;
  },
  secrets: (line) => findSecrets(line).length,
};

function timeLines(part) {
  let sink = 0;
  const start = performance.now();
  values.parseWithoutKeeping(Number.POSITIVE_INFINITY, () => {
    for (const line of lines) sink += part(line);
  });
  return { ms: performance.now() - start, sink };
}

function timeStreamed() {
  values.forgetValues();
  const fd = openSync(file, "r");
  try {
    const start = performance.now();
    const { doc } = readStreamedForCheck(fd, "file:///bench.jsonl");
    const read = performance.now();
    const found = collectDiagnostics(doc, MAX_PER_CODE, undefined);
    return { stream: read - start, diagnostics: performance.now() - read, count: found.length };
  } finally {
    closeSync(fd);
    values.setValueBudget(undefined);
    values.forgetValues();
  }
}

const times = Object.fromEntries([...Object.keys(LINE_PARTS), "stream", "diagnostics"].map((name) => [name, []]));
const loadBefore = loadavg()[0];
for (let rep = 0; rep <= reps; rep++) {
  const round = {};
  for (const [name, part] of Object.entries(LINE_PARTS)) round[name] = timeLines(part).ms;
  const streamed = timeStreamed();
  round.stream = streamed.stream;
  round.diagnostics = streamed.diagnostics;
  // The first round warms the compiler up and is not counted.
  if (rep > 0) for (const [name, ms] of Object.entries(round)) times[name].push(ms);
}
const loadAfter = loadavg()[0];

const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const json = median(times.json);
console.log(`${file}: ${(bytes / 1e6).toFixed(1)} MB, ${lines.length} lines; ${reps} repetitions; load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`);
console.log("part          median ms   min ms   × json");
for (const [name, xs] of Object.entries(times)) {
  console.log(
    `${name.padEnd(12)} ${median(xs).toFixed(0).padStart(10)} ${Math.min(...xs)
      .toFixed(0)
      .padStart(8)} ${(median(xs) / json).toFixed(2).padStart(8)}`,
  );
}
console.log(
  JSON.stringify({
    file,
    bytes,
    lines: lines.length,
    reps,
    load: [loadBefore, loadAfter],
    medians: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])),
  }),
);
