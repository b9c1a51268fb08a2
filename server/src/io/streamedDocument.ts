/**
 * A `SessionDocument` read from disk line by line that does not hold the file's text, for `check`
 * on a session of any size (a 1 GB session is more than a V8 string can hold).
 *
 * Each line is read (in 1 MiB chunks, `lineReader.ts`), parsed by the same `parseLine` the editor
 * uses, and then only its facts are kept: ids, parents, types, roles, the line-local findings, and
 * where the line lies in the file. Its text is dropped; a check that needs it (to locate the token
 * a diagnostic points at, or a value the provider request is built from) reads that one line back
 * by its offset. Parsed values stay in the bounded cache of `core/line/values.ts` for the file's last
 * lines only (`keepTailChars`, where the context Pi resumes usually is), so that those are usually
 * not parsed twice and the others cost the collector nothing.
 *
 * Because every check runs unchanged on this document, its diagnostics are the in-memory
 * document's, exactly (`test/cli/streamedCheck.test.ts` compares the two on the corpus). What is
 * held is proportional to the number of lines, not to their size, except where a rule needs
 * values: the provider request checks build the messages of the resumed context, as Pi does.
 */

import * as nodeFs from "node:fs";
import { SessionDocument } from "../core/session/document";
import { parseLine, parseLineWith } from "../core/line/parse";
import { CachedValueLine } from "../core/line/record";
import type { LineFacts, MalformedLine, ParsedLine } from "../core/line/facts";
import { LineEnds } from "../core/line/split";
import { PositionMap } from "../core/line/positions";
import { parseWithoutKeeping, setValueBudget } from "../core/line/values";
import { DEFAULT_MAX_LINE_BYTES, readLinesSync } from "./lineReader";
import { groupDigits } from "../core/base/text";

/** How much the read back of one line reads from there on when it follows the bytes read last (lines read back come mostly in file order). */
const READ_AHEAD_BYTES = 1024 * 1024;
/** How much a read back elsewhere reads: a check that wants one line (the first, the one a diagnostic is on) reads little more. */
const FIRST_READ_BYTES = 64 * 1024;

const mib = (bytes: number) => `${groupDigits(Math.round(bytes / 1024 / 1024))} MiB`;

/** The lines of a file, located and read back one at a time (the last few kept). */
class DiskLines {
  private starts = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  count = 0;
  private readonly recent = new Map<number, string>();

  /** Each line's ending: the document's, set once every line is read (no line is read back as text before). */
  eols = LineEnds.of([]);

  constructor(private readonly fd: number) {}

