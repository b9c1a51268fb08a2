/**
 * Document formatting: every well-formed line rewritten the way Pi writes it, `JSON.stringify` of
 * its parsed value (compact, keys in their order), so that a hand-edited line reads like the lines
 * around it.
 *
 * Formatting works line by line and never joins or splits lines: blank and malformed lines are left
 * as they are, each line keeps its ending (and line 0 its byte order mark), and a line already in
 * Pi's form gets no edit, so formatting a file Pi wrote changes nothing.
 *
 * Formatting never changes what a line means. `JSON.parse` then `JSON.stringify` can: a repeated
 * key keeps only its last value, a number beyond double range becomes `null`, a number with more
 * digits than a double holds is rounded, and integer-like keys move before the others. A line where any of that would happen is left as it
 * is (Pi itself would lose the difference only if it ever rewrote the file).
 */

import { runToEnd, type Steps } from "../core/base/steps";
import type { TextEdit } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";

export function computeFormatting(doc: SessionDocument): TextEdit[] {
  return runToEnd(formattingSteps(doc));
}

/** Lines formatted between two yields: a few milliseconds of work. */
const STEP_LINES = 1000;

/** `computeFormatting` as steps, for the server to drive and cancel (`core/base/steps.ts`). */
export function* formattingSteps(doc: SessionDocument): Steps<TextEdit[]> {
  const edits: TextEdit[] = [];
  for (let line = 0; line < doc.lineCount; line++) {
    if (line > 0 && line % STEP_LINES === 0) yield;
    const p = doc.parsed[line]!;
    if (p.kind !== "value") continue;
    const formatted = formatLine(doc, line, p.value);
    if (formatted !== undefined) edits.push(formatted);
  }
  return edits;
}

/** The edit that puts one parsed line in Pi's form, or undefined when it is in that form already or cannot be put in it without a change of meaning. */
function formatLine(doc: SessionDocument, line: number, value: unknown): TextEdit | undefined {
  const offset = doc.jsonOffset(line);
  // A lone "\r" at the end of the last line is part of its ending to an editor: it is kept.
  const end = doc.replaceableEnd(line);
  const text = doc.lines[line]!.slice(offset, end);
  let pi: string | undefined;
  try {
    pi = JSON.stringify(value);
  } catch {
    // Nested too deep for JSON.stringify (Pi could not write it either): the line stays as it is.
    return undefined;
  }
  if (pi === text || pi === undefined) return undefined;
  if (!reserializesLosslessly(text)) return undefined;
  return { range: doc.range(line, offset, end), newText: pi };
}

/**
 * Whether `JSON.stringify(JSON.parse(text))` keeps every value of `text` (which must be valid
 * JSON): no object repeats a key, and every number reads back as the same decimal number.
 */
export function reserializesLosslessly(text: string): boolean {
  // One scan over the text, with the keys seen so far in each open object (null for arrays).
  const stack: (ObjectKeys | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        const keys = stack[stack.length - 1]!;
        if (keys.has(key)) return false;
        // JavaScript lists integer-like keys first, in ascending order: one after a name, or
        // after a larger one, would move.
        if (INDEX_KEY.test(key)) {
          if (keys.named || (keys.maxIndex ?? -1) > Number(key)) return false;
          keys.maxIndex = Number(key);
        } else keys.named = true;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 123) {
      stack.push(new Set() as ObjectKeys);
      expectKey = true;
      i++;
    } else if (c === 91) {
      stack.push(null);
      expectKey = false;
      i++;
    } else if (c === 125 || c === 93) {
      stack.pop();
      expectKey = false;
      i++;
    } else if (c === 44) {
      expectKey = stack[stack.length - 1] instanceof Set;
      i++;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < text.length && /[0-9eE+\-.]/.test(text[j]!)) j++;
      if (!sameNumber(text.slice(i, j))) return false;
      i = j;
    } else {
      i++;
    }
  }
  return true;
}

/** The keys of an open object, and whether its keys so far are in the order JavaScript keeps. */
type ObjectKeys = Set<string> & { maxIndex?: number; named?: boolean };

/** A key JavaScript orders as an array index. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,8})$/;

function stringEnd(text: string, start: number): number {
  let j = start;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return text.length;
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
  }
}

/** Whether a JSON number literal and the double it reads as denote the same decimal number. */
function sameNumber(literal: string): boolean {
  const n = Number(literal);
  if (!Number.isFinite(n)) return false;
  return decimal(literal) === decimal(String(n));
}

/** A decimal literal in a canonical form: sign, significant digits, exponent ("0" for zero). */
function decimal(literal: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!match) return literal;
  const [, sign, int = "", frac = "", exp = "0"] = match;
  let digits = int + frac;
  let exponent = Number(exp) + int.length;
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead);
  exponent -= lead;
  digits = digits.replace(/0+$/, "");
  if (digits === "") return "0";
  return `${sign}${digits}e${exponent}`;
}
