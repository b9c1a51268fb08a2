/**
 * Markdown made from untrusted text: the one place that escapes and fences what a session holds.
 *
 * Hovers, completion documentation, entry titles and the context view all show text from the file,
 * and a session comes from anywhere: a name like `[run](command:…)` or `<img src=…>` must show as
 * those characters, never become a link, an image or markup. So every piece of session text goes
 * through one of these: `escapeMarkdown` for prose, `inlineCode` for ids and names, `quoteLine`
 * for a one-line preview, `codeBlock` for longer text. None of the server's Markdown is marked
 * trusted.
 */

import { clip, groupDigits, plural, safeSlice } from "../core/base/text";

/** Escapes the characters that would turn text into Markdown or HTML (links, images, emphasis, tags, entities). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|~&!]/g, "\\$&");
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text[i] === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Text as inline code: clipped to `max` code units, control characters shown as spaces, fenced against its own backticks. */
export function inlineCode(text: string, max = 60): string {
  const clean = clip(text, max).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ");
  const fence = "`".repeat(longestRun(clean, "`") + 1);
  const pad = clean.startsWith("`") || clean.endsWith("`") || clean === "" ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** A preview of a text on one line: whitespace collapsed, clipped to `max` characters, escaped, as a Markdown block quote. */
export function quoteLine(text: string, max = 160): string {
  // Only the head of the text is read, so a 400 KB string costs as much as a short one.
  const head = text.length > max * 4 ? safeSlice(text, max * 4) : text;
  let flat = head.replace(/\s+/g, " ").trim();
  if (head.length < text.length && flat.length <= max) flat += "…";
  // A leading "-", "+", "=" or "1." would start a list or a heading inside the quote.
  const escaped = escapeMarkdown(clip(flat, max))
    .replace(/^[-+=]/, "\\$&")
    .replace(/^(\d+)([.)])/, "$1\\$2");
  return `> ${escaped}`;
}

/** A fenced code block showing `text` literally: the fence is longer than any backtick run inside. */
export function codeBlock(text: string, info = ""): string[] {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  return [`${fence}${info}`, text, fence];
}

export interface Shortened {
  /** The part shown: at most `lines` lines and `chars` code units, without trailing whitespace. */
  text: string;
  /** What was cut, as `… (N more lines)`, or "" when nothing was. */
  more: string;
}

function isTrailingSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * The first `lines` lines and at most `chars` UTF-16 code units of `text` (never splitting a
 * surrogate pair, and at a line break when one is in the second half), and a note of what was cut.
 * Only the part shown is copied; the rest is scanned once for line breaks.
 */
export function shorten(text: string, limits: { lines: number; chars: number }): Shortened {
  let length = text.length;
  while (length > 0 && isTrailingSpace(text.charCodeAt(length - 1))) length--;
  let end = length;
  let seen = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < length; i = text.indexOf("\n", i + 1)) {
    if (++seen === limits.lines) {
      end = i;
      break;
    }
  }
  if (end > limits.chars) {
    const lastBreak = text.lastIndexOf("\n", limits.chars);
    end = lastBreak >= limits.chars / 2 ? lastBreak : safeSlice(text, limits.chars).length;
  }
  if (end >= length) return { text: text.slice(0, length), more: "" };
  const shown = text.slice(0, end).trimEnd();
  const atBreak = text.charCodeAt(end) === 10;
  let moreLines = 0;
  for (let i = text.indexOf("\n", end + (atBreak ? 1 : 0)); i >= 0 && i < length; i = text.indexOf("\n", i + 1)) moreLines++;
  if (atBreak) return { text: shown, more: `… (${plural(moreLines + 1, "more line", "more lines")})` };
  const moreChars = length - end;
  const chars = plural(moreChars, "more character", "more characters");
  return { text: `${shown}…`, more: `… (${moreLines > 0 ? `${chars}, ${plural(moreLines, "more line", "more lines")}` : chars})` };
}

/** "line 3", "lines 3, 7, 9, … 12 more": the lines of some entries, at most `max` named. */
export function lineList(lines: readonly number[], max = 5): string {
  const shown = lines.slice(0, max).map((line) => line + 1);
  const more = lines.length > max ? `, … ${groupDigits(lines.length - max)} more` : "";
  return `line${lines.length === 1 ? "" : "s"} ${shown.join(", ")}${more}`;
}
