/**
 * The incremental path of the analysis: an edit that changes lines only inside (typing in a
 * message) keeps every cross-line fact, so the previous index is reused instead of rebuilt.
 */

import type { AnalysisInput, SessionAnalysis } from "./analysis";
import type { ParsedLine, ValueLine } from "../line/facts";

/**
 * Whether two parses of a line play the same part in the tree: both not values, or both values
 * with the same type, id key, parent key, falsiness (and nullness) and Pi-likeness. A line edited without changing
 * any of these (typing inside a message, the usual keystroke) leaves every cross-line fact as it was.
 */
export function sameStructure(x: ParsedLine, y: ParsedLine): boolean {
  if (x.kind !== "value" || y.kind !== "value") return x.kind === y.kind;
  return (
    x.type === y.type &&
    x.idKey === y.idKey &&
    x.parentKey === y.parentKey &&
    x.id === y.id &&
    x.parentId === y.parentId &&
    x.falsy === y.falsy &&
    // A null line before the header makes Pi 0.73/0.74 throw where another falsy one makes it overwrite the file.
    (!x.falsy || (x.value === null) === (y.value === null)) &&
    x.looksLikePi === y.looksLikePi &&
    x.time === y.time &&
    x.role === y.role &&
    x.reference === y.reference &&
    x.toolResultId === y.toolResultId &&
    sameIds(x.toolCallIds, y.toolCallIds)
  );
}

function sameIds(x: readonly string[] | undefined, y: readonly string[] | undefined): boolean {
  if (x === y) return true;
  if (!x || !y || x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * The analysis after lines `changed` were edited in place (the line count unchanged), when each kept
 * its structure (`sameStructure`) and none is the header: the previous analysis's index with the
 * edited entries' parses swapped in, in O(changed lines). Undefined when that does not hold; the
 * caller then analyses the whole document again.
 *
 * The result is a new object, so that every query memoised on the previous analysis is computed
 * again for this version. The entry objects are shared and updated in place: the previous analysis
 * is the document's and is discarded with this edit.
 */
export function reanalyze(
  previous: SessionAnalysis,
  input: AnalysisInput,
  changed: readonly number[],
  before: readonly ParsedLine[],
): SessionAnalysis | undefined {
  if (input.isEmpty || previous.headerState === "empty-file") return undefined;
  for (let k = 0; k < changed.length; k++) {
    const line = changed[k]!;
    if (line === previous.headerLine || !sameStructure(before[k]!, input.parsed[line]!)) return undefined;
  }
  for (const line of changed) {
    const entry = previous.entryAtLine[line];
    if (entry) entry.parsed = input.parsed[line] as ValueLine;
  }
  // `structure` is carried over: what the structural queries computed for it still holds.
  // Copied with its accessors, not spread: a spread would read `depth`, which the analysis makes only
  // when it is first read (the tree's order, O(entries)).
  const next: SessionAnalysis = Object.defineProperties({} as SessionAnalysis, Object.getOwnPropertyDescriptors(previous));
  next.endsWithNewline = input.endsWithNewline;
  record(previous, next, changed);
  return next;
}

// ---- What changed since an earlier analysis of the same structure ------------------------------

/**
 * The lines edited between the analyses of one structure, step by step, so that a result kept from
 * an earlier version (the located findings of the line and link checks, the faded runs, the
 * outline) is brought up to date by looking again only at the lines edited since. `base` is the
 * step the kept steps start at: past `MAX_LOGGED_LINES` lines the log restarts, and results older
 * than its start are computed afresh.
 */
interface EditLog {
  base: number;
  steps: (readonly number[])[];
  lines: number;
}

const MAX_LOGGED_LINES = 4096;
const logs = new WeakMap<object, EditLog>();
/** Each analysis's step in its structure's log; the first analysis of a structure is step 0. */
const steps = new WeakMap<SessionAnalysis, number>();

function record(previous: SessionAnalysis, next: SessionAnalysis, changed: readonly number[]): void {
  const step = editStep(previous);
  let log = logs.get(previous.structure);
  if (!log || log.base + log.steps.length !== step || log.lines + changed.length > MAX_LOGGED_LINES) {
    log = { base: step, steps: [], lines: 0 };
    logs.set(previous.structure, log);
  }
  log.steps.push(changed.slice());
  log.lines += changed.length;
  steps.set(next, step + 1);
}

/** Where an analysis is in its structure's edit log: a version kept with a result names its analysis by this. */
export function editStep(a: SessionAnalysis): number {
  return steps.get(a) ?? 0;
}

/**
 * The lines edited in place from the analysis at `step` of `a`'s structure to `a` (each once, in no
 * particular order), or undefined when that is no longer known (the log restarted, or `step` is not
 * an earlier step of this structure): the caller then computes its result afresh.
 */
export function linesEditedSince(a: SessionAnalysis, step: number): number[] | undefined {
  const now = editStep(a);
  if (step === now) return [];
  const log = logs.get(a.structure);
  if (!log || step > now || step < log.base || log.base + log.steps.length < now) return undefined;
  const seen = new Set<number>();
  for (let k = step - log.base; k < now - log.base; k++) for (const line of log.steps[k]!) seen.add(line);
  return [...seen];
}
