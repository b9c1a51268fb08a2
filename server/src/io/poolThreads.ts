/**
 * Worker threads of the pools (`scanPool.ts`), apart from the pools and from the work they do, so
 * that a command can start its worker before it loads the modules of its work: `find TEXT` starts
 * one first thing, and the worker's own start (about 30 ms, a third of a search of a 0.4 GB folder
 * on two cores) runs while this thread loads its modules and lists the folders.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { processCores } from "./cpuQuota";

/** The compiled scan worker (`scanWorker.ts`); it does not exist when the TypeScript sources run under a test runner. */
export const SCAN_WORKER_SCRIPT = join(__dirname, "scanWorker.js");

/**
 * A worker's stack, sized so that JavaScript gets as much of it as on the main thread (V8's
 * default `--stack-size`, 984 KiB; Node keeps 192 KiB of a worker's stack for itself). The checks
 * model where Pi, on its main thread, overflows its stack (a value nested thousands of levels deep
 * made into a string): with the worker's default of 4 MB, a file checked on a worker was told fine
 * where the same file checked on the main thread, like Pi, was not.
 */
const MAIN_THREAD_STACK_MB = (984 + 192) / 1024;

/** Starts a worker of a pool on `script`; it waits for the pool's one message (`poolWorker.ts`). */
export function startPoolWorker(script: string): Worker {
  // Node's worker module is loaded by the first worker, not by every command that could start one:
  // `check FILE` loads this module and checks on its own thread.
  const threads = require("node:worker_threads") as typeof import("node:worker_threads");
  return new threads.Worker(script, { resourceLimits: { stackSizeMb: MAIN_THREAD_STACK_MB } });
}

/**
 * One thread per core this process may use (a CPU quota lowers them: `cpuQuota.ts`), or
 * `$PI_SESSION_LSP_THREADS` (0 or 1: scan in this thread), e.g. to leave cores to other work.
 */
export function defaultThreads(): number {
  const env = Number(process.env.PI_SESSION_LSP_THREADS);
  return Number.isInteger(env) && env >= 0 ? env : processCores();
}

/**
 * A scan worker started ahead of its pool, for a command-line job that will search many files
 * (`find TEXT`) when `freeCores` (known at once, `freeCoresNow`) leave a core to it and the threads
 * allowed are more than this one; handed to the pool as `PoolOptions.started`, which ends it if the
 * job turns out too small for threads (and if no pool runs, the process exits without waiting for it).
 */
export function startScanWorkerEarly(freeCores: number | undefined, script = SCAN_WORKER_SCRIPT): Worker[] {
  if (freeCores === undefined || freeCores < 1 || defaultThreads() < 2 || !existsSync(script)) return [];
  const worker = startPoolWorker(script);
  // Until a pool takes it (and holds the process for its answers), it does not keep the process alive.
  worker.unref();
  const started = [worker];
  // A worker that fails before a pool takes it (its script did not load) is dropped from the list,
  // so that the pool starts its own; without a listener its error would end the process.
  worker.once("error", () => {
    const at = started.indexOf(worker);
    if (at >= 0) started.splice(at, 1);
  });
  return started;
}
