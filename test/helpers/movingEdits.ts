/**
 * Updates that move lines, for the tests of what is kept across them (`StaleLines`, the provisional
 * list's findings moved with their lines): several changes in one update (a line inserted and
 * another deleted, two lines swapped, a line broken and the next mended: the line count unchanged
 * but lines moved), a line ending turned into "\r\n" or back, the header typed in, a full-text
 * change, or `randomEdit`'s.
 */

import type { SessionDocument } from "../../server/src/core/session/document";
import { randomEdit } from "./structuralEdits";

/** One update of `doc` that moves lines, or `randomEdit`'s; says which. */
export function movingUpdate(doc: SessionDocument, random: () => number): string {
  const n = doc.lineCount;
  const v = doc.version + 1;
  const at = (line: number, character = 0) => ({ line: doc.lspLine(line), character });
  const pick = () => 1 + Math.floor(random() * Math.max(1, n - 2));
  const kind = Math.floor(random() * 6);
  if (kind === 0 && n > 4) {
    // A line inserted and another deleted, in either order, as two changes of one update.
    const l = pick();
    const m = pick();
    if (m + 1 >= n) return "none";
    const insert = { range: { start: at(l), end: at(l) }, text: "{}\n" };
    const remove = { range: { start: at(m), end: at(m + 1) }, text: "" };
    // Each change is in the coordinates the changes before it left.
    if (random() < 0.5 || m < l) doc.update([remove, ...(m < l ? [{ range: { start: at(l - 1), end: at(l - 1) }, text: "{}\n" }] : [insert])], v);
    else doc.update([insert, { range: { start: at(m + 1), end: at(m + 2) }, text: "" }], v);
    return "ins+del";
  }
  if (kind === 1 && n > 3) {
    // Two neighbouring lines swapped in one change.
    const l = pick();
    if (l + 1 >= n) return "none";
    doc.update([{ range: { start: at(l), end: at(l + 1, doc.lines[l + 1]!.length) }, text: `${doc.lines[l + 1]}\n${doc.lines[l]}` }], v);
    return "swap";
  }
  if (kind === 2 && n > 4) {
    // A line broken in two, and the next line mended with the one after it: the count unchanged.
    const l = pick();
    if (l + 2 >= n || doc.lines[l]!.length < 2) return "none";
    const cut = 1 + Math.floor(random() * (doc.lines[l]!.length - 1));
    doc.update(
      [
        { range: { start: at(l, cut), end: at(l, cut) }, text: "\n" },
        { range: { start: at(l + 2, doc.lines[l + 1]!.length), end: at(l + 3) }, text: "" },
      ],
      v,
    );
    return "break+mend";
  }
  if (kind === 3 && n > 2) {
    // A line's ending turned into "\r\n" (or back): no line's text changes.
    const l = Math.floor(random() * (n - 1));
    doc.update([{ range: { start: at(l, doc.lines[l]!.length), end: at(l + 1) }, text: random() < 0.5 ? "\r\n" : "\n" }], v);
    return "eol";
  }
  if (kind === 4) {
    // The header typed in.
    const c = doc.lines[0]!.indexOf('"cwd":"');
    if (c < 0) return "none";
    doc.update([{ range: { start: at(0, c + 7), end: at(0, c + 7) }, text: "x" }], v);
    return "header";
  }
  if (kind === 5 && random() < 0.2) {
    // The whole text again, one line changed.
    const lines = [...doc.lines];
    const l = pick();
    lines[l] = `${lines[l]} `;
    doc.update([{ text: lines.join("\n") }], v);
    return "full";
  }
  return randomEdit(doc, random) ? "random" : "none";
}
