/** What `parsePool.ts` and its worker (`parseWorker.ts`) send each other. */

import type { PackedBatch } from "../core/line/packed";

/** Given to the worker when it starts (with the port its replies go to). */
export interface WorkerSetup {
  /** The number of replies the worker has sent, to wait on (`Atomics.wait`). */
  done: Int32Array;
}

/** Lines for the worker: pieces of the text between line breaks, from line `first` on. */
export interface LineBatch {
  first: number;
  pieces: string[];
  /** The batch's shared flag, `claims[slot]`: 0 while nobody parses the batch, then who does. */
  claims: Int32Array;
  slot: number;
}

export const CLAIMED_BY_WORKER = 1;
export const CLAIMED_HERE = 2;

export interface PackedReply {
  first: number;
  /** Undefined when the batch's parses could not be sent. */
  packed: PackedBatch | undefined;
}
