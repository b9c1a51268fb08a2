/**
 * The worker thread of `parsePool.ts`: parses the batches of lines it is sent, in order, and sends
 * each one's packed parses back (`core/line/packed.ts`). A batch the main thread has claimed first
 * (it parses it itself) is skipped; the claim is one compare-and-swap on the batch's shared flag,
 * so each batch is parsed by exactly one of the two threads.
 */

import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type PackedBatch, packLines } from "../core/line/packed";
import { parseWithoutKeeping } from "../core/line/values";
import { CLAIMED_BY_WORKER, type LineBatch, type PackedReply, type WorkerSetup } from "./parseProtocol";

const { port, done } = workerData as WorkerSetup & { port: MessagePort };

parentPort?.on("message", (batch: LineBatch) => {
  if (Atomics.compareExchange(batch.claims, batch.slot, 0, CLAIMED_BY_WORKER) !== 0) return;
  try {
    port.postMessage({ first: batch.first, packed: parseBatch(batch) } satisfies PackedReply);
  } catch {
    // Should anything not clone after all, the main thread parses these lines again.
    port.postMessage({ first: batch.first, packed: undefined } satisfies PackedReply);
  }
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});

/** The batch's lines, parsed. */
function parseBatch(batch: LineBatch): PackedBatch {
  // A document's line is its piece of the text without a "\r" before the "\n" (`splitOf`); the
  // last piece keeps it, and the main thread parses that line itself.
  const texts = batch.pieces.map((piece) => (piece.charCodeAt(piece.length - 1) === 13 ? piece.slice(0, -1) : piece));
  // The values are not wanted here: only the facts go back.
  return parseWithoutKeeping(Number.POSITIVE_INFINITY, () => packLines(texts));
}
