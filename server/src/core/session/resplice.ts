/**
 * The analysis after an edit of the tree (a line broken, mended, inserted or deleted, a parent
 * changed), made from the previous one instead of from nothing: the entries outside the edited
 * lines are kept, shifted in place to their new index and line, and Pi's map of ids is updated for
 * the entries the edit removed and added, instead of 50,000 new entries filed into a new map (on the
 * 45 MB session that map was most of the analysis's time, and the new entries most of its garbage).
 * The parents, the roots and the cycles are updated for the entries whose parent may have changed,
 * and the active path kept when none of its entries did (`relink.ts`); the children and the tree's
 * order are made when first read (`linkedAnalysis`).
 *
 * The previous analysis is the document's own and is replaced by this one: its entry objects, its
 * map and its arrays of entries, lines and parents (spliced in place) are taken over, so that
 * nothing may read them as the previous version's afterwards. The values carried over from it (`memo.ts`'s `carry`) are carried
 * only when they were made at its own last step, and read only the entries' parses and identities,
 * not their lines; the request findings compare lines recorded when they were made
 * (`features/requestFindingsCarry.ts`).
 */

import type { IdKey } from "../base/ids";
import { type AnalysisInput, type LineRoles, linkedAnalysis, type SessionAnalysis } from "./analysis";
import { Entry, firstEntryFrom } from "./entry";
import { PiIndex, VALUE_KEYS } from "./piIndex";
import { editStep } from "./reanalyze";
import { linkChange, relink, spliceInPlace } from "./relink";
import type { ValueLine } from "../line/facts";

/**
 * How an analysis was made from the one before it, for the checks that carry their findings over
 * (`features/diagnostics/replay.ts`): the edited lines, the structure and edit step of the analysis
 * it replaced (not that analysis itself: each would hold the one before it), the ids whose holder
 * changed, and the entries whose parent may have: the children of the entries removed (as that
 * analysis linked them) and of the entries added.
 */
export interface Resplice {
  splice: LineSplice;
  previousStructure: object;
  previousStep: number;
  changedKeys: ReadonlySet<IdKey>;
  /** Entries of the new analysis whose parent's holder was removed or added (the added entries' children among them are in `added`). */
  reparented: () => Entry[];
  /** The entries of the edited lines, in the new analysis. */
  added: readonly Entry[];
  /** Whether an entry of the replaced analysis is one of the new analysis too (moved, not removed). */
  kept: (entry: Entry) => boolean;
  /**
   * When the edit replaced each entry of the edited lines by one on the same line with the same
   * ids, parent and type, and no line was added or removed (a timestamp, a role or a tool id
   * edited): the entries replaced, each at its index in the new analysis too (where `added` holds
   * its successor). The tree is then the same, index for index, and a value kept for the replaced
   * structure holds for the new one when the facts it reads of these entries are unchanged
   * (`sameShape` below). Undefined otherwise.
   */
  replaced?: readonly Entry[];
}

/** Per structure made by an edit that kept the tree (`Resplice.replaced`), how: asked at any step of it, unlike `respliceOf`. */
const keptTrees = new WeakMap<object, Resplice>();

/**
 * Whether `a`'s structure was made by an edit that left the tree as it was, index for index
 * (`Resplice.replaced`), and `same` holds for each replaced entry and its successor (which reads
 * its parse now: `same` compares structural facts, which the edits inside lines since keep): how
 * it was made, or undefined. For a value kept for the whole structure replaced, which a later
 * analysis of the new one may carry too.
 */
export function sameShape(a: SessionAnalysis, same: (before: Entry, now: Entry) => boolean): Resplice | undefined {
  const resplice = keptTrees.get(a.structure);
  const replaced = resplice?.replaced;
  if (!replaced) return undefined;
  for (let k = 0; k < replaced.length; k++) if (!same(replaced[k]!, resplice.added[k]!)) return undefined;
  return resplice;
}

/**
 * The structure `a`'s was made from by an edit of the tree, for a value kept per structure that
 * may be carried over it (`memo.ts`'s `perStructure`): known at the first step of the new structure
 * (`respliceOf`), and at any later step when that edit kept the tree (`sameShape`), so that a value
 * first asked after a keystroke that followed the edit is carried too.
 */
