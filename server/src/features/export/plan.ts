/**
 * What `export` shows of a session, decided from the analysis before anything is written: one
 * branch (the path from a leaf to its root, as Pi walks it) or the whole tree, the branches a
 * reader can choose between, and, on one branch, the entries Pi leaves out of the context it
 * builds from it (before the last compaction's kept range: Pi's `buildContextEntries`, through the
 * core's `selectEntries`). Nothing here reads an entry's value but a compaction's reference.
 */

import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { pathTo } from "../../core/session/semantics/walk";
import { type PiFlavor, selectEntries } from "../../core/pi/buildContext";

/** Branches listed at most; more are counted. */
export const MAX_BRANCHES = 10_000;

export interface ExportBranch {
  leaf: Entry;
  /** The entries from the root to the leaf; -1 when the walk up runs into a parent cycle. */
  length: number;
  /** Whether Pi resumes from this leaf. */
  resumed: boolean;
}

export interface ExportPlan {
  /** Whether the whole tree is shown (in file order), or one branch (root first). */
  all: boolean;
  entries: readonly Entry[];
  branches: ExportBranch[];
  /** Branches not listed (past `MAX_BRANCHES`). */
  branchesCut: number;
  /** On one branch: per entry index, 1 when the entry would give messages but Pi leaves it out of the context. */
  notSent: Uint8Array | undefined;
  /** On one branch, for Pi 1.x: the entries whose messages a selected `context_edit` replaces or removes, with what it does. */
  edited: Map<number, string>;
}

/** The types of entries that give the context messages (`messagesOfLine`). */
const MESSAGE_TYPES = new Set(["message", "custom_message", "branch_summary", "compaction"]);

/**
 * The plan for one branch (from `leaf`, or the whole tree with `all`), or why there is none: a
 * leaf whose walk up runs into a parent cycle has no branch Pi could build.
 */
export function exportPlan(a: SessionAnalysis, options: { leaf: Entry | undefined; all: boolean; flavor: PiFlavor }): ExportPlan | string {
  if (options.all) return { all: true, entries: a.entries, ...leaves(a), notSent: undefined, edited: new Map() };
  const leaf = options.leaf;
  if (!leaf) return { all: false, entries: [], branches: [], branchesCut: 0, notSent: undefined, edited: new Map() };
  if (a.reachesCycle[leaf.index]) {
    return `the walk up from line ${leaf.line + 1} runs into a parent cycle: Pi cannot build this branch (--all shows every entry)`;
  }
  const path = pathTo(a, leaf);
  return {
    all: false,
    entries: path,
    branches: [{ leaf, length: path.length, resumed: leaf === a.leaf }],
    branchesCut: 0,
    notSent: notSentOf(a, path, options.flavor),
    edited: options.flavor === "0.74" ? new Map() : editedOf(path, options.flavor),
  };
}

/** The leaves of the tree (entries no entry names as its parent), in file order. */
function leaves(a: SessionAnalysis): { branches: ExportBranch[]; branchesCut: number } {
  const hasChild = new Uint8Array(a.entries.length);
  for (const p of a.parent) if (p) hasChild[p.index] = 1;
  const branches: ExportBranch[] = [];
  let cut = 0;
  for (const entry of a.entries) {
    if (hasChild[entry.index]) continue;
    if (branches.length === MAX_BRANCHES) {
      cut++;
      continue;
    }
    const depth = a.depth[entry.index]!;
    branches.push({ leaf: entry, length: depth < 0 ? -1 : depth + 1, resumed: entry === a.leaf });
  }
  // The entries of a parent cycle lie on no leaf's branch unless something hangs off the cycle:
  // each cycle is listed too, by its first entry in file order, so that it can be shown.
  for (const cycle of a.cycles) {
    const first = cycle.reduce((x, y) => (y.index < x.index ? y : x));
    if (branches.length === MAX_BRANCHES) cut++;
    else branches.push({ leaf: first, length: -1, resumed: first === a.leaf });
  }
  return { branches, branchesCut: cut };
}

/** The entries of `path` that would give messages but that Pi's selection leaves out, or older compactions. */
function notSentOf(a: SessionAnalysis, path: Entry[], flavor: PiFlavor): Uint8Array {
  const marks = new Uint8Array(a.entries.length);
  const { selected, compaction } = selectEntries(path, flavor);
  if (!compaction) return marks;
  const sent = new Set(selected);
  for (const entry of path) {
    const type = entry.type;
    if (type === undefined || !MESSAGE_TYPES.has(type)) continue;
    // Only the newest compaction's summary is sent: the older ones are left behind with their range.
    if (!sent.has(entry) || (type === "compaction" && entry !== compaction)) marks[entry.index] = 1;
  }
  return marks;
}

/**
 * Pi 1.x's context edits on the branch: the last selected `context_edit` naming an entry replaces
 * its messages' content, or removes them (a `null` replacement), as `contextOfPath` applies them.
 */
function editedOf(path: Entry[], flavor: PiFlavor): Map<number, string> {
  const { selected } = selectEntries(path, flavor);
  const edits = new Map<unknown, Entry>();
  for (const entry of selected) if (entry.type === "context_edit") edits.set(entry.parsed.reference, entry);
  const notes = new Map<number, string>();
  if (edits.size === 0) return notes;
  for (const entry of selected) {
    const edit = edits.get(entry.key);
    if (!edit || !MESSAGE_TYPES.has(entry.type ?? "")) continue;
    const replacement = edit.parsed.object?.replacement;
    const what = replacement === null ? "removed from" : replacement === undefined ? "made unbuildable in" : "replaced in";
    notes.set(entry.index, `${what} the context by the context edit on line ${edit.line + 1}`);
  }
  return notes;
}
