/**
 * Parsing a large document's lines on a worker thread while its text still arrives: the first open
 * of a 45 MB session spends most of its time decoding the message and then parsing 50,000 lines,
 * both on the main thread. The reader (`lsp/streamedBody.ts`) offers the lines it has decoded; they
 * go to a worker (`parseWorker.ts`) in batches, which parses them with the same `parseLine` and
 * sends back their facts, packed (`core/line/packed.ts`). When the document is made, `take` claims
 * the batches the worker has not started and parses them here, from the end, with the lines it was
 * never sent (a line too long to send, the lines it was too far behind to take), waits for the ones
 * the worker is on, and unpacks the rest; the worker is then terminated, so its memory goes.
 *
 * The parses are exactly `parseLine`'s: a batch is parsed by one thread or the other, both by the
 * same code, and anything amiss (no compiled worker, a worker that failed or stopped answering, a
 * batch that does not fit the document's lines) makes `take` answer undefined, and the document
 * parses its lines itself. The worker keeps no values; the document uses it only for a text whose
 * values it would not keep either (`values.ts`'s `keepsValues`).
 */

import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { LineParses } from "../core/line/packed";
import { unpackLines } from "../core/line/packed";
import type { ParsedLine } from "../core/line/facts";
import { processCores } from "./cpuQuota";
import { statedFreeCores } from "./freeCores";
import { CLAIMED_HERE, type LineBatch, type PackedReply, type WorkerSetup } from "./parseProtocol";

export const PARSE_WORKER = join(__dirname, "parseWorker.js");

/**
 * A batch is sent once it has this many lines or characters, and a line longer than the characters
 * is parsed here instead, never sent. A batch travels as one buffer that the structured clone
 * `malloc`s (two bytes a character at most, grown by doubling) and the receiving thread frees: a
 * buffer of glibc's mmap threshold (128 KB by default) or more is mapped, and its free raises that
 * threshold to its size for the rest of the process, after which the heap keeps every freed block
 * below it. Below a quarter of the threshold, a batch's buffer never reaches it. With this, the
 * bounded batches in flight (`trySend`) and the replies taken as they come (`receive`), the server
 * over stdio on the 45 MB session kept 125-126 MB when idle after the open and 70 MB after the
 * close, against 151 and 93 MB with batches of a megabyte and 123 and 67-68 MB without the worker.
 */
const BATCH_LINES = 256;
const BATCH_CHARS = 28_000;
/** How long `take` waits for the worker without a reply before it parses everything here. */
const WAIT_MS = 3000;

/**
 * Whether the server's first open parses its lines on a worker: only when asked for, with
 * `$PI_SESSION_LSP_THREADS` 2 or more (set explicitly), and a core is free for it. Not by default:
 * in-process, the message read at the pace it arrives, the worker took a quarter of the main
 * thread's CPU off the 45 MB open (370-390 against 490-500 ms), but over stdio the main thread's
 * CPU from the `didOpen` to the first answer did not drop (520-530 ms either way: posting the lines,
 * taking the replies and unpacking them cost what the parse saved) and the process spent 0.4 s more.
 * On a machine whose other work already keeps its cores busy (the last minute's load average within
 * half a core of their number, unless `$PI_SESSION_LSP_FREE_CORES` says how many are free) a worker
 * takes the main thread's CPU instead of an idle core's, and the open measured slower (the 178 MB
 * open on a 2-core machine at load 8: 18.0 s against 14.5 s without; the 45 MB open at load 3-5:
 * first answer 1.64 s against 1.47 s), so the lines are then parsed on the main thread.
 */
export function parsePoolWanted(env: NodeJS.ProcessEnv, cores: number, load: number): boolean {
  const asked = Number(env.PI_SESSION_LSP_THREADS);
  if (!Number.isInteger(asked) || asked < 2) return false;
  if (cores < 2) return false;
  const stated = statedFreeCores(env);
  if (stated >= 0) return stated >= 1;
  return load <= cores - 0.5;
}

/** A pool for the server's first open when `parsePoolWanted`, else undefined. */
export function startParsePool(env: NodeJS.ProcessEnv = process.env): LineParsePool | undefined {
  // The cores a CPU quota leaves (`cpuQuota.ts`): the load average is the whole machine's.
  return parsePoolWanted(env, processCores(), loadavg()[0]!) ? LineParsePool.start() : undefined;
}

interface Batch {
  first: number;
  count: number;
  /** The batch's flag in `claims`, or undefined for a batch never sent (a line too long to send). */
  claims: Int32Array | undefined;
  slot: number;
}

/** Claim flags are shared in blocks of this many (one `SharedArrayBuffer` each, not one per batch). */
const CLAIMS_PER_BLOCK = 1024;
/** The most batches sent to the worker and not answered yet (see `trySend`). */
const IN_FLIGHT = 32;

export class LineParsePool implements LineParses {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private readonly batches: Batch[] = [];
  private claims = new Int32Array(new SharedArrayBuffer(0));
  private claimsUsed = 0;
  /** Batches sent to the worker, and its replies taken off the port so far. */
  private posted = 0;
  private readonly replies: PackedReply[] = [];
  /** Lines sent so far, and of the lines after them the ones counted toward the next batch. */
  private sent = 0;
  private counted = 0;
  private countedChars = 0;
  private failed = false;
  private closed = false;
  /** How many of the lines `take` answered were parsed by the worker (for tests and the benchmark). */
  linesFromWorker = 0;

  /**
   * Whether the worker has answered every batch sent so far: a test that is about the worker's
   * parses waits for this, where a busy machine could leave the worker behind and `take` would
   * rightly parse the lines here instead.
   */
  get answeredAll(): boolean {
    return Atomics.load(this.done, 0) >= this.posted;
  }

