/**
 * Reading a file line by line in bounded memory, for session files of any size.
 *
 * Node cannot hold a 1 GB session in one string (V8 stops at 512 MiB), and should not hold it in
 * memory at all. This reader does what Pi 1.x's `loadEntriesFromFile` does, without its one
 * growing string: it reads 1 MiB chunks, splits them on "\n" bytes and decodes each line alone as
 * UTF-8 (the same text: "\n" never occurs inside a multi-byte sequence, and a broken sequence
 * decodes to the same U+FFFD either way). Memory is one chunk plus the longest line, and a line
 * longer than `maxLineBytes` is not decoded at all: the callback gets its place and length with no
 * text, so a reader can say what it skipped instead of running out of memory.
 *
 * Both a synchronous reader (for worker threads and the command line, where blocking one thread is
 * the point) and an asynchronous one (for the server's main thread) share the splitting.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import type * as FsPromises from "node:fs/promises";

/**
 * Opening flags for a file from a folder nobody vetted: a FIFO named `x.jsonl` does not block the
 * open (`O_NONBLOCK`), and a terminal does not become the controlling one (`O_NOCTTY`).
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Thrown for a path that is not a regular file (a FIFO would block, `/dev/zero` never ends). */
export class NotRegularFile extends Error {
  readonly code = "ENOTREG";
}

/** What kind of file a stat describes, in words, for notes on what was skipped. */
export function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isDirectory()) return "a folder";
  if (stat.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

function assertRegular(stat: Stats): void {
  if (!stat.isFile()) throw new NotRegularFile(`it is ${kindOf(stat)}, not a regular file`);
}

/** Opens `path` for reading without blocking, refusing anything but a regular file. */
export function openRegularSync(path: string): number {
  return openRegularWithStatsSync(path).fd;
}

/** `openRegularSync`, with the stats it read of the descriptor (its size and time, for a caller that would stat the path again). */
export function openRegularWithStatsSync(path: string): { fd: number; stats: Stats } {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    assertRegular(stats);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Pi 1.x's read size (`SESSION_READ_BUFFER_SIZE`). */
export const CHUNK_BYTES = 1024 * 1024;
/** Longest line decoded by default. Real lines reach tens of MB (tool output, images); V8's strings stop at 512 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

export interface LineMeta {
  /** 0-based line number (lines end at "\n"). */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  start: number;
  /** The line's length in bytes, without its "\n". */
  bytes: number;
  /** Whether a "\n" ends the line (false only for a last line without one). */
  newline: boolean;
}

/** Called once per line; `text` is undefined for a line over the limit. Returning `false` stops the read. */
export type OnLine = (text: string | undefined, meta: LineMeta) => unknown;

export interface ReadOptions {
  chunkBytes?: number;
  maxLineBytes?: number;
  /** Byte offset to start at (default 0); the first line is taken to start there. */
  start?: number;
  /** Byte offset to stop before (default: the end of the file). */
  end?: number;
  /** Called after each chunk with the number of bytes it held. */
  onChunk?: (bytes: number) => void;
  /** Called with each chunk's bytes before its lines are given (valid only during the call): a hash of what was read. */
  onBytes?: (bytes: Buffer) => void;
}

export interface ReadResult {
  /** Bytes read. */
  bytes: number;
  lines: number;
  /** Whether the last byte read was "\n" (and so no line is unterminated). */
  endsWithNewline: boolean;
  /** Whether the callback stopped the read early. */
  stopped: boolean;
  /** Lines longer than the limit, reported without text. */
  longLines: number;
}

/** Splits chunks into lines; holds the unfinished line's bytes, up to the limit. */
class LineAssembler {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private lineStart: number;
  private lineNo = 0;
  private lastByteNewline = false;
  longLines = 0;

  constructor(
    private readonly onLine: OnLine,
    private readonly maxLineBytes: number,
    start: number,
  ) {
    this.lineStart = start;
  }

  get lines(): number {
    return this.lineNo;
  }

  get endsWithNewline(): boolean {
    return this.lastByteNewline;
  }

  /** Takes one chunk (which the caller may reuse afterwards); false when the callback asked to stop. */
  push(chunk: Buffer): boolean {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      if (nl < 0) {
        this.hold(chunk, pos, chunk.length);
        this.lastByteNewline = false;
        return true;
      }
      const stop = this.emit(chunk, pos, nl, true) === false;
      pos = nl + 1;
      this.lastByteNewline = true;
      if (stop) return false;
    }
    return true;
  }

  /** The last line, when the input did not end with "\n". */
  end(): void {
    if (this.partBytes > 0) this.emit(Buffer.alloc(0), 0, 0, false);
  }

  private hold(chunk: Buffer, from: number, to: number): void {
    const length = to - from;
    if (length === 0) return;
    if (this.partBytes + length > this.maxLineBytes) {
      // Too long to decode: keep counting its bytes, drop them.
      this.parts = [];
    } else {
      this.parts.push(Buffer.from(chunk.subarray(from, to)));
    }
    this.partBytes += length;
  }

  private emit(chunk: Buffer, from: number, to: number, newline: boolean): unknown {
    const bytes = this.partBytes + (to - from);
    let text: string | undefined;
    if (bytes > this.maxLineBytes) {
      this.longLines++;
    } else if (this.parts.length === 0) {
      text = chunk.toString("utf8", from, to);
    } else {
      this.parts.push(chunk.subarray(from, to));
      text = Buffer.concat(this.parts, bytes).toString("utf8");
    }
    const meta: LineMeta = { line: this.lineNo++, start: this.lineStart, bytes, newline };
    this.lineStart += bytes + (newline ? 1 : 0);
    this.parts = [];
    this.partBytes = 0;
    return this.onLine(text, meta);
  }
}

