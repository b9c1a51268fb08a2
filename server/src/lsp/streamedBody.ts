/**
 * The body of one large JSON-RPC message, taken apart while it still arrives.
 *
 * A `didOpen` of a 45 MB session is one message of 50 MB whose `text` is a single JSON string. The
 * library decodes such a message only once its last byte is in: one copy of every chunk, one
 * UTF-8 decoding into a 90 MB two-byte string (a single curly quote anywhere makes every character
 * two bytes), one `JSON.parse` of all of it, then the document splits the text into lines and copies
 * them out again. Here the bytes are read as they come: a scanner follows JSON's strings and
 * escapes, cuts every long string at its escaped line breaks (`\n`, `\u000a`), and decodes each
 * line on its own (`toString` of its bytes, then `JSON.parse` of the quoted line for its escapes),
 * so the work is done while the client is still writing and each line gets storage of its own, one
 * byte per character unless it needs two (lines that do not end with "}", next to ones that do, are
 * cut from the stretch decoded with them, at most a read or two, and share its storage). What is
 * left of the message (the long strings replaced by placeholders) is parsed at the end and the
 * strings are put back, joined from their lines (`+` makes a rope, not a copy); their lines are
 * kept too (`SplitText`, what `splitLines` of the string would return), for the document to take
 * instead of splitting again.
 *
 * Exactness: the message is the one `JSON.parse` of the whole body gives, string for string. The
 * scanner only decides where strings and line breaks are; every byte is still decoded and
 * unescaped by `Buffer.toString` and `JSON.parse`, a line break is cut only at an escape that means
 * "\n", and UTF-8 is cut only before an ASCII byte, where a decoder restarts anyway. A body that is
 * not what the scanner expects (a control character in a string, an escape it cannot read, a
 * placeholder that does not come back where a string was) is decoded the plain way instead, so a
 * broken message fails with `JSON.parse`'s own error, as it does in the library.
 */

import type { SplitText } from "../core/line/split";
import type { LineParses } from "../core/line/packed";
import { keepsValues } from "../core/line/values";
import { type LineParsePool, startParsePool } from "../io/parsePool";
import { BodyChunks } from "./bodyChunks";
import { assembleMessage, type LongString, splitOf } from "./longStrings";

/** A string this long (in bytes of the message) or longer is taken out and split into lines. */
export const LONG_STRING_BYTES = 1 << 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPED_NEWLINE = Buffer.from("\\n", "latin1");
const CLOSE_BRACE = 0x7d;
const BRACE_NEWLINE = Buffer.from("}\\n", "latin1");
const DID_OPEN = Buffer.from('"textDocument/didOpen"', "latin1");

enum State {
  /** Outside strings. */
  Out = 0,
  /** Inside a string. */
  In = 1,
  /** After a backslash inside a string. */
  Escape = 2,
  /** Inside the four hex digits of a `\u` escape. */
  Hex = 3,
}

/** The parsed message, and the lines of `params.textDocument.text` when it was a long string. */
export interface DecodedBody {
  message: unknown;
  /** `params.textDocument.text` (a `didOpen`'s document) and its lines, when it was a long string. */
  documentText?: { text: string; split: SplitText; parses?: LineParses };
}

export class StreamedBody {
  private readonly body = new BodyChunks();
  /** Where scanning goes on: bytes before it are read. */
  private cursor = 0;
  /**
   * Inside a long string, the fast way: only escaped line breaks are looked for (`indexOf`), and
   * the text between two is decoded by `JSON.parse`, which also finds the string's end (a quote
   * left unescaped makes it throw, and that stretch is then read again byte by byte).
   */
  private fast = false;
  private state = State.Out;
  /** In `Hex`: how many digits are left, and their value so far. */
  private hexLeft = 0;
  private hexValue = 0;
  /** Where the escape being read starts (its backslash). */
  private escapeAt = 0;
  /** The current string: where its characters start, where its current line starts, whether that line holds an escape. */
  private stringStart = 0;
  private lineStart = 0;
  private lineEscaped = false;
  /** Lines of the current string found before it was known to be long: start, end, escaped (1 or 0), in threes. */
  private pendingLines: number[] = [];
  /** The decoded lines of the current string once it is known to be long. */
  private longLines: string[] | undefined;
  private readonly long: LongString[] = [];
  /** Where the "}" line break whose stretch last failed to decode ends (see `scanFast`). */
  private plainUntil = 0;
  /** Set when the body is not what the scanner reads; it is then decoded the plain way. */
  private broken = false;
  /**
   * The lines of the first string too large for the value cache are parsed on a worker while they
   * arrive (`io/parsePool.ts`): the pool, and the index in `long` that string will have.
   */
  private parses: LineParsePool | undefined;
  private parsesFor = -1;
  private offerAt = 0;

