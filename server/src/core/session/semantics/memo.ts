/**
 * Queries memoised per analysis: the semantic layer's one mechanism.
 *
 * Each Pi rule that needs more than one line (the session name, labels, references, tool call
 * pairs, version rules, the context selection) is a query over a `SessionAnalysis`, computed the
 * first time a feature asks and kept until the analysis is replaced by the next edit. A `WeakMap`
 * keyed by the analysis holds the answer, so it vanishes with the version it describes.
 *
 * What is kept across edits of line contents (the resumed contexts, the answers made from them,
 * the messages each line contributes) is kept in tables an idle server empties (`releaseKept`,
 * called by `lsp/memory.ts`): their values are the largest the semantic layer keeps (15 MB on the
 * 45 MB session), and are computed again, equal, when next asked for.
 */

import type { SessionAnalysis } from "../analysis";
import { editStep, linesEditedSince } from "../reanalyze";
import { type LineSplice, replacedStructure } from "../resplice";
import { type WeakTable, type WeakTableList, weakTableIn } from "../../base/weakTables";

/**
 * `compute`, memoised per analysis structure: for queries that read only the tree and the structural
 * facts of lines (ids, parents, types, roles, references, tool call ids), which an edit inside a
 * line leaves as they were. The value must not hold entry objects' parses, which such an edit swaps.
 * With `releasedWhenIdle`, a large value that is cheap to compute again goes when the server is idle.
 * With `carry`, the first ask for a structure made from the previous one (`resplice.ts`) first asks
 * it for the value made from the one kept for the structure replaced (any step of it: the value
 * holds for all), and computes the value when it answers undefined. That ask is at the new
 * structure's first step, or at any step when the edit kept the tree (`replacedStructure`).
 */
export function perStructure<T>(
  compute: (a: SessionAnalysis) => T,
  options: { releasedWhenIdle?: boolean; carry?: (a: SessionAnalysis, previous: T) => T | undefined } = {},
): (a: SessionAnalysis) => T {
  const memo: KeptTable<object, T> = options.releasedWhenIdle ? releasedTable() : new WeakMap();
  const { carry } = options;
  return (a) => {
    if (memo.has(a.structure)) return memo.get(a.structure) as T;
    const before = carry && replacedStructure(a);
    const value = (before && memo.has(before) ? carry!(a, memo.get(before) as T) : undefined) ?? compute(a);
    memo.set(a.structure, value);
    return value;
  };
}

/** A table of values kept per key object, emptied by `releaseKept`; read and written as a `WeakMap`. */
export type KeptTable<K extends object, V> = WeakTable<K, V>;

const released: WeakTableList = [];

/** A `KeptTable` that `releaseKept` empties. Made once per module (the list of them only grows at load). */
export function releasedTable<K extends object, V>(): KeptTable<K, V> {
  return weakTableIn(released);
}

/**
 * Empties every `releasedTable` (what an idle server does): each value is computed again when next
 * asked for, from the same parses, and so is equal to the one let go.
 */
export function releaseKept(): void {
  for (const table of released) table.map = new WeakMap();
}

/**
 * `compute`, memoised per analysis structure and kept across edits of lines that `inputs` does not
 * mark (a per-structure mark per line, `inputs(a)[line]`): for queries that read the content of
 * some lines besides structure (the parses of the active path's entries, say): an edit elsewhere
 * keeps the value, an edit of a marked line computes it again, decided in O(lines edited) from the
 * structure's edit log (`core/session/reanalyze.ts`). With `update`, an edit of marked lines first asks it
 * for the value made from the last one and the marked lines edited since (work in proportion to
 * the edit); `update` answers undefined when it cannot, and the value is computed afresh. With
 * `carry`, the first ask for a new structure (an edit of the tree) first asks it for the value made
 * from the one kept for the analysis that structure replaced (`predecessorOf`).
 */
