/**
 * The size and line span of every subtree, for the outline's branch containers (how many entries a
 * side branch holds, which lines it covers).
 */

import { mappedArrays, scratchInts } from "../../base/entryArrays";
import type { SessionAnalysis } from "../analysis";
import { perStructure } from "./memo";

export interface SubtreeAggregates {
  /** Entries in each entry's subtree (itself included), for entries no cycle is above. */
  size: Int32Array;
  /** The first and last line of each subtree. */
  minLine: Int32Array;
  maxLine: Int32Array;
}

/** The parents by index, each depth's next place in `order`, and the entries by depth (scratch, `entryArrays.ts`). */
const parentIndexScratch = scratchInts();
const startScratch = scratchInts();
const orderScratch = scratchInts();

/**
 * Subtree sizes and line spans for every acyclic entry, children before parents: entries are
 * bucketed by depth (a counting sort) and folded into their parents from the deepest up. O(entries),
 * memoised per structure: subtree sizes and line spans do not change when typing inside a line.
 */
export const subtreeAggregates = perStructure((a: SessionAnalysis): SubtreeAggregates => {
  const entries = a.entries;
  const n = entries.length;
  const depth = a.depth;
  // Made again after each structural edit the outline is asked for: the kept arrays in memory that
  // goes back to the system, the others scratch (`entryArrays.ts`).
  const [size, minLine, maxLine] = mappedArrays([n, n, n]) as [Int32Array, Int32Array, Int32Array];
  size.fill(1);
  const parentIndex = parentIndexScratch.take(n);
  let maxDepth = -1;
  for (let i = 0; i < n; i++) {
    const d = depth[i]!;
    if (d > maxDepth) maxDepth = d;
    const line = entries[i]!.line;
    minLine[i] = line;
    maxLine[i] = line;
    parentIndex[i] = a.parent[i]?.index ?? -1;
  }
  // order = acyclic entries sorted by depth (counting sort).
  const start = startScratch.take(maxDepth + 2).fill(0, 0, maxDepth + 2);
  for (let i = 0; i < n; i++) {
    const d = depth[i]!;
    if (d >= 0) start[d + 1] = start[d + 1]! + 1;
  }
  for (let d = 0; d <= maxDepth; d++) start[d + 1] = start[d + 1]! + start[d]!;
  const order = orderScratch.take(start[maxDepth + 1] ?? 0).subarray(0, start[maxDepth + 1] ?? 0);
  for (let i = 0; i < n; i++) {
    const d = depth[i]!;
    if (d < 0) continue;
    order[start[d]!] = i;
    start[d] = start[d]! + 1;
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!;
    const j = parentIndex[i]!;
    if (j < 0) continue;
    size[j] = size[j]! + size[i]!;
    if (minLine[i]! < minLine[j]!) minLine[j] = minLine[i]!;
    if (maxLine[i]! > maxLine[j]!) maxLine[j] = maxLine[i]!;
  }
  return { size, minLine, maxLine };
});
