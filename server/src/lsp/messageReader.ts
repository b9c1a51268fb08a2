/**
 * The reader of the JSON-RPC stream from the client: `Content-Length` framing as the library's
 * `StreamMessageReader` reads it, with a large message decoded while it arrives (`StreamedBody`).
 *
 * Opening a 45 MB session sends one 50 MB `didOpen`. The library's reader waits for its last byte,
 * copies every chunk into one buffer, decodes it into one string and parses it whole; the server
 * then splits the document's text into lines. Here a body of `STREAMED_BODY_BYTES` or more is
 * scanned chunk by chunk as the client writes it: its long strings are cut into lines and decoded
 * line by line while the rest is still in the pipe, and a `didOpen`'s lines are handed to the
 * document (`takeSplitText`) so that it does not split the text again. Smaller messages are decoded
 * as the library decodes them.
 *
 * What the library reports, this reader reports the same way: a header without a usable
 * `Content-Length` or a body that is not JSON is an error (`onError`), and a message still
 * incomplete after 10 s of silence is a partial message (`onPartialMessage`), again every 10 s.
 */

import type { Readable } from "node:stream";
import type { SplitText } from "../core/line/split";
import type { LineParses } from "../core/line/packed";
import { AbstractMessageReader, type DataCallback, Disposable, type MessageReader } from "vscode-languageserver/node";
import { StreamedBody } from "./streamedBody";

/** Bodies at least this long are decoded while they arrive. */
export const STREAMED_BODY_BYTES = 1 << 20;

const PARTIAL_MESSAGE_MS = 10_000;
const HEADER_END = Buffer.from("\r\n\r\n", "ascii");

/** A body decoded the library's way, once it is complete. */
class PlainBody {
  private readonly chunks: Buffer[] = [];
  private received = 0;

  constructor(readonly length: number) {}

  get missing(): number {
    return this.length - this.received;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.received += chunk.length;
  }

  finish(): { message: unknown; documentText?: undefined } {
    return { message: JSON.parse(Buffer.concat(this.chunks, this.received).toString("utf8")) };
  }
}

/** The lines of the last large `didOpen`'s text, until the document takes them. */
let opened: { text: string; split: SplitText; parses?: LineParses } | undefined;

/**
 * The lines of `text` when it is the text of a `didOpen` this reader decoded line by line (what
 * `splitLines(text)` returns), for the document to keep instead of splitting the text again, with
 * their parses when a worker made them meanwhile (`io/parsePool.ts`); taken once.
 */
export function takeSplitText(text: string): (SplitText & { parses?: LineParses }) | undefined {
  const last = opened;
  // The same string object compares at once; another one of a different length too.
  if (!last || last.text.length !== text.length || last.text !== text) return undefined;
  opened = undefined;
  return { ...last.split, parses: last.parses };
}

export class SessionMessageReader extends AbstractMessageReader implements MessageReader {
  /** Bytes of a header not complete yet. */
  private header: Buffer = Buffer.alloc(0);
  private body: PlainBody | StreamedBody | undefined;
  private callback: DataCallback | undefined;
  private partialTimer: NodeJS.Timeout | undefined;

  constructor(private readonly readable: Readable) {
    super();
  }

  /** How many bytes of the message being read are still to come (0 between messages). */
  get missing(): number {
    return this.body?.missing ?? 0;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string) => this.onData(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    const onError = (error: Error) => this.fireError(error);
    const onClose = () => this.fireClose();
    this.readable.on("data", onData);
    this.readable.on("error", onError);
    this.readable.on("close", onClose);
    return Disposable.create(() => {
      this.readable.off("data", onData);
      this.readable.off("error", onError);
      this.readable.off("close", onClose);
      clearTimeout(this.partialTimer);
    });
  }

  private onData(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      if (!this.body) {
        const bytes = this.header.length > 0 ? Buffer.concat([this.header, rest]) : rest;
        const end = bytes.indexOf(HEADER_END, Math.max(0, this.header.length - 3));
        if (end < 0) {
          this.header = Buffer.from(bytes);
          break;
        }
        this.header = Buffer.alloc(0);
        rest = bytes.subarray(end + HEADER_END.length);
        const length = this.contentLength(bytes.toString("ascii", 0, end));
        if (length === undefined) continue;
        this.body = length >= STREAMED_BODY_BYTES ? new StreamedBody(length) : new PlainBody(length);
      }
      const body = this.body;
      const take = Math.min(body.missing, rest.length);
      if (take > 0) body.push(rest.subarray(0, take));
      rest = rest.subarray(take);
      if (body.missing > 0) break;
      this.body = undefined;
      this.deliver(body);
    }
    if (this.body) this.armPartialTimer();
    else this.clearPartialTimer();
  }

  /** The `Content-Length` of a header, or undefined (and an error reported) when it has none. */
  private contentLength(header: string): number | undefined {
    let value: string | undefined;
    for (const line of header.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon < 0) {
        this.fireError(new Error(`Message header must separate key and value using ':'\n${line}`));
        return undefined;
      }
      if (line.slice(0, colon).toLowerCase() === "content-length") value = line.slice(colon + 1).trim();
    }
    if (!value) {
      this.fireError(new Error(`Header must provide a Content-Length property.\n${header}`));
      return undefined;
    }
    const length = Number.parseInt(value, 10);
    if (Number.isNaN(length) || length < 0) {
      this.fireError(new Error(`Content-Length value must be a number. Got ${value}`));
      return undefined;
    }
    return length;
  }

  private deliver(body: PlainBody | StreamedBody): void {
    try {
      const decoded = body.finish();
      if (decoded.documentText) {
        // Parses nobody took are given up with their worker.
        opened?.parses?.dispose();
        opened = decoded.documentText;
      }
      this.callback?.(decoded.message as Parameters<DataCallback>[0]);
    } catch (error) {
      this.fireError(error);
    }
  }

  private armPartialTimer(): void {
    this.clearPartialTimer();
    this.partialTimer = setTimeout(() => {
      this.firePartialMessage({ messageToken: 0, waitingTime: PARTIAL_MESSAGE_MS });
      this.armPartialTimer();
    }, PARTIAL_MESSAGE_MS);
    this.partialTimer.unref();
  }

  private clearPartialTimer(): void {
    clearTimeout(this.partialTimer);
    this.partialTimer = undefined;
  }
}
