/**
 * The provider request's findings kept through the idle release, as they stand after the edits
 * made since (`provisionalRequestDiagnostics` in `requestDiagnostics.ts` answers with them while
 * the released contexts are built again): which still hold where they were, which moved with
 * their lines, which the edits leave in doubt.
 */

import type { Diagnostic, Range } from "vscode-languageserver";
import type { StaleLines } from "../../core/session/semantics/memo";

/**
 * A finding kept through the release as it stands after the edits since (`StaleLines`): on the
 * line it was made on, moved with it when lines were added or removed above. Undefined when it
 * sits on or points at a line edited since, whose ranges may no longer fit the line; and when its
 * message names a line ("before the next user message (line 12)") that was edited or moved
 * since: the message may now be wrong, or name the wrong line.
 */
export function standingFinding(d: Diagnostic, lines: StaleLines): Diagnostic | undefined {
  const line = lines.now(d.range.start.line);
  if (line === undefined || lines.now(d.range.end.line) !== line + d.range.end.line - d.range.start.line) return undefined;
  const related = d.relatedInformation;
  if (related?.some((r) => lines.now(r.location.range.start.line) === undefined)) return undefined;
  if (namesChangedLine(String(d.message), lines) || related?.some((r) => namesChangedLine(r.message, lines))) return undefined;
  if (lines.unmoved) return d;
  const moved: Diagnostic = { ...d, range: onLine(d.range, line) };
  if (related)
    moved.relatedInformation = related.map((r) => ({
      ...r,
      location: { ...r.location, range: onLine(r.location.range, lines.now(r.location.range.start.line)!) },
    }));
  return moved;
}

/**
 * Whether `message` names a line ("line 12", "lines 3–5", "lines 3, 5 and 7") that is not left as it
 * was, where it was. The en dash is written `\u2013` in the expressions, as every character above
 * U+00FF in a regular expression is (`core/disk/treeOutline.ts` says why).
 */
function namesChangedLine(message: string, lines: StaleLines): boolean {
  const changed = (line: number): boolean => !(line >= 0) || lines.now(line) !== line;
  for (const [, named] of message.matchAll(/\blines? (\d+(?:(?:\u2013|-|, | and )\d+)*)/g)) {
    for (const [, from, to] of named!.matchAll(/(\d+)(?:[\u2013-](\d+))?/g)) {
      const ends = [Number(from) - 1, to === undefined ? Number(from) - 1 : Number(to) - 1];
      const first = Math.min(...ends);
      const last = Math.max(...ends);
      // A span names every line in it; one longer than this is taken as changed rather than walked.
      if (last - first > MAX_NAMED_SPAN) return true;
      for (let line = first; line <= last; line++) if (changed(line)) return true;
    }
  }
  return false;
}

/** The longest span of lines a message may name ("lines 3–5") whose lines are each looked at. */
const MAX_NAMED_SPAN = 1000;

/** `range` moved to start on `line`, its characters and extent as they were. */
function onLine(range: Range, line: number): Range {
  return { start: { line, character: range.start.character }, end: { line: line + range.end.line - range.start.line, character: range.end.character } };
}
