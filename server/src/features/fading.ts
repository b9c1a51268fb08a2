/**
 * Fading: entries that are not in the context Pi builds when it resumes the session get a hint
 * diagnostic with the `Unnecessary` tag, which editors draw faded (VS Code greys the text out,
 * Neovim links it to `DiagnosticUnnecessary`).
 *
 * What fades, and why the message says so (the selection is `contextSelection`, Pi 1.x's
 * `buildContextEntries` from the last entry of the file):
 * - an entry off the active path: "on another branch (the active path ends on line N)"; an entry
 *   hidden by a later duplicate of its id, or cut off by a parent cycle, says that instead;
 * - an entry on the path before the kept range of the last compaction: "summarised by the
 *   compaction on line N";
 * - a system message in that kept range: "a system message Pi 1.x drops before the compaction on
 *   line N" (Pi 0.73/0.74 keeps it);
 * - a selected entry that the last selected `context_edit` naming it removes (`replacement: null`,
 *   Pi 1.x): "removed by the context_edit on line N".
 * Entries Pi selects but that add no message (labels, settings, custom entries) are in the context
 * and do not fade; neither do lines that are not entries (the header, blank or malformed lines),
 * which the diagnostics describe already.
 *
 * Nothing fades when there is no context to compare with: no entries, a header Pi refuses (missing
 * or invalid), a v1 file (Pi re-chains every entry when it migrates it), or a leaf whose path runs
 * into a parent cycle (the active path is undefined; the `parent-cycle` error says why).
 *
 * One diagnostic per run of faded entries: consecutive lines, each an entry faded for the same
 * reason, from the start of the first line to the end of the last (the "\r" of a CRLF ending
 * excluded), in file order; a run of more than one entry says which lines and how many. A side
 * branch or a compacted prefix is one run however long: a diagnostic per entry was 5,000 hints and
 * 1.2 MB of JSON on every push for a 50 MB session, and as many warnings in clients that cannot fade
 * (ALE). At most `maxFaded` (default 5,000) runs are produced; when more entries are out of the
 * context, one more diagnostic, on the first line left out, says how many were not marked. Cost:
 * O(entries) over the memoised context selection, nothing per line beyond a typed-array read for
 * entries in the context.
 *
 * The server turns this off with the setting `piSession.fadeInactive` (default true); this
 * function only computes.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { contextSelection, ContextState, sameSelectionFacts } from "../core/pi/activeContext";
import type { SessionDocument } from "../core/session/document";
import { editStep, linesEditedSince } from "../core/session/reanalyze";
import { entriesWhere, sameShape } from "../core/session/resplice";
import { perStructure } from "../core/session/semantics/memo";
import { versionRules } from "../core/session/semantics/version";
import { groupDigits } from "../core/base/text";
import type { PresentationCode } from "../core/base/codes";
import { diagnostic } from "./diagnostics/report";

/** The diagnostic code of a faded entry (a presentation hint, not a fault: `PRESENTATION_CODES` in `codes.ts`). */
export const NOT_IN_CONTEXT: PresentationCode = "not-in-context";

/** `DiagnosticTag.Unnecessary` (the LSP value; the enum is a type-only import here). */
const UNNECESSARY = 1;

export const DEFAULT_MAX_FADED = 5000;

export interface FadingOptions {
  /** The most runs of faded lines to report (default 5,000); one more diagnostic says how many entries were left out. */
  maxFaded?: number;
}

const PREFIX = "Not in the context Pi builds when it resumes: ";

export function computeFadingHints(doc: SessionDocument, options: FadingOptions = {}): Diagnostic[] {
  const wanted = options.maxFaded ?? DEFAULT_MAX_FADED;
  const max = Number.isNaN(wanted) ? DEFAULT_MAX_FADED : Math.max(0, Math.floor(wanted));
  const a = doc.analysis;
  if (!resumesAsIs(a)) return [];
  // Without a context edit on the path the faded lines are a matter of the tree alone, and typing
  // inside a line leaves them as they were: they are kept for the structure, with their hints.
  if (hasSelectedEdit(a)) return fadedLines(a, max).map((f) => fade(doc, f));
  return hintsOfStructure(doc, a, max);
}

/**
 * Whether a `context_edit` is among the selected entries (its replacement is content, not structure).
 * Not carried over an edit, unlike the selection it reads: asking for the selection here makes it
 * for every structure, and the next edit of the tree carries only a selection made for the
 * structure it replaces.
 */
