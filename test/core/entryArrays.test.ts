/**
 * Arrays with one slot per entry, made so that the server's memory goes back to the system
 * (`core/base/entryArrays.ts`): the analysis's scratch arrays are made once and reused, and the
 * arrays an analysis keeps are made together, in one WebAssembly memory rather than through
 * `malloc`; what the analysis finds with them is held by the analysis tests (`resplice.test.ts`,
 * `walk.test.ts`).
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { forgetScratch, keptArray, mappedArrays, mappedParts, ScratchArray, StampedMarks, scratchInts } from "../../server/src/core/base/entryArrays";
import { SessionDocument } from "../../server/src/core/session/document";
import { seededRandom } from "../helpers/lspClient";
import { HEADER, session, user } from "../helpers/piLines";
import { randomEdit } from "../helpers/structuralEdits";

afterEach(() => forgetScratch());

const takeReal = ScratchArray.prototype.take;

/** A chain of `n` user messages, with a parent cycle of three below a root when `cycle`. */
function chain(n: number, cycle = false): string {
  const lines = [user("e0", null, "root")];
  for (let i = 1; i < n; i++) lines.push(user(`e${i}`, `e${i - 1}`, `message ${i}`));
  if (cycle) lines.push(user("c1", "c3", "one"), user("c2", "c1", "two"), user("c3", "c2", "three"));
  return session(...lines);
}

describe("ScratchArray", () => {
  it("gives its owner the same array at each call that fits in it, and another owner another array", () => {
    const mine = scratchInts();
    const first = mine.take(1000);
    expect(first.length).toBeGreaterThanOrEqual(1000);
    expect(mine.take(10)).toBe(first);
    expect(mine.take(1000)).toBe(first);
    expect(scratchInts().take(1000)).not.toBe(first);
  });

  it("grows by a quarter more than asked, so that a document gaining a few lines keeps it", () => {
    const mine = scratchInts();
    const first = mine.take(1000);
    const grown = mine.take(first.length + 1);
    expect(grown).not.toBe(first);
    expect(grown.length).toBe(first.length + 1 + ((first.length + 1) >> 2));
    expect(mine.take(first.length + 10)).toBe(grown);
  });

  it("keeps its array in mapped memory, and none once let go", () => {
    // Outside malloc's heap, where a dozen of them left holes after the close.
    const mine = scratchInts();
    const marks = new StampedMarks();
    marks.begin(1000);
    for (const array of [mine.take(1000), marks.marks]) {
      expect(array.every((x) => x === 0)).toBe(true);
      expect(array.buffer.byteLength % (64 * 1024)).toBe(0);
    }
    forgetScratch();
    expect(mine.take(0).length).toBe(0);
    expect(marks.marks.length).toBe(0);
  });

  it("makes a new array once the kept ones were let go", () => {
    const mine = scratchInts();
    const first = mine.take(10);
    forgetScratch();
    expect(mine.take(10)).not.toBe(first);
  });

  it("is not made again for the analyses of documents of about the same size", () => {
    const seen = new Set<Int32Array>();
    const watch = vi.spyOn(ScratchArray.prototype, "take").mockImplementation(function (this: ScratchArray<Int32Array>, length: number) {
      const array = takeReal.call(this, length);
      seen.add(array);
      return array;
    });
    new SessionDocument("file:///a.jsonl", "jsonl", 1, chain(2000)).analysis.depth;
    const first = new Set(seen);
    expect(first.size).toBeGreaterThanOrEqual(4);
    for (const array of first) expect(array.length).toBeGreaterThanOrEqual(2000);
    const doc = new SessionDocument("file:///b.jsonl", "jsonl", 1, chain(2010, true));
    expect(doc.analysis.cycles).toHaveLength(1);
    expect(doc.analysis.depth[0]).toBe(0);
    expect(seen).toEqual(first);
    watch.mockRestore();
  });
});

