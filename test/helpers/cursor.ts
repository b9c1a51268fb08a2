/**
 * Cursor fixtures: session text with a `$0` marker where the cursor is, as in rust-analyzer's
 * tests. The marker is removed and its position returned as an LSP position (UTF-16 columns).
 */

import type { Position } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";

export const CURSOR = "$0";

export function withCursor(source: string): { text: string; position: Position } {
  const index = source.indexOf(CURSOR);
  if (index < 0) throw new Error("fixture has no $0 cursor marker");
  const text = source.slice(0, index) + source.slice(index + CURSOR.length);
  const before = source.slice(0, index);
  const line = before.split("\n").length - 1;
  const character = index - (before.lastIndexOf("\n") + 1);
  return { text, position: { line, character } };
}

/** A document from fixture text (with the cursor marker removed) and the cursor position. */
export function documentWithCursor(source: string, uri = "file:///fixture.jsonl"): { doc: SessionDocument; position: Position } {
  const { text, position } = withCursor(source);
  return { doc: new SessionDocument(uri, "jsonl", 1, text), position };
}

/** The text a range covers in a document, for readable assertions. */
export function textOf(doc: SessionDocument, range: { start: Position; end: Position }): string {
  if (range.start.line !== range.end.line) throw new Error("range spans lines");
  return doc.lines[range.start.line]!.slice(range.start.character, range.end.character);
}
