/**
 * The cycles of a session's tree: the parent cycles of the resolved links, and whether Pi's own
 * `getTree`, which builds its nodes by id key rather than by entry, loops on the file.
 *
 * Architecture invariant: both walks are iterative and mark every node once, so they are linear in
 * the number of entries whatever the links, and every later walk along `parentId` can rely on them.
 */

import { mappedParts, scratchInts } from "../base/entryArrays";
import type { Entry } from "./entry";
import type { IdKey } from "../base/ids";

export interface Cycles {
  /** Each parent cycle once, as the entries around it. */
  cycles: Entry[][];
  /** For each entry: the cycle it lies in (index into `cycles`), or -1. */
  cycleOf: Int32Array;
  /** For each entry: whether walking up from it runs into a cycle (true for entries in a cycle too). */
  reachesCycle: Uint8Array;
  /** Zeroed marks per entry made beside the others, for the analysis's `onActivePath`: one memory for the three. */
  pathMarks: Uint8Array;
}

/** One walk up of the cycle search (`entryArrays.ts`). */
const walkScratch = scratchInts();

/**
 * The arrays of `n` entries in no cycle (`cycleOf` all -1, `reachesCycle` and `pathMarks` zero), kept
 * by the analysis and made at every structural edit: together in memory that goes back to the
 * system once it is collected (`entryArrays.ts`).
 */
export function acyclicArrays(n: number): Omit<Cycles, "cycles"> {
  const {
    ints: [cycleOf],
    bytes: [reachesCycle, pathMarks],
  } = mappedParts([n], [n, n]);
  return { cycleOf: cycleOf!.fill(-1), reachesCycle: reachesCycle!, pathMarks: pathMarks! };
}

/**
 * The cycles in the functional graph entry -> parent (`parentIndex`, -1 for a root), found by
 * walking up from every entry with a three-state marking, so each entry is walked once: O(n).
 */
export function findCycles(entries: readonly Entry[], parentIndex: Int32Array): Cycles {
  const n = entries.length;
  const cycles: Entry[][] = [];
  const { cycleOf, reachesCycle, pathMarks } = acyclicArrays(n);
  const state = new Uint8Array(n); // 0 = unvisited, 1 = on the current walk, 2 = done
  const walk = walkScratch.take(n);
  for (let start = 0; start < n; start++) {
    if (state[start] !== 0) continue;
    let length = 0;
    let current = start;
    while (current >= 0 && state[current] === 0) {
      state[current] = 1;
      walk[length++] = current;
      current = parentIndex[current]!;
    }
    let cyclic = false;
    if (current >= 0 && state[current] === 1) {
      // The walk closed on itself: the tail of `walk` from `current` is a new cycle.
      let from = length - 1;
      while (walk[from] !== current) from--;
      const cycle: Entry[] = [];
      for (let k = from; k < length; k++) {
        cycleOf[walk[k]!] = cycles.length;
        cycle.push(entries[walk[k]!]!);
      }
      cycles.push(cycle);
      cyclic = true;
    } else if (current >= 0) {
      cyclic = reachesCycle[current] === 1;
    }
    for (let k = 0; k < length; k++) {
      state[walk[k]!] = 2;
      if (cyclic) reachesCycle[walk[k]!] = 1;
    }
  }
  return { cycles, cycleOf, reachesCycle, pathMarks };
}

/**
 * Reproduces the shape of Pi's `getTree`: one node per distinct id key (entries without an id share
 * the node of `undefined`), and every entry hangs its key's node under the node of its parent key,
 * or among the roots when `parentId === null`, `parentId === id`, or no node has that key (an
 * absent `parentId` finds the node of the entries without an id, if there is one). Pi then walks
 * the nodes from the roots with no visited set, so a node cycle reachable from a root makes it loop
 * forever. When every key is distinct, every node has one parent edge and no such cycle is
 * reachable, so this only runs when some key repeats.
 */
export function treeLoops(entries: readonly Entry[]): boolean {
  const nodes = new Map<IdKey, number>();
  for (const entry of entries) if (!nodes.has(entry.key)) nodes.set(entry.key, nodes.size);
  const edges: number[][] = Array.from({ length: nodes.size }, () => []);
  const rootNodes: number[] = [];
  for (const entry of entries) {
    const node = nodes.get(entry.key)!;
    const parent = entry.parentKey === null || entry.parentKey === entry.key ? undefined : nodes.get(entry.parentKey);
    if (parent === undefined) rootNodes.push(node);
    else edges[parent]!.push(node);
  }
  const color = new Uint8Array(nodes.size); // 1 = on the stack, 2 = done
  const stack: number[] = [];
  const next: number[] = [];
  for (const root of rootNodes) {
    if (color[root] !== 0) continue;
    stack.push(root);
    next.push(0);
    color[root] = 1;
    while (stack.length > 0) {
      const top = stack.length - 1;
      const kids = edges[stack[top]!]!;
      if (next[top]! < kids.length) {
        const kid = kids[next[top]!++]!;
        if (color[kid] === 1) return true;
        if (color[kid] === 0) {
          color[kid] = 1;
          stack.push(kid);
          next.push(0);
        }
      } else {
        color[stack[top]!] = 2;
        stack.pop();
        next.pop();
      }
    }
  }
  return false;
}
