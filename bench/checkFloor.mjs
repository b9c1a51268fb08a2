#!/usr/bin/env node
// bench/checkFloor.mjs: `check`, whole process, against the floor: a process that reads the same
// file in 1 MiB chunks and JSON.parses every line (what any checker must at least do), with the
// wall time and the peak RSS of each (`/usr/bin/time`), runs interleaved so that both see the same
// machine, medians printed. With --folder DIR it times `check DIR` on 1 thread and on --threads N,
// and the folder's floor (the same read and parse of every file, on 1 and N threads) for the speed-up
// `check` is held to.
//
// Usage:
//   node bench/checkFloor.mjs FILE [--runs 5] [--keep]
//   node bench/checkFloor.mjs --folder DIR [--runs 3] [--threads 2]
//   node bench/checkFloor.mjs --big FILE [--copies 23] [--from SESSION]   writes a ~1 GB session (copies of the
//        benchmark session, ids renamed per copy and chained into one tree; see bigSession below)
//
// Requires the build (`npm run build`) and GNU time at /usr/bin/time.

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureSession } from "./generate.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "bin", "pi-session-lsp");

/** Reads `file` in 1 MiB chunks, splits it on "\n" and passes each line's bytes to `parse`. */
const READ_LINES = `
const fs = require("node:fs");
const chunk = Buffer.allocUnsafe(1024 * 1024);
function readLines(file, parse) {
  const fd = fs.openSync(file, "r");
  let parts = [], pos = 0, n;
  while ((n = fs.readSync(fd, chunk, 0, chunk.length, pos)) > 0) {
    pos += n;
    let at = 0;
    for (let nl = chunk.indexOf(10, at); nl >= 0 && nl < n; nl = chunk.indexOf(10, at)) {
      parts.push(chunk.subarray(at, nl));
      parse(parts.length === 1 ? parts[0] : Buffer.concat(parts));
      parts = [];
      at = nl + 1;
    }
    if (at < n) parts.push(Buffer.from(chunk.subarray(at, n)));
  }
  if (parts.length) parse(Buffer.concat(parts));
  fs.closeSync(fd);
}
`;

/** The floor: read in 1 MiB chunks, split on "\n", decode each line, JSON.parse it. */
const FLOOR = `${READ_LINES}
const keep = process.argv[2] === "keep", kept = [];
let lines = 0;
readLines(process.argv[1], (buf) => { const text = buf.toString("utf8"); if (text.trim() !== "") { try { const v = JSON.parse(text); if (keep) kept.push(v); } catch {} } lines++; });
`;

/**
 * The floor of `check DIR`: N threads (this one and N - 1 workers) claim the folder's `.jsonl` files,
 * largest first, from one shared counter, as `check`'s pool does, and each reads its files as
 * `FLOOR` does and `JSON.parse`s every line. Its speed-up on N threads is what `check`'s is held to.
 */
const FOLDER_FLOOR = `${READ_LINES}
const path = require("node:path");
const { Worker, isMainThread, workerData } = require("node:worker_threads");
const parseFile = (file) => readLines(file, (buf) => { const text = buf.toString("utf8"); if (text.trim() !== "") { try { JSON.parse(text); } catch {} } });
const work = (files, next) => { for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) parseFile(files[i]); };
if (isMainThread) {
  const files = [];
  const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith(".jsonl")) files.push(p); } };
  walk(process.argv[1]);
  const sizes = new Map(files.map((f) => [f, fs.statSync(f).size]));
  files.sort((a, b) => sizes.get(b) - sizes.get(a));
  const next = new Int32Array(new SharedArrayBuffer(4));
  // The workers run this same source, which \`node -e\` leaves in process.execArgv.
  const source = process.execArgv[process.execArgv.indexOf("-e") + 1];
  for (let t = 1; t < Number(process.argv[2]); t++) new Worker(source, { eval: true, workerData: { files, next } });
  work(files, next);
} else work(workerData.files, workerData.next);
`;

/**
 * Runs a command under GNU time: wall seconds, CPU seconds (user + system, every thread) and peak
 * RSS in MiB. On a shared machine the CPU time is the steadier figure: the wall time also counts
 * the time the process waited for a core.
 */
