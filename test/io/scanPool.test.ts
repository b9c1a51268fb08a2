/**
 * The worker pool (`io/scanPool.ts`): its threads claim tasks from one shared counter, so every
 * task is run exactly once and the results come back in the tasks' order, whichever thread ran
 * them; with `withThisThread` this thread is one of the pool's threads (2 threads start 1 worker)
 * and runs tasks too, and a worker joins in once it has started, unless `workersWorth` (the cores
 * found free) says none is worth starting.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ScanOutcome, type ScanTask, scanFile } from "../../server/src/io/scanFile";
import { startPoolWorker, startScanWorkerEarly } from "../../server/src/io/poolThreads";
import { runPool } from "../../server/src/io/scanPool";
import { ensureBuilt } from "../helpers/lspClient";

const root = join(__dirname, "../..");
/** The compiled worker: the pool runs only a built script in its workers. */
const script = join(root, "out/io/scanWorker.js");
const header = (i: number) =>
  `{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-${String(i).padStart(12, "0")}","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p${i}"}`;
const user = (i: number) =>
  `{"type":"message","id":"a${i}","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"task ${i}","timestamp":1772445601000}}`;

let dir: string;
let tasks: ScanTask[];

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-scan-pool-"));
  tasks = [];
  for (let i = 0; i < 80; i++) {
    const path = join(dir, `s${i}.jsonl`);
    writeFileSync(path, `${header(i)}\n${user(i)}\n`);
    tasks.push({ path, version: "1.x", read: "info" });
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the pool's answers say of a file, without the times that differ from one read to the next. */
const summary = (o: ScanOutcome) => ({ path: o.path, size: o.size, error: o.error, scan: o.scan && JSON.stringify(o.scan) });

/** Blocks this thread for `ms` (a task that takes a while, so that the worker has time to start). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("runPool", () => {
  // Sizes only order the tasks and decide that threads pay: every file counts as 1 MiB.
  const sizes = () => tasks.map(() => 1024 * 1024);

  it("runs each task once, in this thread and a worker, and answers in the tasks' order", async () => {
    const inThread = await runPool(tasks, { script, here: (t: ScanTask) => scanFile(t) }, { threads: 1, sizes: sizes() });
    const ranHere: string[] = [];
    const order: number[] = [];
    const started = vi.spyOn(Worker.prototype, "postMessage");
    const pooled = await runPool(
      tasks,
      {
        script,
        here: (t: ScanTask) => {
          ranHere.push(t.path);
          pause(25);
          return scanFile(t);
        },
        onResult: (index) => order.push(index),
      },
      { threads: 2, sizes: sizes(), withThisThread: true },
    );
    // One worker for two threads: it got one message, the whole list and the shared counter.
    expect(started).toHaveBeenCalledTimes(1);
    started.mockRestore();
    expect(pooled.map(summary)).toEqual(inThread.map(summary));
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
    // Each task answered once; this thread ran some of them, the worker the others.
    expect([...order].sort((a, b) => a - b)).toEqual(tasks.map((_, i) => i));
    expect(ranHere.length).toBeGreaterThan(0);
    expect(ranHere.length).toBeLessThan(tasks.length);
    expect(new Set(ranHere).size).toBe(ranHere.length);
  });

  it("starts no worker when workersWorth says none is worth it (no core free), and this thread runs every task", async () => {
    const here = vi.fn((t: ScanTask) => scanFile(t));
    const worth = vi.fn(() => 0);
    const started = vi.spyOn(Worker.prototype, "postMessage");
    const pooled = await runPool(tasks, { script, here }, { threads: 2, sizes: sizes(), withThisThread: true, workersWorth: worth });
    expect(worth).toHaveBeenCalledTimes(1);
    expect(started).not.toHaveBeenCalled();
    started.mockRestore();
    expect(here).toHaveBeenCalledTimes(tasks.length);
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
  });

  it("asks workersWorth before each task this thread takes until it answers, starts no more workers than the threads asked for, and the worker takes the tasks left", async () => {
    const ranHere: string[] = [];
    let asked = 0;
    let ranBeforeAnswer = -1;
    const started = vi.spyOn(Worker.prototype, "postMessage");
    const pooled = await runPool(
      tasks,
      {
        script,
        here: (t: ScanTask) => {
          ranHere.push(t.path);
          return scanFile(t);
        },
      },
      {
        threads: 2,
        sizes: sizes(),
        withThisThread: true,
        workersWorth: () => {
          // Not known for the first five tasks, then more workers than the threads allow.
          if (++asked <= 5) return undefined;
          ranBeforeAnswer = ranHere.length;
          return 5;
        },
      },
    );
    expect(asked).toBe(6);
    expect(ranBeforeAnswer).toBe(5);
    expect(started).toHaveBeenCalledTimes(1);
    started.mockRestore();
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
    expect(new Set(ranHere).size).toBe(ranHere.length);
  });

  it("takes a worker started ahead before it starts one, and ends the ones it does not take", async () => {
    const early = [startPoolWorker(script), startPoolWorker(script)];
    const exited = early.map((w) => new Promise((resolve) => w.once("exit", resolve)));
    const given = vi.spyOn(Worker.prototype, "postMessage");
    const list = [...early];
    // Sizes not known (a listing without a stat): 80 files are enough for threads.
    const pooled = await runPool(tasks, { script, here: (t: ScanTask) => scanFile(t) }, { threads: 2, withThisThread: true, started: list });
    // One worker for two threads, and it is the first one started ahead: no new one.
    expect(given.mock.instances).toEqual([early[0]]);
    given.mockRestore();
    expect(list).toEqual([]);
    await Promise.all(exited);
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
    expect(pooled.every((o) => o.scan !== undefined && o.error === undefined)).toBe(true);
  });

  it("ends a worker started ahead when the job is too small for threads, and runs it here", async () => {
    const early = startPoolWorker(script);
    const exited = new Promise((resolve) => early.once("exit", resolve));
    const here = vi.fn((t: ScanTask) => scanFile(t));
    const few = tasks.slice(0, 5);
    const pooled = await runPool(few, { script, here }, { threads: 2, withThisThread: true, started: [early] });
    await exited;
    expect(here).toHaveBeenCalledTimes(few.length);
    expect(pooled.map((o) => o.path)).toEqual(few.map((t) => t.path));
  });

  it("does not wait for a worker that took no task when this thread ran them all", async () => {
    // A worker that never claims a task nor answers: waiting for it would never end.
    const silent = new Worker("setInterval(() => {}, 1000);", { eval: true });
    const exited = new Promise((resolve) => silent.once("exit", resolve));
    const here = vi.fn((t: ScanTask) => scanFile(t));
    const pooled = await runPool(tasks, { script, here }, { threads: 2, sizes: sizes(), withThisThread: true, started: [silent] });
    await exited;
    expect(here).toHaveBeenCalledTimes(tasks.length);
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
  });

  it("calls back no more once it has failed: a result a worker sent meanwhile is dropped, not handed over after the answer", async () => {
    // A worker that counts the tasks it began in a counter this thread shares (every task holds it).
    const counting = join(dir, "counting-worker.js");
    writeFileSync(
      counting,
      `require(${JSON.stringify(join(root, "out/io/poolWorker.js"))}).serve((task) => { Atomics.add(task.began, 0, 1); return task.n; });\n`,
    );
    const began = new Int32Array(new SharedArrayBuffer(4));
    const jobs = Array.from({ length: 8 }, (_, n) => ({ n, began }));
    const worker = startPoolWorker(counting);
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    let settled = false;
    const late: string[] = [];
    const here = () => {
      // Once the worker began its second task it has sent the first one's result; this thread then fails.
      while (Atomics.load(began, 0) < 2) Atomics.wait(began, 0, Atomics.load(began, 0), 50);
      throw new Error("this thread's task failed");
    };
    await expect(
      runPool(
        jobs,
        { script: counting, here, onResult: (index) => settled && late.push(`result ${index}`) },
        { threads: 2, withThisThread: true, offThread: true, started: [worker], onProgress: () => settled && late.push("progress") },
      ),
    ).rejects.toThrow("this thread's task failed");
    settled = true;
    // Every message the worker sent has been taken, or dropped, once it has exited.
    await exited;
    expect(late).toEqual([]);
  });

  it("stops the workers' claims once keepWorkers says no, asks it no more, and this thread takes the tasks left", async () => {
    const ranHere: number[] = [];
    let asked = 0;
    let firstAfterStop = -1;
    const pooled = await runPool(
      tasks,
      {
        script,
        here: (t: ScanTask) => {
          const at = tasks.indexOf(t);
          if (asked > 0 && firstAfterStop < 0) firstAfterStop = at;
          ranHere.push(at);
          // After the first task, slow enough that a worker left to claim would take most of the rest.
          if (ranHere.length > 1) pause(3);
          return scanFile(t);
        },
      },
      {
        threads: 2,
        sizes: sizes(),
        withThisThread: true,
        keepWorkers: () => {
          asked++;
          return false;
        },
      },
    );
    expect(asked).toBe(1);
    expect(pooled.map(summary)).toEqual((await runPool(tasks, { script, here: (t: ScanTask) => scanFile(t) }, { threads: 1 })).map(summary));
    // Equal sizes keep the tasks' order: the threads claim positions one after the other. A worker
    // may claim one task it read the flag for before it was set; after that only this thread claims.
    const byWorker = tasks.map((_, i) => i).filter((i) => !ranHere.includes(i));
    expect(firstAfterStop).toBeGreaterThan(0);
    expect(byWorker.filter((i) => i > firstAfterStop).length).toBeLessThanOrEqual(1);
    expect(new Set(ranHere).size).toBe(ranHere.length);
  });

  it("without withThisThread, leaves every task to the workers", async () => {
    const here = vi.fn((t: ScanTask) => scanFile(t));
    const pooled = await runPool(tasks, { script, here }, { threads: 2, sizes: sizes() });
    expect(here).not.toHaveBeenCalled();
    expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
    expect(pooled.every((o) => o.scan !== undefined && o.error === undefined)).toBe(true);
  });
});

describe("a worker started ahead (startScanWorkerEarly)", () => {
  it("that fails before a pool takes it leaves the list, and its error does not end the process", async () => {
    const broken = join(dir, "broken-worker.js");
    writeFileSync(broken, 'throw new Error("this worker script does not load");\n');
    vi.stubEnv("PI_SESSION_LSP_THREADS", "2");
    try {
      const started = startScanWorkerEarly(1, broken);
      expect(started).toHaveLength(1);
      await new Promise<void>((resolve) => started[0]!.once("exit", () => resolve()));
      expect(started).toEqual([]);
      // A pool given the emptied list starts its own worker and answers every task.
      const pooled = await runPool(tasks, { script, here: (t: ScanTask) => scanFile(t) }, { threads: 2, sizes: tasks.map(() => 1024 * 1024), started });
      expect(pooled.map((o) => o.path)).toEqual(tasks.map((t) => t.path));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("is not started when no core is free", () => {
    expect(startScanWorkerEarly(0, script)).toEqual([]);
    expect(startScanWorkerEarly(undefined, script)).toEqual([]);
  });
});