const hasSelectedEdit = perStructure((a: SessionAnalysis): boolean => {
  const state = contextSelection(a).state;
  // Only entries of the active path are selected: the session's context edits, a list carried over
  // each edit of the tree, are asked instead of every entry of the path (24,736 on the 45 MB
  // session's, 3–7 ms at the first edit after an idle pause).
  return contextEdits(a).some((entry) => state[entry.index] === ContextState.Selected);
});

/** The `context_edit` entries, per structure. */
const contextEdits = entriesWhere((e) => e.type === "context_edit");

/** Consecutive lines faded for one reason (a run of one line is `first === last`). */
interface FadedLine {
  first: number;
  last: number;
  message: string;
}

/** The faded runs of a structure and their hints, per cap, at the edit step the hints were located at. */
interface KeptHints {
  lines: FadedLine[];
  step: number;
  hints: Diagnostic[];
}

/** Per structure, by cap. */
const hintsMemo = new WeakMap<object, Map<number, KeptHints>>();

/**
 * The hints of a structure's faded runs. A hint's range runs from the start of its first line to the
 * end of its last, so after edits inside lines only the runs that end on an edited line are located
 * again; the others keep their hint objects. A lone "\r" can move every later line for the client:
 * then every hint is located again.
 */
function hintsOfStructure(doc: SessionDocument, a: SessionAnalysis, max: number): Diagnostic[] {
  let byCap = hintsMemo.get(a.structure);
  if (!byCap) hintsMemo.set(a.structure, (byCap = new Map()));
  const step = editStep(a);
  const reusable = doc.lspLineCount === doc.lineCount;
  let kept = byCap.get(max);
  if (!kept && reusable) {
    kept = carriedHints(doc, a, max);
    if (kept) byCap.set(max, kept);
  }
  if (!kept) {
    const lines = fadedLines(a, max);
    kept = { lines, step, hints: lines.map((f) => fade(doc, f)) };
    if (reusable) byCap.set(max, kept);
    return kept.hints;
  }
  if (kept.step === step && reusable) return kept.hints;
  const edited = reusable ? linesEditedSince(a, kept.step) : undefined;
  let hints: Diagnostic[];
  if (!edited) hints = kept.lines.map((f) => fade(doc, f));
  else {
    hints = kept.hints;
    for (const line of edited) {
      const k = runEndingOn(kept.lines, line);
      if (k < 0) continue;
      if (hints === kept.hints) hints = hints.slice();
      hints[k] = fade(doc, kept.lines[k]!);
    }
  }
  if (reusable) byCap.set(max, { lines: kept.lines, step, hints });
  return hints;
}

/**
 * The hints of the structure `a` replaced, when the edit left the tree as it was, index for index,
 * and changed neither role nor named id (`contextSelection`'s carry): the faded runs read nothing
 * else of an entry (the reasons name the leaf's and the compaction's lines, which stay, and ids
 * held twice, which `resplice.ts` declines), so they are the same, and only a run that ends on an
 * edited line is located again. They are kept as at the structure's first step, so that the lines
 * edited in place since are located again too.
 */
function carriedHints(doc: SessionDocument, a: SessionAnalysis, max: number): KeptHints | undefined {
  const resplice = sameShape(a, sameSelectionFacts);
  const before = resplice && hintsMemo.get(resplice.previousStructure)?.get(max);
  if (!resplice || !before || before.step !== resplice.previousStep) return undefined;
  let hints = before.hints;
  for (let line = resplice.splice.start; line < resplice.splice.end; line++) {
    const k = runEndingOn(before.lines, line);
    if (k < 0) continue;
    if (hints === before.hints) hints = hints.slice();
    hints[k] = fade(doc, before.lines[k]!);
  }
  return { lines: before.lines, step: 0, hints };
}

/** The index of the run whose last line is `line` (runs are disjoint and in file order), or -1. */
function runEndingOn(runs: readonly FadedLine[], line: number): number {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const run = runs[mid]!;
    if (run.last < line) lo = mid + 1;
    else if (run.first > line) hi = mid - 1;
    else return run.last === line ? mid : -1;
  }
  return -1;
}