function timed(args) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", ...args], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "ignore", "pipe"] });
  const last = r.stderr.trim().split("\n").pop();
  const [seconds, user, system, kib] = last.split(" ").map(Number);
  if (!Number.isFinite(seconds)) throw new Error(`could not time ${args.join(" ")}: ${r.stderr}`);
  return { seconds, cpu: user + system, mib: kib / 1024, status: r.status };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function compare(label, variants, runs) {
  const results = variants.map(() => []);
  for (let i = 0; i < runs; i++) for (let k = 0; k < variants.length; k++) results[k].push(timed(variants[k]));
  return results.map((rs, k) => ({
    label: label[k],
    seconds: median(rs.map((r) => r.seconds)),
    cpu: median(rs.map((r) => r.cpu)),
    mib: median(rs.map((r) => r.mib)),
    all: rs.map((r) => r.seconds),
  }));
}

/**
 * A session of about `copies` × 45 MB: the benchmark session's entries again and again, each copy's
 * 8-hex-digit ids renamed (the copy's number appended) and its root chained to the last entry of the
 * copy before, written line by line (no string that large exists).
 */
function bigSession(path, copies, from) {
  const source = readFileSync(from ?? ensureSession().path, "utf8").split("\n");
  const header = source[0];
  const body = source.slice(1).filter((l) => l !== "");
  const fd = openSync(path, "w");
  try {
    writeSync(fd, `${header}\n`);
    let lastId = null;
    for (let k = 0; k < copies; k++) {
      // An 8-hex-digit id with the copy's number appended can equal no id of another copy.
      const rename = (id) => `${id}${k.toString(36)}`;
      let out = "";
      for (let i = 0; i < body.length; i++) {
        let line = body[i].replace(/"([0-9a-f]{8})"/g, (_, id) => `"${k === 0 ? id : rename(id)}"`);
        if (i === 0 && lastId !== null) line = line.replace('"parentId":null', `"parentId":"${lastId}"`);
        out += `${line}\n`;
        if (out.length > 8 * 1024 * 1024) {
          writeSync(fd, out);
          out = "";
        }
      }
      writeSync(fd, out);
      const last = /"id":"([0-9a-f]{8})"/.exec(body[body.length - 1]);
      lastId = last ? (k === 0 ? last[1] : rename(last[1])) : lastId;
    }
  } finally {
    closeSync(fd);
  }
}

function print(rows) {
  for (const r of rows)
    console.log(
      `${r.label.padEnd(28)} wall ${r.seconds.toFixed(2)} s  CPU ${r.cpu.toFixed(2)} s  peak RSS ${r.mib.toFixed(0)} MiB  (wall of each run: ${r.all.join(", ")})`,
    );
  console.log(
    `machine load (1, 5, 15 min): ${loadavg()
      .map((x) => x.toFixed(1))
      .join(", ")} on ${availableParallelism()} cores`,
  );
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option("--runs", 5));
if (args.includes("--big")) {
  bigSession(option("--big"), Number(option("--copies", 23)), option("--from"));
} else if (args.includes("--folder")) {
  const folder = option("--folder");
  const threads = option("--threads", "2");
  const rows = compare(
    ["check DIR, 1 thread", `check DIR, ${threads} threads`, "floor, 1 thread", `floor, ${threads} threads`],
    [
      ["node", CLI, "check", "--quiet", "--threads", "1", folder],
      ["node", CLI, "check", "--quiet", "--threads", threads, folder],
      ["node", "-e", FOLDER_FLOOR, folder, "1"],
      ["node", "-e", FOLDER_FLOOR, folder, threads],
    ],
    runs,
  );
  print(rows);
  const checkSpeedUp = rows[0].seconds / rows[1].seconds;
  const floorSpeedUp = rows[2].seconds / rows[3].seconds;
  console.log(`speed-up: check ${checkSpeedUp.toFixed(2)}x, floor ${floorSpeedUp.toFixed(2)}x, check / floor ${(checkSpeedUp / floorSpeedUp).toFixed(2)}`);
} else {
  const file = args[0];
  // --keep adds the floor that keeps every parsed value, as Pi's loader does (not for a 1 GB file).
  const keep = args.includes("--keep");
  const rows = compare(
    ["floor (read + JSON.parse)", "check FILE", ...(keep ? ["floor, values kept (as Pi)"] : [])],
    [["node", "-e", FLOOR, file], ["node", CLI, "check", "--quiet", file], ...(keep ? [["node", "-e", FLOOR, file, "keep"]] : [])],
    runs,
  );
  print(rows);
  console.log(
    `check / floor: wall ${(rows[1].seconds / rows[0].seconds).toFixed(2)}x, CPU ${(rows[1].cpu / rows[0].cpu).toFixed(2)}x, peak RSS ${(rows[1].mib / rows[0].mib).toFixed(2)}x`,
  );
}
