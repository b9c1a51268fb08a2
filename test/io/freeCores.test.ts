/**
 * The free cores `check DIR` starts workers for (`io/freeCores.ts`): a stated number wins over the
 * measure, and a measure is a share of the machine's cores, never negative and never more than
 * they are (with the kernel's tick of slack), however busy the machine is.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freeCoresNow, measureFreeCores } from "../../server/src/io/freeCores";

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

describe("freeCoresNow", () => {
  it("answers from the threads runnable this instant, only when a core is free, and the stated number first", () => {
    const dir = mkdtempSync(join(tmpdir(), "free-cores-"));
    try {
      const loadavg = (running: string) => {
        const path = join(dir, "loadavg");
        writeFileSync(path, `3.20 2.10 1.05 ${running}/412 90210\n`);
        return path;
      };
      // This thread alone runs: every other core is free.
      expect(freeCoresNow({}, loadavg("1"), 2)).toBe(1);
      expect(freeCoresNow({}, loadavg("2"), 8)).toBe(6);
      // Another thread holds the second core, or more run than there are cores: not told at once.
      expect(freeCoresNow({}, loadavg("2"), 2)).toBeUndefined();
      expect(freeCoresNow({}, loadavg("9"), 2)).toBeUndefined();
      // A file that does not read as Linux's: not told.
      expect(freeCoresNow({}, loadavg("x"), 2)).toBeUndefined();
      expect(freeCoresNow({}, join(dir, "missing"), 2)).toBeUndefined();
      // The stated number wins, zero included.
      expect(freeCoresNow({ PI_SESSION_LSP_FREE_CORES: "0" }, loadavg("1"), 2)).toBe(0);
      expect(freeCoresNow({ PI_SESSION_LSP_FREE_CORES: "3" }, loadavg("9"), 2)).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
