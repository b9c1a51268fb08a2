/**
 * What a provisional list (`provisionalRequestDiagnostics`) may keep of the provider request's
 * findings of the last complete list: the same findings, each on lines whose text is what it was
 * when the finding was made (moved with them when lines were added or removed), naming only lines
 * whose text is what it was at that number.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionDocument } from "../../server/src/core/session/document";

/** The findings of a complete list, by what they say and where on their lines, with the texts of those lines then. */
export interface MadeFindings {
  byKey: Map<string, string[][]>;
  /** The document's lines then. */
  lines: readonly string[];
}

/** What a finding says and where on its lines: the same after its lines moved. */
function findingKey(d: Diagnostic): string {
  const related = (d.relatedInformation ?? []).map((r) => [r.message, r.location.range.start.character, r.location.range.end.character]);
  return JSON.stringify([d.code, d.message, d.range.start.character, d.range.end.character, related]);
}

/** The texts of the lines a finding sits on and points at. */
function linesOf(doc: SessionDocument, d: Diagnostic): string[] {
  return [doc.lines[d.range.start.line] ?? "?", ...(d.relatedInformation ?? []).map((r) => doc.lines[r.location.range.start.line] ?? "?")];
}

/** Records the findings of `doc`'s complete list now. */
export function recordFindings(doc: SessionDocument, findings: readonly Diagnostic[]): MadeFindings {
  const byKey = new Map<string, string[][]>();
  for (const d of findings) {
    const made = byKey.get(findingKey(d)) ?? [];
    made.push(linesOf(doc, d));
    byKey.set(findingKey(d), made);
  }
  return { byKey, lines: [...doc.lines] };
}

/** What is wrong with each of `kept`, findings a provisional list keeps of `made` for `doc` now: none when it may keep them. */
export function keptFindingFaults(doc: SessionDocument, made: MadeFindings, kept: readonly Diagnostic[]): string[] {
  const faults: string[] = [];
  for (const d of kept) {
    const was = made.byKey.get(findingKey(d));
    if (!was) {
      faults.push(`${d.code} not from the last complete list`);
      continue;
    }
    const now = linesOf(doc, d);
    if (!was.some((then) => then.every((t, i) => t === now[i]))) faults.push(`${d.code} line ${d.range.start.line} text changed`);
    for (const [, n] of String(d.message).matchAll(/\bline (\d+)/g))
      if (doc.lines[Number(n) - 1] !== made.lines[Number(n) - 1]) faults.push(`${d.code} names line ${n}, changed`);
  }
  return faults;
}