describe("StampedMarks", () => {
  it("gives each pass a stamp no mark holds yet, on the same array", () => {
    const marks = new StampedMarks();
    const first = marks.begin(100);
    const array = marks.marks;
    expect(array.length).toBeGreaterThanOrEqual(100);
    expect(array.includes(first)).toBe(false);
    array.fill(first, 0, 100);
    const second = marks.begin(100);
    expect(second).not.toBe(first);
    expect(marks.marks).toBe(array);
    expect(array.includes(second)).toBe(false);
    expect(marks.stamp).toBe(second);
  });

  it("keeps counting once its array was let go, so that a pass still holding the old one tells the passes apart", () => {
    const marks = new StampedMarks();
    const first = marks.begin(10);
    const array = marks.marks;
    forgetScratch();
    expect(marks.begin(10)).toBe(first + 1);
    expect(marks.marks).not.toBe(array);
    expect(marks.marks.every((x) => x === 0)).toBe(true);
  });
});

describe("mappedArrays", () => {
  it("gives zeroed arrays of the lengths asked, side by side in one WebAssembly memory", () => {
    const arrays = mappedArrays([3, 70_000, 5]);
    expect(arrays.map((a) => a.length)).toEqual([3, 70_000, 5]);
    const buffer = arrays[0]!.buffer;
    for (const a of arrays) {
      expect(a.buffer).toBe(buffer);
      expect(a.every((x) => x === 0)).toBe(true);
    }
    // A WebAssembly memory is made of 64 KiB pages; an ArrayBuffer would be 4 × 70,008 bytes.
    expect(buffer.byteLength % (64 * 1024)).toBe(0);
    expect(buffer.byteLength).toBeGreaterThanOrEqual(4 * 70_008);
    arrays[1]!.fill(-1);
    expect([...arrays[0]!, ...arrays[2]!]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(arrays[1]!.every((x) => x === -1)).toBe(true);
  });

  it("holds the arrays an analysis keeps, each group made together", () => {
    const a = new SessionDocument("file:///c.jsonl", "jsonl", 1, chain(100, true)).analysis;
    expect(a.cycleOf.buffer.byteLength % (64 * 1024)).toBe(0);
    expect(a.depth.buffer.byteLength % (64 * 1024)).toBe(0);
    expect(a.depth.buffer).not.toBe(a.cycleOf.buffer);
    expect([...a.depth.subarray(0, 3)]).toEqual([0, 1, 2]);
    expect(a.cycleOf[a.entries.length - 1]).toBe(0);
    expect(a.childrenOf(a.entries[0]!).map((e) => e.id)).toEqual(["e1"]);
  });

  it("puts arrays of bytes after the integers in the same memory, zeroed, none overlapping", () => {
    const { ints, bytes } = mappedParts([3, 5], [70_000, 2]);
    expect(ints.map((a) => a.length)).toEqual([3, 5]);
    expect(bytes.map((a) => a.length)).toEqual([70_000, 2]);
    const buffer = ints[0]!.buffer;
    for (const a of [...ints, ...bytes]) {
      expect(a.buffer).toBe(buffer);
      expect(a.every((x) => x === 0)).toBe(true);
    }
    expect(buffer.byteLength % (64 * 1024)).toBe(0);
    ints[1]!.fill(-1);
    bytes[0]!.fill(7);
    expect([...ints[0]!, ...bytes[1]!]).toEqual([0, 0, 0, 0, 0]);
    expect(ints[1]!.every((x) => x === -1)).toBe(true);
    expect(bytes[0]!.every((x) => x === 7)).toBe(true);
  });

  it("holds an analysis's marks per entry with its cycle arrays, also after structural edits", () => {
    // Outside malloc's heap: made at every structural edit, they piled up there until a full collection.
    // With a header, so that each edit's analysis is made from the previous one (`resplice.ts`).
    const doc = new SessionDocument("file:///d.jsonl", "jsonl", 1, `${HEADER}\n${chain(100)}`);
    const sameMemory = () => {
      const a = doc.analysis;
      expect(a.reachesCycle.buffer).toBe(a.cycleOf.buffer);
      expect(a.onActivePath.buffer).toBe(a.cycleOf.buffer);
      expect(a.cycleOf.buffer.byteLength % (64 * 1024)).toBe(0);
      return a;
    };
    expect(sameMemory().onActivePath.reduce((sum, x) => sum + x, 0)).toBe(100);
    // Random structural edits (lines broken, mended, copied, deleted, parents changed): the path is
    // walked again after some, kept with its marks carried after others.
    const random = seededRandom(37);
    for (let step = 0; step < 60; step++) {
      randomEdit(doc, random);
      const a = sameMemory();
      expect(a.onActivePath.reduce((sum, x) => sum + x, 0)).toBe(a.activePath.length);
    }
  });
});

describe("mappedArrays without WebAssembly's memory", () => {
  const modulePath = "../../server/src/core/base/entryArrays";
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  /** The module loaded afresh where `WebAssembly` is `wasm`, as the server reads it at its load. */
  async function loadedWith(wasm: unknown): Promise<typeof import("../../server/src/core/base/entryArrays")> {
    vi.stubGlobal("WebAssembly", wasm);
    vi.resetModules();
    return import(modulePath);
  }

  function expectPlainArrays(arrays: Int32Array[], lengths: number[]): void {
    expect(arrays.map((a) => a.length)).toEqual(lengths);
    const total = lengths.reduce((x, y) => x + y, 0);
    for (const a of arrays) {
      expect(a.buffer).toBe(arrays[0]!.buffer);
      expect(a.buffer.byteLength).toBe(4 * total);
      expect(a.every((x) => x === 0)).toBe(true);
    }
  }

  it("gives ArrayBuffer arrays where WebAssembly is not there (node --jitless)", async () => {
    const module = await loadedWith(undefined);
    expectPlainArrays(module.mappedArrays([2, 0, 7]), [2, 0, 7]);
    expectPlainArrays(module.mappedArrays([]), []);
  });

  /** A `WebAssembly` whose memory is refused while `refused.now`, as V8 refuses it under an address-space limit; `asked` counts the requests. */
  function limitedWasm(refused: { now: boolean; asked: number }): unknown {
    return {
      Memory: class {
        readonly buffer: ArrayBuffer;
        constructor({ initial }: { initial: number }) {
          refused.asked++;
          // What V8 throws when the address space a memory reserves is refused, after full
          // collections of the whole heap (tens of milliseconds at load, most of a second on a large open).
          if (refused.now) throw new RangeError("WebAssembly.Memory(): could not allocate memory");
          this.buffer = new ArrayBuffer(initial * 64 * 1024);
        }
      },
    };
  }

  it("asks for WebAssembly's memory at its load, while the heap is small, and not again once refused, until the scratch arrays are let go", async () => {
    const refused = { now: true, asked: 0 };
    const module = await loadedWith(limitedWasm(refused));
    // Asked before any array: the first array of a large open would otherwise pay the refusal.
    expect(refused.asked).toBe(1);
    expectPlainArrays(module.mappedArrays([3, 5]), [3, 5]);
    expectPlainArrays(module.mappedArrays([4]), [4]);
    expectPlainArrays(module.mappedArrays([1, 1, 1]), [1, 1, 1]);
    expect(refused.asked).toBe(1);
    // Asked again when the idle server lets the scratch arrays go, not at the next open.
    module.forgetScratch();
    expect(refused.asked).toBe(2);
    expectPlainArrays(module.mappedArrays([6]), [6]);
    expect(refused.asked).toBe(2);
  });

  it("takes WebAssembly's memory again once it is granted when the scratch arrays are let go", async () => {
    const refused = { now: true, asked: 0 };
    const module = await loadedWith(limitedWasm(refused));
    expectPlainArrays(module.mappedArrays([2]), [2]);
    refused.now = false;
    module.forgetScratch();
    const [granted] = module.mappedArrays([2]);
    expect(granted!.buffer.byteLength).toBe(64 * 1024);
    // Once granted, nothing more is asked for when the scratch arrays are let go.
    const asked = refused.asked;
    module.forgetScratch();
    expect(refused.asked).toBe(asked);
  });
});

describe("keptArray", () => {
  it("is a JavaScript array of the value", () => {
    const a = keptArray(5, -1);
    expect(Array.isArray(a)).toBe(true);
    expect(a).toEqual([-1, -1, -1, -1, -1]);
  });
});