export function perStructureAndLines<T>(
  inputs: (a: SessionAnalysis) => Uint8Array,
  compute: (a: SessionAnalysis) => T,
  update?: (a: SessionAnalysis, last: T, edited: readonly number[]) => T | undefined,
  carry?: (a: SessionAnalysis, previous: T) => T | undefined,
): (a: SessionAnalysis) => T {
  // Released when idle: these values hold parses of line contents (the contexts, the labels).
  const memo = releasedTable<object, { step: number; value: T }>();
  /** The value kept for `a`'s structure, brought up to `a`'s step, if it still holds. */
  const kept = (a: SessionAnalysis): { value: T } | undefined => {
    const step = editStep(a);
    const last = memo.get(a.structure);
    if (!last) return undefined;
    if (last.step === step) return last;
    const edited = linesEditedSince(a, last.step);
    if (!edited) return undefined;
    const marked = inputs(a);
    const hit = edited.filter((line) => marked[line] === 1);
    const value = hit.length === 0 ? last.value : update?.(a, last.value, hit);
    if (value === undefined) return undefined;
    last.step = step;
    last.value = value;
    return last;
  };
  /**
   * Whether no line the value reads was edited inside since the structure's first analysis, the one
   * the edit of the tree made: such an edit swaps its entry's parse in place (`reanalyze`), and that
   * entry may be the very object the replaced analysis's value holds (`resplice.ts` keeps the entries
   * below a structural edit), so that a carry comparing the old and the new entries' parses would
   * find them equal and keep what the line said before.
   */
  const readsNoLineEditedSinceFirst = (a: SessionAnalysis): boolean => {
    const edited = linesEditedSince(a, 0);
    if (!edited) return false;
    if (edited.length === 0) return true;
    const marked = inputs(a);
    return edited.every((line) => marked[line] !== 1);
  };
  return (a) => {
    const found = kept(a);
    if (found) return found.value;
    // A new structure: the value of the analysis it replaced, carried over when `carry` can.
    const previous = carry && readsNoLineEditedSinceFirst(a) ? predecessorOf(a) : undefined;
    // Only a value made at the replaced analysis's own last step: bringing an older one up to date
    // would read that analysis, whose entries the new one may have moved (`resplice.ts`).
    const last = previous && memo.get(previous.structure);
    const before = last && last.step === editStep(previous) ? last : undefined;
    const value = (before && carry?.(a, before.value)) ?? compute(a);
    memo.set(a.structure, { step: editStep(a), value });
    return value;
  };
}

// ---- The analysis a new structure replaced ---------------------------------------------------------

/**
 * For each structure, the analysis the document held before the edit that made it (a line added,
 * removed, broken or mended, a parent changed): a value kept for that analysis may be carried over
 * (`perStructureAndLines`' `carry`) when what it reads is unchanged, instead of being computed again
 * over 50,000 entries. Only the last link is kept (a chain of edits would hold every earlier
 * analysis), and an idle server lets it go with the values it leads to (`releaseKept`).
 */
const predecessors = releasedTable<object, { analysis: SessionAnalysis | undefined; splice: LineSplice | undefined }>();

/**
 * Records that the document's analysis `next`, of a new structure, replaced `previous`, through
 * the edits `splice` spans (when the document knows them).
 */
export function replacedAnalysis(next: SessionAnalysis, previous: SessionAnalysis, splice?: LineSplice): void {
  if (next.structure === previous.structure) return;
  const link = predecessors.get(previous.structure);
  if (link) link.analysis = undefined;
  predecessors.set(next.structure, { analysis: previous, splice });
}

/** The analysis `a`'s structure replaced, while it is kept. */
export function predecessorOf(a: SessionAnalysis): SessionAnalysis | undefined {
  return predecessors.get(a.structure)?.analysis;
}

/** A small answer kept per structure through the idle release (`keptAcrossRelease`). */
export interface KeptAcrossRelease<T> {
  /** The answer kept for `a`'s structure, if no line edited since it was made is one its inputs mark. */
  get(a: SessionAnalysis): T | undefined;
  set(a: SessionAnalysis, value: T): void;
  /**
   * Keeps `value` for `a`'s structure for `stale` alone, until `set` keeps the answer itself: what
   * was said for now of a structure whose answer is still to be made, which the next edit, of the
   * tree too, may start from.
   */
  standIn(a: SessionAnalysis, value: T): void;
  /**
   * The answer last kept for `a`'s structure, or for the structure an edit of the tree replaced
   * with it (`replacedAnalysis`), whatever lines were edited since, and where each line it was made
   * on is now (`StaleLines`): what it said before an edit `get` refuses, for a caller that knows
   * which of its parts the edit leaves standing. Undefined when nothing is kept, or when the edit
   * log no longer reaches it.
   */
  stale(a: SessionAnalysis): { value: T; lines: StaleLines } | undefined;
}

