/**
 * Which entries Pi selects when it builds the model's context (`buildContextEntries` in Pi 1.x, the
 * same selection inside `buildSessionContext` in 0.73/0.74), derived once per analysis.
 *
 * The selection follows the active path (root → leaf). Without a compaction on it, every path entry
 * is selected. Otherwise, with the *last* compaction on the path: that compaction, the path entries
 * before it starting at the first one whose id is its `firstKeptEntryId` (nothing when there is
 * none before it), and every entry after it. Pi 1.x also drops `system` messages from that
 * kept-before range.
 *
 * A selected entry is not necessarily a message: labels, settings and custom entries are selected
 * but contribute none. The selection is O(path) and memoised per analysis, never computed per query.
 */

import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";
import { respliceOf, sameShape } from "../session/resplice";
import { buildContext, selectEntries, type ContextResult } from "./buildContext";
import { carryContext, carrySelection, rebuiltContext } from "./contextCarry";
import { updateContext } from "./contextUpdate";
import { perStructure, perStructureAndLines } from "../session/semantics/memo";

/** The context state of one entry. */
export const ContextState = {
  /** Not on the active path, or the path is undefined (the leaf reaches a cycle). */
  OffPath: 0,
  /** Selected for the context. */
  Selected: 1,
  /** On the active path, but before the kept range of the last compaction: summarised away. */
  Compacted: 2,
  /** In the kept range before the last compaction, but a system message, which Pi 1.x drops there (0.73/0.74 keep it). */
  DroppedSystem: 3,
} as const;
export type ContextState = (typeof ContextState)[keyof typeof ContextState];

export interface ContextSelection {
  /** One `ContextState` per entry, by entry index. */
  state: Uint8Array;
  /** The last compaction on the active path, if any. */
  compaction: Entry | undefined;
  /** The first entry kept from before that compaction, if any. */
  keptFrom: Entry | undefined;
  /** The active path it was made from: the analysis's own array, which an edit of the tree that keeps the path passes on (`relink.ts`). */
  path: readonly Entry[];
}

/** The context selection of an analysis, computed in O(path) on first use and memoised for its structure. */
export const contextSelection = perStructure(selectionOf, { carry: carriedSelection });

function selectionOf(a: SessionAnalysis): ContextSelection {
  const state = new Uint8Array(a.entries.length);
  // The same selection the context builder makes, marked per entry.
  const { selected, compaction, keptFrom } = selectEntries(a.activePath, "1.x");
  for (const e of selected) state[e.index] = ContextState.Selected;
  if (compaction) {
    let kept = false;
    for (const e of a.activePath) {
      if (e === compaction) break;
      if (e === keptFrom) kept = true;
      if (state[e.index] !== ContextState.Selected) state[e.index] = kept ? ContextState.DroppedSystem : ContextState.Compacted;
    }
  }
  return { state, compaction, keptFrom, path: a.activePath };
}

/** Whether an entry and its successor (`Resplice.replaced`) agree on what the selection reads of an entry beyond the tree: its role and the id it names. */
export function sameSelectionFacts(x: Entry, y: Entry): boolean {
  return x.parsed.role === y.parsed.role && x.parsed.reference === y.parsed.reference;
}

/**
 * The selection of the structure `a` replaced, when the edit left the tree as it was, index for index,
 * and changed no fact the selection reads of an entry (its type, id and parent are the tree's; its
 * role and the id it names, here): the same marks, with the replaced entries' successors named.
 */
function carriedSelection(a: SessionAnalysis, previous: ContextSelection): ContextSelection | undefined {
  if (sameShape(a, sameSelectionFacts)) {
    const now = (e: Entry | undefined): Entry | undefined => e && a.entries[e.index];
    return { state: previous.state, compaction: now(previous.compaction), keptFrom: now(previous.keptFrom), path: a.activePath };
  }
  return keptPathSelection(a, previous);
}

/**
 * The selection of the structure `a` replaced, when the edit of the tree kept the active path (the
 * same array, `relink.ts`: no entry of it removed and no parent of it changed, so the same entry
 * objects, whose facts an edit of other lines leaves alone). The selection reads the path alone,
 * so only its marks move, with the entries below the edited lines; the entries added are off the
 * path. An edit off the path (a line broken, added or removed on another branch) then costs O(path)
 * typed-array writes instead of the selection made again.
 */
