/**
 * Checks that find their faults line by line, run incrementally: the findings of the last run are
 * kept per line for the analysis's structure, and after edits inside lines (the usual keystroke,
 * `core/session/reanalyze.ts`) only the lines edited since, and the lines whose findings read them, are
 * checked again; every other line's findings are replayed as they were recorded, ranges and all.
 * A check's findings of a line may depend only on that line's text, on structural facts, and on the
 * lines it names as dependencies: that is what makes a replayed finding equal to a fresh one.
 */

import { editStep, linesEditedSince } from "../../core/session/reanalyze";
import { type Resplice, respliceOf } from "../../core/session/resplice";
import type { Report } from "./report";

/** One `Report.add` call, recorded so that a line whose findings did not change can replay it. */
export type Add = Parameters<Report["add"]>;

/** What a check of one line is given: `add` records a finding, `depend` names another line the findings read. */
export type LineCheck = (line: number, add: (...args: Add) => void, depend: (line: number) => void) => void;

/** The findings of one run, for the structure's analysis at edit step `step`: the lines that had any, ascending. */
export interface LineFindings<K = undefined> {
  step: number;
  /** What else the findings were computed from; a run whose key differs (`sameKey`) checks every line. */
  key: K;
  lines: number[];
  adds: Add[][];
  deps: (number[] | undefined)[];
}

export interface ByLineCheck<K> {
  memos: WeakMap<object, LineFindings<K>>;
  key: K;
  sameKey: (x: K, y: K) => boolean;
  /** Every line a full run checks, ascending; a count `n` stands for lines 0 to n − 1 (no list of 50,000 numbers made). */
  lines: () => Iterable<number> | number;
  /** The lines to check again after `edited` were edited (at least those of them a full run checks), ascending and without repeats. */
  again: (edited: readonly number[]) => number[];
  check: LineCheck;
  /**
   * After a structural edit that made the analysis from the previous one (`resplice.ts`), every line
   * whose findings may differ from none: given the lines that had findings in the last run of the
   * replaced structure (at their new places), the lines to check; every other line has none. The
   * lines edited are checked besides. Without it, a new structure checks every line.
   */
  carry?: (resplice: Resplice, hadFindings: readonly number[]) => Iterable<number>;
}

/** Runs `c` over `r`'s document, from the kept findings where they still hold, and keeps the new ones. */
export function checkByLine<K>(r: Report, c: ByLineCheck<K>): void {
  const { doc, a } = r;
  // A lone "\r" makes a Pi line several lines for the client, so an edit can move every later
  // line's positions: nothing is kept or replayed then.
  const reusable = doc.lspLineCount === doc.lineCount;
  const memo = reusable ? c.memos.get(a.structure) : undefined;
  const edited = memo && c.sameKey(memo.key, c.key) ? linesEditedSince(a, memo.step) : undefined;
  const carried = memo ? undefined : reusable ? carriedLines(c, a) : undefined;
  const next: LineFindings<K> = { step: editStep(a), key: c.key, lines: [], adds: [], deps: [] };
  // One recorder for every line, its lists made only for a line with findings: a full run checks
  // 50,000 lines, nearly all without any, and three new objects a line were most of its garbage.
  let recorded: Add[] | undefined;
  let deps: number[] | undefined;
  const add = (...args: Add): void => {
    (recorded ??= []).push(args);
  };
  const depend = (other: number): void => {
    (deps ??= []).push(other);
  };
  const run = (line: number): void => {
    recorded = undefined;
    deps = undefined;
    c.check(line, add, depend);
    if (recorded) keep(line, recorded, deps);
  };
  const keep = (line: number, adds: Add[], deps: number[] | undefined): void => {
    next.lines.push(line);
    next.adds.push(adds);
    next.deps.push(deps);
    for (const args of adds) r.add(...args);
  };
  if (memo && edited) {
    const editedSet = new Set(edited);
    const again = mergeLines(c.again(edited), dependents(memo, editedSet));
    let i = 0;
    let j = 0;
    while (i < memo.lines.length || j < again.length) {
      const kept = i < memo.lines.length ? memo.lines[i]! : Number.POSITIVE_INFINITY;
      const redo = j < again.length ? again[j]! : Number.POSITIVE_INFINITY;
      if (redo <= kept) {
        run(redo);
        j++;
        if (redo === kept) i++;
      } else {
        keep(kept, memo.adds[i]!, memo.deps[i]);
        i++;
      }
    }
  } else if (carried) {
    for (const line of carried) run(line);
  } else {
    const lines = c.lines();
    if (typeof lines === "number") for (let line = 0; line < lines; line++) run(line);
    else for (const line of lines) run(line);
  }
  if (reusable) c.memos.set(a.structure, next);
}

/**
 * The lines to check on a new structure made from the previous one (`ByLineCheck.carry`), ascending,
 * or undefined when every line is checked: the replaced structure's findings must have been made at
 * its last step, over the whole document (not only the lines a full run checks at first).
 */
function carriedLines<K>(c: ByLineCheck<K>, a: Parameters<typeof respliceOf>[0]): number[] | undefined {
  const resplice = c.carry && respliceOf(a);
  const last = resplice && c.memos.get(resplice.previousStructure);
  if (!resplice || !last || last.step !== resplice.previousStep) return undefined;
  const { start, end, delta } = resplice.splice;
  const oldEnd = end - delta;
  const had: number[] = [];
  for (const line of last.lines) if (line < start || line >= oldEnd) had.push(line < start ? line : line + delta);
  const lines = [...c.carry!(resplice, had)];
  for (let line = start; line < end; line++) lines.push(line);
  return ascending(lines);
}

/** The kept lines whose findings read an edited line. */
function dependents(memo: LineFindings<unknown>, edited: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (let k = 0; k < memo.lines.length; k++) {
    const deps = memo.deps[k];
    if (deps?.some((line) => edited.has(line))) out.push(memo.lines[k]!);
  }
  return out;
}

/** Two ascending lists of lines as one, without repeats. */
export function mergeLines(x: readonly number[], y: readonly number[]): number[] {
  if (y.length === 0) return x as number[];
  return [...new Set([...x, ...y])].sort((p, q) => p - q);
}

/** Sorted, without repeats. */
export function ascending(lines: Iterable<number>): number[] {
  return [...new Set(lines)].sort((p, q) => p - q);
}
