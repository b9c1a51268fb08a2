/**
 * The session index: everything that needs more than one line, derived in one pass from the
 * cached per-line parses.
 *
 * It mirrors how Pi reads the file (`loadEntriesFromFile`, `_buildIndex`, `buildSessionContext`):
 * the header is the first parseable line, every later non-header line is an entry, and Pi's index of
 * them (`byId` keeping the last entry of each id, the leaf, the parent lookup) is `PiIndex`, the one
 * the files on disk are indexed with too. On top of that it records what Pi does not guard against: duplicate ids, dangling links
 * and cycles.
 *
 * Architecture invariant: no walk here is recursive, and every walk along `parentId` is linear
 * overall and guarded against cycles, because real trees are 50,000 entries deep and cyclic files
 * exist. The whole analysis is O(lines).
 */

import { scratchInts } from "../base/entryArrays";
import type { IdKey } from "../base/ids";
import { type Cycles, findCycles, treeLoops } from "./cycles";
import { Entry } from "./entry";
import { PiIndex, VALUE_KEYS } from "./piIndex";
import { type ChildLists, listChildren, orderTree, type TreeOrder } from "./treeOrder";
import type { ParsedLine } from "../line/facts";

export type HeaderState =
  /** The first parseable line is a header with a string id. */
  | "ok"
  /** The document has no bytes at all. */
  | "empty-file"
  /** The document has only blank or unparsable lines. */
  | "no-entries"
  /** The first parseable line is not a header. */
  | "missing"
  /** The first parseable line is a header whose id is not a string. */
  | "invalid";

export interface SessionAnalysis {
  /** Line of the header Pi uses, or of the line Pi would have taken for it. */
  headerLine: number | undefined;
  headerState: HeaderState;
  header: Record<string, unknown> | undefined;
  /** Header lines after the first, which Pi ignores. */
  extraHeaderLines: number[];
  /** Lines whose JSON value is falsy (`null`, `false`, `0`, `""`): Pi 1.x skips them. */
  falsyLines: number[];
  entries: Entry[];
  /** The entry line by line, or undefined for lines that are not entries. */
  entryAtLine: (Entry | undefined)[];
  /** The last entry of each id, as Pi's `byId`: keyed by the id's value whatever its type (absent ids under `undefined`). */
  byId: Map<IdKey, Entry>;
  /** Ids held by more than one entry (absent ids left out), with every holder in file order. */
  duplicates: Map<IdKey, Entry[]>;
  /** The resolved parent of each entry (by index), undefined for roots and dangling links. */
  parent: (Entry | undefined)[];
  /** The children of an entry, in file order (a fresh array). */
  childrenOf(entry: Entry): Entry[];
  /** Entries with no resolved parent (null, absent, dangling): the roots of the tree. */
  roots: Entry[];
  /**
   * The entry Pi resumes from: the last entry of the file, unless its id is `null`, which Pi reads
   * as "before the first entry" (an empty context; the next entry starts a new root).
   */
  leaf: Entry | undefined;
  /** The last entry when its id is `null`, so that Pi resumes from no entry at all. */
  nullLeaf: Entry | undefined;
  /** Each parent cycle once, as the entries around it. */
  cycles: Entry[][];
  /** For each entry: the cycle it lies in (index into `cycles`), or -1. */
  cycleOf: Int32Array;
  /** For each entry: whether walking up from it runs into a cycle (true for entries in a cycle too). */
  reachesCycle: Uint8Array;
  /** Number of ancestors of each entry; -1 for entries that reach a cycle. */
  depth: Int32Array;
  /** The active path, root first: the entries Pi walks from the leaf up. Empty when the leaf reaches a cycle. */
  activePath: Entry[];
  onActivePath: Uint8Array;
  /** Whether Pi's `getTree` loops forever on this file (duplicate ids can make its node graph cyclic). */
  treeLoops: boolean;
  /** Whether `a` is a proper ancestor of `b`. */
  isAncestor(a: Entry, b: Entry): boolean;
  /** Whether the document ends with a line break. */
  endsWithNewline: boolean;
  /** Whether any line looks like something Pi wrote. */
  looksLikeSession: boolean;
  /**
   * Stands for the tree and every line's structural facts (`sameStructure`): shared by the analyses
   * of versions that differ only inside lines, so that queries over structure alone (`perStructure`)
   * survive typing.
   */
  structure: object;
}