function keptPathSelection(a: SessionAnalysis, previous: ContextSelection): ContextSelection | undefined {
  const resplice = respliceOf(a);
  if (!resplice || a.activePath !== previous.path) return undefined;
  const shift = a.entries.length - previous.state.length;
  const below = resplice.splice.end;
  const state = new Uint8Array(a.entries.length);
  for (const e of a.activePath) state[e.index] = previous.state[e.line >= below ? e.index - shift : e.index]!;
  return { state, compaction: previous.compaction, keptFrom: previous.keptFrom, path: a.activePath };
}

/** Whether Pi selects `entry` for the model's context (Pi 1.x's selection for system messages). */
export function isInContext(a: SessionAnalysis, entry: Entry): boolean {
  return contextSelection(a).state[entry.index] === ContextState.Selected;
}

/**
 * The lines the context Pi resumes with is made of (either version's), marked: the active path from
 * the first entry the last compaction keeps (or from the root), and the entries before that which
 * may set the model and the thinking level. Typing anywhere else (in compacted history, on another
 * branch) leaves the context as it was. Which lines these are is a matter of structure.
 *
 * Which entry sets the model depends on values, not structure: Pi 0.74 takes the last
 * `model_change` or assistant message, Pi 1.x skips assistants answered by a virtual model
 * (`api: "pi-virtual"`) and those naming no model (`provider/resumedModel.ts`). A mark made from
 * values would go stale when an edit changes them but not the structure, so every assistant back
 * to the last `model_change` is marked, which holds whatever those values are. So is every message
 * entry of the path without a role, whose message Pi reads wherever it is.
 */
export const contextInputLines = perStructure((a: SessionAnalysis): Uint8Array => {
  const marked = new Uint8Array(a.entryAtLine.length);
  const path = a.activePath;
  const { compaction, keptFrom } = contextSelection(a);
  let from = 0;
  if (compaction) {
    const start = keptFrom ?? compaction;
    from = path.indexOf(start);
    if (from < 0) from = 0;
  }
  for (let i = from; i < path.length; i++) marked[path[i]!.line] = 1;
  // Pi reads `entry.message.role` of every message entry on the path and throws on a missing
  // message (`messageEntryWithout`): a line with no role of its own can lose its message without
  // changing the structure, so each such line before `from` is marked too (they are rare).
  for (let i = 0; i < from; i++) {
    const e = path[i]!;
    if (e.type === "message" && e.parsed.role === undefined) marked[e.line] = 1;
  }
  // Settings are read over the whole path: only the last of each kind before `from` can matter.
  let model = false;
  let thinking = false;
  for (let i = from - 1; i >= 0 && !(model && thinking); i--) {
    const e = path[i]!;
    if (!model && e.type === "model_change") {
      model = true;
      marked[e.line] = 1;
    } else if (!model && e.type === "message" && e.parsed.role === "assistant") {
      marked[e.line] = 1;
    } else if (!thinking && e.type === "thinking_level_change") {
      thinking = true;
      marked[e.line] = 1;
    }
  }
  return marked;
});

/**
 * The context Pi 1.x builds when it resumes the file (from its last entry), built once per analysis:
 * the header lens, the request for the active leaf and the inlay hints all read this one. Kept
 * while the edits touch none of its input lines, updated in proportion to the edit when they
 * do (`contextUpdate.ts`), and carried over an edit of the tree off the resumed path (`contextCarry.ts`).
 */
export const activeContext = perStructureAndLines(
  contextInputLines,
  (a: SessionAnalysis): ContextResult => buildContext(a, { flavor: "1.x" }),
  (a, last, edited) => updateContext(a, last, edited, "1.x"),
  (a, previous) => carryContext(a, previous) ?? carrySelection(a, previous, "1.x") ?? rebuiltContext(a, previous, "1.x"),
);

/** The context Pi 0.73/0.74 builds when it resumes the file, kept the same way (the request diagnostics compare its pipeline). */
export const activeContext074 = perStructureAndLines(
  contextInputLines,
  (a: SessionAnalysis): ContextResult => buildContext(a, { flavor: "0.74" }),
  (a, last, edited) => updateContext(a, last, edited, "0.74"),
  (a, previous) => carryContext(a, previous) ?? carrySelection(a, previous, "0.74") ?? rebuiltContext(a, previous, "0.74"),
);
