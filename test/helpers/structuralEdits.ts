/**
 * Random edits of a document's structure (a line broken, mended, copied or deleted, a parentId
 * changed) or inside a line, for the tests that compare what is kept across edits with a fresh
 * document of the same text.
 */

import { ContextState, contextSelection } from "../../server/src/core/pi/activeContext";
import type { SessionDocument } from "../../server/src/core/session/document";

export const lineEnd = (doc: SessionDocument, line: number) => ({ line: doc.lspLine(line), character: doc.lines[line]!.length });

/**
 * One random edit of `doc` (a new version), structural or inside a line, on a line `pick` chooses
 * (any line by default); false when the one chosen does not apply.
 */
export function randomEdit(doc: SessionDocument, random: () => number, pick = (count: number) => Math.floor(random() * count)): boolean {
  const line = pick(doc.lineCount);
  const text = doc.lines[line]!;
  const start = { line: doc.lspLine(line), character: 0 };
  const change = (range: { start: { line: number; character: number }; end: { line: number; character: number } }, to: string) =>
    doc.update([{ range, text: to }], doc.version + 1);
  const kind = Math.floor(random() * 6);
  if (kind === 0 && text.length > 2) {
    // A line broken in two (Enter typed inside it).
    const at = { line: doc.lspLine(line), character: 1 + Math.floor(random() * (text.length - 1)) };
    change({ start: at, end: at }, "\n");
  } else if (kind === 1 && line + 1 < doc.lineCount) {
    // A line mended with the next (its line ending deleted).
    change({ start: lineEnd(doc, line), end: { line: doc.lspLine(line + 1), character: 0 } }, "");
  } else if (kind === 2) {
    // A copy of the line inserted after it, under a new id (a line pasted and adjusted).
    const copy = text.replace(/"id":"([^"]*)"/, `"id":"$1-copy${doc.version}"`);
    change({ start: lineEnd(doc, line), end: lineEnd(doc, line) }, `\n${copy}`);
  } else if (kind === 3 && doc.lineCount > 2) {
    // A line deleted with its line ending.
    change({ start, end: { line: doc.lspLine(line + 1), character: 0 } }, "");
  } else if (kind === 4) {
    // A parentId pointed at another line's id, or at no entry.
    const other = doc.lines[Math.floor(random() * doc.lineCount)]!;
    const id = /"id":"([^"]*)"/.exec(other)?.[1] ?? "nowhere";
    const after = text.replace(/"parentId":"[^"]*"/, `"parentId":"${random() < 0.2 ? "nowhere" : id}"`);
    if (after === text) return false;
    change({ start, end: lineEnd(doc, line) }, after);
  } else {
    // Typing inside a value.
    const after = text.replace(/"(text|content|timestamp)":"/, '"$1":"x');
    if (after === text) return false;
    change({ start, end: lineEnd(doc, line) }, after);
  }
  return true;
}

/**
 * One random structural edit of an entry on the resumed path above what Pi selects (before the kept
 * range of the last compaction), where the context may be carried onto the new path
 * (`carrySelection`): its parent pointed at an earlier entry of the path (the entries between
 * leave the path, settings among them), at another line's entry, at none or at null; its parent
 * made a line inserted above it under the compaction's id or its `firstKeptEntryId` (from which Pi
 * then selects); or its message taken away (Pi then throws). Says where it edited; null when it
 * made no edit, undefined when the document has no such entry.
 */
export function editAboveSelection(doc: SessionDocument, random: () => number): string | null | undefined {
  const a = doc.analysis;
  const { state, compaction } = contextSelection(a);
  const path = a.activePath;
  const above = path.filter((e) => state[e.index] === ContextState.Compacted);
  if (!compaction || above.length === 0) return undefined;
  const entry = above[Math.floor(random() * above.length)]!;
  const text = doc.lines[entry.line]!;
  const quoted = (id: unknown) => (typeof id === "string" ? `"${id}"` : "null");
  const kind = random();
  let after = text;
  if (kind < 0.6) {
    const ancestors = path.slice(0, path.indexOf(entry));
    const other = a.entries[Math.floor(random() * a.entries.length)]!;
    const target =
      random() < 0.6 && ancestors.length > 0
        ? ancestors[Math.floor(random() * ancestors.length)]!.id
        : random() < 0.7
          ? other.id
          : random() < 0.5
            ? "nowhere"
            : null;
    after = text.replace(/"parentId":("[^"]*"|null)/, `"parentId":${quoted(target)}`);
  } else if (kind < 0.85) {
    // A new parent for the entry under the compaction's id or its first kept one, written after the
    // line that holds it now, so that Pi's map of ids takes the new line.
    const id = random() < 0.7 ? compaction.parsed.reference : compaction.id;
    const holder = a.byId.get(id as string);
    if (!holder) return null;
    const inserted = text.replace(/"id":"[^"]*"/, `"id":${quoted(id)}`);
    const at = lineEnd(doc, holder.line);
    const parent = text.replace(/"parentId":("[^"]*"|null)/, `"parentId":${quoted(id)}`);
    doc.update(
      [
        { range: { start: { line: doc.lspLine(entry.line), character: 0 }, end: lineEnd(doc, entry.line) }, text: parent },
        { range: { start: at, end: at }, text: `\n${inserted}` },
      ],
      doc.version + 1,
    );
    return ` on lines ${entry.line + 1} and ${holder.line + 2}`;
  } else {
    after = text.replace('"message":{', '"note":{');
  }
  if (after === text) return null;
  doc.update([{ range: { start: { line: doc.lspLine(entry.line), character: 0 }, end: lineEnd(doc, entry.line) }, text: after }], doc.version + 1);
  return ` on line ${entry.line + 1}`;
}
