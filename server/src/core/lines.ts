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
