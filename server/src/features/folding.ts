/**
 * Folding ranges of a session: turns, runs of entries off the active path, and the history a
 * compaction summarised. Lines are 0-based; every range folds whole lines (no characters).
 *
 * The rules, exactly:
 *
 * 1. A TURN (no kind) starts on the line of a user message (`message.role === "user"`) and ends on
 *    the line before the next user message in FILE order (or on the last line of the document),
 *    with trailing blank lines left out. Everything in between folds with it, whatever branch it is
 *    on. A turn of a single line is not a range.
 *
 * 2. An OFF-PATH RUN (kind `region`) is a maximal run of two or more consecutive lines that are all
 *    entries off the active path (`analysis.onActivePath` is 0); any other line (an entry on the
 *    path, a blank or malformed line, the header) ends it. When the active path is empty (the leaf
 *    reaches a parent cycle) there is no path to be off, and no such range is made.
 *
 * 3. A COMPACTION RANGE (kind `region`) covers the entries a compaction summarised away. Let `path`
 *    be the compaction's ancestors, root first. What it summarised starts at
 *      - the entry named by the previous compaction's `firstKeptEntryId`, when there is a previous
 *        compaction on `path` and that entry is one of its ancestors (Pi re-summarises from the
 *        previous kept boundary),
 *      - else the entry right after the previous compaction on `path`,
 *      - else the root of `path`;
 *    and it ends just before the entry named by `firstKeptEntryId` when that entry is on `path`,
 *    else (missing, dangling, not an ancestor: Pi keeps nothing) just before the compaction. The
 *    range runs from the first to the last line of those entries; on a file Pi wrote they are
 *    contiguous, so it ends on the line before the first kept entry. Compactions in or below a
 *    parent cycle are skipped, and the walks up the tree share a budget linear in the number of
 *    entries, so pathological files cannot make this quadratic.
 *
 * Nesting: clients drop ranges that cross (VS Code keeps the first of two that do), so the result
 * is made well nested here, by priority: compaction ranges that cross an off-path run are dropped,
 * then compaction ranges that cross an earlier one; turns, last, are shortened so that they cross
 * nothing: a turn ends before a range that starts inside it and does not end inside it, and
 * inside the innermost range it starts in; a turn that covers exactly the lines of a range is left
 * out. Ranges may share a start line (outer one first).
 *
 * The result is sorted by start line (outer ranges first) and holds at most `maxRanges` ranges
 * (default 5,000, VS Code's own limit), chosen by the same priority: compactions, off-path runs,
 * then turns in file order. Everything is O(lines).
 */

import type { FoldingRange } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { boundSteps } from "../core/session/semantics/walk";
import type { SessionDocument } from "../core/session/document";
import { groupDigits } from "../core/base/text";
import { type KeptAnswers, keptAnswer } from "./keptAnswers";

export interface FoldingOptions {
  /** The most ranges to return (default 5,000). */
  maxRanges?: number;
}

export const DEFAULT_MAX_FOLDING_RANGES = 5000;

interface Span {
  start: number;
  end: number;
  /** Compaction and off-path ranges carry a text for clients that show one when folded. */
  collapsedText?: string;
}

export function computeFoldingRanges(doc: SessionDocument, options: FoldingOptions = {}): FoldingRange[] {
  const wanted = options.maxRanges ?? DEFAULT_MAX_FOLDING_RANGES;
  const max = Number.isNaN(wanted) ? DEFAULT_MAX_FOLDING_RANGES : Math.max(0, Math.floor(wanted));
  if (max === 0) return [];
  // The ranges read no line's text, so they are kept for the structure as they are; a copy is handed out.
  return keptAnswer(keptRanges, doc, max, () => foldingRanges(doc, max)).map((r) => ({ ...r }));
}

const keptRanges: KeptAnswers<FoldingRange[]> = new WeakMap();