  /**
   * `longString`: the length from which a string is taken out (a smaller one lets tests cut often);
   * `startParses`: the pool that parses a large string's lines meanwhile (none, to parse them later).
   */
  constructor(
    readonly length: number,
    private readonly longString = LONG_STRING_BYTES,
    private readonly startParses: () => LineParsePool | undefined = startParsePool,
  ) {}

  /** Bytes of the body still to come. */
  get missing(): number {
    return this.length - this.body.received;
  }

  /** Takes the next bytes of the body (at most `missing`). */
  push(chunk: Buffer): void {
    this.body.push(chunk);
    this.pump();
  }

  /** The message, once every byte is in; throws `JSON.parse`'s error for a body that is not JSON. */
  finish(): DecodedBody {
    while (this.fast && !this.broken) {
      // The rest of a long string was not read to its closing quote yet: byte by byte, now (and
      // a later string may turn out long and be read the fast way again).
      this.fast = false;
      this.cursor = this.lineStart;
      this.pump();
    }
    if (!this.broken && this.state === State.Out) {
      let decoded: DecodedBody | undefined;
      try {
        decoded = this.assemble();
      } catch {
        // What is left of the message is not JSON: the whole body's parse says why, below.
      }
      if (decoded) return decoded;
    }
    this.parses?.dispose();
    return { message: JSON.parse(this.body.whole().toString("utf8")) };
  }

  /** Scans from the cursor to the last byte received. */
  private pump(): void {
    const { chunks, starts } = this.body;
    let k = this.body.chunkAt(this.cursor);
    while (!this.broken && this.cursor < this.body.received) {
      while (starts[k]! + chunks[k]!.length <= this.cursor) k++;
      while (starts[k]! > this.cursor) k--;
      const base = starts[k]!;
      const chunk = chunks[k]!;
      this.cursor = this.fast ? this.scanFast(chunk, base, this.cursor - base, k) : this.scan(chunk, base, this.cursor - base);
    }
    if (this.longLines && !this.broken) this.offerLines(this.longLines, false);
  }

  /** Sends the current long string's new lines to the parse pool, started once the message is too large for the value cache. */
  private offerLines(lines: string[], last: boolean): void {
    this.offerAt = lines.length + 32;
    if (this.parsesFor < 0) {
      // Characters are at most bytes: a message of fewer bytes than the cache holds characters keeps its values.
      if (keepsValues(this.length)) return;
      this.parsesFor = this.long.length;
      // Only a `didOpen`'s text becomes a document's lines at once (a full-text change is parsed against
      // the lines the document has): a message not naming the method before the string is not worth a worker.
      if (this.body.slice(0, Math.min(this.stringStart, 1 << 16)).includes(DID_OPEN)) this.parses = this.startParses();
    }
    if (this.parsesFor === this.long.length) this.parses?.offer(lines, last);
  }

