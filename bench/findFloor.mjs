#!/usr/bin/env node
// bench/findFloor.mjs: the floor of `find TEXT` over a sessions folder, for issue 32's row `find`
// against `rg -l -F`: the least a Node.js process does to answer which files hold a text. It lists
// the project folders of a sessions folder (two `readdir` levels, no stat), reads every `*.jsonl`
// in 256 KiB chunks into one buffer per thread, and looks for the text with `Buffer.indexOf`
// (exact bytes, as `rg -l -F`; no case folding, no JSON, no exact search after it), on this thread
// alone or with workers claiming files from one shared counter. What `find` does on top of this
// (its modules, the case-folded search, escapes, names, the header, /resume's exact search of the
// files that could match) is its cost over the floor; Node.js's own start is in both.
//
// It prints one line of JSON: the wall time of each run (whole process, this script spawned again
// for each) and their median, per thread count; it is not a test.
//
// Usage: node bench/findFloor.mjs --sessions DIR [--text TEXT] [--threads 1,2] [--reps N]
//        (DIR: a sessions folder, e.g. bench/out/sessions-2000-400mb/home/.pi/agent/sessions)

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const CHUNK = 256 * 1024;
const SELF = fileURLToPath(import.meta.url);

/** Claims files from `next` until none is left; the paths that hold `needle`. */
function search(files, next, needle) {
  const buffer = Buffer.allocUnsafe(CHUNK + needle.length);
  const hits = [];
  for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) {
    const fd = openSync(files[i], "r");
    try {
      // The last bytes of a chunk are kept before the next, so that a text across the boundary is found.
      let carry = 0;
      for (let position = 0; ; ) {
        const read = readSync(fd, buffer, carry, CHUNK, position);
        const end = carry + read;
        if (buffer.subarray(0, end).indexOf(needle) >= 0) {
          hits.push(files[i]);
          break;
        }
        if (read < CHUNK) break;
        position += read;
        carry = Math.min(end, needle.length - 1);
        buffer.copyWithin(0, end - carry, end);
      }
    } finally {
      closeSync(fd);
    }
  }
  return hits;
}

/** One search in this process: the sessions folder's files on `threads` threads (this one among them). */
async function searchOnce(root, text, threads) {
  const needle = Buffer.from(text);
  const files = [];
  for (const dir of readdirSync(root, { withFileTypes: true }))
    if (dir.isDirectory()) for (const name of readdirSync(`${root}/${dir.name}`)) if (name.endsWith(".jsonl")) files.push(`${root}/${dir.name}/${name}`);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: threads - 1 }, () => {
    const worker = new Worker(SELF, { workerData: { files, next, text } });
    return new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
  });
  const hits = search(files, next, needle);
  for (const more of await Promise.all(workers)) hits.push(...more);
  process.stdout.write(`${JSON.stringify({ files: files.length, hits: hits.length })}\n`);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

if (!isMainThread) {
  parentPort.postMessage(search(workerData.files, workerData.next, Buffer.from(workerData.text)));
} else {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const root = option("--sessions");
  const text = option("--text", "quetzalcoatl");
  if (args.includes("--once")) {
    await searchOnce(root, text, Number(option("--threads", "1")));
  } else {
    if (!root) {
      process.stderr.write("Usage: node bench/findFloor.mjs --sessions DIR [--text TEXT] [--threads 1,2] [--reps N]\n");
      process.exit(2);
    }
    const counts = option("--threads", "1,2").split(",").map(Number);
    const reps = Number(option("--reps", "5"));
    const runs = Object.fromEntries(counts.map((n) => [n, []]));
    let found;
    // The thread counts take turns, so that each median is made of runs that saw the same machine.
    for (let r = 0; r < reps; r++)
      for (const n of counts) {
        const t0 = performance.now();
        const child = spawnSync(process.execPath, [SELF, "--once", "--sessions", root, "--text", text, "--threads", String(n)], { encoding: "utf8" });
        runs[n].push(performance.now() - t0);
        if (child.status !== 0) throw new Error(`the floor failed: ${child.stderr.slice(0, 500)}`);
        found = JSON.parse(child.stdout);
      }
    const result = { text, ...found, threads: Object.fromEntries(counts.map((n) => [n, { medianMs: median(runs[n]), runsMs: runs[n] }])) };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
