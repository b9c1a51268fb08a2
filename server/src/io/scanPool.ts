/**
 * Scanning many session files on every core: a pool of worker threads (`scanWorker.ts`), each
 * reading one file at a time with the streaming line reader, largest files first so that one big
 * session does not leave the other threads idle at the end. Memory is bounded per thread (one chunk
 * plus the longest line) and results are small summaries, never file contents.
 *
 * Without the compiled worker (the TypeScript sources run under a test runner) or for a small job,
 * the same scan runs in this thread, yielding to the event loop between files. `runPool` is the
 * pool itself, for any job a worker script serves through `poolWorker.ts` (`check DIR` uses it).
 *
 * Every thread claims its next task from one shared counter (`Atomics.add` on a
 * `SharedArrayBuffer`), so that no thread waits for another to hand it work. A command-line job
 * (`withThisThread`) works in this thread too, as one of the threads: a worker costs a start and a
 * load of the modules (about 0.1 s of CPU each), and its isolate compiles the hot code again,
 * while this thread, which has all of that done already, would only wait.
 */

import { existsSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import { defaultThreads, SCAN_WORKER_SCRIPT, startPoolWorker } from "./poolThreads";
import { type ScanOutcome, type ScanTask, scanFile } from "./scanFile";
import { claimAny, newClaims, stopWorkerClaims, workerClaimsStopped } from "./poolClaims";
import type { WorkerReply, WorkerRequest } from "./poolWorker";

export interface ScanProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

export interface PoolOptions {
  /** Threads to use (with `withThisThread`, this one among them); default: one per core. 0 or 1 scans in this thread. */
  threads?: number;
  /** Sizes of the files, when known, to order the work and report progress in bytes. */
  sizes?: readonly number[];
  onProgress?: (progress: ScanProgress) => void;
  signal?: AbortSignal;
  /**
   * Whether this thread checks files too, as one of the `threads` (one worker fewer): for the
   * command line, where nothing else waits for this thread. A server's thread must stay free for
   * its requests, so by default it only waits.
   */
  withThisThread?: boolean;
  /**
   * Workers already started on the job's script (`poolThreads.ts`), taken before new ones are
   * started, and ended with the pool's; the list is emptied, so that a later pool does not take
   * them again. A job run in this thread ends them at once.
   */
  started?: Worker[];
  /**
   * With `withThisThread`, how many workers are worth starting (at most `threads` less this one),
   * or undefined while that is not known yet: asked before each task this thread takes until it
   * answers, and the workers then claim the tasks left. For the command line: the cores that other
   * work leaves free (`freeCores.ts`), known once enough time has been measured, since a worker
   * costs a start and a load of the modules and, on a core another process holds, only slows this
   * thread down. Without it, the workers start at once.
   */
  workersWorth?: () => number | undefined;
  /**
   * With `withThisThread`, asked after each task this thread runs while workers run: false stops
   * them from claiming more tasks (each finishes the one it holds) and this thread takes the rest.
   * For the command line, where a worker that shares a core with another process's work, started
   * after the workers were, only takes this thread's time.
   */
  keepWorkers?: () => boolean;
  /**
   * Whether even a small job runs on a worker when the compiled worker exists: for a server, whose
   * thread must answer the editor while a session of any size is read (one 1 GB file is one task).
   */
  offThread?: boolean;
  /**
   * Whether the results are kept for the returned list (default true). A job that takes each
   * result as it arrives (`onResult`) and has many keeps none, so that its memory does not grow
   * with them; the list returned is then empty.
   */
  keepResults?: boolean;
}

/** One kind of work for the pool: the worker script that does it, and the same work in this thread. */
export interface PoolJob<T, R> {
  /** The compiled worker (see `poolWorker.ts`); without it the work runs in this thread. */
  script: string;
  here: (task: T, onBytes: (bytes: number) => void) => R;
  /** Called with each result as it arrives (in any order). */
  onResult?: (index: number, result: R) => void;
}

/** Below this many bytes in all, starting threads costs more than it saves. */
const IN_THREAD_BYTES = 16 * 1024 * 1024;
/**
 * Below this many files of sizes not known (listed without a stat), likewise: a session file is
 * typically some hundreds of KB, so this many are about `IN_THREAD_BYTES`.
 */
const IN_THREAD_UNSIZED_FILES = 64;
/** How long this thread works through files (`withThisThread`) before it lets the event loop take the workers' replies. */
const HERE_TURN_MS = 10;

/** Whether `runPool` would start threads for this work (else it runs it in this thread); `sizes` undefined when not known. */
export function usesThreads(threads: number, tasks: number, sizes: readonly number[] | undefined, script: string): boolean {
  const enough = sizes === undefined ? tasks >= IN_THREAD_UNSIZED_FILES : sizes.reduce((a, b) => a + b, 0) >= IN_THREAD_BYTES;
  return Math.min(threads, tasks) > 1 && enough && existsSync(script);
}

/** Scans `tasks` and returns their outcomes in the same order. */
export function scanAll(tasks: readonly ScanTask[], options: PoolOptions = {}): Promise<ScanOutcome[]> {
  return runPool(tasks, { script: SCAN_WORKER_SCRIPT, here: scanFile }, options);
}

/** Runs `job` on each of `tasks`, on worker threads when it pays, and returns the results in the tasks' order. */
export async function runPool<T, R>(tasks: readonly T[], job: PoolJob<T, R>, options: PoolOptions = {}): Promise<R[]> {
  const sizes = options.sizes ?? tasks.map(() => 0);
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const progress: ScanProgress = { files: 0, totalFiles: tasks.length, bytes: 0, totalBytes };
  const report = () => options.onProgress?.({ ...progress });
  const wanted = options.threads ?? defaultThreads();
  const threads = Math.min(wanted, tasks.length);
  const onWorkers = options.offThread ? threads > 0 && existsSync(job.script) : usesThreads(wanted, tasks.length, options.sizes, job.script);
  // Workers started ahead (`started`) are the first the pool takes; any it does not take are ended.
  const started = options.started?.splice(0) ?? [];
  const endUnused = () => Promise.all(started.splice(0).map((w) => w.terminate()));
  if (!onWorkers) {
    await endUnused();
    return runHere(tasks, job, progress, report, options);
  }
  const here = options.withThisThread === true;
  const maxWorkers = here ? threads - 1 : threads;
  // Workers asked for later, by what this thread's first stretch of work measured.
  const decideLater = here && options.workersWorth !== undefined;

  const order = tasks.map((_, i) => i).sort((a, b) => (sizes[b] ?? 0) - (sizes[a] ?? 0));
  const ordered = order.map((id) => tasks[id]!);
  // The index in `ordered` of the next task to claim, shared by every thread (`poolClaims.ts`).
  const next = newClaims();
  const results = new Array<R>(tasks.length);
  const take = (position: number, outcome: R) => {
    const id = order[position]!;
    if (options.keepResults !== false) results[id] = outcome;
    progress.files++;
    job.onResult?.(id, outcome);
    report();
  };
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolveAll, rejectAll) => {
      let running = 0;
      let failed = false;
      const fail = (error: unknown) => {
        failed = true;
        rejectAll(error);
      };
      const finished = () => {
        if (--running === 0) resolveAll();
      };
      const abort = () => fail(options.signal?.reason ?? new Error("aborted"));
      options.signal?.addEventListener("abort", abort, { once: true });
      const startWorker = () => {
        const early = started.shift();
        // A worker started ahead does not hold the process (`poolThreads.ts`); the pool waits for its answers.
        early?.ref();
        const worker = early ?? startPoolWorker(job.script);
        workers.push(worker);
        running++;
        worker.on("message", replyHandler(progress, report, take, finished));
        worker.on("error", fail);
        worker.postMessage({ tasks: ordered, next } satisfies WorkerRequest<T>);
      };
      if (!decideLater) for (let t = 0; t < maxWorkers; t++) startWorker();
      if (here) {
        running++;
        let decided = !decideLater;
        let lastTurn = performance.now();
        let ranHere = 0;
        void (async () => {
          for (let position = claimAny(next); position < ordered.length && !failed; position = claimAny(next)) {
            ranHere++;
            const worth = decided ? undefined : options.workersWorth!();
            if (worth !== undefined) {
              decided = true;
              for (let t = 0; t < Math.min(maxWorkers, Math.floor(worth)); t++) startWorker();
            }
            const outcome = job.here(ordered[position]!, (bytes) => {
              progress.bytes += bytes;
              report();
            });
            take(position, outcome);
            if (workers.length > 0 && !workerClaimsStopped(next) && options.keepWorkers?.() === false) stopWorkerClaims(next);
            // The workers' replies are taken between files, every few milliseconds: a turn of the
            // event loop after each of 2,000 small files cost more than their replies need.
            if (performance.now() - lastTurn >= HERE_TURN_MS) {
              await new Promise((r) => setImmediate(r));
              lastTurn = performance.now();
            }
          }
          // Every task ran here (a small job, or workers still starting): none is waited for.
          if (ranHere === ordered.length) resolveAll();
          else finished();
        })().catch(fail);
      }
    });
  } finally {
    endWorkers(workers);
    await endUnused();
  }
  return results;
}