  /** Scans a long string's bytes from `i` of `chunk`; returns where scanning goes on. */
  private scanFast(chunk: Buffer, base: number, i: number, k: number): number {
    // An escaped line break whose backslash ended the chunk before.
    if (i === 0 && k > 0 && chunk[0] === 0x6e) {
      const previous = this.body.chunks[k - 1]!;
      if (previous[previous.length - 1] === BACKSLASH && !this.fastBreak(base - 1, base + 1)) return this.lineStart;
    }
    if (i === 0 && k > 0 && chunk[0] === BACKSLASH && chunk[1] === 0x6e) {
      // A "}" that ended the chunk before, then an escaped line break: the needle below spans chunks.
      const previous = this.body.chunks[k - 1]!;
      if (previous[previous.length - 1] === CLOSE_BRACE && !this.fastBreak(base, base + 2)) return this.lineStart;
    }
    // Nearly every line of a session ends with "}", and "}\n" in the message is always a line break
    // of the text: the backslash comes after a byte that is not one, so it starts an escape. An
    // escaped newline inside a line's own strings is "\\n" in the message and never matches, where
    // the plain "\n" needle stops at every one of them (six times a line in a real session). A line
    // break after any other character is found in the decoded text instead, which `decodeLine`
    // splits on "\n"; a chunk with no "}" line break at all (inside a long line, or lines that end
    // otherwise, as with "\r\n") is searched for every escaped line break, as before.
    // After a "}" line break whose stretch did not decode (a string ended in it), the chunk that
    // holds the break is searched the plain way until the scan has passed it: a later long string
    // would otherwise decode the same far stretch again, for every string that ends before it.
    const plainOnly = base + i < this.plainUntil;
    let found = false;
    for (let q = plainOnly ? -1 : chunk.indexOf(BRACE_NEWLINE, i); q >= 0; q = chunk.indexOf(BRACE_NEWLINE, q + 3)) {
      found = true;
      if (!this.decodeLine(base + q + 1, base + q + 3)) {
        this.plainUntil = base + q + 3;
        return this.lineStart;
      }
    }
    if (!found) {
      for (let q = chunk.indexOf(ESCAPED_NEWLINE, i); q >= 0; q = chunk.indexOf(ESCAPED_NEWLINE, q + 2)) {
        if (!this.fastBreak(base + q, base + q + 2)) return this.lineStart;
      }
    }
    return base + chunk.length;
  }

  /**
   * A candidate line break of a long string: the backslash at `at` starts an escape when an even
   * number of backslashes come before it. Decodes the line it ends; false when that line could not
   * be decoded (the string ends in it, or it is not JSON), and the string is then read byte by byte
   * from the line's start.
   */
  private fastBreak(at: number, next: number): boolean {
    if (at < this.lineStart) return true;
    let backslashes = 0;
    while (at - backslashes - 1 >= this.lineStart && this.body.byteAt(at - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 1) return true;
    return this.decodeLine(at, next);
  }

  /** Decodes the current line, which ends at `at` (the backslash of an escaped line break) and is followed by `next`. */
  private decodeLine(at: number, next: number): boolean {
    if (at < this.lineStart) return true;
    let text: string;
    try {
      text = JSON.parse(this.body.quoted(this.lineStart, at)) as string;
    } catch {
      this.fast = false;
      this.state = State.In;
      this.lineEscaped = false;
      return false;
    }
    // A "\u000a" escape inside is a line break too: the decoded text is split on it.
    const lines = this.longLines!;
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      lines.push(text.slice(from, nl));
      from = nl + 1;
    }
    lines.push(from === 0 ? text : text.slice(from));
    this.lineStart = next;
    if (lines.length >= this.offerAt) this.offerLines(lines, false); // A read brings more lines than the pool takes at once.
    return true;
  }

