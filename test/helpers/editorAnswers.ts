/**
 * The editor's answers over a whole document, as one string, for the tests of random edits that
 * compare a document kept across edits with a fresh one of the same text.
 */

import type { SessionDocument } from "../../server/src/core/session/document";
import {
  computeCodeLenses,
  computeDocumentSymbols,
  computeFadingHints,
  computeFoldingRanges,
  computeHover,
  computeInlayHints,
} from "../../server/src/features/api/editor";

/** The outline, folding ranges, lenses, faded hints, inlay hints, and hovers on each line's id fields. */
export function editorAnswers(doc: SessionDocument): string {
  const whole = { start: { line: 0, character: 0 }, end: { line: doc.lineCount, character: 0 } };
  const hovers = [];
  for (let l = 0; l < doc.lineCount; l++) {
    const text = doc.lines[l]!;
    for (const field of ['"id"', '"parentId"', '"firstKeptEntryId"', '"toolCallId"', '"type"']) {
      const at = text.indexOf(field);
      if (at >= 0) hovers.push(computeHover(doc, { line: l, character: at + field.length + 2 }));
    }
  }
  return JSON.stringify({
    symbols: computeDocumentSymbols(doc, { maxSymbols: 2000 }),
    folding: computeFoldingRanges(doc),
    lenses: computeCodeLenses(doc),
    fading: computeFadingHints(doc),
    inlay: computeInlayHints(doc, whole),
    hovers,
  });
}
