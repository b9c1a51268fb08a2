/**
 * Random edits inside the lines of the resumed context (the lines Pi's context for the leaf reads,
 * `contextInputLines`), as typing in the newest messages makes them, for the tests that compare
 * what is kept and updated across edits with a fresh computation.
 */

import { contextInputLines } from "../../server/src/core/pi/activeContext";
import type { SessionDocument } from "../../server/src/core/session/document";

/** Edits inside a message's line, most keeping its structure (what typing does). */
export const CONTEXT_EDITS: readonly [RegExp, string][] = [
  [/"text":"/, '"text":"x'],
  [/"text":"/, '"text":"\\u00e9 '],
  [/"text":"[^"]*"/, '"text":""'],
  [/"content":"[^"]*"/, '"content":"  "'],
  [/"content":"/, '"content":"y'],
  [/"stopReason":"[a-zA-Z]*"/, '"stopReason":"error"'],
  [/"stopReason":"[a-zA-Z]*"/, '"stopReason":"aborted"'],
  [/"stopReason":"(error|aborted)"/, '"stopReason":"stop"'],
  [/"name":"/, '"name":"z'],
  [/"thinking":"/, '"thinking":"t'],
  [/"thinking":"[^"]*"/, '"thinking":" "'],
  [/"content":\[/, '"content":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB","mimeType":"image/png"},'],
  [/"content":\[[^\]]*\]/, '"content":null'],
  [/"provider":"/, '"provider":"q'],
  [/"model":"/, '"model":"m'],
  [/"usage":\{/, '"usage":{"totalTokens":99999999,'],
  [/"summary":"/, '"summary":"s'],
  [/"command":"/, '"command":"c'],
  [/"excludeFromContext":false/, '"excludeFromContext":true'],
  [/"output":"/, '"output":"o'],
  [/"thoughtSignature":"/, '"thoughtSignature":"g'],
  // Whitespace that moves every later token of the line: a kept finding's range must move with it.
  [/^\{"type"/, '{ "type"'],
  [/^\{ "type"/, '{"type"'],
  [/"message":\{/, '"message": {'],
];

/**
 * Replaces one random line of `doc`'s resumed context by one of `CONTEXT_EDITS` (a new version):
 * the line edited, -1 when the edit chosen does not apply to it, undefined when the context reads
 * no line.
 */
export function editInContext(doc: SessionDocument, random: () => number): number | undefined {
  const marked = contextInputLines(doc.analysis);
  const candidates: number[] = [];
  marked.forEach((m, line) => {
    if (m === 1) candidates.push(line);
  });
  if (candidates.length === 0) return undefined;
  const line = candidates[Math.floor(random() * candidates.length)]!;
  const before = doc.lines[line]!;
  const [pattern, replacement] = CONTEXT_EDITS[Math.floor(random() * CONTEXT_EDITS.length)]!;
  const after = before.replace(pattern, replacement);
  if (after === before) return -1;
  const end = { line: doc.lspLine(line), character: before.length };
  doc.update([{ range: { start: { line: doc.lspLine(line), character: 0 }, end }, text: after }], doc.version + 1);
  return line;
}
