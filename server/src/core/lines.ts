/**
 * Splitting session text into lines, the way Pi reads a session file.
 *
 * Pi splits on "\n" only and hands each piece to `JSON.parse`, so a "\r" before the "\n" is JSON
 * whitespace to Pi and a line ending to the editor. We keep both views consistent by storing each
 * line without its ending and the ending ("\n", "\r\n" or "" for the last line) beside it: the line
 * text is what LSP positions index into, and the line text plus a possible "\r" is what Pi parses,
 * which `JSON.parse` treats the same.
 *
 * A lone "\r" (not followed by "\n") is a line break for LSP clients but not for Pi: it stays inside
 * the Pi line, and `positions.ts` maps positions between the two ways of counting.
 */

export interface SplitText {
  /** Line texts without their line endings; there is always at least one (possibly empty) line. */
  lines: string[];
  /** The ending of each line: "\n", "\r\n", or "" for the last line. */
  eols: string[];
}

export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const eols: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      lines.push(text.slice(start));
      eols.push("");
      return { lines, eols };
    }
    if (nl > start && text.charCodeAt(nl - 1) === 13) {
      lines.push(text.slice(start, nl - 1));
      eols.push("\r\n");
    } else {
      lines.push(text.slice(start, nl));
      eols.push("\n");
    }
    start = nl + 1;
  }
}

/** Below this many characters a text is not worth copying line by line (see `detachLines`). */
const DETACH_MIN_CHARS = 1 << 20;
const WIDE_CHAR = /[^\u0000-\u00ff]/;

/**
 * Gives the lines of a big text storage of their own, each as compact as its characters allow.
 *
 * The lines `splitLines` returns are slices that keep the whole text alive. When that text holds
 * one character past U+00FF (a curly quote in one message is enough), V8 stores all of it with two
 * bytes per character, ASCII included: 90 MB for a 45 MB session. Copied line by line, a line of
 * Latin-1 characters takes one byte per character and only the lines that need two keep two, and
 * the whole text can be collected. For a text without such a character the slices are already one
 * byte per character and are kept as they are.
 */
export function detachLines(text: string, lines: string[]): void {
  if (text.length < DETACH_MIN_CHARS || !WIDE_CHAR.test(text)) return;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length < 16) continue;
    lines[i] = WIDE_CHAR.test(line) ? flatCopy(line) : Buffer.from(line, "latin1").toString("latin1");
  }
  // A regular expression's last match keeps its subject alive (RegExp.lastMatch): end on a match
  // against a string of our own, so that no slice of the text stays reachable through it.
  WIDE_CHAR.test("\u0100");
}

/** A copy of a string that shares no storage with it: flattening a concatenation copies the characters. */
function flatCopy(line: string): string {
  const copy = ` ${line}`.slice(1);
  // Reading a character flattens the concatenation now, while the original is still at hand.
  copy.charCodeAt(0);
  return copy;
}
