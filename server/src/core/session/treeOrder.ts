/**
 * The children lists and the order of the tree (depth, pre/post order numbers), which the analysis
 * (`analysis.ts`) makes from its parents only when first read: most structural edits are answered
 * without them. Both are kept by the analysis, made together in memory that goes back to the system
 * once collected; their walks use scratch arrays (`entryArrays.ts`).
 */

import { mappedArrays, scratchInts } from "../base/entryArrays";
import type { Entry } from "./entry";

/** The scratch arrays: the children's next places, and the tree walk's stack and next children. */
const fillScratch = scratchInts();
const stackScratch = scratchInts();
const nextChildScratch = scratchInts();

/**
 * The children in compressed form: the children of entry i are `childList[childStart[i] ..
 * childStart[i + 1])`, in file order (two typed arrays instead of 50,000 small arrays).
 */
export interface ChildLists {
  childStart: Int32Array;
  childList: Int32Array;
}

export function listChildren(n: number, parent: readonly (Entry | undefined)[]): ChildLists {
  // Kept by the analysis, made together in memory that goes back to the system (`entryArrays.ts`):
  // `childSpace` has room for every entry, of which the children take all but the roots.
  const [childStart, childSpace] = mappedArrays([n + 1, n]) as [Int32Array, Int32Array];
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p) childStart[p.index + 1] = childStart[p.index + 1]! + 1;
  }
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i + 1]! + childStart[i]!;
  // Where the next child of each entry goes.
  const fill = fillScratch.take(n);
  fill.set(childStart.subarray(0, n));
  const childList = childSpace.subarray(0, Math.max(0, childStart[n]!));
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (!p) continue;
    childList[fill[p.index]!] = i;
    fill[p.index] = fill[p.index]! + 1;
  }
  return { childStart, childList };
}

export interface TreeOrder {
  depth: Int32Array;
  tin: Int32Array;
  tout: Int32Array;
}

/**
 * Depth and pre/post order numbers (`tin`, `tout`, which answer `isAncestor`) from an iterative
 * depth-first walk over the acyclic part, kept together in memory that goes back to the system, with
 * the stack and each entry's next child held in scratch arrays (`entryArrays.ts`).
 */
export function orderTree(n: number, roots: readonly Entry[], { childStart, childList }: ChildLists): TreeOrder {
  const [depth, tin, tout] = mappedArrays([n, n, n]) as [Int32Array, Int32Array, Int32Array];
  depth.fill(-1);
  tin.fill(-1);
  tout.fill(-1);
  const stack = stackScratch.take(n);
  const nextChild = nextChildScratch.take(n);
  let clock = 0;
  for (const root of roots) {
    let top = 0;
    stack[0] = root.index;
    depth[root.index] = 0;
    tin[root.index] = clock++;
    nextChild[root.index] = childStart[root.index]!;
    while (top >= 0) {
      const node = stack[top]!;
      const k = nextChild[node]!;
      if (k < childStart[node + 1]!) {
        nextChild[node] = k + 1;
        const child = childList[k]!;
        depth[child] = depth[node]! + 1;
        tin[child] = clock++;
        nextChild[child] = childStart[child]!;
        stack[++top] = child;
      } else {
        tout[node] = clock++;
        top--;
      }
    }
  }
  return { depth, tin, tout };
}