  /** Scans bytes from `i` of `chunk` byte by byte; returns where scanning goes on. */
  private scan(chunk: Buffer, base: number, from: number): number {
    const n = chunk.length;
    let i = from;
    while (i < n) {
      switch (this.state) {
        case State.Out: {
          // Outside strings only a quote matters (everything else is checked by the final parse).
          const q = chunk.indexOf(QUOTE, i);
          if (q < 0) return base + n;
          this.state = State.In;
          this.stringStart = base + q + 1;
          this.lineStart = this.stringStart;
          this.lineEscaped = false;
          this.pendingLines.length = 0;
          this.longLines = undefined;
          i = q + 1;
          break;
        }
        case State.In: {
          let c = 0;
          for (; i < n; i++) {
            c = chunk[i]!;
            if (c === BACKSLASH || c === QUOTE || c < 0x20) break;
          }
          if (i === n) return base + n;
          if (c < 0x20) {
            // JSON does not allow a raw control character in a string: JSON.parse will say so.
            this.broken = true;
            return base + n;
          }
          if (c === QUOTE) {
            this.endString(base + i);
            this.state = State.Out;
          } else {
            this.escapeAt = base + i;
            this.state = State.Escape;
          }
          i++;
          break;
        }
        case State.Escape: {
          const c = chunk[i]!;
          i++;
          if (c === 0x6e) {
            this.state = State.In;
            if (this.endLine(this.escapeAt, base + i)) return base + i;
          } else if (c === 0x75) {
            this.hexLeft = 4;
            this.hexValue = 0;
            this.state = State.Hex;
          } else {
            // Any other escape stays in the line, for JSON.parse to read (or reject).
            this.lineEscaped = true;
            this.state = State.In;
          }
          break;
        }
        case State.Hex: {
          const digit = hexDigit(chunk[i]!);
          i++;
          if (digit < 0) {
            this.broken = true;
            return base + n;
          }
          this.hexValue = this.hexValue * 16 + digit;
          if (--this.hexLeft === 0) {
            this.state = State.In;
            if (this.hexValue !== 0x0a) this.lineEscaped = true;
            else if (this.endLine(this.escapeAt, base + i)) return base + i;
          }
          break;
        }
      }
    }
    return base + n;
  }

  /**
   * A line of the current string ends at `end` (an escaped line break), the next starts at `next`.
   * True when the string has just turned out long: it is read the fast way from `next` on.
   */
  private endLine(end: number, next: number): boolean {
    const start = this.lineStart;
    const escaped = this.lineEscaped;
    this.lineStart = next;
    this.lineEscaped = false;
    if (this.longLines) {
      this.longLines.push(this.decode(start, end, escaped));
      return false;
    }
    this.pendingLines.push(start, end, escaped ? 1 : 0);
    if (end - this.stringStart < this.longString) return false;
    this.becomeLong();
    this.fast = true;
    return true;
  }

  /** The current string ends at `end` (its closing quote). */
  private endString(end: number): void {
    if (!this.longLines && end - this.stringStart >= this.longString) this.becomeLong();
    const lines = this.longLines;
    if (!lines) return;
    lines.push(this.decode(this.lineStart, end, this.lineEscaped));
    if (this.parsesFor === this.long.length) this.parses?.offer(lines, true);
    if (!this.broken) this.long.push({ start: this.stringStart, end, lines });
    this.longLines = undefined;
  }

  /** The current string is long: its lines are decoded from now on, those found so far at once. */
  private becomeLong(): void {
    const lines: string[] = [];
    const p = this.pendingLines;
    for (let k = 0; k < p.length; k += 3) lines.push(this.decode(p[k]!, p[k + 1]!, p[k + 2] === 1));
    this.pendingLines = [];
    this.longLines = lines;
  }

  /** The characters of body bytes `start`..`end` inside a string, escapes read by JSON.parse. */
  private decode(start: number, end: number, escaped: boolean): string {
    const raw = this.body.bytes(start, end);
    if (!escaped) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      this.broken = true;
      return "";
    }
  }

  /**
   * The message with its long strings put back, and the document's text with its lines (and their
   * parses, when the pool parsed that string); undefined when the strings do not come back exactly
   * where they were.
   */
  private assemble(): DecodedBody | undefined {
    const assembled = assembleMessage(this.body, this.long);
    if (assembled === undefined) return undefined;
    const { message, texts, documentIndex } = assembled;
    const parses = documentIndex === this.parsesFor ? this.parses : undefined;
    if (!parses) this.parses?.dispose();
    if (documentIndex < 0 || documentIndex >= texts.length) return { message };
    return { message, documentText: { text: texts[documentIndex]!, split: splitOf(this.long[documentIndex]!.lines), parses } };
  }
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}