function fadedLines(a: SessionAnalysis, max: number): FadedLine[] {
  const selection = contextSelection(a);
  const { state } = selection;
  const removed = removedByEdits(a, state);
  const compactionLine = selection.compaction ? selection.compaction.line + 1 : 0;
  const leafLine = a.leaf!.line + 1;

  // Reasons are made once each, not once an entry: a run grows while the next entry's reason is the
  // same string, which compares at once when it is the same object (40,000 entries off the path
  // made as many strings, and compared them character by character).
  const reasons = {
    compacted: `summarised by the compaction on line ${compactionLine}`,
    droppedSystem: `a system message Pi 1.x drops before the compaction on line ${compactionLine} (Pi 0.73/0.74 keeps it)`,
    otherBranch: `on another branch (the active path ends on line ${leafLine})`,
  };
  const runs: { first: number; last: number; why: string }[] = [];
  let left = 0;
  let firstLeft: Entry | undefined;
  for (const entry of a.entries) {
    const s = state[entry.index]!;
    const edit = s === ContextState.Selected ? removed?.get(entry) : undefined;
    if (s === ContextState.Selected && edit === undefined) continue;
    if (firstLeft) {
      left++;
      continue;
    }
    let why: string;
    if (edit !== undefined) why = `removed by the context_edit on line ${edit.line + 1} (Pi 1.x)`;
    else if (s === ContextState.Compacted) why = reasons.compacted;
    else if (s === ContextState.DroppedSystem) why = reasons.droppedSystem;
    else why = offPathReason(a, entry, reasons.otherBranch);
    const run = runs[runs.length - 1];
    if (run && run.last === entry.line - 1 && run.why === why) run.last = entry.line;
    else if (runs.length < max) runs.push({ first: entry.line, last: entry.line, why });
    else {
      firstLeft = entry;
      left = 1;
    }
  }
  const out: FadedLine[] = runs.map(({ first, last, why }) => ({
    first,
    last,
    message: first === last ? PREFIX + why : `${PREFIX}${why}; lines ${first + 1}–${last + 1} (${groupDigits(last - first + 1)} entries)`,
  }));
  if (firstLeft) {
    out.push({
      first: firstLeft.line,
      last: firstLeft.line,
      message: `${groupDigits(left)} more ${left === 1 ? "entry is" : "entries are"} not in the context Pi builds when it resumes, from this line on; only the first ${groupDigits(max)} runs of faded lines are marked.`,
    });
  }
  return out;
}

/**
 * Whether Pi resumes the file as it stands, into a context the entries can be compared with: it has
 * entries, a header Pi accepts, a version Pi does not re-chain (v2 or later), and a leaf whose path
 * meets no parent cycle.
 */
export function resumesAsIs(a: SessionAnalysis): boolean {
  if (!a.leaf || a.activePath.length === 0) return false;
  if (a.headerState !== "ok" || !a.looksLikeSession) return false;
  return !versionRules(a).v1 && !versionRules(a).throws;
}

function offPathReason(a: SessionAnalysis, entry: Entry, otherBranch: string): string {
  // Another entry holds the id in Pi's index only when the id is held twice: without duplicates
  // (the usual file) the 25,000 lookups of a side branch are spared.
  if (entry.id !== undefined && a.duplicates.size > 0) {
    const holder = a.byId.get(entry.id);
    if (holder !== undefined && holder !== entry)
      return `a later entry with the same id (line ${holder.line + 1}) takes its place in Pi's index, which cuts it off from the tree`;
  }
  if (a.reachesCycle[entry.index]) return "in or below a parent cycle, which the active path does not reach";
  return otherBranch;
}

/**
 * The selected entries whose messages Pi 1.x removes: for each target id, the last selected
 * `context_edit` naming it decides, and a `null` replacement removes every selected entry with that
 * id. O(path); undefined when the path has no edit (the common case).
 */
function removedByEdits(a: SessionAnalysis, state: Uint8Array): Map<Entry, Entry> | undefined {
  let edits: Map<unknown, Entry> | undefined;
  for (const entry of a.activePath) {
    if (entry.type !== "context_edit" || state[entry.index] !== ContextState.Selected) continue;
    (edits ??= new Map()).set(entry.parsed.object?.targetId, entry);
  }
  if (!edits) return undefined;
  let removed: Map<Entry, Entry> | undefined;
  for (const entry of a.activePath) {
    if (state[entry.index] !== ContextState.Selected) continue;
    const id = entry.parsed.object?.id;
    if (id === undefined) continue;
    const edit = edits.get(id);
    if (edit !== undefined && edit.parsed.object?.replacement === null) (removed ??= new Map()).set(entry, edit);
  }
  return removed;
}

function fade(doc: SessionDocument, { first, last, message }: FadedLine): Diagnostic {
  const range = first === last ? doc.lineRange(first) : { start: doc.lineRange(first).start, end: doc.lineRange(last).end };
  return diagnostic(NOT_IN_CONTEXT, message, range, { tags: [UNNECESSARY] });
}