function foldingRanges(doc: SessionDocument, max: number): FoldingRange[] {
  const { compactions, offRuns, turns } = spansOf(doc, doc.analysis);

  const out: FoldingRange[] = [];
  const add = (span: Span, kind: "region" | undefined): void => {
    if (out.length >= max) return;
    // Folding ranges name the client's lines, which a lone "\r" inside a Pi line can shift.
    const range: FoldingRange = { startLine: doc.lspLine(span.start), endLine: doc.lspEndLine(span.end) };
    if (kind) range.kind = kind;
    if (span.collapsedText) range.collapsedText = span.collapsedText;
    out.push(range);
  };
  for (const span of compactions) add(span, "region");
  for (const span of offRuns) add(span, "region");
  for (const span of turns) add(span, undefined);
  return out.sort((x, y) => x.startLine - y.startLine || y.endLine - x.endLine);
}

interface Spans {
  compactions: Span[];
  offRuns: Span[];
  turns: Span[];
}

/**
 * The spans to fold, a matter of the tree, the roles and which lines are blank: kept for the
 * analysis's structure, so that typing inside a line folds at once.
 */
const spansByStructure = new WeakMap<object, Spans>();

function spansOf(doc: SessionDocument, a: SessionAnalysis): Spans {
  let spans = spansByStructure.get(a.structure);
  if (!spans) {
    const offRuns = offPathRuns(doc, a);
    const compactions = nestCompactions(compactionSpans(a), offRuns);
    // The ranges turns must not cross: laminar, sorted by start, outer first.
    const regions = [...compactions, ...offRuns].sort(byStartOuterFirst);
    spans = { compactions, offRuns, turns: clipTurns(turnSpans(doc, a), regions) };
    spansByStructure.set(a.structure, spans);
  }
  return spans;
}

function byStartOuterFirst(x: Span, y: Span): number {
  return x.start - y.start || y.end - x.end;
}

// ---- 1. Turns --------------------------------------------------------------------------------

function isUserMessage(entry: Entry): boolean {
  if (entry.type !== "message") return false;
  const p = entry.parsed;
  // Assistant messages with tool calls and tool results are known from the parse without looking
  // into the message (a third of a session's lines, and memory not touched since it was parsed).
  return p.role === "user";
}

function turnSpans(doc: SessionDocument, a: SessionAnalysis): Span[] {
  const starts: number[] = [];
  for (const entry of a.entries) if (isUserMessage(entry)) starts.push(entry.line);
  const spans: Span[] = [];
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    let end = (k + 1 < starts.length ? starts[k + 1]! : doc.lineCount) - 1;
    while (end > start && doc.parsed[end]!.kind === "blank") end--;
    if (end > start) spans.push({ start, end });
  }
  return spans;
}

/**
 * Shortens each turn so that it crosses none of `regions` (laminar, sorted by start, outer first):
 * a turn ends inside the innermost region it starts in, and before any region that starts inside
 * it and ends after it. Turns are disjoint and sorted, so one sweep does it.
 */
function clipTurns(turns: Span[], regions: readonly Span[]): Span[] {
  const out: Span[] = [];
  const open: Span[] = []; // regions containing the current turn's start, outermost first
  let next = 0; // first region not yet opened
  for (const turn of turns) {
    const s = turn.start;
    let e = turn.end;
    while (next < regions.length && regions[next]!.start <= s) {
      const r = regions[next++]!;
      while (open.length > 0 && open[open.length - 1]!.end < r.start) open.pop();
      open.push(r);
    }
    while (open.length > 0 && open[open.length - 1]!.end < s) open.pop();
    // The innermost region that starts before the turn: the turn must end inside it.
    for (let k = open.length - 1; k >= 0; k--) {
      const r = open[k]!;
      if (r.start < s) {
        if (r.end < e) e = r.end;
        break;
      }
    }
    // Regions starting inside the turn: each must end inside it, or the turn ends before it.
    for (let j = next; j < regions.length && regions[j]!.start <= e; j++) {
      const r = regions[j]!;
      if (r.end > e) {
        e = r.start - 1;
        break;
      }
    }
    if (e <= s) continue;
    // A turn that covers exactly the lines of a region adds nothing to it.
    let same = false;
    for (let k = open.length - 1; k >= 0 && open[k]!.start === s; k--) if (open[k]!.end === e) same = true;
    if (!same) out.push({ start: s, end: e });
  }
  return out;
}

// ---- 2. Off-path runs ------------------------------------------------------------------------

