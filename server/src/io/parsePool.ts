/**
 * Parsing a large document's lines on a worker thread while its text still arrives: the first open
 * of a 45 MB session spends most of its time decoding the message and then parsing 50,000 lines,
 * both on the main thread. The reader (`lsp/streamedBody.ts`) offers the lines it has decoded; they
 * go to a worker (`parseWorker.ts`) in batches, which parses them with the same `parseLine` and
 * sends back their facts, packed (`core/line/packed.ts`). When the document is made, `take` claims
 * the batches the worker has not started and parses them here, from the end, waits for the ones the
 * worker is on, and unpacks the rest; the worker is then terminated, so its memory goes.
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
import { CLAIMED_HERE, type LineBatch, type PackedReply, type WorkerSetup } from "./parseProtocol";

export const PARSE_WORKER = join(__dirname, "parseWorker.js");

/** A batch is sent once it has this many lines or characters: a few hundred messages for a 45 MB session. */
const BATCH_LINES = 256;
const BATCH_CHARS = 1 << 20;
/** How long `take` waits for the worker without a reply before it parses everything here. */
const WAIT_MS = 3000;

/**
 * A pool for the server's first open, only when asked for: with `$PI_SESSION_LSP_THREADS` 2 or more
 * (set explicitly), and a core free for it. Off by default because the worker's thread leaves its
 * C heap behind: glibc keeps a terminated thread's arena for the life of the process, and over
 * stdio on the 45 MB session the idle server kept 149 MB with the worker against 128 MB without
 * (138 MB with the worker when `MALLOC_ARENA_MAX=1` puts every thread in one arena), for an open
 * 0.25 s faster (2.06–2.34 s against 2.34–2.6 s, quiet machine). On a machine whose other work
 * already keeps its cores busy (the last minute's load average within half a core of their
 * number) a worker would take the main thread's CPU instead of an idle core's, and the open
 * measured slower (the 178 MB open on a 2-core machine at load 8: 18.0 s against 14.5 s without),
 * so the lines are then parsed on the main thread whatever the setting.
 */
export function startParsePool(env: NodeJS.ProcessEnv = process.env): LineParsePool | undefined {
  const asked = Number(env.PI_SESSION_LSP_THREADS);
  if (!Number.isInteger(asked) || asked < 2) return undefined;
  // The cores a CPU quota leaves (`cpuQuota.ts`): the load average is the whole machine's.
  const cores = processCores();
  if (cores < 2 || loadavg()[0]! > cores - 0.5) return undefined;
  return LineParsePool.start();
}

interface Batch {
  first: number;
  count: number;
  claim: Int32Array;
}

export class LineParsePool implements LineParses {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private readonly batches: Batch[] = [];
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
    return Atomics.load(this.done, 0) >= this.batches.length;
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

  /** Sends the lines of `pieces` (the text's pieces between line breaks so far) not sent yet; with `last`, all of them (the text is complete). */
  offer(pieces: readonly string[], last: boolean): void {
    if (this.closed || this.failed) return;
    while (this.counted < pieces.length) {
      this.countedChars += pieces[this.counted]!.length;
      this.counted++;
      if (this.counted - this.sent >= BATCH_LINES || this.countedChars >= BATCH_CHARS) this.send(pieces);
    }
    if (last && this.counted > this.sent) this.send(pieces);
  }

  private send(pieces: readonly string[]): void {
    const batch: Batch = { first: this.sent, count: this.counted - this.sent, claim: new Int32Array(new SharedArrayBuffer(4)) };
    this.batches.push(batch);
    try {
      this.worker.postMessage({ first: batch.first, pieces: pieces.slice(this.sent, this.counted), claim: batch.claim } satisfies LineBatch);
    } catch {
      this.failed = true;
    }
    this.sent = this.counted;
    this.countedChars = 0;
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
      if (Atomics.compareExchange(batch.claim, 0, 0, CLAIMED_HERE) !== 0) {
        theirs++;
        continue;
      }
      for (let i = batch.first; i < batch.first + batch.count; i++) parsed[i] = parseHere(lines[i]!, i);
    }
    let received = 0;
    let waitedSince = performance.now();
    while (received < theirs) {
      const reply = receiveMessageOnPort(this.port)?.message as PackedReply | undefined;
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
