/**
 * Scanning many session files on every core: a pool of worker threads (`scanWorker.ts`), each
 * reading one file at a time with the streaming line reader, largest files first so that one big
 * session does not leave the other threads idle at the end. Memory is bounded per thread (one chunk
 * plus the longest line) and results are small summaries, never file contents.
 *
 * Without the compiled worker (the TypeScript sources run under a test runner) or for a small job,
 * the same scan runs in this thread, yielding to the event loop between files.
 */

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { type ScanOutcome, type ScanTask, scanFile } from "./scanFile";
import type { WorkerReply, WorkerRequest } from "./scanWorker";

export interface ScanProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

export interface PoolOptions {
  /** Worker threads to use; default: one per core. 0 scans in this thread. */
  threads?: number;
  /** Sizes of the files, when known, to order the work and report progress in bytes. */
  sizes?: readonly number[];
  onProgress?: (progress: ScanProgress) => void;
  signal?: AbortSignal;
}

/** Below this many bytes in all, starting threads costs more than it saves. */
const IN_THREAD_BYTES = 16 * 1024 * 1024;

const WORKER_SCRIPT = join(__dirname, "scanWorker.js");

/** One thread per core, or `$PI_SESSION_LSP_THREADS` (0 or 1: scan in this thread), e.g. to leave cores to other work. */
export function defaultThreads(): number {
  const env = Number(process.env.PI_SESSION_LSP_THREADS);
  return Number.isInteger(env) && env >= 0 ? env : availableParallelism();
}

/** Scans `tasks` and returns their outcomes in the same order. */
export async function scanAll(tasks: readonly ScanTask[], options: PoolOptions = {}): Promise<ScanOutcome[]> {
  const sizes = options.sizes ?? tasks.map(() => 0);
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const progress: ScanProgress = { files: 0, totalFiles: tasks.length, bytes: 0, totalBytes };
  const report = () => options.onProgress?.({ ...progress });
  const wanted = options.threads ?? defaultThreads();
  const threads = Math.min(wanted, tasks.length);
  if (threads <= 1 || totalBytes < IN_THREAD_BYTES || !existsSync(WORKER_SCRIPT)) return scanHere(tasks, progress, report, options.signal);

  const order = tasks.map((_, i) => i).sort((a, b) => (sizes[b] ?? 0) - (sizes[a] ?? 0));
  const results = new Array<ScanOutcome>(tasks.length);
  let next = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolveAll, rejectAll) => {
      let running = 0;
      const abort = () => rejectAll(options.signal?.reason ?? new Error("aborted"));
      options.signal?.addEventListener("abort", abort, { once: true });
      const feed = (worker: Worker) => {
        if (next >= order.length) {
          if (--running === 0) resolveAll();
          return;
        }
        const id = order[next++]!;
        worker.postMessage({ id, task: tasks[id]! } satisfies WorkerRequest);
      };
      for (let t = 0; t < threads; t++) {
        const worker = new Worker(WORKER_SCRIPT);
        workers.push(worker);
        running++;
        worker.on("message", (reply: WorkerReply) => {
          if (reply.kind === "bytes") {
            progress.bytes += reply.bytes;
            report();
            return;
          }
          results[reply.id] = reply.outcome;
          progress.files++;
          report();
          feed(worker);
        });
        worker.on("error", rejectAll);
        feed(worker);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

async function scanHere(tasks: readonly ScanTask[], progress: ScanProgress, report: () => void, signal?: AbortSignal): Promise<ScanOutcome[]> {
  const results: ScanOutcome[] = [];
  for (const task of tasks) {
    signal?.throwIfAborted();
    results.push(
      scanFile(task, (bytes) => {
        progress.bytes += bytes;
      }),
    );
    progress.files++;
    report();
    // Let the event loop run (an editor's requests, a progress line) between files.
    await new Promise((r) => setImmediate(r));
  }
  return results;
}