export function replacedStructure(a: SessionAnalysis): object | undefined {
  return (resplices.get(a) ?? keptTrees.get(a.structure))?.previousStructure;
}

const resplices = new WeakMap<SessionAnalysis, Resplice>();

/** How `a` was made from the analysis before it, when `respliceAnalysis` made it. */
export function respliceOf(a: SessionAnalysis): Resplice | undefined {
  return resplices.get(a);
}

/**
 * The lines edited since an analysis, as one span: lines `start` to `end` (exclusive) of the text
 * now replaced lines `start` to `end - delta` of the text it analysed; every line before `start` is
 * as it was, and every line from `end` on is the line `delta` places above it.
 */
export interface LineSplice {
  start: number;
  end: number;
  delta: number;
}

/** `splice` (none: no edit yet) widened by one more edit, which replaced `count` lines from `start` with `added` lines. */
export function widenSplice(splice: LineSplice | undefined, start: number, count: number, added: number): LineSplice {
  const delta = added - count;
  if (!splice) return { start, end: start + added, delta };
  // The span's end moves with the lines after the edit, and takes in the edit's own lines.
  return { start: Math.min(splice.start, start), end: Math.max(splice.end, start + count) + delta, delta: splice.delta + delta };
}

/**
 * The analysis of `input` from `previous` and the lines edited since (`splice`), or undefined when
 * the shortcut does not apply and the caller analyses the whole document: it applies when the
 * header is above the edited lines and valid, an entry is left (Pi's leaf is the last one: the
 * same entry when it is below the edited lines, else its path is walked again), and every entry,
 * before and after, has an id of its own (no id held twice or absent, no falsy line, no second
 * header), so that the map of ids changes only under the ids of the entries removed and added.
 */
