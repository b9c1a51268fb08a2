/**
 * The outline (LSP document symbols, hierarchical) of a session, readable on a 50,000-entry tree
 * that is 50,000 deep.
 *
 * Shape: the conversation reads FLAT, at the top level, from the root to the leaf; side branches
 * are nested where they branch off.
 * - the header comes first (`session`, or `session: <name>` when a `session_info` names it);
 * - then the tree, with CHAIN COMPRESSION: a straight run of entries (each with exactly one child)
 *   is one level, its entries are siblings. A run ends at a leaf or at a branch point;
 * - at a branch point ONE branch, the INLINE one, continues the run in the same level: the branch
 *   the active path goes through (its first entry has `analysis.onActivePath`), or, when none does
 *   (below a branch point that is off the active path, under an orphan root, or when the session
 *   has no active path), the latest branch (the last in the order below, where Pi's tree view puts
 *   the newest);
 * - every OTHER branch is a side branch: one container symbol per side branch, in the same level,
 *   right after the branch-point entry and before the inline branch's first entry, in branch order.
 *   A container is named after the branch's first entry and numbered among ALL the branches of its
 *   branch point (`branch 1 of 3: user: "Try another…"`, `branch 3 of 3: …`; the inline branch's
 *   number, here 2, is the one not shown), and holds the branch's run, shaped by the same rules
 *   (inside it, the latest branch continues inline, the others are nested again).
 *   Nesting depth is therefore the number of side branches entered, not the depth of the tree nor
 *   the number of branch points on the active path; the active path is all at the top level;
 * - every root (a `null` parent, or an orphan whose parent is missing) starts a run at the top
 *   level, in file order; an orphan's detail names its missing parent;
 * - entries that are not reachable from any root (`analysis.reachesCycle`: in a parent cycle, or
 *   below one) come last, in file order, under one symbol `parent cycle (N entries)`.
 *
 * For example, a session with three answers to `u1`, where the user went back to the second answer
 * and continued from it (the leaf is `u3`), with details after the dashes:
 *
 *     session
 *     user: "Plan the refactor." — u1 · 3 branches, branch 2 (active path) continues inline
 *     branch 1 of 3: assistant: "Start with step one." — 2 entries · off the active path
 *       assistant: "Start with step one." — a1
 *       user: "Go on." — u2
 *     branch 3 of 3: assistant: "Skip to step three." — 1 entry · off the active path
 *       assistant: "Skip to step three." — a4
 *     assistant: "Start with step two." — a3 · branch 2 of 3
 *     user: "Good, continue." — u3 · leaf
 *
 * Branches are ordered as Pi's `getTree` orders siblings: by timestamp, oldest first, ties in file
 * order; entries without a readable ISO timestamp go last, in file order.
 *
 * Names (single line; text previews are the first 40 code points, never half a surrogate pair):
 * `user: "Fix the failing test…"`, `assistant: "…"` or `assistant: toolCall read, bash` when it has
 * no text, `toolResult: read`, `bashExecution: "npm test"`, `compaction (48,210 tokens)`,
 * `label: checkpoint-1`, `model: anthropic/claude-sonnet-4-5`, `thinking: high`,
 * `branch summary: "…"`, `session name: …`, `custom: <customType>`, `custom message: <customType>`,
 * `usage: <kind>`, `context edit → <targetId>`, and an unknown entry type by its type.
 *
 * Detail: the entry's id, plus where useful `leaf`, `orphan: parent <id> not found`, `off the
 * active path` (on the first entry of a top-level run that is off it), `branch 2 of 3` (on the first
 * entry of an inline branch), `3 branches, branch 2 (active path) continues inline` (on a branch
 * point; `(latest)` when the inline branch is the latest one, off the active path), `duplicate id`.
 * A branch container's detail counts the entries below it and, when the session has an active
 * path, says `off the active path` (a side branch never holds it: the active path continues inline).
 *
 * Symbol kinds:
 * | symbol                                   | kind      |
 * |------------------------------------------|-----------|
 * | header, session_info                     | File      |
 * | branch container                         | Namespace |
 * | `parent cycle (N entries)`               | Array     |
 * | every message (its name says the role)   | Event     |
 * | compaction, branch_summary               | Module    |
 * | label                                    | Key       |
 * | model_change, thinking_level_change      | Property  |
 * | custom, custom_message, usage, context_edit | Object |
 * | unknown or missing type, non-objects     | Null      |
 *
 * Few kinds, each a name that reads as a group, because editors such as Emacs (imenu) group the
 * outline by kind name.
 *
 * Ranges: an entry's `range` is its whole line and its `selectionRange` the `id` value (the line
 * when the id cannot be located). A container's `range` runs from the first to the last line of the
 * entries below it; its `selectionRange` is the id of its first entry.
 *
 * Cost: the walk is iterative, with an explicit stack of the branch points whose side branches are
 * being listed (a branch point is popped before its inline branch continues, so the stack is as
 * deep as the nesting, not as the number of branch points). Each entry's children are listed (and
 * sorted, at a branch point) only when the entry is emitted, and everything else is O(entries) over
 * typed arrays. At most `maxSymbols` symbols are produced (header and containers count); when the
 * cap is hit the outline is exactly the first `maxSymbols` symbols of the full outline in reading
 * order (depth first, a container before its children; a container is only added with its first
 * entry, so it is never empty, and the outline may stop one symbol short of the cap), and
 * `truncated` is true.
 */

