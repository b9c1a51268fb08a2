/**
 * Text taken from a session, made fit to show: clipped on code point boundaries, put on one line,
 * numbers grouped, and control characters made visible for a terminal.
 *
 * Every string in a session is untrusted and may be 400 KB long: each function here reads only the
 * part it shows, and none splits a surrogate pair.
 */

import { looseString } from "./loose";

/** Whether `c` is the first half of a surrogate pair. */
function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Whether `c` is the second half of a surrogate pair. */
export function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** `text.slice(0, max)`, one shorter when that would split a surrogate pair. */
export function safeSlice(text: string, max: number): string {
  if (max >= text.length) return text;
  if (max <= 0) return "";
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** The first `max` UTF-16 code units of `text` (never half a surrogate pair), with "…" when cut. */
export function clip(text: string, max = 40): string {
  return text.length <= max ? text : `${safeSlice(text, max)}…`;
}

/**
 * `text` on one line (whitespace and control character runs become one space, leading and trailing
 * ones are dropped), clipped to `max` code points with "…" when more text follows. Only the part
 * shown is looked at, so a 400 KB text costs no more than a short one; the usual case (no line
 * break, no double space) is one scan and one `slice`.
 */
export function singleLine(text: string, max: number): string {
  const n = text.length;
  let from = 0;
  while (from < n && isSpace(text.charCodeAt(from))) from++;
  let points = 0;
  let plain = true; // no whitespace other than single spaces so far
  let end = from; // just past the last non-space character taken
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      let j = i + 1;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (j === n) break; // trailing whitespace
      if (c !== 32 || j > i + 1) plain = false;
      // The run shows as one space, which counts as a code point, and needs one more after it.
      if (points + 2 > max) break;
      points++;
      i = j;
      continue;
    }
    if (points === max) break;
    // A surrogate pair is one code point and is taken whole.
    const pair = isHighSurrogate(c) && i + 1 < n && isLowSurrogate(text.charCodeAt(i + 1));
    i += pair ? 2 : 1;
    points++;
    end = i;
  }
  let out = text.slice(from, end);
  if (!plain) out = out.replace(SPACE_RUNS, " ");
  // Something other than whitespace is left: say so.
  let k = end;
  while (k < n && isSpace(text.charCodeAt(k))) k++;
  return k < n ? `${out}…` : out;
}

const SPACE_RUNS = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+/g;

/** Whitespace and control characters, which a one-line name shows as a single space. */
function isSpace(c: number): boolean {
  return (
    c <= 32 ||
    (c >= 0x7f && c <= 0xa0) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0xfeff ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * A short text for any parsed JSON value, without coercing it: a string as it is, a number, boolean
 * or null as JavaScript prints it, an array as "[…]" and an object as "{…}". (`String()` of a deeply
 * nested array recurses until the stack overflows; of an object it says nothing useful.)
 */
export function shortValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "[…]" : "{…}";
}

/**
 * `String(value)` where JavaScript can make it (so text equals what Pi prints), computed without
 * coercing the value; `shortValue` where `String()` would throw (an array nested thousands deep,
 * an object with its own `toString` member).
 */
export function looseText(value: unknown): string {
  const text = looseString(value);
  return typeof text === "string" ? text : shortValue(value);
}

/** 48210 → "48,210", independent of the locale. */
export function groupDigits(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return String(value);
  const [whole, fraction] = String(Math.abs(value)).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${value < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

/** "1 entry", "3 entries": `many` defaults to `one` + "s". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${groupDigits(n)} ${n === 1 ? one : many}`;
}

/**
 * Text for a terminal: C0 and C1 control characters, DEL, and the line and paragraph separators
 * become visible escapes (`\u001b` → `\x1b`), so that nothing a session holds can move the cursor,
 * clear the screen, set the window title or fake a line of output. Newlines are kept when
 * `keepNewlines` is set (for text that is printed as several lines on purpose).
 */
export function escapeControls(text: string, keepNewlines = false): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (keepNewlines && c === "\n") return c;
    if (c === "\t") return "\\t";
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * `escapeControls`, and the bidirectional controls too (U+202A–U+202E, U+2066–U+2069), which can
 * make a terminal show a line's text in another order than it holds: for text shown in a terminal
 * outside the CLI's own escaping (`cli/terminal.ts`), such as the doctor's report inside Pi.
 */
export function escapeForTerminal(text: string, keepNewlines = false): string {
  return escapeControls(text, keepNewlines).replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
