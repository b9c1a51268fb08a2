/**
 * The tasks' counter a pool's threads share (`scanPool.ts`, `poolWorker.ts`): each thread claims
 * the next task with one `Atomics.add`, so that no thread waits for another to hand it work, and a
 * flag beside it stops the workers' claims, after which the pool's own thread takes the tasks left.
 * Apart from both sides so that the pool's side does not load Node's worker module with the worker's.
 */

/** Where the counter holds the flag that stops the workers' claims. */
const STOP = 1;

/** A new counter: the next task is the first, and the workers may claim. */
export function newClaims(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

/** The position of the next task, claimed by this thread whatever the flag says (the pool's own thread). */
export function claimAny(next: Int32Array): number {
  return Atomics.add(next, 0, 1);
}

/** The position of the next task for a worker, or past every task once the workers' claims are stopped. */
export function claimAsWorker(next: Int32Array): number {
  return Atomics.load(next, STOP) !== 0 ? Number.POSITIVE_INFINITY : Atomics.add(next, 0, 1);
}

/** Stops the workers' claims: each finishes the task it holds and claims no other. */
export function stopWorkerClaims(next: Int32Array): void {
  Atomics.store(next, STOP, 1);
}

/** Whether the workers' claims were stopped. */
export function workerClaimsStopped(next: Int32Array): boolean {
  return Atomics.load(next, STOP) !== 0;
}
