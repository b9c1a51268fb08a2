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

export interface DiagnosticCapOptions {
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
  const counts = new Map<string, { count: number; severity: number }>();
  for (const d of diagnostics) {
    const code = String(d.code);
    const c = counts.get(code);
    if (c) {
      c.count++;
      c.severity = Math.min(c.severity, d.severity ?? 1);
    } else counts.set(code, { count: 1, severity: d.severity ?? 1 });
  }
  const allowed = allowances(counts, perCode, perFile);
  if ([...counts].every(([code, c]) => c.count === allowed.get(code))) return { diagnostics, omitted: new Map() };

  const out: Diagnostic[] = [];
  const seen = new Map<string, number>();
  const omitted = new Map<string, number>();
  for (const d of diagnostics) {
    const code = String(d.code);
    const n = (seen.get(code) ?? 0) + 1;
    seen.set(code, n);
    const shown = allowed.get(code)!;
    const total = counts.get(code)!.count;
    if (n < shown || (n === shown && total === shown)) {
      out.push(d);
    } else if (n === shown) {
      const more = total - shown;
      omitted.set(code, more);
      const text = typeof d.message === "string" ? d.message : d.message.value;
      out.push({ ...d, message: `${text} (… and ${more.toLocaleString("en-US")} more like this in this file, not shown: ${capNote(perCode, perFile)})` });
    }
  }
  return { diagnostics: out, omitted };
}

function capNote(perCode: number, perFile: number): string {
  return `at most ${perCode.toLocaleString("en-US")} per code and ${perFile.toLocaleString("en-US")} per file are reported`;
}

/**
 * How many diagnostics of each code are shown: all of them, `perCode`, or less when the file's total
 * would pass `perFile`. The budget is shared by water-filling: the codes with fewest diagnostics
 * keep all of theirs and leave the rest to the others, the most severe first on a tie. Every code
 * shows at least one.
 */
function allowances(counts: Map<string, { count: number; severity: number }>, perCode: number, perFile: number): Map<string, number> {
  const wanted = [...counts].map(([code, c]) => ({ code, severity: c.severity, want: Math.min(c.count, perCode) }));
  const allowed = new Map<string, number>();
  wanted.sort((x, y) => x.want - y.want || x.severity - y.severity);
  let budget = perFile;
  for (let i = 0; i < wanted.length; i++) {
    const w = wanted[i]!;
    const share = Math.max(1, Math.floor(budget / (wanted.length - i)));
    const take = Math.min(w.want, share);
    budget = Math.max(0, budget - take);
    allowed.set(w.code, take);
  }
  return allowed;
}