function settings(options: ReadOptions) {
  return {
    chunk: Math.max(1, options.chunkBytes ?? CHUNK_BYTES),
    max: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    start: options.start ?? 0,
    end: options.end ?? Number.POSITIVE_INFINITY,
  };
}

/** A read the loop asks for: `length` bytes at `position` into `buffer`; the answer is the bytes read. */
interface ReadRequest {
  buffer: Buffer;
  length: number;
  position: number;
}

/**
 * The read loop both readers share, as a generator that asks for each chunk and is told how many
 * bytes came: the synchronous reader answers with `readSync`, the asynchronous one with an awaited
 * read, and the loop itself (chunking, stopping, the last line) is written once.
 */
function* readLoop(onLine: OnLine, options: ReadOptions, beforeRead?: () => void): Generator<ReadRequest, ReadResult, number> {
  const { chunk, max, start, end } = settings(options);
  const assembler = new LineAssembler(onLine, max, start);
  const buffer = Buffer.allocUnsafe(chunk);
  let pos = start;
  let stopped = false;
  while (pos < end) {
    beforeRead?.();
    const n = yield { buffer, length: Math.min(chunk, end - pos), position: pos };
    if (n === 0) break;
    pos += n;
    options.onChunk?.(n);
    options.onBytes?.(buffer.subarray(0, n));
    if (!assembler.push(buffer.subarray(0, n))) {
      stopped = true;
      break;
    }
  }
  if (!stopped) assembler.end();
  return { bytes: pos - start, lines: assembler.lines, endsWithNewline: assembler.endsWithNewline, stopped, longLines: assembler.longLines };
}

/**
 * Reads `path` line by line, synchronously. Throws what `open` or `read` throw. Given a descriptor
 * instead (a file the caller opened and checked), it reads through it and leaves it open.
 */
export function readLinesSync(path: string | number, onLine: OnLine, options: ReadOptions = {}): ReadResult {
  const loop = readLoop(onLine, options);
  const fd = typeof path === "number" ? path : openRegularSync(path);
  try {
    for (let step = loop.next(); ; ) {
      if (step.done) return step.value;
      const { buffer, length, position } = step.value;
      step = loop.next(readSync(fd, buffer, 0, length, position));
    }
  } finally {
    if (typeof path !== "number") closeSync(fd);
  }
}

/** Reads `path` line by line without blocking the event loop between chunks. */
export async function readLines(path: string, onLine: OnLine, options: ReadOptions & { signal?: AbortSignal } = {}): Promise<ReadResult> {
  const loop = readLoop(onLine, options, () => options.signal?.throwIfAborted());
  // Node's promise-based file module is loaded by the first read that needs it, not by the
  // synchronous reads (`check FILE`) that load this module too.
  const { open } = require("node:fs/promises") as typeof FsPromises;
  const handle = await open(path, OPEN_FLAGS);
  try {
    assertRegular(await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  try {
    for (let step = loop.next(); ; ) {
      if (step.done) return step.value;
      const { buffer, length, position } = step.value;
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      step = loop.next(bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Random access to lines already located by a read (`LineMeta.start` and `bytes`), for a second pass that needs only a few of them. */
export class LineFile {
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openRegularSync(path);
  }

  /** The text of the line at `start`, `bytes` long; undefined when it is longer than `maxBytes`. */
  text(start: number, bytes: number, maxBytes = DEFAULT_MAX_LINE_BYTES): string | undefined {
    if (bytes > maxBytes) return undefined;
    const buffer = Buffer.allocUnsafe(bytes);
    let done = 0;
    while (done < bytes) {
      const n = readSync(this.fd, buffer, done, bytes - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return buffer.toString("utf8", 0, done);
  }

  close(): void {
    closeSync(this.fd);
  }
}