import type { DocumentSymbol } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { subtreeAggregates } from "../core/session/semantics/subtrees";
import { sortSiblings } from "../core/session/semantics/siblings";
import { singleLine } from "../core/base/text";
import { NAME_CODE_POINTS } from "./entryTitle";
import { type KeptAnswers, keptAnswer, LinePatches } from "./keptAnswers";
import { OutlineSymbols } from "./outlineSymbols";

export interface DocumentSymbolsOptions {
  /** The most symbols to return, all levels counted (the server's default is 2,000). */
  maxSymbols: number;
}

export interface DocumentSymbolsResult {
  symbols: DocumentSymbol[];
  /** Whether symbols were left out because of `maxSymbols`. */
  truncated: boolean;
}

/** The cap the server uses unless a setting says otherwise. */
export const DEFAULT_MAX_SYMBOLS = 2000;

/**
 * The outline is kept for the structure (`keptAnswers.ts`): an entry's name and ranges, a branch's
 * name and the end of a range read a line's text, and are computed again after an edit of that line;
 * the header's name (the last session_info entry's) each time.
 */
const keptOutlines: KeptAnswers<KeptOutline> = new WeakMap();

interface KeptOutline {
  result: DocumentSymbolsResult;
  hasHeader: boolean;
  doc: SessionDocument;
  max: number;
}

export function computeDocumentSymbols(doc: SessionDocument, options: DocumentSymbolsOptions): DocumentSymbolsResult {
  const max = Number.isNaN(options.maxSymbols) ? DEFAULT_MAX_SYMBOLS : Math.max(0, Math.floor(options.maxSymbols));
  const kept = keptAnswer(
    keptOutlines,
    doc,
    max,
    (patches) => {
      const builder = new OutlineBuilder(doc, max, patches);
      return { result: builder.build(), hasHeader: builder.hasHeader, doc, max };
    },
    (k) => {
      if (k.hasHeader) k.result.symbols[0] = new OutlineSymbols(k.doc).header()!;
    },
  );
  return { symbols: copyOf(kept.result.symbols), truncated: kept.result.truncated };
}

function copyOf(symbols: readonly DocumentSymbol[]): DocumentSymbol[] {
  return symbols.map((s) => (s.children ? { ...s, children: copyOf(s.children) } : { ...s }));
}

/**
 * A branch point whose side branches are being listed: its sorted children, the next one to look
 * at, the one that continues inline (`inline`, skipped while listing), and the level it is in.
 */
interface Frame {
  kids: Entry[];
  next: number;
  inline: number;
  list: DocumentSymbol[];
}

/** The walk that places the symbols (`outlineSymbols.ts` says what each one says). */
class OutlineBuilder {
  private readonly a: SessionAnalysis;
  private readonly symbols: OutlineSymbols;
  private count = 0;
  private truncated = false;
  /** Per entry: entries in its subtree, and their first and last line (computed on first need). */
  private size: Int32Array | undefined;
  private minLine: Int32Array | undefined;
  private maxLine: Int32Array | undefined;
  /** Whether the outline starts with the header's symbol. */
  hasHeader = false;

  constructor(
    doc: SessionDocument,
    private readonly max: number,
    /** Where each symbol that reads a line's text says how to compute it again. */
    patches = new LinePatches(),
  ) {
    this.a = doc.analysis;
    this.symbols = new OutlineSymbols(doc, patches);
  }

  build(): DocumentSymbolsResult {
    const top: DocumentSymbol[] = [];
    const header = this.symbols.header();
    if (header && this.take(1)) {
      top.push(header);
      this.hasHeader = true;
    }
    this.tree(top);
    this.cycleGroup(top);
    return { symbols: top, truncated: this.truncated };
  }

  /** Reserves `n` symbols; false (and truncated) when the cap does not allow them. */
  private take(n: number): boolean {
    if (this.count + n > this.max) {
      this.truncated = true;
      return false;
    }
    this.count += n;
    return true;
  }