/**
 * Tells the pool's workers to end, and returns without waiting for their threads to be torn down
 * (3 to 7 ms on two cores, that `find TEXT` waited for after its last file): after a success none
 * has a task left, and the process or the next pool does not need their cores back sooner than the
 * kernel gives them. After a failure a worker may still be on a task: what it sends until it ends
 * is dropped, so that no result or progress reaches the caller after the pool's answer (a result
 * printed after the error, a progress line drawn again after it was cleared).
 */
function endWorkers(workers: readonly Worker[]): void {
  for (const worker of workers) {
    worker.removeAllListeners("message");
    void worker.terminate();
  }
}

/** What the pool does with a worker's reply: the bytes it read, a task's outcome, or that it has no task left. */
function replyHandler<R>(progress: ScanProgress, report: () => void, take: (position: number, outcome: R) => void, finished: () => void) {
  return (reply: WorkerReply<R>) => {
    if (reply.kind === "idle") return finished();
    progress.bytes += reply.bytes;
    if (reply.kind === "done") take(reply.position, reply.outcome);
    else report();
  };
}

async function runHere<T, R>(tasks: readonly T[], job: PoolJob<T, R>, progress: ScanProgress, report: () => void, options: PoolOptions): Promise<R[]> {
  const results: R[] = [];
  let lastTurn = performance.now();
  for (let i = 0; i < tasks.length; i++) {
    options.signal?.throwIfAborted();
    const result = job.here(tasks[i]!, (bytes) => {
      progress.bytes += bytes;
    });
    if (options.keepResults !== false) results.push(result);
    progress.files++;
    job.onResult?.(i, result);
    report();
    // Let the event loop run (an editor's requests, a progress line) between files, every few
    // milliseconds (as this thread does among workers: `HERE_TURN_MS`).
    if (performance.now() - lastTurn >= HERE_TURN_MS) {
      await new Promise((r) => setImmediate(r));
      lastTurn = performance.now();
    }
  }
  return results;
}