export interface AnalysisInput {
  parsed: readonly ParsedLine[];
  /** Whether the whole document is empty (0 characters). */
  isEmpty: boolean;
  /** Whether the document ends with "\n" (Pi 1.x appends one to a file that does not). */
  endsWithNewline: boolean;
}

export function analyze(input: AnalysisInput): SessionAnalysis {
  const lines = readLines(input);
  const { ids, duplicates } = indexIds(lines.entries);
  return linkedAnalysis(input, lines, ids, duplicates);
}

/** How many times `childrenOf` scans the parents before it makes every entry's children list. */
const SCANS_BEFORE_LISTS = 16;

/** How far `isAncestor` walks up before it asks the tree's order. */
const NEAR_STEPS = 256;

/**
 * The tree's links: each entry's parent (by index), the roots in file order, and the cycles. The
 * whole analysis finds them in O(entries) (`linkTree`); `resplice.ts` updates the previous
 * analysis's for the entries an edit changed, and passes the active path too when no entry of it
 * changed.
 */
export interface TreeLinks {
  parent: (Entry | undefined)[];
  roots: Entry[];
  cycles: Cycles;
  path?: Pick<SessionAnalysis, "activePath" | "onActivePath">;
}

/**
 * The analysis from the lines' roles, Pi's index of their entries and the tree's links. The
 * children and the tree's order (depth, `isAncestor`) are made when first read, not on every
 * structural edit: most edits are answered without them.
 */