export function respliceAnalysis(previous: SessionAnalysis, input: AnalysisInput, splice: LineSplice): SessionAnalysis | undefined {
  const { parsed } = input;
  const { start, end, delta } = splice;
  const oldEnd = end - delta;
  const old = previous.entries;
  const lastEntry = old[old.length - 1];
  if (input.isEmpty || previous.headerState !== "ok" || previous.headerLine === undefined || previous.headerLine >= start) return undefined;
  if (previous.falsyLines.length > 0 || previous.extraHeaderLines.length > 0 || previous.byId.size !== old.length) return undefined;
  if (!lastEntry || end > parsed.length) return undefined;
  const first = firstEntryFrom(old, start);
  const after = firstEntryFrom(old, oldEnd);
  const removedKeys = new Set<IdKey>();
  for (let k = first; k < after; k++) removedKeys.add(old[k]!.key);
  // The new entries, checked before anything is changed: a bail-out leaves `previous` whole.
  const addedLines: number[] = [];
  const addedKeys = new Set<IdKey>();
  for (let line = start; line < end; line++) {
    const p = parsed[line]!;
    if (p.kind !== "value") continue;
    const key = p.idKey;
    if (p.falsy || p.type === "session" || key === undefined || addedKeys.has(key)) return undefined;
    if (previous.byId.has(key) && !removedKeys.has(key)) return undefined;
    addedKeys.add(key);
    addedLines.push(line);
  }
  // Pi's leaf is the last entry: the same one when it lies below the edited lines; else the last one
  // the edit adds, or the last one above them (none left: the whole analysis is made again).
  const leafMoves = lastEntry.line < oldEnd;
  if (leafMoves && addedLines.length === 0 && first === 0) return undefined;
  const byId = previous.byId;
  const replaced = delta === 0 ? sameTree(old.slice(first, after), addedLines, parsed) : undefined;
  // Read before the entries move: which entries' parents may change, and whether the path stays.
  const change = linkChange(previous, first, after, addedKeys);
  // Another leaf is another path, even when the edit removed none of the old one's entries (a line
  // appended); but an entry replaced by one with the same ids and parent leaves the path as it was,
  // with the new entry in its place (`relink`).
  if (replaced) {
    change.sameTree = true;
    change.pathKept = previous.activePath.length > 0;
  } else if (leafMoves) change.pathKept = false;
  for (let k = first; k < after; k++) byId.delete(old[k]!.key);
  // The previous analysis's arrays are spliced in place, not copied: 50,000 entries and lines
  // made again on every structural edit were most of its garbage. It is replaced, so nothing reads them as its own.
  const entries = old;
  const added = addedLines.map((line, j) => new Entry(first + j, line, parsed[line] as ValueLine));
  spliceInPlace(entries, first, after - first, added);
  for (const entry of added) byId.set(entry.key, entry);
  // The entries below the edited lines keep their objects, moved to their new place.
  for (let k = first + added.length; k < entries.length; k++) {
    const entry = entries[k]!;
    entry.index = k;
    entry.line += delta;
  }
  const entryAtLine = previous.entryAtLine;
  spliceInPlace(entryAtLine, start, oldEnd - start, new Array<Entry | undefined>(end - start).fill(undefined));
  for (const entry of added) entryAtLine[entry.line] = entry;
  const ids = new PiIndex<IdKey, Entry>(VALUE_KEYS, byId);
  const leaf = entries[entries.length - 1]!;
  ids.size = entries.length;
  ids.last = leaf;
  ids.lastKey = leaf.key;
  const roles: LineRoles = {
    headerLine: previous.headerLine,
    headerState: "ok",
    header: previous.header,
    extraHeaderLines: [],
    falsyLines: [],
    entries,
    entryAtLine,
    // The header above the edit is a line Pi wrote, by its type.
    looksLikeSession: true,
  };
  const next = linkedAnalysis(input, roles, ids, new Map(), relink(previous, change, entries, ids, first, after - first, added));
  // The entries whose parent's holder was removed or added: the removed entries' kept children, and
  // the roots an added entry now holds up (the added entries' own children among them are `added`).
  const reparented = [...change.orphans, ...change.named];
  const resplice: Resplice = {
    splice,
    previousStructure: previous.structure,
    previousStep: editStep(previous),
    changedKeys: new Set([...removedKeys, ...addedKeys]),
    reparented: () => reparented,
    added,
    kept: (e) => entries[e.index] === e,
    replaced,
  };
  resplices.set(next, resplice);
  // A record holds the structure it replaced, and with it every value kept for that structure. The
  // replaced structure's own record is dropped here: nothing asks for its values any more (a carry
  // reads the values kept for the structure just before, never further back), and each record
  // kept would hold the one before it, a chain as long as the edits.
  keptTrees.delete(previous.structure);
  if (replaced) keptTrees.set(next.structure, resplice);
  return next;
}

/**
 * `removed` when the entries of `lines` replace them one for one, each on the same line with the
 * same ids, parent and type (the facts the tree and Pi's index are made of), else undefined.
 */
function sameTree(removed: Entry[], lines: readonly number[], parsed: AnalysisInput["parsed"]): Entry[] | undefined {
  if (removed.length !== lines.length) return undefined;
  for (let k = 0; k < removed.length; k++) {
    const before = removed[k]!;
    const now = parsed[lines[k]!] as ValueLine;
    const was = before.parsed;
    if (before.line !== lines[k] || was.type !== now.type || was.idKey !== now.idKey || was.parentKey !== now.parentKey) return undefined;
    if (was.id !== now.id || was.parentId !== now.parentId || was.looksLikePi !== now.looksLikePi) return undefined;
  }
  return removed;
}

/**
 * The entries `where` picks, in file order, kept per structure: after a structural edit made from
 * the previous analysis, the previous structure's list without the entries removed, and the entries
 * added that it picks, rather than a look at 50,000 entries. `where` may read only what an edit
 * inside a line leaves as it was (`sameStructure`: the type, the ids, what the entry names), so that
 * a list made at any step of the previous structure holds.
 */
export function entriesWhere(where: (e: Entry) => boolean): (a: SessionAnalysis) => Entry[] {
  const lists = new WeakMap<object, Entry[]>();
  return (a) => {
    const known = lists.get(a.structure);
    if (known) return known;
    const resplice = respliceOf(a);
    const before = resplice && lists.get(resplice.previousStructure);
    const list = before ? [...before.filter(resplice.kept), ...resplice.added.filter(where)].sort((x, y) => x.index - y.index) : a.entries.filter(where);
    lists.set(a.structure, list);
    return list;
  };
}
