/**
 * Walks up the parent links, the one way every feature does it.
 *
 * Real trees are 50,000 entries deep and cyclic files exist, so no walk is recursive and none is
 * unbounded: `ancestors` follows the resolved parents (`analysis.parent`), goes once around a cycle
 * it runs into, and throws if it ever takes more steps than there are entries, which would mean the
 * cycle detection is broken. A broken detector then fails a test instead of hanging.
 */

import type { SessionAnalysis } from "../analysis";
import type { Entry } from "../entry";
import { walkParents } from "../rules";

/** The ancestors of `entry`, nearest first, each once (a cycle is gone around once). */
export function* ancestors(a: SessionAnalysis, entry: Entry): Generator<Entry> {
  const limit = a.entries.length;
  let current = a.parent[entry.index];
  let cycleStart: Entry | undefined;
  for (let steps = 0; current; steps++) {
    if (steps > limit) throw tooLong(limit);
    if (current === cycleStart || current === entry) return;
    if (cycleStart === undefined && a.cycleOf[current.index]! >= 0) cycleStart = current;
    yield current;
    current = a.parent[current.index];
  }
}

/**
 * The nearest of `entry`'s ancestors for which `test` holds (given the ancestor and how many steps up
 * it is, 1 for the parent), walked as `ancestors` walks them, or undefined. For the hot walks (every
 * tool result looks up its call after an edit of the tree): a generator's step costs an object,
 * 4 MB of garbage on the 45 MB session.
 */
export function ancestorWhere(a: SessionAnalysis, entry: Entry, test: (ancestor: Entry, steps: number) => boolean): Entry | undefined {
  const limit = a.entries.length;
  let current = a.parent[entry.index];
  let cycleStart: Entry | undefined;
  for (let steps = 0; current; steps++) {
    if (steps > limit) throw tooLong(limit);
    if (current === cycleStart || current === entry) return undefined;
    if (cycleStart === undefined && a.cycleOf[current.index]! >= 0) cycleStart = current;
    if (test(current, steps + 1)) return current;
    current = a.parent[current.index];
  }
  return undefined;
}

/**
 * The first entry of a parent cycle that walking up from `entry` meets (`entry` itself when it lies
 * in one), or undefined when the walk reaches a root. The walk meets the cycle within as many steps
 * as there are entries; a longer one throws, because `reachesCycle` and `cycleOf` then disagree.
 */
export function cycleMetFrom(a: SessionAnalysis, entry: Entry): Entry | undefined {
  if (!a.reachesCycle[entry.index]) return undefined;
  const limit = a.entries.length;
  let current: Entry | undefined = entry;
  for (let steps = 0; current && steps <= limit; steps++) {
    if (a.cycleOf[current.index]! >= 0) return current;
    current = a.parent[current.index];
  }
  throw new Error("a walk up from an entry that reaches a parent cycle met no cycle");
}

/** The parent cycle that walking up from `entry` runs into, as the index into `cycles`, or -1. */
export function cycleReachedFrom(a: SessionAnalysis, entry: Entry): number {
  const met = cycleMetFrom(a, entry);
  return met ? a.cycleOf[met.index]! : -1;
}

/**
 * The entries from the root to `leaf`, root first; empty when the walk up runs into a cycle. Pi's
 * walk (`walkParents`, the one the files on disk are walked with too), not `ancestors`, because
 * building a context walks 50,000 entries per request; it throws like `ancestors` if the walk is
 * longer than the number of entries.
 */
export function pathTo(a: SessionAnalysis, leaf: Entry): Entry[] {
  if (a.reachesCycle[leaf.index]) return [];
  const limit = a.entries.length;
  const path = walkParents<Entry>(leaf, (e) => a.parent[e.index], limit);
  if (!path) throw tooLong(limit);
  return path.reverse();
}

/**
 * For a walk too hot for a generator (one request walks 50,000 parents): throws once `steps` is more
 * than there are entries, as `ancestors` does, so that the walk fails instead of hanging.
 */
export function boundSteps(a: SessionAnalysis, steps: number): void {
  if (steps > a.entries.length) throw tooLong(a.entries.length);
}

function tooLong(limit: number): Error {
  return new Error(`a parent walk took more than ${limit} steps: a parent cycle went undetected`);
}
