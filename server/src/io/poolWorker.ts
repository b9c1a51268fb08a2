/**
 * The worker side of the pool (`scanPool.ts`): claims tasks one at a time from the counter the
 * pool's threads share, runs them, and reports the bytes read meanwhile so the pool can show
 * progress. A worker script is one call of `serve`.
 */

import { parentPort } from "node:worker_threads";
import { claimAsWorker } from "./poolClaims";

/** The pool's one message to a worker: every task, largest first, and the counter the threads claim them with. */
export interface WorkerRequest<T> {
  tasks: readonly T[];
  /** The tasks' counter every thread claims from (`poolClaims.ts`), and the flag that stops the workers' claims. */
  next: Int32Array;
}

/** `done` carries the bytes read since the last `bytes` reply: one message per task, not two, for a folder of small files. */
export type WorkerReply<R> = { kind: "bytes"; bytes: number } | { kind: "done"; position: number; outcome: R; bytes: number } | { kind: "idle" };

/** Answers the pool's tasks with `run`, in this worker thread, claiming them until none is left. */
export function serve<T, R>(run: (task: T, onBytes: (bytes: number) => void) => R): void {
  const port = parentPort;
  if (!port) return;
  port.on("message", ({ tasks, next }: WorkerRequest<T>) => {
    for (let position = claimAsWorker(next); position < tasks.length; position = claimAsWorker(next)) {
      let pending = 0;
      const outcome = run(tasks[position]!, (bytes) => {
        // Progress in steps of at least 8 MiB, so a folder of small files does not flood the port.
        pending += bytes;
        if (pending >= 8 * 1024 * 1024) {
          port.postMessage({ kind: "bytes", bytes: pending } satisfies WorkerReply<R>);
          pending = 0;
        }
      });
      port.postMessage({ kind: "done", position, outcome, bytes: pending } satisfies WorkerReply<R>);
    }
    port.postMessage({ kind: "idle" } satisfies WorkerReply<R>);
  });
}
