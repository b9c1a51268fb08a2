/**
 * The tree's links after a structural edit (`resplice.ts`), updated from the previous analysis's
 * for the entries whose parent may have changed instead of made afresh for 50,000 entries: the
 * parents (the previous analysis's array, spliced in place), the roots, the cycles, and the active
 * path when none of its entries changed.
 *
 * Without ids held twice, an entry's parent changes only when the holder of its parent key does:
 * the key was removed (the entry was a child of a removed entry) or added (the entry was a root
 * with a dangling parent, or a child of a removed entry whose id came back). Those entries, the
 * added ones and nothing else get their parent looked up again. A new cycle must run through one
 * of them, so only their walks up are followed, each entry walked at most once.
 */

import { StampedMarks, scratchInts } from "../base/entryArrays";
import type { IdKey } from "../base/ids";
import type { SessionAnalysis, TreeLinks } from "./analysis";
import { acyclicArrays, type Cycles, findCycles } from "./cycles";
import type { Entry } from "./entry";
import type { PiIndex } from "./piIndex";

/** What the links need of the previous analysis, read before its entries move. */
export interface LinkChange {
  /** The kept children of the removed entries, in file order. */
  orphans: Entry[];
  /** The kept roots whose parent key an added entry now holds. */
  named: Entry[];
  /** Whether the active path loses no entry and none of its parents changes, or each entry it loses is replaced by one with the same ids and parent. */
  pathKept: boolean;
  /** Whether each removed entry is replaced by one with the same ids and parent at its index (`Resplice.replaced`): the tree is the same. */
  sameTree?: boolean;
}

/**
 * The entries of `previous` whose parent may change when its entries `first` to `after`
 * (exclusive) are replaced by entries holding `addedKeys`.
 */
export function linkChange(previous: SessionAnalysis, first: number, after: number, addedKeys: ReadonlySet<IdKey>): LinkChange {
  const { entries, parent, onActivePath } = previous;
  const orphans: Entry[] = [];
  // Only a removed entry has an index in [first, after): one comparison per entry, no lookup.
  if (after > first)
    for (let i = 0; i < entries.length; i++) {
      const p = parent[i];
      if (p !== undefined && p.index >= first && p.index < after && (i < first || i >= after)) orphans.push(entries[i]!);
    }
  const named = previous.roots.filter((r) => (r.index < first || r.index >= after) && addedKeys.has(r.parentKey));
  // The path is closed upwards: an orphan on it has its removed parent on it too, so the removed
  // entries and the roots given a parent are all there is to look at.
  let pathKept = previous.activePath.length > 0;
  for (let k = first; k < after && pathKept; k++) if (onActivePath[k]) pathKept = false;
  for (const e of named) if (onActivePath[e.index]) pathKept = false;
  return { orphans, named, pathKept };
}

/**
 * The links of the new analysis, whose `entries` are the previous ones with `added` at `first` in
 * place of `removed` entries, each moved to its new index, and whose `ids` are updated: the
 * previous parents spliced in place, then the changed entries' parents looked up.
 */
export function relink(
  previous: SessionAnalysis,
  change: LinkChange,
  entries: readonly Entry[],
  ids: PiIndex<IdKey, Entry>,
  first: number,
  removed: number,
  added: readonly Entry[],
): TreeLinks {
  const parent = previous.parent;
  spliceInPlace(
    parent,
    first,
    removed,
    added.map((e) => ids.find(e.parentKey)),
  );
  for (const e of change.orphans) parent[e.index] = ids.find(e.parentKey);
  for (const e of change.named) parent[e.index] = ids.find(e.parentKey);
  const kept = (e: Entry) => entries[e.index] === e;
  const roots = [
    ...previous.roots.filter((r) => kept(r) && parent[r.index] === undefined),
    ...added.filter((e) => parent[e.index] === undefined),
    ...change.orphans.filter((e) => parent[e.index] === undefined),
  ].sort((x, y) => x.index - y.index);
  const n = entries.length;
  const changed = [...added, ...change.orphans, ...change.named];
  // A cycle the edit left elsewhere may have been broken by it: then the whole search runs.
  // The same tree, index for index, has no new cycle either.
  const cycles = previous.cycles.length === 0 && (change.sameTree || noNewCycle(parent, changed, n)) ? acyclic(n) : findCycles(entries, parentIndexes(parent));
  if (!change.pathKept) return { parent, roots, cycles };
  // The same path, entry for entry: only the marks of the entries below the edit move.
  const onActivePath = cycles.pathMarks;
  if (change.sameTree) onActivePath.set(previous.onActivePath);
  else {
    onActivePath.set(previous.onActivePath.subarray(0, first));
    onActivePath.set(previous.onActivePath.subarray(first + removed), first + added.length);
  }
  // An entry of the path replaced by one with the same ids and parent (`Resplice.replaced`): its successor takes its place.
  let swapped = false;
  for (let k = first; k < first + removed && !swapped; k++) swapped = previous.onActivePath[k] === 1;
  const activePath = swapped ? previous.activePath.map((e) => entries[e.index]!) : previous.activePath;
  return { parent, roots, cycles, path: { activePath, onActivePath } };
}

/**
 * Each entry walked up at most once per edit: marked with the edit's stamp once it is known to reach
 * a root; `walkScratch` holds one walk, `parentIndexScratch` the parents for the whole search
 * (`entryArrays.ts`).
 */
const reachesRoot = new StampedMarks();
const walkScratch = scratchInts();
const parentIndexScratch = scratchInts();

/**
 * Whether no walk up from the entries whose parent changed comes back to where it started, in a
 * tree that had no cycle before: every other walk is as it was. Each entry is walked once; a walk
 * longer than `n` (a loop it entered elsewhere) answers false, and the whole search runs.
 */
function noNewCycle(parent: readonly (Entry | undefined)[], changed: readonly Entry[], n: number): boolean {
  const stamp = reachesRoot.begin(n);
  const marks = reachesRoot.marks;
  const walk = walkScratch.take(n);
  for (const start of changed) {
    let length = 0;
    for (let e: Entry | undefined = start; e !== undefined && marks[e.index] !== stamp; e = parent[e.index]) {
      if (length >= n || (e === start && length > 0)) return false;
      walk[length++] = e.index;
    }
    for (let k = 0; k < length; k++) marks[walk[k]!] = stamp;
  }
  return true;
}

function acyclic(n: number): Cycles {
  return { cycles: [], ...acyclicArrays(n) };
}

/** The parents by index (-1 for a root), in scratch that the cycle search alone reads. */
function parentIndexes(parent: readonly (Entry | undefined)[]): Int32Array {
  const out = parentIndexScratch.take(parent.length);
  for (let i = 0; i < parent.length; i++) out[i] = parent[i]?.index ?? -1;
  return out;
}

/** `array.splice(at, count, ...items)` without spreading a long list into arguments. */
export function spliceInPlace<T>(array: T[], at: number, count: number, items: readonly T[]): void {
  if (items.length <= 1024) {
    array.splice(at, count, ...items);
    return;
  }
  const tail = array.slice(at + count);
  array.length = at;
  for (const item of items) array.push(item);
  for (const item of tail) array.push(item);
}