  /**
   * Emits every root's run at the top level, in reading order: at each branch point its side
   * branches (depth first), then the inline branch continues the branch point's run.
   */
  private tree(top: DocumentSymbol[]): void {
    const stack: Frame[] = [];
    for (const root of this.a.roots) {
      if (!this.run(root, top, stack, undefined)) return;
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        if (frame.next === frame.inline) frame.next++;
        if (frame.next >= frame.kids.length) {
          // Side branches done: the inline branch continues the branch point's level. The frame is
          // popped first, so the stack holds only branch points whose side branches are open.
          stack.pop();
          const kid = frame.kids[frame.inline]!;
          if (!this.run(kid, frame.list, stack, `branch ${frame.inline + 1} of ${frame.kids.length}`)) return;
          continue;
        }
        const i = frame.next++;
        const kid = frame.kids[i]!;
        // A container is only added together with its first entry.
        if (this.count + 2 > this.max) {
          this.truncated = true;
          return;
        }
        const container = this.branchSymbol(kid, i, frame.kids.length);
        this.count++;
        frame.list.push(container);
        if (!this.run(kid, container.children!, stack, null)) return;
      }
    }
  }

  /**
   * Emits the run that starts at `entry` into `list`: the entry and its only descendants until a
   * leaf or a branch point, whose sorted children are pushed as a frame. `note` says what the run
   * is: `undefined` for a top-level root (its root notes), `null` for a branch container's run, or
   * the note of an inline branch (`branch 2 of 3`). False when the cap is hit.
   */
  private run(entry: Entry, list: DocumentSymbol[], stack: Frame[], note: string | null | undefined): boolean {
    let e = entry;
    let first = true;
    for (;;) {
      if (!this.take(1)) return false;
      const kids = this.a.childrenOf(e);
      let inline = -1;
      if (kids.length > 1) {
        sortSiblingsInPlace(kids);
        inline = this.inlineBranch(kids);
      }
      let notes = !first ? undefined : note === undefined ? this.rootNotes(e) : note === null ? undefined : [note];
      if (inline >= 0) (notes ??= []).push(this.branchPointNote(kids, inline));
      list.push(this.symbols.entry(e, notes));
      first = false;
      if (kids.length === 1) {
        e = kids[0]!;
        continue;
      }
      if (kids.length > 1) stack.push({ kids, next: 0, inline, list });
      return true;
    }
  }

  /** The branch that continues inline: the one the active path goes through, or else the latest. */
  private inlineBranch(sorted: Entry[]): number {
    const onActivePath = this.a.onActivePath;
    for (let i = 0; i < sorted.length; i++) if (onActivePath[sorted[i]!.index]) return i;
    return sorted.length - 1;
  }

  private branchPointNote(sorted: Entry[], inline: number): string {
    const why = this.a.onActivePath[sorted[inline]!.index] ? "active path" : "latest";
    return `${sorted.length} branches, branch ${inline + 1} (${why}) continues inline`;
  }

  private rootNotes(root: Entry): string[] {
    const notes: string[] = [];
    const parentId = root.parentId;
    if (typeof parentId === "string" && parentId !== "") notes.push(`orphan: parent ${singleLine(parentId, NAME_CODE_POINTS)} not found`);
    if (this.a.activePath.length > 0 && !this.a.onActivePath[root.index]) notes.push("off the active path");
    return notes;
  }

  private branchSymbol(first: Entry, i: number, of: number): DocumentSymbol {
    this.aggregate();
    const k = first.index;
    return this.symbols.branch(first, i, of, this.size![k]!, this.minLine![k]!, this.maxLine![k]!);
  }

  /** The entries no root reaches (in or below a parent cycle), in file order, under one symbol. */
  private cycleGroup(top: DocumentSymbol[]): void {
    if (this.truncated) return;
    const a = this.a;
    const members: Entry[] = [];
    for (const entry of a.entries) if (a.reachesCycle[entry.index]) members.push(entry);
    if (members.length === 0) return;
    if (!this.take(2)) return;
    const children: DocumentSymbol[] = [];
    for (let i = 0; i < members.length; i++) {
      const entry = members[i]!;
      if (i > 0 && !this.take(1)) break;
      children.push(this.symbols.entry(entry, [a.cycleOf[entry.index]! >= 0 ? "in the cycle" : "below the cycle"]));
    }
    top.push(this.symbols.cycleGroup(members, children));
  }

  private aggregate(): void {
    if (this.size) return;
    const agg = subtreeAggregates(this.a);
    this.size = agg.size;
    this.minLine = agg.minLine;
    this.maxLine = agg.maxLine;
  }
}

/** Siblings as Pi's `getTree` orders them (the semantic layer's one sibling order). */
function sortSiblingsInPlace(kids: Entry[]): Entry[] {
  const sorted = sortSiblings(kids);
  for (let i = 0; i < sorted.length; i++) kids[i] = sorted[i]!;
  return kids;
}