function offPathRuns(doc: SessionDocument, a: SessionAnalysis): Span[] {
  const runs: Span[] = [];
  if (a.activePath.length === 0) return runs;
  let start = -1;
  let entries = 0;
  const close = (end: number): void => {
    if (start >= 0 && end > start) runs.push({ start, end, collapsedText: `${groupDigits(entries)} entries off the active path` });
    start = -1;
    entries = 0;
  };
  for (let line = 0; line < doc.lineCount; line++) {
    const entry = a.entryAtLine[line];
    if (entry && !a.onActivePath[entry.index]) {
      if (start < 0) start = line;
      entries++;
    } else {
      close(line - 1);
    }
  }
  close(doc.lineCount - 1);
  return runs;
}

// ---- 3. Compactions --------------------------------------------------------------------------

function compactionSpans(a: SessionAnalysis): Span[] {
  const spans: Span[] = [];
  // Every walk below follows parent links of acyclic entries; together they may take this many steps.
  let budget = 4 * a.entries.length + 1024;
  for (const c of a.entries) {
    if (c.type !== "compaction" || a.reachesCycle[c.index]) continue;
    // The previous compaction on the path, and the entry after it (or the root).
    let previous: Entry | undefined;
    let afterPrevious: Entry = c;
    let steps = 0;
    for (let x = a.parent[c.index]; x; x = a.parent[x.index]) {
      boundSteps(a, ++steps);
      if (--budget < 0) return spans;
      if (x.type === "compaction") {
        previous = x;
        break;
      }
      afterPrevious = x;
    }
    let first: Entry = afterPrevious;
    if (previous) {
      const kept = keptEntry(a, previous);
      if (kept) first = kept;
    }
    const kept = keptEntry(a, c);
    const last = a.parent[(kept ?? c).index];
    if (!last || first === c || (last !== first && !a.isAncestor(first, last))) continue;
    // Walk from the last summarised entry up to the first, for the line span.
    let min = last.line;
    let maxLine = last.line;
    let count = 0;
    for (let x: Entry | undefined = last; x; x = x === first ? undefined : a.parent[x.index]) {
      boundSteps(a, count);
      if (--budget < 0) return spans;
      count++;
      if (x.line < min) min = x.line;
      if (x.line > maxLine) maxLine = x.line;
    }
    if (maxLine > min)
      spans.push({
        start: min,
        end: maxLine,
        collapsedText: `${groupDigits(count)} ${count === 1 ? "entry" : "entries"} summarised by the compaction on line ${c.line + 1}`,
      });
  }
  return spans;
}

/** The entry a compaction's `firstKeptEntryId` names, when it is one of the compaction's ancestors. */
function keptEntry(a: SessionAnalysis, compaction: Entry): Entry | undefined {
  const id = compaction.parsed.object?.firstKeptEntryId;
  if (typeof id !== "string") return undefined;
  const kept = a.byId.get(id);
  return kept && a.isAncestor(kept, compaction) ? kept : undefined;
}

/**
 * Keeps the compaction ranges that cross (or repeat) no off-path run (disjoint, sorted) and no
 * compaction range kept before them (in start order, outer first).
 */
function nestCompactions(spans: Span[], runs: readonly Span[]): Span[] {
  const crossesRun = (c: Span): boolean => {
    // The run containing c.start, and the one containing c.end, if any.
    for (const point of [c.start, c.end]) {
      const r = runs[lastStartingAtOrBefore(runs, point)];
      if (!r || r.end < point) continue;
      if ((r.start < c.start && c.start <= r.end && r.end < c.end) || (c.start < r.start && r.start <= c.end && c.end < r.end)) return true;
      if (r.start === c.start && r.end === c.end) return true; // the same lines twice
    }
    return false;
  };
  const sorted = spans.filter((c) => !crossesRun(c)).sort(byStartOuterFirst);
  const out: Span[] = [];
  const open: Span[] = [];
  for (const c of sorted) {
    while (open.length > 0 && open[open.length - 1]!.end < c.start) open.pop();
    const top = open[open.length - 1];
    if (top && c.end > top.end) continue; // crosses it
    if (top && top.start === c.start && top.end === c.end) continue; // the same lines twice
    open.push(c);
    out.push(c);
  }
  return out;
}

/** Index of the last span whose start is at or before `line` (spans sorted by start), or -1. */
function lastStartingAtOrBefore(spans: readonly Span[], line: number): number {
  let lo = 0;
  let hi = spans.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid]!.start <= line) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
