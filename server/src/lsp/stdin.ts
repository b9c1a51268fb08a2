/**
 * Standard input read into memory that the C library gives back to the system once it is free
 * (and large answers to the client encoded into such memory too, `encodeMessage`).
 *
 * Node reads a pipe 64 KiB at a time, each read into a buffer of its own that `malloc` places in the
 * process's main heap. Small messages come and go, and their buffers are reused; but a large
 * `didOpen` is held whole until its last byte is in (`StreamedBody` keeps its chunks), so a 45 MB
 * open grew the heap by 50 MB of 64 KiB buffers, and glibc gives back only the free memory at the
 * top of its heap: whatever small allocation landed above them kept all of it. Measured over stdio
 * on the 45 MB session (`bench/run.mjs`): 53 MB of heap with 3 MB in use after the close, the whole
 * of what the server kept above its idle RSS (`malloc_trim`, called from a debugger, gave it back).
 *
 * So the pipe is read here instead, into one buffer that is reused for every read, and each read is
 * copied out: a small one into a buffer of its own, as before (it is let go at once); a large one
 * into a slab larger than the largest request glibc ever serves from its heap (32 MiB), which
 * `malloc` therefore maps on its own and `free` unmaps, whatever came before, and it starts a
 * burst, whose later reads are copied into the slab too, until input pauses; but a read started
 * while the message still misses a whole read's worth goes straight into the slab's free part
 * (`onread` asks `readTarget` for the memory of each read), which saves copying most of a 45 MB
 * `didOpen` once more.
 * Only the pages written are ever resident; a slab is given back when the last chunk read into it
 * is collected. Measured the same way: 6 MB of heap after the close, and the server 8 MB above its
 * idle RSS (0.18× the file) instead of 55 MB.
 */

import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import { Readable } from "node:stream";
import { type AnswerPart, EncodedAnswer } from "./encodedAnswer";

/** How many bytes one read may take. */
export const READ_BYTES = 256 * 1024;
/** The size of a slab: above glibc's largest `mmap` threshold (32 MiB on 64-bit), so always mapped on its own. */
export const SLAB_BYTES = 33 * 1024 * 1024;
/** A read of at least this many bytes starts a burst. */
export const BURST_READ_BYTES = 16 * 1024;
/** A burst ends when no byte arrived for this long; the next one starts a new slab. */
export const BURST_IDLE_MS = 500;

/**
 * Where successive reads go and what they become: during a burst, while the message still misses a
 * whole read's worth, a read lands in a slab's free part and is handed on as a view of it;
 * otherwise it lands in the one reused buffer and is copied out (into the burst's slab, or into a
 * slab when it is large enough to start a burst, else into a buffer of its own).
 */
export class ReadCopies {
  private slab: Buffer | undefined;
  private used = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** How many slabs were made (for tests). */
  slabsMade = 0;

  private readonly slabBytes: number;
  private readonly idleMs: number;
  private readonly reused: Buffer;
  private readonly missing: () => number;

  /**
   * `missing`: how many bytes of the message being read are still to come (the message reader
   * knows; without it every read is copied). `slabBytes`, `idleMs` and `reused` are smaller in tests.
   */
  constructor(options: { slabBytes?: number; idleMs?: number; reused?: Buffer; missing?: () => number } = {}) {
    this.slabBytes = options.slabBytes ?? SLAB_BYTES;
    this.idleMs = options.idleMs ?? BURST_IDLE_MS;
    this.reused = options.reused ?? Buffer.allocUnsafeSlow(READ_BYTES);
    this.missing = options.missing ?? (() => 0);
  }

  /**
   * The memory the next read goes into: the slab's free part during a burst while the message
   * still misses a whole read's worth (a new slab when less than a read is left), else the reused
   * buffer. Node holds the memory it was given until that read arrives, which may be long after
   * the burst: memory from a slab would keep the slab, and every page written into it, until the
   * client sends again; a read that only the message's own bytes can fill is over when it is.
   * It never throws (Node would then keep reading into the memory of the last chunk): a slab that
   * cannot be had leaves the read to the reused buffer.
   */
  readTarget(): Buffer {
    if (!this.slab || this.missing() < this.reused.length) return this.reused;
    if (this.slab.length - this.used < this.reused.length) {
      try {
        this.newSlab(this.reused.length);
      } catch {
        return this.reused;
      }
    }
    const slab = this.slab as Buffer;
    return slab.subarray(this.used, this.used + this.reused.length);
  }

