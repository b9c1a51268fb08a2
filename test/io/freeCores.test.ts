/**
 * The free cores `check DIR` starts workers for (`io/freeCores.ts`): a stated number wins over the
 * measure, and a measure is a share of the machine's cores, never negative and never more than
 * they are (with the kernel's tick of slack), however busy the machine is.
 */

import { availableParallelism, cpus } from "node:os";
import { describe, expect, it } from "vitest";
import { measureFreeCores } from "../../server/src/io/freeCores";

describe("measureFreeCores", () => {
  it("answers the stated number of free cores, and measures when none is stated", () => {
    expect(measureFreeCores({ PI_SESSION_LSP_FREE_CORES: "1.5" }).freeCores()).toBe(1.5);
    expect(measureFreeCores({ PI_SESSION_LSP_FREE_CORES: "0" }).freeCores()).toBe(0);
    // Not a number: measured, as when nothing is stated.
    for (const env of [{}, { PI_SESSION_LSP_FREE_CORES: "" }, { PI_SESSION_LSP_FREE_CORES: "many" }]) {
      const probe = measureFreeCores(env);
      // A stretch long enough for the kernel's counters (they tick every 10 ms or so).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      const free = probe.freeCores();
      expect(free).toBeGreaterThanOrEqual(0);
      // A system without per-core counters tells nothing, and the threads asked for are started.
      if (cpus().length === 0) expect(free).toBe(Number.POSITIVE_INFINITY);
      else expect(free).toBeLessThanOrEqual(Math.max(cpus().length, availableParallelism()) * 1.5);
      expect(probe.elapsed()).toBeGreaterThanOrEqual(200);
    }
  });
});
