/**
 * The cap on diagnostics per file, shared by the server and `check` so that both report the same
 * list: a file of 3,000,000 broken lines would otherwise give 3,000,000 diagnostics (hundreds of
 * megabytes per pull, and more text than a terminal or an editor can show).
 *
 * At most `perCode` diagnostics of each code are shown, and at most `perFile` in all. Where a code
 * has more, the last one shown gets "… and N more like this" added to its own message (so it stays
 * true of its line, and says how many follow), so no code ever disappears from a file and the exit
 * status of `check` is that of the whole list. When the codes together pass `perFile`, they share
 * it: codes with few diagnostics keep all of theirs, the rest is split evenly, and each code keeps
 * at least one.
 *
 * Pure: it post-processes `computeDiagnostics`' list and keeps its order.
 */

import type { Diagnostic } from "vscode-languageserver";
import { groupDigits } from "../core/base/text";

export interface DiagnosticCapOptions {
  /** Per code, diagnostics found but not built (`collectDiagnostics`), counted as if they followed the list. */
  overflow?: ReadonlyMap<string, number>;
  /** Diagnostics kept per code; default `MAX_PER_CODE`. */
  perCode?: number;
  /** Diagnostics kept per file; default `MAX_PER_FILE`. */
  perFile?: number;
}

export const MAX_PER_CODE = 200;
export const MAX_PER_FILE = 1000;

export interface CappedDiagnostics {
  diagnostics: Diagnostic[];
  /** Per code, how many diagnostics were dropped (codes that lost none are absent). */
  omitted: Map<string, number>;
}

/** The capped list; the input is returned as it is when it is within the caps. */
export function capDiagnostics(diagnostics: Diagnostic[], options: DiagnosticCapOptions = {}): CappedDiagnostics {
  const perCode = Math.max(1, options.perCode ?? MAX_PER_CODE);
  const perFile = Math.max(1, options.perFile ?? MAX_PER_FILE);
  const counts = new Map<string, CodeCount>();
  // Diagnostics of one code come in runs (one per line of a broken file): the last code's entry
  // is kept at hand, which makes counting millions cheap.
  let lastCode: unknown;
  let last: CodeCount | undefined;
  const countOf = (d: Diagnostic): CodeCount => {
    if (d.code === lastCode && last) return last;
    lastCode = d.code;
    const code = String(d.code);
    last = counts.get(code);
    if (!last) counts.set(code, (last = { code, count: 0, severity: d.severity ?? 1, shown: 0, seen: 0 }));
    return last;
  };
  for (const d of diagnostics) {
    const c = countOf(d);
    c.count++;
    c.severity = Math.min(c.severity, d.severity ?? 1);
  }
  // A code's unbuilt diagnostics come after its built ones, past any allowance (`perCode` at most).
  for (const [code, n] of options.overflow ?? []) {
    const c = counts.get(code);
    if (c) c.count += n;
  }
  setAllowances([...counts.values()], perCode, perFile);
  if ([...counts.values()].every((c) => c.count === c.shown)) return { diagnostics, omitted: new Map() };

  const out: Diagnostic[] = [];
  const omitted = new Map<string, number>();
  for (const d of diagnostics) {
    const c = countOf(d);
    const n = ++c.seen;
    if (n < c.shown || (n === c.shown && c.count === c.shown)) {
      out.push(d);
    } else if (n === c.shown) {
      const more = c.count - c.shown;
      omitted.set(c.code, more);
      const text = typeof d.message === "string" ? d.message : d.message.value;
      out.push({ ...d, message: `${text} (… and ${groupDigits(more)} more like this in this file, not shown: ${capNote(perCode, perFile)})` });
    }
  }
  return { diagnostics: out, omitted };
}

interface CodeCount {
  code: string;
  count: number;
  /** The most severe severity among the code's diagnostics (1 is an error). */
  severity: number;
  /** How many are shown, the last of them with "N more like this" when `shown < count`. */
  shown: number;
  seen: number;
}

function capNote(perCode: number, perFile: number): string {
  return `at most ${groupDigits(perCode)} per code and ${groupDigits(perFile)} per file are reported`;
}

/**
 * How many diagnostics of each code are shown: all of them, `perCode`, or less when the file's total
 * would pass `perFile`. The budget is shared by water-filling: the codes with fewest diagnostics
 * keep all of theirs and leave the rest to the others, the most severe first on a tie. Every code
 * shows at least one.
 */
function setAllowances(codes: CodeCount[], perCode: number, perFile: number): void {
  const wanted = codes.map((c) => ({ c, want: Math.min(c.count, perCode) }));
  wanted.sort((x, y) => x.want - y.want || x.c.severity - y.c.severity);
  let budget = perFile;
  for (let i = 0; i < wanted.length; i++) {
    const { c, want } = wanted[i]!;
    const share = Math.max(1, Math.floor(budget / (wanted.length - i)));
    c.shown = Math.min(want, share);
    budget = Math.max(0, budget - c.shown);
  }
}
