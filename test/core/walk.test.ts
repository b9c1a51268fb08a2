/**
 * The one bounded parent walk (`core/session/semantics/walk.ts`): what it gives on a tree with a parent
 * cycle, and that it throws, instead of hanging, when the analysis's cycle detection is broken.
 *
 * A broken detector is simulated by clearing the cycle marks of a real analysis, which is what a bug
 * in `findCycles` would leave: every walk then has to stop by its step bound.
 */

import { describe, expect, it } from "vitest";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import { SessionDocument } from "../../server/src/core/session/document";
import { ancestors, ancestorWhere, boundSteps, cycleMetFrom, cycleReachedFrom, pathTo } from "../../server/src/core/session/semantics/walk";
import { session, user } from "../helpers/piLines";

/** u1 is a root; c1 → c3 → c2 → c1 is a cycle; b1 hangs below it. */
const CYCLIC = session(user("u1", null, "root"), user("c1", "c3", "one"), user("c2", "c1", "two"), user("c3", "c2", "three"), user("b1", "c2", "below"));

function analysis(): SessionAnalysis {
  return new SessionDocument("file:///walk.jsonl", "jsonl", 1, CYCLIC).analysis;
}

function entry(a: SessionAnalysis, id: string) {
  return a.entries.find((e) => e.id === id)!;
}

/** The analysis as a broken cycle detector would leave it: no entry marked as in or below a cycle. */
function undetected(): SessionAnalysis {
  const a = analysis();
  return { ...a, cycles: [], cycleOf: new Int32Array(a.entries.length).fill(-1), reachesCycle: new Uint8Array(a.entries.length) };
}

describe("the parent walk", () => {
  it("goes once around a cycle it runs into", () => {
    const a = analysis();
    expect([...ancestors(a, entry(a, "b1"))].map((e) => e.id)).toEqual(["c2", "c1", "c3"]);
    expect([...ancestors(a, entry(a, "c1"))].map((e) => e.id)).toEqual(["c3", "c2"]);
  });

  it("finds the cycle member a walk meets first", () => {
    const a = analysis();
    expect(cycleMetFrom(a, entry(a, "b1"))?.id).toBe("c2");
    expect(cycleReachedFrom(a, entry(a, "b1"))).toBe(0);
    expect(cycleMetFrom(a, entry(a, "u1"))).toBeUndefined();
    expect(cycleReachedFrom(a, entry(a, "u1"))).toBe(-1);
  });

  it("gives no path from an entry below a cycle", () => {
    const a = analysis();
    expect(pathTo(a, entry(a, "b1"))).toEqual([]);
    expect(pathTo(a, entry(a, "u1")).map((e) => e.id)).toEqual(["u1"]);
  });

  it("pathTo walks a chain that holds every entry: its bound is the number of entries, not one less", () => {
    const chain = session(user("r1", null, "one"), user("r2", "r1", "two"), user("r3", "r2", "three"));
    const a = new SessionDocument("file:///chain.jsonl", "jsonl", 1, chain).analysis;
    expect(pathTo(a, entry(a, "r3")).map((e) => e.id)).toEqual(["r1", "r2", "r3"]);
  });
});

describe("with a broken cycle detector, every walk fails loudly", () => {
  it("ancestorWhere meets the ancestors in the order ancestors gives them, and stops at the first that passes", () => {
    const a = analysis();
    for (const from of a.entries) {
      const seen: [string | undefined, number][] = [];
      const none = ancestorWhere(a, from, (e, steps) => {
        seen.push([e.id, steps]);
        return false;
      });
      expect(none).toBeUndefined();
      expect(seen).toEqual([...ancestors(a, from)].map((e, k) => [e.id, k + 1]));
      const second = [...ancestors(a, from)][1];
      expect(ancestorWhere(a, from, (_e, steps) => steps === 2)).toBe(second);
    }
  });

  it("ancestorWhere throws after as many steps as there are entries", () => {
    const a = undetected();
    expect(() => ancestorWhere(a, entry(a, "b1"), () => false)).toThrow(/parent cycle went undetected/);
  });

  it("ancestors throws after as many steps as there are entries", () => {
    const a = undetected();
    expect(() => [...ancestors(a, entry(a, "b1"))]).toThrow(/more than 5 steps: a parent cycle went undetected/);
  });

  it("pathTo throws instead of building an endless path", () => {
    const a = undetected();
    expect(() => pathTo(a, entry(a, "b1"))).toThrow(/a parent cycle went undetected/);
  });

  it("boundSteps lets a hot loop take as many steps as there are entries, and no more", () => {
    const a = undetected();
    expect(() => boundSteps(a, 5)).not.toThrow();
    expect(() => boundSteps(a, 6)).toThrow(/a parent cycle went undetected/);
  });

  it("cycleMetFrom throws when the marks say a cycle is reached but the walk meets none", () => {
    const a = analysis();
    const broken = { ...a, cycleOf: new Int32Array(a.entries.length).fill(-1) };
    expect(() => cycleMetFrom(broken, entry(a, "b1"))).toThrow(/met no cycle/);
  });
});
