/**
 * A worker thread of the scan pool (`scanPool.ts`): scans the files it is sent, one at a time, and
 * reports the bytes it has read so the pool can show progress.
 */

import { parentPort } from "node:worker_threads";
import { type ScanTask, scanFile } from "./scanFile";

export interface WorkerRequest {
  id: number;
  task: ScanTask;
}

export type WorkerReply = { kind: "bytes"; bytes: number } | { kind: "done"; id: number; outcome: ReturnType<typeof scanFile> };

const port = parentPort;
if (port) {
  port.on("message", ({ id, task }: WorkerRequest) => {
    let pending = 0;
    const outcome = scanFile(task, (bytes) => {
      // Progress in steps of at least 8 MiB, so a folder of small files does not flood the port.
      pending += bytes;
      if (pending >= 8 * 1024 * 1024) {
        port.postMessage({ kind: "bytes", bytes: pending } satisfies WorkerReply);
        pending = 0;
      }
    });
    if (pending > 0) port.postMessage({ kind: "bytes", bytes: pending } satisfies WorkerReply);
    port.postMessage({ kind: "done", id, outcome } satisfies WorkerReply);
  });
}
