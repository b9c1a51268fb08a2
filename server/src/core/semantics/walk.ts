/**
 * Walks up the parent links, the one way every feature does it.
 *
 * Real trees are 50,000 entries deep and cyclic files exist, so no walk is recursive and none is
 * unbounded: `ancestors` follows the resolved parents (`analysis.parent`), goes once around a cycle
 * it runs into, and throws if it ever takes more steps than there are entries, which would mean the
 * cycle detection is broken. A broken detector then fails a test instead of hanging.
 */

import type { Entry, SessionAnalysis } from "../analysis";

/** The ancestors of `entry`, nearest first, each once (a cycle is gone around once). */
export function* ancestors(a: SessionAnalysis, entry: Entry): Generator<Entry> {
  const limit = a.entries.length;
  let current = a.parent[entry.index];
  let cycleStart: Entry | undefined;
  for (let steps = 0; current; steps++) {
    if (steps > limit) throw new Error(`a parent walk took more than ${limit} steps: a parent cycle went undetected`);
    if (current === cycleStart || current === entry) return;
    if (cycleStart === undefined && a.cycleOf[current.index]! >= 0) cycleStart = current;
    yield current;
    current = a.parent[current.index];
  }
}

/** The entries from the root to `leaf`, root first; empty when the walk up runs into a cycle. */
export function pathTo(a: SessionAnalysis, leaf: Entry): Entry[] {
  if (a.reachesCycle[leaf.index]) return [];
  const path = [leaf];
  for (const e of ancestors(a, leaf)) path.push(e);
  return path.reverse();
}
