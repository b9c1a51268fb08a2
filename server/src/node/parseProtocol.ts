/** What `parsePool.ts` and its worker (`parseWorker.ts`) send each other. */

import type { PackedBatch } from "../core/packedLines";

/** Given to the worker when it starts (with the port its replies go to). */
export interface WorkerSetup {
  /** The number of replies the worker has sent, to wait on (`Atomics.wait`). */
  done: Int32Array;
}

/**
 * Lines for the worker, from line `first` on: `count` pieces of a text between line breaks, as the
 * bytes of a JSON string's characters (without its quotes) that `JSON.parse` reads into those
 * pieces joined with "\n", and a "\n" after them when the bytes end with an escaped line break.
 */
export interface LineBatch {
  first: number;
  count: number;
  bytes: Uint8Array;
  /** One shared flag: 0 while nobody parses the batch, then who does. */
  claim: Int32Array;
}

export const CLAIMED_BY_WORKER = 1;
export const CLAIMED_HERE = 2;

export interface PackedReply {
  first: number;
  /** Undefined when the batch's bytes did not decode to its lines. */
  packed: PackedBatch | undefined;
}
