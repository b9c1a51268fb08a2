/**
 * Which tool call each tool result of a session answers (`callFor`: the nearest ancestor holding a
 * call with its id), kept per structure for the check of unmatched results (`linkChecks.ts`), and
 * carried over a structural edit made from the previous analysis (`resplice.ts`) instead of walked
 * again from each of the 15,000 results of the 45 MB session.
 *
 * The rule of the carry: a result's answer reads the entries from it up to its call (or up to its
 * root, when it has none) and their tool call ids, which are structural. A structural edit changes
 * that walk only where it passes an entry whose parent link the edit changed: an entry added, or one
 * whose parent's holder was removed or added (`Resplice.reparented`). So a kept result keeps its
 * call when no such entry is on its walk, or when the lowest one is the call or above it with the
 * call still on the walk (an edit can hang the call below that entry on another branch); a result
 * without a call, or whose call was removed, is walked again whenever one is on its walk. Parent
 * cycles, before or after, and edits that changed many links, walk every result.
 */

import { StampedMarks, scratchInts } from "../../core/base/entryArrays";
import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { respliceOf, sameShape } from "../../core/session/resplice";
import { perStructure } from "../../core/session/semantics/memo";
import { callFor } from "../../core/session/semantics/toolPairs";

interface ResultCalls {
  /** Every entry holding a tool result, in file order. */
  results: Entry[];
  /** The call each answers, undefined when none on its path does (or the path runs into a cycle). */
  calls: (Entry | undefined)[];
  /** Whether the analysis held a parent cycle. */
  cyclic: boolean;
  /** The first entry holding a tool call with each id asked for (undefined: none), in file order. */
  holders: Map<string, Entry | undefined>;
}

/** Whether an entry holds a tool result: any id Pi reads, an empty one too. */
const holdsResult = (e: Entry): boolean => e.parsed.toolResultId !== undefined;

/** More entries with a new parent link than this, and every result is walked again. */
const MAX_RELINKED = 16;

/**
 * Kept through the idle release (`releaseKept`), unlike the large per-structure tables: two lists of
 * the results (15,000 on the 45 MB session, 0.2 MB) and the first holders of a few ids, where walking
 * every result up to its call again took the first edit of the tree after an idle pause 8–10 ms.
 */
const kept = new WeakMap<object, ResultCalls>();

function resultCalls(a: SessionAnalysis): ResultCalls {
  const known = kept.get(a.structure);
  if (known) return known;
  const value: ResultCalls = carried(a) ?? {
    results: a.entries.filter(holdsResult),
    calls: [],
    cyclic: a.cycles.length > 0,
    holders: new Map(),
  };
  for (let k = value.calls.length; k < value.results.length; k++) value.calls.push(callOf(a, value.results[k]!));
  kept.set(a.structure, value);
  return value;
}

function callOf(a: SessionAnalysis, entry: Entry): Entry | undefined {
  return a.reachesCycle[entry.index] ? undefined : callFor(a, entry, entry.parsed.toolResultId!);
}

