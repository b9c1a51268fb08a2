/**
 * The worker side of the pool (`scanPool.ts`): takes tasks one at a time, runs them, and reports
 * the bytes read meanwhile so the pool can show progress. A worker script is one call of `serve`.
 */

import { parentPort } from "node:worker_threads";

export interface WorkerRequest<T> {
  id: number;
  task: T;
}

export type WorkerReply<R> = { kind: "bytes"; bytes: number } | { kind: "done"; id: number; outcome: R };

/** Answers the pool's tasks with `run`, in this worker thread. */
export function serve<T, R>(run: (task: T, onBytes: (bytes: number) => void) => R): void {
  const port = parentPort;
  if (!port) return;
  port.on("message", ({ id, task }: WorkerRequest<T>) => {
    let pending = 0;
    const outcome = run(task, (bytes) => {
      // Progress in steps of at least 8 MiB, so a folder of small files does not flood the port.
      pending += bytes;
      if (pending >= 8 * 1024 * 1024) {
        port.postMessage({ kind: "bytes", bytes: pending } satisfies WorkerReply<R>);
        pending = 0;
      }
    });
    if (pending > 0) port.postMessage({ kind: "bytes", bytes: pending } satisfies WorkerReply<R>);
    port.postMessage({ kind: "done", id, outcome } satisfies WorkerReply<R>);
  });
}
