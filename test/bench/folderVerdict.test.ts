/**
 * The verdict of the bench's folder rows (`bench/run.mjs`), on made-up figures: a busy run that
 * fell back to one thread passes only within the noise between runs of one program.
 */

import { describe, expect, it } from "vitest";

const RUN = "../../bench/run.mjs";

describe("folderThreadsPass", () => {
  it("passes a busy run that is not slower, or that fell back to one thread within the noise", async () => {
    const { folderThreadsPass } = await import(RUN);
    const busy = (speedUp: number, workers: (number | undefined)[]) => folderThreadsPass({ speedUp, floorSpeedUp: 1.4, workers, busy: true });
    expect(busy(1.02, [1, 1, 1])).toBe(true);
    expect(busy(0.96, [0, 0, 0])).toBe(true);
    // A worker started in one run: that run was not the one-thread check, and slower is slower.
    expect(busy(0.96, [0, 1, 0])).toBe(false);
    // No count reported is no proof of a fallback.
    expect(busy(0.96, [undefined, undefined, undefined])).toBe(false);
    expect(busy(0.96, [])).toBe(false);
  });

  it("fails a busy run that fell back to one thread but took far longer than one thread", async () => {
    const { folderThreadsPass } = await import(RUN);
    // No worker started, and the fallback took 1.4 times one thread's time: the probe or the
    // measurement of the cores cost that much, which "never slower than one thread" must catch.
    expect(folderThreadsPass({ speedUp: 0.7, floorSpeedUp: 1.4, workers: [0, 0, 0], busy: true })).toBe(false);
  });

  it("judges an idle run against one thread and the floor's speed-up, whatever its workers", async () => {
    const { folderThreadsPass } = await import(RUN);
    expect(folderThreadsPass({ speedUp: 1.3, floorSpeedUp: 1.4, workers: [1, 1, 1], busy: false })).toBe(true);
    expect(folderThreadsPass({ speedUp: 1.05, floorSpeedUp: 1.4, workers: [1, 1, 1], busy: false })).toBe(false);
    expect(folderThreadsPass({ speedUp: 0.99, floorSpeedUp: 1.0, workers: [0, 0, 0], busy: false })).toBe(false);
  });
});