/** The results and their calls carried from the structure `a` replaced, or undefined. */
function carried(a: SessionAnalysis): ResultCalls | undefined {
  const resplice = respliceOf(a);
  const before = resplice && kept.get(resplice.previousStructure);
  if (!resplice || !before || before.cyclic || a.cycles.length > 0) return undefined;
  const relinked = [...resplice.added, ...resplice.reparented()];
  if (relinked.length > MAX_RELINKED) return undefined;
  // Whether the walk from `entry` up to `call` (to its root when there is none) passes a relinked
  // entry below the call. The walk is the old one up to the lowest relinked entry on the new walk,
  // and no further: so the call answers as before exactly when that part holds it, that is when the
  // call is that entry, or lies above the result and below that entry. Below that entry alone is
  // not enough: the edit may have hung the call there on another branch.
  // The call lies on the new walk below that entry exactly when the walk up from the call meets that
  // entry first: the part below it is the old walk, which held the call, and without a cycle the
  // call cannot be above it on the old walk and below it on the new one.
  const lowestOf = lowestRelinked(a, relinked);
  const crossed = (entry: Entry, call: Entry | undefined): boolean => {
    const lowest = lowestOf(entry);
    if (lowest === undefined) return false;
    return call === undefined || !(lowest === call || lowestOf(call) === lowest);
  };
  // Made at their length and cut after: grown a push at a time, the two lists of 15,000 were most of this carry's garbage.
  const results: Entry[] = new Array(before.results.length);
  const calls: (Entry | undefined)[] = new Array(before.results.length);
  let length = 0;
  for (let k = 0; k < before.results.length; k++) {
    const entry = before.results[k]!;
    if (!resplice.kept(entry)) continue;
    const call = before.calls[k];
    results[length] = entry;
    calls[length++] = call !== undefined && !resplice.kept(call) ? callOf(a, entry) : crossed(entry, call) ? callOf(a, entry) : call;
  }
  results.length = length;
  calls.length = length;
  // The added results lie together (the edited lines), and go in where their first line falls.
  const added = resplice.added.filter(holdsResult);
  if (added.length > 0) {
    let at = results.length;
    while (at > 0 && results[at - 1]!.index > added[0]!.index) at--;
    results.splice(at, 0, ...added);
    calls.splice(at, 0, ...added.map((e) => callOf(a, e)));
  }
  return { results, calls, cyclic: false, holders: carriedHolders(before.holders, resplice) };
}

/**
 * Per entry walked, the index of its lowest relinked ancestor-or-self (-1: none), valid where
 * `walked` holds the current carry's stamp; `walkScratch` holds one walk's entries (`entryArrays.ts`).
 */
const lowestScratch = scratchInts();
const walked = new StampedMarks();
const walkScratch = scratchInts();

/**
 * The lowest of `relinked` at or above an entry, by a walk up that remembers every entry it passes:
 * each entry is walked once per edit, where asking the tree's order (`isAncestor`) would make it,
 * O(entries), on every structural edit. `a` has no parent cycle (the carry declines one).
 */
function lowestRelinked(a: SessionAnalysis, relinked: readonly Entry[]): (entry: Entry) => Entry | undefined {
  const n = a.entries.length;
  const stamp = walked.begin(n);
  // Held by the answer, so that it reads this carry's arrays even once the server let them go.
  const walkedAt = walked.marks;
  const lowestAt = lowestScratch.take(n);
  const walk = walkScratch.take(n);
  for (const t of relinked) {
    walkedAt[t.index] = stamp;
    lowestAt[t.index] = t.index;
  }
  const { parent, entries } = a;
  return (entry) => {
    // The arrays are shared by every carry: an answer asked for after a later carry began would read its marks.
    if (walked.stamp !== stamp) throw new Error("a relinked entry was asked for after the next structural edit");
    let length = 0;
    let found = -1;
    for (let e: Entry | undefined = entry; e !== undefined; e = parent[e.index]) {
      if (walkedAt[e.index] === stamp) {
        found = lowestAt[e.index]!;
        break;
      }
      if (length >= n) throw new Error(`a walk up took more than ${n} steps: a parent cycle went undetected`);
      walk[length++] = e.index;
    }
    for (let k = 0; k < length; k++) {
      walkedAt[walk[k]!] = stamp;
      lowestAt[walk[k]!] = found;
    }
    return found < 0 ? undefined : entries[found];
  };
}

/** The first holders still known: an id whose holder was removed is looked for again, and an added entry may come first. */
function carriedHolders(before: ReadonlyMap<string, Entry | undefined>, resplice: NonNullable<ReturnType<typeof respliceOf>>): Map<string, Entry | undefined> {
  const out = new Map<string, Entry | undefined>();
  for (const [id, holder] of before) {
    if (holder !== undefined && !resplice.kept(holder)) continue;
    let first = holder;
    for (const e of resplice.added) if (e.parsed.toolCallIds?.includes(id) && (first === undefined || e.index < first.index)) first = e;
    out.set(id, first);
  }
  return out;
}

