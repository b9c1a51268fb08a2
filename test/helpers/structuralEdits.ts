/**
 * Random edits of a document's structure (a line broken, mended, copied or deleted, a parentId
 * changed) or inside a line, for the tests that compare what is kept across edits with a fresh
 * document of the same text.
 */

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
