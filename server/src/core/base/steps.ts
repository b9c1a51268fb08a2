/**
 * Long loops as steps: a feature that may run for a long time on a big session is written as a
 * generator that yields between pieces of its work, and returns its answer. The server
 * (`lsp/guard.ts`) drives it a slice of time at a time, letting `$/cancelRequest` and edits in
 * between, and stops it when the request is cancelled or the document changes; everything else
 * runs it to the end at once with `runToEnd`. The core keeps no timer: only the driver does.
 */

export type Steps<R> = Generator<void, R, void>;

/** Runs `steps` to the end, synchronously, and returns the answer. */
export function runToEnd<R>(steps: Steps<R>): R {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}