/**
 * The tool results whose call is not on their path, each with the first entry elsewhere holding a
 * call with its id: a matter of the tree and the tool ids alone, kept for the structure, so that the
 * check does not need the index of tool calls, which an idle server lets go (a keystroke would build it
 * again, 50 ms on the 45 MB session).
 */
export const unmatchedToolResults = perStructure(unmatchedOf, { carry: carriedUnmatched });

/** An unmatched tool result, and the first entry elsewhere holding a call with its id. */
interface Unmatched {
  entry: Entry;
  elsewhere: Entry | undefined;
}

/** Whether an entry and its successor (`Resplice.replaced`) hold the same tool ids: what a result's call and a call's holder read of an entry beyond the tree. */
function sameToolIds(x: Entry, y: Entry): boolean {
  const before = x.parsed.toolCallIds;
  const now = y.parsed.toolCallIds;
  if (x.parsed.toolResultId !== y.parsed.toolResultId || before?.length !== now?.length) return false;
  return before === undefined || before.every((id, k) => now![k] === id);
}

/**
 * The unmatched results of the structure `a` replaced, when the edit left the tree as it was, index
 * for index, and every tool id too: the same results, calls and holders, with the replaced entries'
 * successors named. The results' calls are carried the same way; when none were kept for the
 * structure replaced, they are walked now, as the check would have, so that the next edit of the
 * tree carries them instead of paying that walk (the first holders of the unmatched results' ids
 * are known).
 */
function carriedUnmatched(a: SessionAnalysis, previous: readonly Unmatched[]): Unmatched[] | undefined {
  const resplice = sameShape(a, sameToolIds);
  if (!resplice) return undefined;
  const now = (e: Entry): Entry => a.entries[e.index]!;
  const unmatched = previous.map(({ entry, elsewhere }) => ({ entry: now(entry), elsewhere: elsewhere && now(elsewhere) }));
  const before = kept.get(resplice.previousStructure);
  if (before && !kept.has(a.structure)) {
    const calls = before.calls.map((call) => call && now(call));
    const holders = new Map<string, Entry | undefined>();
    for (const [id, holder] of before.holders) holders.set(id, holder && now(holder));
    kept.set(a.structure, { results: before.results.map(now), calls, cyclic: before.cyclic, holders });
  } else {
    const { holders } = resultCalls(a);
    for (const { entry, elsewhere } of unmatched) if (!holders.has(entry.parsed.toolResultId!)) holders.set(entry.parsed.toolResultId!, elsewhere);
  }
  return unmatched;
}

function unmatchedOf(a: SessionAnalysis): Unmatched[] {
  const { results, calls, holders } = resultCalls(a);
  const unmatched: Entry[] = [];
  for (let k = 0; k < results.length; k++) if (calls[k] === undefined && !a.reachesCycle[results[k]!.index]) unmatched.push(results[k]!);
  if (unmatched.length === 0) return [];
  const missing = new Set<string>();
  for (const e of unmatched) if (!holders.has(e.parsed.toolResultId!)) missing.add(e.parsed.toolResultId!);
  if (missing.size > 0) for (const [id, holder] of firstHolders(a.entries, missing)) holders.set(id, holder);
  for (const id of missing) if (!holders.has(id)) holders.set(id, undefined);
  return unmatched.map((entry) => ({ entry, elsewhere: holders.get(entry.parsed.toolResultId!) }));
}

/**
 * The first entry holding a tool call with each of `ids`, in file order: what `toolCallsById` gives
 * first, found in one pass without indexing every call (a structural edit would build that index,
 * 50,000 calls, for the few results that are unmatched).
 */
function firstHolders(entries: readonly Entry[], ids: ReadonlySet<string>): Map<string, Entry> {
  const holders = new Map<string, Entry>();
  // Indexed loops: an iterator over each entry's calls made an object a step where the loop ran unoptimised.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const calls = entry.parsed.toolCallIds;
    if (calls) for (let k = 0; k < calls.length; k++) if (ids.has(calls[k]!) && !holders.has(calls[k]!)) holders.set(calls[k]!, entry);
  }
  return holders;
}