  /**
   * What a read of `length` bytes into `target` (a buffer `readTarget` gave) becomes: a view of
   * the slab it landed in, which no later read overwrites, or a copy of the reused buffer's bytes.
   */
  take(target: Uint8Array, length: number): Buffer {
    if (target.buffer === this.reused.buffer) return this.copy(target.subarray(0, length));
    const view = Buffer.from(target.buffer, target.byteOffset, length);
    // A read into the current slab's free part moves its start on; a read into a slab let go
    // meanwhile (the burst ended while that read was pending) is a view of memory nobody reuses.
    if (this.slab && target.buffer === this.slab.buffer && target.byteOffset === this.slab.byteOffset + this.used) {
      this.used += length;
      this.endBurstWhenIdle();
    }
    return view;
  }

  /** A copy of `bytes` that owns its memory (a view of a slab during a burst). */
  copy(bytes: Uint8Array): Buffer {
    if (!this.slab && bytes.length < BURST_READ_BYTES) return Buffer.from(bytes);
    if (!this.slab || this.used + bytes.length > this.slab.length) this.newSlab(bytes.length);
    const slab = this.slab as Buffer;
    const start = this.used;
    slab.set(bytes, start);
    this.used += bytes.length;
    this.endBurstWhenIdle();
    return slab.subarray(start, this.used);
  }

  private newSlab(atLeast: number): void {
    this.slab = mappedBuffer(atLeast, this.slabBytes);
    this.used = 0;
    this.slabsMade++;
  }

  /** Whether a burst's slab is being filled (for tests). */
  get inBurst(): boolean {
    return this.slab !== undefined;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.slab = undefined;
  }

  /**
   * Lets the slab go once input pauses: it is then freed with the last chunk read into it, and
   * the pages written into it with it (a slab kept for the next burst would keep them).
   */
  private endBurstWhenIdle(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.slab = undefined;
    }, this.idleMs);
    this.timer.unref?.();
  }
}

/**
 * A buffer of at least `bytes` bytes that glibc maps on its own (at least `SLAB_BYTES`, above its
 * largest `mmap` threshold) and unmaps when it is freed; only the pages written become resident.
 */
export function mappedBuffer(bytes: number, slabBytes = SLAB_BYTES): Buffer {
  return Buffer.allocUnsafeSlow(Math.max(slabBytes, bytes));
}

/**
 * The most UTF-8 bytes one UTF-16 code unit of a string becomes: 3 (a character of the Basic
 * Multilingual Plane, or a lone surrogate, written as U+FFFD); a surrogate pair, two units, is 4.
 */
export const MAX_UTF8_BYTES_PER_CHAR = 3;

/**
 * A message at least this long (in characters of JSON) is encoded into a mapped buffer
 * (`encodeMessage`): any shorter one is under 128 KiB of UTF-8, glibc's smallest `mmap` threshold,
 * which only a block of that size or more can raise (`core/base/entryArrays.ts` says why that matters).
 */
export const MAPPED_MESSAGE_CHARS = Math.floor((128 * 1024 - 1) / MAX_UTF8_BYTES_PER_CHAR);

/**
 * The UTF-8 bytes of a message to the client, as the library encodes them (`JSON.stringify`), a
 * large one in a buffer of `mappedBuffer`'s: the library's `Buffer.from` of a 12 MB answer
 * (`piSession/buildContext` at stage provider) is served from glibc's heap once a first one was
 * freed (glibc then raises its threshold to that size), and a few of them left the heap 11 MB
 * larger after the close. Answers of 128 KB to 1 MB did the same: 18 of them, 5.8 MB, in the bench's
 * run on the 43 MB session.
 *
 * The mapped buffer is made large enough for any string of that length (`MAX_UTF8_BYTES_PER_CHAR`)
 * instead of exactly as large as its UTF-8: counting the bytes first walks the whole string once
 * more (4 ms of the 7 MB context's answer, 8 ms of the provider stage's 14 MB, up to 15 ms on the
 * busy machine), and only the pages written ever become resident.
 */
