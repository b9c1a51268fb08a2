#!/usr/bin/env node
// bench/folderFloor.mjs: the parse-only floor of a folder check (issue 32): every .jsonl file under
// a folder read and each of its lines JSON.parsed, on the main thread alone (--threads 1) or on N
// worker threads that take the next file from one queue as soon as they are free (the largest
// files first, so that no worker is left with a big file at the end). Its speed-up from 1 to N
// threads is what the folder's work allows on this machine; `check --threads N FOLDER` is judged
// against it (bench/run.mjs). It prints {ms, files, lines} as JSON; ms is the whole scan, from the
// listing to the last worker's answer, without Node's own start-up.
//
// Usage: node bench/folderFloor.mjs FOLDER [--threads N]

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";

const SELF = fileURLToPath(import.meta.url);

/** Reads one file and JSON.parses every non-blank line (a line that is not JSON is counted, not fatal). */
function parseFile(path) {
  let lines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      JSON.parse(line);
    } catch {}
    lines++;
  }
  return lines;
}

/** Every .jsonl file under `root` with its size, the largest first (the walk is bounded by the tree itself). */
function listFiles(root) {
  const files = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.name.endsWith(".jsonl")) files.push({ path, size: statSync(path).size });
    }
  }
  return files.sort((a, b) => b.size - a.size);
}

/** The files parsed on `threads` workers fed from one queue; resolves with the number of lines. */
function onWorkers(files, threads) {
  return new Promise((resolvePromise, reject) => {
    let next = 0;
    let lines = 0;
    let running = 0;
    const feed = (worker) => {
      if (next < files.length) worker.postMessage(files[next++].path);
      else {
        worker.terminate();
        if (--running === 0) resolvePromise(lines);
      }
    };
    for (let k = 0; k < Math.min(threads, files.length); k++) {
      const worker = new Worker(SELF);
      running++;
      worker.on("message", (n) => {
        lines += n;
        feed(worker);
      });
      worker.on("error", reject);
      feed(worker);
    }
    if (running === 0) resolvePromise(0);
  });
}

if (!isMainThread) parentPort.on("message", (path) => parentPort.postMessage(parseFile(path)));
else if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--threads");
  const threads = at >= 0 ? Number(args[at + 1]) : 1;
  const root = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--threads");
  const t0 = performance.now();
  const files = listFiles(root);
  const lines = threads <= 1 ? files.reduce((n, f) => n + parseFile(f.path), 0) : await onWorkers(files, threads);
  process.stdout.write(JSON.stringify({ ms: performance.now() - t0, files: files.length, lines, threads }));
}
