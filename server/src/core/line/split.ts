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

/** The endings `LineEnds` numbers, by code. */
const ENDINGS = ["", "\n", "\r\n"] as const;

/**
 * The ending of each line of a document ("\n", "\r\n", or "" for the last line), one byte a line:
 * an array of the strings took 8 bytes a line (0.4 MB for the 45 MB session's 50,000 lines).
 */
export class LineEnds {
  private constructor(private codes: Uint8Array) {}

  static of(eols: readonly string[]): LineEnds {
    const codes = new Uint8Array(eols.length);
    for (let i = 0; i < eols.length; i++) codes[i] = code(eols[i]!);
    return new LineEnds(codes);
  }

  get length(): number {
    return this.codes.length;
  }

  /** The ending of line `line`; undefined past the last line. */
  at(line: number): string | undefined {
    const c = this.codes[line];
    return c === undefined ? undefined : ENDINGS[c];
  }

  /** Replaces the endings of lines `start .. start + count - 1` with `eols`. */
  splice(start: number, count: number, eols: readonly string[]): void {
    const old = this.codes;
    // The usual edit (typing in a line) replaces as many lines as it removes: in place.
    const codes = eols.length === count ? old : new Uint8Array(old.length - count + eols.length);
    if (codes !== old) {
      codes.set(old.subarray(0, start));
      codes.set(old.subarray(start + count), start + eols.length);
    }
    for (let i = 0; i < eols.length; i++) codes[start + i] = code(eols[i]!);
    this.codes = codes;
  }

  clone(): LineEnds {
    return new LineEnds(this.codes.slice());
  }
}

function code(eol: string): number {
  if (eol === "\n") return 1;
  if (eol === "\r\n") return 2;
  if (eol === "") return 0;
  throw new Error(`not a line ending: ${JSON.stringify(eol)}`);
}