export function linkedAnalysis(
  input: AnalysisInput,
  lines: LineRoles,
  ids: PiIndex<IdKey, Entry>,
  duplicates: Map<IdKey, Entry[]>,
  links: TreeLinks = linkTree(lines.entries, ids),
): SessionAnalysis {
  const { entries } = lines;
  const n = entries.length;
  const { parent, roots } = links;
  const { cycles, cycleOf, reachesCycle } = links.cycles;
  let children: ChildLists | undefined;
  let order: TreeOrder | undefined;
  // Both read `parent` and `roots` as they are now: this analysis's own, until an edit replaces it.
  const childLists = () => (children ??= listChildren(n, parent));
  const treeOrder = () => (order ??= orderTree(n, roots, childLists()));
  let scans = 0;
  const childrenOf = (entry: Entry): Entry[] => {
    const out: Entry[] = [];
    // The line checks ask for the children of each edited line at every keystroke: the first few
    // questions after a structural edit scan the parents (about a tenth of a millisecond at 50,000
    // entries) instead of making every entry's list (about 10 ms, which the first keystroke after a
    // structural edit or an open would pay); after as many scans as making the lists costs, they are made.
    if (children === undefined && scans < SCANS_BEFORE_LISTS) {
      scans++;
      for (let i = 0; i < n; i++) if (parent[i] === entry) out.push(entries[i]!);
      return out;
    }
    const { childStart, childList } = childLists();
    for (let k = childStart[entry.index]!; k < childStart[entry.index + 1]!; k++) out.push(entries[childList[k]!]!);
    return out;
  };
  /** The steps the short walks of `isAncestor` have taken, shared by the analyses of this structure. */
  let walked = 0;
  const isAncestor = (a: Entry, b: Entry): boolean => {
    // An entry below a cycle has no place in the tree's order, and no ancestor by it.
    if (a === b || reachesCycle[b.index]) return false;
    // Most questions are about an entry a few steps up (a compaction's first kept entry, a tool
    // call): a short walk answers them without the tree's order, which a structural edit would
    // otherwise make again over every entry.
    // Once the order is made (the first question the walk could not answer), it answers every question.
    // So does it once the walks together have taken as many steps as there are entries: questions
    // about far entries of a wide, shallow tree (every walk ending at a root within the short walk)
    // would otherwise cost up to 256 steps each, 50,000 of them a completion of a parentId.
    if (order === undefined && walked < n) {
      let up = parent[b.index];
      let steps = 0;
      for (; up !== undefined && steps < NEAR_STEPS && up !== a; steps++) up = parent[up.index];
      walked += steps;
      if (up === a) return true;
      if (up === undefined) return false;
    }
    const { tin, tout } = treeOrder();
    const ta = tin[a.index]!;
    const tb = tin[b.index]!;
    return a !== b && ta >= 0 && tb >= 0 && ta < tb && tout[b.index]! < tout[a.index]!;
  };
  const leaf = ids.leaf;
  const path = links.path ?? followLeaf(ids, parent, reachesCycle, links.cycles.pathMarks);

  return {
    headerLine: lines.headerLine,
    headerState: lines.headerState,
    header: lines.header,
    extraHeaderLines: lines.extraHeaderLines,
    falsyLines: lines.falsyLines,
    entries,
    entryAtLine: lines.entryAtLine,
    byId: ids.byId,
    duplicates,
    parent,
    childrenOf,
    roots,
    leaf,
    nullLeaf: leaf === undefined ? ids.last : undefined,
    cycles,
    cycleOf,
    reachesCycle,
    get depth() {
      return treeOrder().depth;
    },
    activePath: path.activePath,
    onActivePath: path.onActivePath,
    treeLoops: ids.duplicated && treeLoops(entries),
    isAncestor,
    endsWithNewline: input.endsWithNewline,
    looksLikeSession: lines.looksLikeSession,
    structure: {},
  };
}

/** What one pass over the lines finds: the header Pi takes, the lines it skips, and the entries. */
export type LineRoles = Pick<
  SessionAnalysis,
  "headerLine" | "headerState" | "header" | "extraHeaderLines" | "falsyLines" | "entries" | "entryAtLine" | "looksLikeSession"
>;

/**
 * Pi's `loadEntriesFromFile` over the parsed lines: the first parseable line is the header, later
 * headers are ignored, and every other value line becomes an entry.
 */
function readLines(input: AnalysisInput): LineRoles {
  const { parsed } = input;
  const entries: Entry[] = [];
  const entryAtLine: (Entry | undefined)[] = new Array(parsed.length);
  const falsyLines: number[] = [];
  const extraHeaderLines: number[] = [];
  let headerLine: number | undefined;
  let headerState: HeaderState = input.isEmpty ? "empty-file" : "no-entries";
  let header: Record<string, unknown> | undefined;
  let looksLikeSession = false;

  for (let line = 0; line < parsed.length; line++) {
    const p = parsed[line]!;
    if (p.kind !== "value") continue;
    if (p.looksLikePi) looksLikeSession = true;
    // Pi 1.x drops falsy values before it looks for the header; Pi 0.73/0.74 throws on `null`,
    // which the diagnostics report separately.
    if (p.falsy) {
      falsyLines.push(line);
      continue;
    }
    if (headerLine === undefined) {
      headerLine = line;
      if (p.type === "session" && p.id !== undefined) {
        headerState = "ok";
        header = p.object;
      } else {
        headerState = p.type === "session" ? "invalid" : "missing";
      }
      if (p.type === "session") continue;
    } else if (p.type === "session") {
      extraHeaderLines.push(line);
      continue;
    }
    const entry = new Entry(entries.length, line, p);
    entries.push(entry);
    entryAtLine[line] = entry;
  }
  return { headerLine, headerState, header, extraHeaderLines, falsyLines, entries, entryAtLine, looksLikeSession };
}