export function encodeMessage(message: unknown): Buffer {
  const parts = messageParts(message);
  let chars = 0;
  let capacity = 0;
  for (const part of parts) {
    chars += part.length;
    capacity += typeof part === "string" ? part.length * MAX_UTF8_BYTES_PER_CHAR : part.length;
  }
  if (chars < MAPPED_MESSAGE_CHARS && parts.every((part) => typeof part === "string"))
    return Buffer.from(parts.length === 1 ? parts[0]! : parts.join(""), "utf8");
  const buffer = chars < MAPPED_MESSAGE_CHARS ? Buffer.allocUnsafe(capacity) : messageMemory(capacity);
  // `encodeInto` per part: `Buffer.write` checks its arguments in JavaScript on every call, which
  // took 3 times as long over the 20,000 parts of the 7 MB context's answer. A part kept as bytes
  // (`keptJson.ts`) is copied.
  let bytes = 0;
  for (const part of parts) {
    if (typeof part === "string") bytes += utf8.encodeInto(part, buffer.subarray(bytes)).written;
    else {
      buffer.set(part, bytes);
      bytes += part.length;
    }
  }
  return buffer.subarray(0, bytes);
}

const utf8 = new TextEncoder();

/** The mapped buffer of the last large message, which the next one reuses (`messageMemory`). */
let lastMessageMemory: Buffer | undefined;

/**
 * A mapped buffer for a large message: the last one's when it is large enough. Writing 7 MB into
 * fresh pages cost 4 ms of the context's answer on this machine (8 ms at stage provider), more than
 * copying its kept bytes (`keptJson.ts`); the pages of a buffer written before cost nothing. It is
 * free again by then: the library's writer asks for a message's bytes only while it holds its write
 * lock, which it takes back from the previous message once that one's write has called back, that
 * is once its bytes are out of the process (`test/protocol/stdin.test.ts` holds it to that); and
 * nothing else writes to standard output meanwhile, which `writableLength` checks.
 */
function messageMemory(capacity: number): Buffer {
  if (lastMessageMemory && lastMessageMemory.length >= capacity && process.stdout.writableLength === 0) return lastMessageMemory;
  lastMessageMemory = mappedBuffer(capacity);
  return lastMessageMemory;
}

/** Lets the last large message's memory go (an idle server), so that its pages are given back. */
export function forgetMessageMemory(): void {
  lastMessageMemory = undefined;
}

/**
 * `JSON.stringify(message)`, in parts: a response whose result is an `EncodedAnswer` is written with
 * that answer's parts, made ahead (the library's response has exactly these members, in this order).
 */
function messageParts(message: unknown): readonly AnswerPart[] {
  const response = message as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  const { jsonrpc, id, result } = response;
  if (result instanceof EncodedAnswer && typeof jsonrpc === "string" && (typeof id === "number" || typeof id === "string")) {
    if (Object.keys(response).join(",") === "jsonrpc,id,result")
      return [`{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)},"result":`, ...result.parts, "}"];
  }
  return [JSON.stringify(message, undefined, 0)];
}

/**
 * Standard input as a stream of chunks that own their memory: read through `ReadCopies` when it is
 * a pipe or a socket (as editors start servers), else `process.stdin` itself (a file, a terminal).
 * `missing` says how many bytes of the message being read are still to come (the reader of the
 * stream, which gets each chunk before the next read is asked for).
 */
export function standardInput(missing: () => number = () => 0): Readable {
  let stream = false;
  try {
    const stat = fstatSync(0);
    stream = stat.isFIFO() || stat.isSocket();
  } catch {
    // An unreadable descriptor is left to process.stdin, which reports it as it always did.
  }
  if (!stream) return process.stdin;
  const copies = new ReadCopies({ missing });
  const input = new Readable({ read() {} });
  // `onread` (Node reads into the caller's buffer) is missing from @types/node's constructor
  // options. Its `buffer`, given as a function, is asked for the memory of every read.
  const options = {
    fd: 0,
    readable: true,
    writable: false,
    onread: {
      // Node asks for the next read's memory only when the callback returns, and uses it only when
      // nothing threw meanwhile (not even a `process.nextTick` callback, which runs before Node's
      // call returns): otherwise the next read lands in the memory of the chunk just handed on. So
      // a reader that throws has its error thrown again later, from `setImmediate`.
      buffer: () => copies.readTarget(),
      callback: (length: number, buffer: Uint8Array) => {
        try {
          input.push(copies.take(buffer, length));
        } catch (error) {
          setImmediate(() => {
            throw error;
          });
        }
        return true;
      },
    },
  };
  let socket: Socket;
  try {
    socket = new Socket(options as ConstructorParameters<typeof Socket>[0]);
  } catch {
    // A descriptor Node cannot read as a stream this way is read the usual way.
    return process.stdin;
  }
  socket.on("end", () => input.push(null));
  socket.on("error", (error) => input.destroy(error));
  socket.on("close", () => {
    copies.dispose();
    input.destroy();
  });
  // Flowing, so that the end of input is reported (the bytes themselves go to `onread`).
  socket.resume();
  return input;
}