  add(start: number, bytes: number): void {
    if (this.count === this.starts.length) {
      const starts = new Float64Array(this.count * 2);
      starts.set(this.starts);
      this.starts = starts;
      const lengths = new Uint32Array(this.count * 2);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.starts[this.count] = start;
    this.lengths[this.count++] = bytes;
  }

  /** The length of line `i` in bytes, its line ending's "\r" included. */
  byteLength(i: number): number {
    return this.lengths[i]!;
  }

  /**
   * The bytes read last (from file offset `windowStart`): the checks read lines back mostly in
   * file order (the context Pi resumes runs from the root towards the end), so one read of a
   * window serves the lines after it too, instead of one system call per line.
   */
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;

  /** The buffer the read backs up to a window's size read into: one, reused, so that no read allocates (see `bytes`). */
  private scratch: Buffer | undefined;

  /**
   * The raw bytes of line `i`, its "\r\n"'s "\r" included, valid until the next call (the buffer
   * is reused: 64 KiB buffers allocated per read fragmented the C heap, 80 MB more RSS on a folder).
   */
  bytes(i: number): Buffer {
    const length = this.lengths[i]!;
    const start = this.starts[i]!;
    const offset = start - this.windowStart;
    if (offset >= 0 && offset + length <= this.window.length) return this.window.subarray(offset, offset + length);
    // A short line is read with what follows it, up to a window's size, the larger when the checks
    // read on from the window before (a context walked in file order); a long one alone.
    const window = offset >= 0 && offset <= this.window.length + FIRST_READ_BYTES ? READ_AHEAD_BYTES : FIRST_READ_BYTES;
    const size = Math.max(length, window);
    const buffer = size > READ_AHEAD_BYTES ? Buffer.allocUnsafe(size) : (this.scratch ??= Buffer.allocUnsafe(READ_AHEAD_BYTES));
    let done = 0;
    while (done < size) {
      const n = nodeFs.readSync(this.fd, buffer, done, size - done, start + done);
      if (n === 0) break;
      done += n;
    }
    if (buffer === this.scratch) {
      this.window = buffer.subarray(0, done);
      this.windowStart = start;
    }
    return buffer.subarray(0, Math.min(done, length));
  }

  /** Line `i` as the document holds it: without its line ending. */
  text(i: number): string {
    const cached = this.recent.get(i);
    if (cached !== undefined) return cached;
    if (i >= this.count) return "";
    const raw = this.bytes(i);
    const text = raw.toString("utf8", 0, this.eols.at(i) === "\r\n" ? raw.length - 1 : raw.length);
    // A diagnostic reads its line a few times (the range, the located token): the last lines stay.
    if (this.recent.size >= 32) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(i, text);
    return text;
  }
}

/** `lines` of the document: an array whose elements are read from disk when asked for. */
function linesView(disk: DiskLines): string[] {
  return new Proxy([] as string[], {
    get(target, key, receiver) {
      if (key === "length") return disk.count;
      if (typeof key === "string") {
        const index = Number(key);
        if (Number.isInteger(index) && index >= 0 && key === String(index)) return index < disk.count ? disk.text(index) : undefined;
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** A line that parsed, its facts kept and its text left on disk. */
class StreamedValueLine extends CachedValueLine {
  constructor(
    facts: LineFacts,
    private readonly disk: DiskLines,
    private readonly line: number,
  ) {
    super(facts);
  }

  /**
   * What the value cache counts the line by instead of reading its text back: its length in bytes,
   * which is at least its length in characters (a field less per line than keeping that length).
   */
  get textLength(): number {
    return this.disk.byteLength(this.line);
  }

  /** The JSON text the line was parsed from (line 0 without its byte order mark), read back. */
  get text(): string {
    const text = this.disk.text(this.line);
    return this.line === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/** A line that does not parse, whose error message is made (from the text read back) only when asked for. */
class StreamedMalformedLine implements MalformedLine {
  readonly kind = "malformed";
  private message: string | undefined;

  constructor(
    private readonly disk: DiskLines,
    private readonly line: number,
  ) {}

  get error(): string {
    if (this.message === undefined) {
      const text = this.disk.text(this.line);
      const parsed = parseLine(this.line === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      this.message = parsed.kind === "malformed" ? parsed.error : "";
    }
    return this.message;
  }
}

/** The document with its lines on disk: what it can tell without reading them back. */
class StreamedSessionDocument extends SessionDocument {
  /** The sum of the lines' lengths, counted while they streamed past. */
  private readonly chars = 0;
  /** Whether line 0 starts with a byte order mark, seen as it streamed past (not read back: the first check asks). */
  private readonly bom = false;

  override textLength(): number {
    return this.chars;
  }

  override get hasBom(): boolean {
    return this.bom;
  }

  /**
   * A copy in memory, every line's text read back, that can be edited: the migration Pi runs on a
   * v1 or v2 file is applied to such a copy (`features/migratedView.ts`), so that the streamed
   * check reports what Pi's pipeline does with the migrated entries, as the editor does. Refused
   * for a file larger than `MAX_COPY_CHARS`, which the streamed check exists to keep out of memory.
   */
  override clone(): SessionDocument {
    if (this.chars > MAX_COPY_CHARS) throw new Error(`the file holds ${mib(this.chars)} of text, more than the ${mib(MAX_COPY_CHARS)} copied into memory`);
    const copy = super.clone();
    copy.lines = Array.from({ length: this.lines.length }, (_, i) => this.lines[i]!);
    return copy;
  }
}

/** The most characters of text `StreamedSessionDocument.clone` copies into memory. */
const MAX_COPY_CHARS = 128 * 1024 * 1024;

/** A line longer than the reader decodes (`maxLineBytes`): the streamed check refuses the file, as the in-memory one refuses a file that long. */
export class LineTooLong extends Error {}

export interface StreamedDocument {
  doc: SessionDocument;
  /** Whether the text encodes back to exactly the file's bytes (no invalid UTF-8 was replaced). */
  lossless: boolean;
}

export interface StreamOptions {
  onChunk?: (bytes: number) => void;
  maxLineBytes?: number;
  /**
   * Keep parsed values (`core/line/values.ts`, this many characters) only for the lines in the last as
   * many bytes of the file, where the context Pi resumes usually is, and none before them. A value
   * kept and let go again costs the collector far more than one dropped at once (the cache's values
   * survive into the old generation, and a 50 MB file churned 16 MB of them through it: a fifth
   * of the check's time), and a value the checks want from earlier in the file is parsed again.
   * Without it, the cache's budget in force is used for every line.
   *
   * A long line (`LONG_LINE_BYTES` or more: an image, a tool's output) keeps its value wherever it
   * is, up to `LONG_LINES_CHARS` of them, beyond the tail's budget: its value is a few long strings,
   * which cost the collector little to keep, while parsing it again (reading it back, decoding it)
   * costs as much as the first time. A session of images had its whole 85 MB parsed twice, the
   * checks wanting every line (the context Pi resumes); kept, its check takes a fifth less time,
   * and less memory (the value was made twice, the text decoded twice).
   */
  keepTailChars?: number;
  /** Read the file only up to this byte offset (what was there when a command first looked; default: to its end). */
  end?: number;
}

/** A line at least this long keeps its value before the tail too (see `keepTailChars`). */
const LONG_LINE_BYTES = 8 * 1024;
/** The most characters of long lines that keep their values before the tail, so that memory stays bounded. */
const LONG_LINES_CHARS = 128_000_000;

/**
 * Reads the session open at `fd` (UTF-8, as Pi reads it) into a document that keeps no line text.
 * The descriptor must stay open while the document is used: lines are read back through it.
 */
export function readStreamedDocument(fd: number, uri: string, options: StreamOptions = {}): StreamedDocument {
  const eols: string[] = [];
  const parsed: ParsedLine[] = [];
  const disk = new DiskLines(fd);
  // Only lines holding a lone "\r" matter to the position map; every other line counts as "".
  const crLines: string[] = [];
  let lossless = true;
  let chars = 0;
  let bom = false;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const keep = options.keepTailChars;
  // Bytes are at least as many as the characters they decode to: the tail's values fit the budget.
  let tailStart = keep === undefined ? 0 : Math.max(0, (options.end ?? nodeFs.fstatSync(fd).size) - keep);
  // The characters of the long lines kept before the tail, which the budget holds besides the tail's.
  let longChars = 0;
  if (keep !== undefined) setValueBudget(tailStart > 0 ? 0 : keep);
  // The record of a line that parses is made by the parse itself, for the line being read.
  let current = 0;
  const streamedLine = (_text: string, facts: LineFacts) => new StreamedValueLine(facts, disk, current);
  const result = readLinesSync(
    fd,
    (raw, meta) => {
      if (raw === undefined)
        throw new LineTooLong(`line ${meta.line + 1} is ${mib(meta.bytes)}, more than the ${mib(maxLineBytes)} this tool reads in one line`);
      const crlf = meta.newline && raw.charCodeAt(raw.length - 1) === 13;
      const text = crlf ? raw.slice(0, -1) : raw;
      const line = meta.line;
      if (tailStart > 0 && meta.start >= tailStart) {
        setValueBudget(keep! + longChars);
        tailStart = 0;
      }
      chars += text.length;
      eols.push(meta.newline ? (crlf ? "\r\n" : "\n") : "");
      disk.add(meta.start, meta.bytes);
      crLines.push(text.includes("\r") ? text : "");
      // Decoding replaced invalid UTF-8 with U+FFFD only if the bytes differ from the text's.
      if (lossless && raw.includes("\uFFFD")) lossless = Buffer.from(raw, "utf8").equals(disk.bytes(line));
      if (line === 0) bom = text.charCodeAt(0) === 0xfeff;
      const json = bom && line === 0 ? text.slice(1) : text;
      current = line;
      let p: ParsedLine;
      if (tailStart === 0) {
        p = parseLineWith(json, streamedLine);
      } else if (meta.bytes >= LONG_LINE_BYTES && longChars + meta.bytes <= LONG_LINES_CHARS) {
        longChars += meta.bytes;
        setValueBudget(longChars);
        p = parseLineWith(json, streamedLine);
      } else {
        // Before the tail the budget keeps no other value: none is filed in the cache only to be let go.
        p = parseWithoutKeeping(Number.POSITIVE_INFINITY, () => parseLineWith(json, streamedLine));
      }
      if (p.kind === "malformed") {
        // A message made already is kept; one made lazily would need the text, which is read back instead.
        parsed.push(Object.hasOwn(p, "error") ? p : new StreamedMalformedLine(disk, line));
      } else {
        parsed.push(p);
      }
    },
    { onChunk: options.onChunk, maxLineBytes, ...(options.end === undefined ? {} : { end: options.end }) },
  );
  // The document's last line is the piece after the last "\n" (empty for a file that ends with one).
  if (result.endsWithNewline || result.lines === 0) {
    eols.push("");
    disk.add(result.bytes, 0);
    crLines.push("");
    parsed.push(parseLine(""));
  }
  // One byte a line, shared by the document and its lines on disk; the strings read as they streamed go.
  disk.eols = LineEnds.of(eols);
  const doc = Object.create(StreamedSessionDocument.prototype) as StreamedSessionDocument;
  // The fields `SessionDocument`'s constructor sets, from the stream instead of one text.
  Object.assign(doc, {
    uri,
    languageId: "jsonl",
    version: 0,
    lines: linesView(disk),
    eols: disk.eols,
    parsed,
    positions: PositionMap.of(crLines),
    analysisCache: undefined,
    previousAnalysis: undefined,
    editedLines: new Map(),
    chars,
    bom,
  });
  return { doc, lossless };
}
