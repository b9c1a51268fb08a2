/**
 * The tasks' counter of a pool (`io/poolClaims.ts`): every claim is the next position; once the
 * workers' claims are stopped a worker claims nothing more, while the pool's own thread goes on
 * with the positions left, none skipped and none given twice.
 */

import { describe, expect, it } from "vitest";
import { claimAny, claimAsWorker, newClaims, stopWorkerClaims, workerClaimsStopped } from "../../server/src/io/poolClaims";

describe("poolClaims", () => {
  it("hands out positions in order to every thread until the workers are stopped, then to the pool's thread alone", () => {
    const next = newClaims();
    expect([claimAsWorker(next), claimAny(next), claimAsWorker(next)]).toEqual([0, 1, 2]);
    expect(workerClaimsStopped(next)).toBe(false);
    stopWorkerClaims(next);
    expect(workerClaimsStopped(next)).toBe(true);
    expect(claimAsWorker(next)).toBe(Number.POSITIVE_INFINITY);
    expect(claimAsWorker(next)).toBe(Number.POSITIVE_INFINITY);
    // The stopped workers' attempts took no position.
    expect([claimAny(next), claimAny(next)]).toEqual([3, 4]);
  });
});