/** Pi's index of the entries (`piIndex.ts`), and the ids held twice with every holder in file order. */
function indexIds(entries: Entry[]): { ids: PiIndex<IdKey, Entry>; duplicates: Map<IdKey, Entry[]> } {
  const ids = new PiIndex<IdKey, Entry>(VALUE_KEYS);
  for (const entry of entries) ids.add(entry.key, entry);
  const duplicates = new Map<IdKey, Entry[]>();
  // Holders are gathered in a second pass only when an id is held twice, which is rare.
  if (ids.duplicated) {
    const holders = new Map<IdKey, Entry[]>();
    for (const entry of entries) {
      // Entries without an id share the key `undefined`, which no parent lookup ever asks for.
      if (entry.key === undefined) continue;
      const list = holders.get(entry.key);
      if (list) list.push(entry);
      else holders.set(entry.key, [entry]);
    }
    for (const [id, list] of holders) if (list.length > 1) duplicates.set(id, list);
  }
  return { ids, duplicates };
}

/** The parents by index for the cycle search, a scratch array (`entryArrays.ts`). */
const parentIndexScratch = scratchInts();

/** Each entry's parent as Pi finds it, the roots, and the cycles, made afresh in O(entries). */
export function linkTree(entries: readonly Entry[], ids: PiIndex<IdKey, Entry>): TreeLinks {
  const n = entries.length;
  // Pi's lookup (`ids.find`) makes an empty string, 0 and false roots like null, finds a number
  // only under the same number, and resolves a self-parent to the entry itself (a cycle of length one).
  const parent: (Entry | undefined)[] = new Array(n);
  // Read by the cycle search alone, and written whole below (-1 for a root).
  const parentIndex = parentIndexScratch.take(n);
  const roots: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const entry = entries[i]!;
    // Most entries are children of the entry just above them, which `find` then takes without a
    // map lookup unless an id is held twice.
    const above = i > 0 ? entries[i - 1]! : undefined;
    const key = entry.parentKey;
    const p = ids.find(key, above !== undefined && above.key === key ? above : undefined);
    parent[i] = p;
    parentIndex[i] = p ? p.index : -1;
    if (!p) roots.push(entry);
  }
  // Cycles in the functional graph entry -> parent, each entry walked once (`cycles.ts`).
  return { parent, roots, cycles: findCycles(entries, parentIndex) };
}

/**
 * The active path, the walk from Pi's leaf (`PiIndex.leaf`: the last entry, none when its id is
 * `null`) up, root first; `onActivePath` is the zeroed marks made with the cycle arrays.
 */
function followLeaf(
  ids: PiIndex<IdKey, Entry>,
  parent: (Entry | undefined)[],
  reachesCycle: Uint8Array,
  onActivePath: Uint8Array,
): Pick<SessionAnalysis, "activePath" | "onActivePath"> {
  const n = ids.size;
  const leaf = ids.leaf;
  if (!leaf || reachesCycle[leaf.index]) return { activePath: [], onActivePath };
  // The leaf reaches no cycle, so the walk ends at a root within n steps; a longer one means the
  // cycle detection (`cycles.ts`) is broken, and fails loudly instead of hanging. Walked twice, to
  // count and then to fill root first: a path of 25,000 grown a push at a time and reversed was
  // most of this function's garbage on every structural edit that moved it.
  let length = 0;
  for (let e: Entry | undefined = leaf; e; e = parent[e.index]) {
    if (length >= n) throw new Error(`the active path took more than ${n} steps: a parent cycle went undetected`);
    length++;
  }
  const activePath: Entry[] = new Array(length);
  for (let e: Entry | undefined = leaf, k = length - 1; e; e = parent[e.index], k--) {
    activePath[k] = e;
    onActivePath[e.index] = 1;
  }
  return { activePath, onActivePath };
}