/** Where the lines an answer was made on are now, after the edits since. */
export interface StaleLines {
  /** The line now of a line the answer was made on, undefined when that line was edited since (or removed). */
  now(line: number): number | undefined;
  /** Whether every line not edited since is at the number it had (no line was added or removed). */
  unmoved: boolean;
}

/**
 * A small answer kept per structure with the edit step it was made at, in a table `releaseKept`
 * leaves alone: it still holds for a later analysis of that structure when none of the lines
 * edited since is one that `inputs` marks (decided in O(lines edited) from the structure's edit
 * log). For answers made from the large values an idle server lets go (the resumed contexts and
 * their provider requests), so that the first edit after an idle pause, anywhere those values do
 * not read, reuses the answer instead of building them again: what the answer reads is unchanged,
 * so it is the answer they would give.
 */
export function keptAcrossRelease<T>(inputs: (a: SessionAnalysis) => Uint8Array): KeptAcrossRelease<T> {
  const memo = new WeakMap<object, { step: number; value: T; standIn?: boolean }>();
  return {
    get(a) {
      const last = memo.get(a.structure);
      if (!last || last.standIn) return undefined;
      const step = editStep(a);
      if (last.step === step) return last.value;
      const edited = linesEditedSince(a, last.step);
      if (!edited) return undefined;
      const marked = inputs(a);
      for (const line of edited) if (marked[line] === 1) return undefined;
      last.step = step;
      return last.value;
    },
    set(a, value) {
      memo.set(a.structure, { step: editStep(a), value });
    },
    standIn(a, value) {
      memo.set(a.structure, { step: editStep(a), value, standIn: true });
    },
    stale(a) {
      const last = memo.get(a.structure);
      if (last) {
        const edited = linesEditedSince(a, last.step);
        if (!edited) return undefined;
        const set = new Set(edited);
        return { value: last.value, lines: { now: (line) => (set.has(line) ? undefined : line), unmoved: true } };
      }
      // Kept for the structure this one replaced: the lines edited there since, then the edit of
      // the tree (`splice`: its lines replaced, those below moved by `delta`), then the lines
      // edited in place in this structure since it was made.
      const link = predecessors.get(a.structure);
      const before = link?.analysis;
      const splice = link?.splice;
      const kept = before && splice && memo.get(before.structure);
      if (!kept) return undefined;
      const editedThen = linesEditedSince(before, kept.step);
      const editedNow = linesEditedSince(a, 0);
      if (!editedThen || !editedNow) return undefined;
      const then = new Set(editedThen);
      const now = new Set(editedNow);
      const { start, end, delta } = splice;
      const lineNow = (line: number): number | undefined => {
        if (then.has(line) || (line >= start && line < end - delta)) return undefined;
        const moved = line < start ? line : line + delta;
        return now.has(moved) ? undefined : moved;
      };
      return { value: kept.value, lines: { now: lineNow, unmoved: delta === 0 } };
    },
  };
}

/** Values kept per structure, each with the objects it was made from (see `keptForSameInputs`); make one with `releasedTable`. */
export type KeptForInputs<T> = KeptTable<object, { inputs: readonly unknown[]; value: T }>;

/**
 * The value kept in `memo` for `structure` when it was made from the same `inputs` (the same
 * objects, in order), else `compute()`, kept: for answers made from values the core already keeps
 * and shares (the resumed contexts, their provider requests, line parses), so that the same
 * objects mean the same answer. With `update`, other inputs first ask it for the value made from
 * the last inputs and value (undefined: it cannot, and the value is computed).
 */
export function keptForSameInputs<T>(
  memo: KeptForInputs<T>,
  structure: object,
  inputs: readonly unknown[],
  compute: () => T,
  update?: (lastInputs: readonly unknown[], last: T) => T | undefined,
): T {
  const last = memo.get(structure);
  if (last && last.inputs.length === inputs.length && last.inputs.every((x, i) => x === inputs[i])) return last.value;
  const value = (last && update?.(last.inputs, last.value)) ?? compute();
  memo.set(structure, { inputs, value });
  return value;
}

/** `compute`, memoised per analysis. */
export function perAnalysis<T>(compute: (a: SessionAnalysis) => T): (a: SessionAnalysis) => T {
  const memo = new WeakMap<SessionAnalysis, T>();
  return (a) => {
    if (memo.has(a)) return memo.get(a) as T;
    const value = compute(a);
    memo.set(a, value);
    return value;
  };
}
