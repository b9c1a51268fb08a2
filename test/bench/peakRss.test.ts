/**
 * The benchmark's peak memory of a child process is the child's own: Linux carries a process's
 * `getrusage` maxRSS over an exec from the parent that forked it, so a `node` started by a parent
 * holding 400 MB reported 400 MB as its own peak (the sessions rows once read 211 MiB for every
 * command, the benchmark's own size at the time). PEAK_RSS_ON_EXIT reads VmHWM instead.
 */

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const STDIO = pathToFileURL(join(__dirname, "../../bench/stdio.mjs")).href;

describe("PEAK_RSS_ON_EXIT", () => {
  it("reports the child's peak, not the RSS of the process that started it", async () => {
    const { PEAK_RSS_ON_EXIT, reportedPeakRss } = await import(STDIO);
    const held = Buffer.alloc(400 * 1024 * 1024, 1); // resident in this process while the child starts
    const child = spawnSync(process.execPath, ["-e", `${PEAK_RSS_ON_EXIT} Buffer.alloc(50 * 1024 * 1024, 1);`], { encoding: "utf8" });
    expect(held[held.length - 1]).toBe(1);
    const peak = reportedPeakRss(child.stderr);
    expect(peak).toBeGreaterThan(50 * 1024 * 1024);
    expect(peak).toBeLessThan(300 * 1024 * 1024);
  });
});

describe("WORKERS_ON_EXIT", () => {
  it("counts the worker threads the main thread starts, and reports none for a process that starts none", async () => {
    const { PEAK_RSS_ON_EXIT, WORKERS_ON_EXIT, reportedWorkers } = await import(STDIO);
    // The counter must see a worker started the way the commands start theirs: `require` of the
    // module when the worker is wanted, then `new threads.Worker(...)`; the worker runs the preload too.
    const two = `const threads = require("node:worker_threads"); for (let i = 0; i < 2; i++) new threads.Worker("require('worker_threads').parentPort.postMessage(1)", { eval: true }).unref();`;
    const started = spawnSync(process.execPath, ["-e", `${PEAK_RSS_ON_EXIT} ${WORKERS_ON_EXIT} ${two} setTimeout(() => {}, 300);`], { encoding: "utf8" });
    expect(started.status).toBe(0);
    expect(reportedWorkers(started.stderr)).toBe(2);
    const none = spawnSync(process.execPath, ["-e", `${WORKERS_ON_EXIT} require("node:worker_threads");`], { encoding: "utf8" });
    expect(reportedWorkers(none.stderr)).toBe(0);
    expect(reportedWorkers("")).toBeUndefined();
  });
});