  /** A pool on the compiled worker `script`, or undefined without one. */
  static start(script: string = PARSE_WORKER): LineParsePool | undefined {
    if (!existsSync(script)) return undefined;
    try {
      return new LineParsePool(script);
    } catch {
      return undefined;
    }
  }

  private constructor(script: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(script, { workerData: { port: port2, done: this.done } satisfies WorkerSetup & { port: MessagePort }, transferList: [port2] });
    // Neither keeps the process alive: a pool nobody takes goes with it.
    this.worker.unref();
    this.port.unref();
    this.worker.on("error", () => {
      this.failed = true;
    });
    this.worker.on("exit", () => {
      this.failed = true;
    });
  }

  /**
   * Sends the lines of `pieces` (the text's pieces between line breaks so far) not sent yet, as far
   * as the worker keeps up; with `last` (the text is complete), the ones it has no room for are left
   * to `take` to parse here.
   */
  offer(pieces: readonly string[], last: boolean): void {
    if (this.closed || this.failed) return;
    this.receive();
    while (this.counted < pieces.length) {
      const length = pieces[this.counted]!.length;
      const full = this.counted - this.sent >= BATCH_LINES || this.countedChars + length > BATCH_CHARS;
      if (full && this.counted > this.sent && !this.trySend(pieces)) break;
      if (length > BATCH_CHARS) {
        // Too long to send without a mapped buffer: it is parsed here.
        this.batches.push({ first: this.counted, count: 1, claims: undefined, slot: 0 });
        this.sent = ++this.counted;
        continue;
      }
      this.countedChars += length;
      this.counted++;
    }
    if (!last) return;
    if (this.counted === pieces.length && this.counted > this.sent) this.trySend(pieces);
    if (this.sent < pieces.length) this.batches.push({ first: this.sent, count: pieces.length - this.sent, claims: undefined, slot: 0 });
    this.sent = this.counted = pieces.length;
  }

  /**
   * Takes the worker's replies so far off the port: each one's buffer was allocated on the worker's
   * thread, and freeing it at once lets the next reply reuse it, where replies held until `take`
   * (a few megabytes) grew the worker's heap, which glibc keeps after the thread ends.
   */
  private receive(): void {
    for (let reply = receiveMessageOnPort(this.port); reply; reply = receiveMessageOnPort(this.port)) this.replies.push(reply.message as PackedReply);
  }

  /**
   * Sends the counted lines when the worker has fewer than `IN_FLIGHT` batches to parse: the
   * batches waiting for it hold buffers of this thread's heap, which a worker left behind would
   * otherwise grow by as many as it is behind (freed later, the heap keeps them).
   */
  private trySend(pieces: readonly string[]): boolean {
    if (this.posted - Atomics.load(this.done, 0) >= IN_FLIGHT) return false;
    if (this.claimsUsed === this.claims.length) {
      this.claims = new Int32Array(new SharedArrayBuffer(4 * CLAIMS_PER_BLOCK));
      this.claimsUsed = 0;
    }
    const batch: Batch = { first: this.sent, count: this.counted - this.sent, claims: this.claims, slot: this.claimsUsed++ };
    this.batches.push(batch);
    this.posted++;
    try {
      this.worker.postMessage({
        first: batch.first,
        pieces: pieces.slice(this.sent, this.counted),
        claims: batch.claims!,
        slot: batch.slot,
      } satisfies LineBatch);
    } catch {
      this.failed = true;
    }
    this.sent = this.counted;
    this.countedChars = 0;
    return true;
  }

  take(lines: readonly string[], parseHere: (text: string, line: number) => ParsedLine): ParsedLine[] | undefined {
    try {
      return this.collect(lines, parseHere);
    } finally {
      this.dispose();
    }
  }

  private collect(lines: readonly string[], parseHere: (text: string, line: number) => ParsedLine): ParsedLine[] | undefined {
    if (this.closed || this.failed || this.sent !== lines.length) return undefined;
    const parsed = new Array<ParsedLine>(lines.length);
    // From the end, one batch at a time, so that the worker goes on with its own meanwhile.
    let theirs = 0;
    for (let b = this.batches.length - 1; b >= 0; b--) {
      const batch = this.batches[b]!;
      if (batch.claims && Atomics.compareExchange(batch.claims, batch.slot, 0, CLAIMED_HERE) !== 0) {
        theirs++;
        continue;
      }
      for (let i = batch.first; i < batch.first + batch.count; i++) parsed[i] = parseHere(lines[i]!, i);
    }
    let received = 0;
    let waitedSince = performance.now();
    while (received < theirs) {
      if (received === this.replies.length) this.receive();
      const reply = this.replies[received];
      if (reply) {
        if (!reply.packed) return undefined;
        if (!unpackLines(reply.packed, lines, reply.first, parsed)) return undefined;
        this.linesFromWorker += reply.packed.count;
        received++;
        waitedSince = performance.now();
        continue;
      }
      const left = WAIT_MS - (performance.now() - waitedSince);
      if (left <= 0) return undefined;
      const replied = Atomics.load(this.done, 0);
      // A reply counted but not in the port yet is about to be: look again.
      if (replied <= received) Atomics.wait(this.done, 0, replied, left);
    }
    // The first line may start with a byte order mark and the last one keep a "\r": both are
    // parsed here, as the document parses them.
    parsed[0] = parseHere(lines[0]!, 0);
    parsed[lines.length - 1] = parseHere(lines[lines.length - 1]!, lines.length - 1);
    for (let i = 0; i < parsed.length; i++) if (parsed[i] === undefined) return undefined;
    return parsed;
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.close();
    void this.worker.terminate();
  }
}
