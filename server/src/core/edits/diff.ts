/**
 * A line diff between two session texts: Myers' O(ND) diff over lines with their endings, turned
 * into non-overlapping `TextEdit`s on the first text (how Fix all hands a repaired copy to the
 * editor) or into a unified diff (what `check --dry-run` prints).
 *
 * Pure: it reads the two documents' lines and nothing else.
 */

import type { TextEdit } from "vscode-languageserver";
import type { SessionDocument } from "../session/document";

/** The document as lines with their endings; no empty piece after a final newline. */
export function unitsOf(doc: SessionDocument): string[] {
  const units: string[] = [];
  for (let i = 0; i < doc.lineCount; i++) units.push(doc.lines[i]! + doc.eols.at(i)!);
  if (units.length > 0 && units[units.length - 1] === "") units.pop();
  return units;
}

export interface Hunk {
  /** Replaced units: a[aStart, aEnd) becomes b[bStart, bEnd). */
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Edit distance beyond which the differing middle is reported as one hunk. */
const MAX_DIFF_D = 1000;

/** The changed ranges between two line lists (Myers' O(ND) diff after trimming the common ends). */
export function lineDiff(a: readonly string[], b: readonly string[]): Hunk[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const n = a.length - prefix - suffix;
  const m = b.length - prefix - suffix;
  if (n === 0 && m === 0) return [];
  const whole: Hunk[] = [{ aStart: prefix, aEnd: prefix + n, bStart: prefix, bEnd: prefix + m }];
  if (n === 0 || m === 0) return whole;
  const max = Math.min(n + m, MAX_DIFF_D);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[prefix + x] === b[prefix + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return whole;
  // Walk back through the trace, collecting the edit steps, then merge them into hunks.
  const steps: { x: number; y: number; del: boolean }[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (prevK === k + 1)
      steps.push({ x: prevX, y: prevY, del: false }); // insertion of b[prevY]
    else steps.push({ x: prevX, y: prevY, del: true }); // deletion of a[prevX]
    x = prevX;
    y = prevY;
  }
  steps.reverse();
  const hunks: Hunk[] = [];
  for (const step of steps) {
    const aStart = prefix + step.x;
    const bStart = prefix + step.y;
    const h: Hunk = step.del ? { aStart, aEnd: aStart + 1, bStart, bEnd: bStart } : { aStart, aEnd: aStart, bStart, bEnd: bStart + 1 };
    const last = hunks[hunks.length - 1];
    if (last && last.aEnd === h.aStart && last.bEnd === h.bStart) {
      last.aEnd = h.aEnd;
      last.bEnd = h.bEnd;
    } else {
      hunks.push(h);
    }
  }
  return hunks;
}

/** Non-overlapping edits, on `from`'s text, that turn it into `to`. */
export function editsBetween(from: SessionDocument, to: SessionDocument): TextEdit[] {
  const a = unitsOf(from);
  const b = unitsOf(to);
  const last = from.lineCount - 1;
  const end = from.position(last, from.lines[last]!.length);
  const at = (i: number) => (i < a.length ? from.position(i, 0) : end);
  return lineDiff(a, b).map((h) => ({ range: { start: at(h.aStart), end: at(h.aEnd) }, newText: b.slice(h.bStart, h.bEnd).join("") }));
}

/** A unified diff (3 lines of context) between two texts given as units; "" when equal. */
export function unifiedDiff(a: readonly string[], b: readonly string[], oldName: string, newName: string): string {
  const hunks = lineDiff(a, b);
  if (hunks.length === 0) return "";
  const context = 3;
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  const show = (prefix: string, unit: string) => {
    const text = unit.endsWith("\n") ? unit.slice(0, -1) : unit;
    out.push(prefix + text);
    if (!unit.endsWith("\n")) out.push("\\ No newline at end of file");
  };
  let i = 0;
  while (i < hunks.length) {
    // Hunks closer than twice the context are printed together.
    let j = i;
    while (j + 1 < hunks.length && hunks[j + 1]!.aStart - hunks[j]!.aEnd <= 2 * context) j++;
    const aFrom = Math.max(0, hunks[i]!.aStart - context);
    const aTo = Math.min(a.length, hunks[j]!.aEnd + context);
    const bFrom = hunks[i]!.bStart - (hunks[i]!.aStart - aFrom);
    const bTo = hunks[j]!.bEnd + (aTo - hunks[j]!.aEnd);
    const range = (from: number, to: number) => `${to - from === 0 ? from : from + 1},${to - from}`;
    out.push(`@@ -${range(aFrom, aTo)} +${range(bFrom, bTo)} @@`);
    let k = aFrom;
    for (let h = i; h <= j; h++) {
      const hunk = hunks[h]!;
      for (; k < hunk.aStart; k++) show(" ", a[k]!);
      for (let x = hunk.aStart; x < hunk.aEnd; x++) show("-", a[x]!);
      for (let y = hunk.bStart; y < hunk.bEnd; y++) show("+", b[y]!);
      k = hunk.aEnd;
    }
    for (; k < aTo; k++) show(" ", a[k]!);
    i = j + 1;
  }
  return `${out.join("\n")}\n`;
}
