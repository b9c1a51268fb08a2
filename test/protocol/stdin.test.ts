/**
 * Standard input read into memory that is given back: small reads are copied into buffers of their
 * own, a burst into slabs that `malloc` maps on their own, read straight into them after its first
 * read (`lsp/stdin.ts`), and every byte arrives
 * as it was sent, over a real pipe too.
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Message } from "vscode-jsonrpc";
import { StreamMessageWriter } from "vscode-jsonrpc/node";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { encodeContextAnswer } from "../../server/src/lsp/encodedAnswer";
import { BURST_READ_BYTES, encodeMessage, MAPPED_MESSAGE_CHARS, MAX_UTF8_BYTES_PER_CHAR, ReadCopies, SLAB_BYTES } from "../../server/src/lsp/stdin";
import { ensureBuilt, REPO_ROOT } from "../helpers/lspClient";

describe("ReadCopies", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);

  it("copies a small read into a buffer of its own, which the next read does not overwrite", () => {
    const copies = new ReadCopies({ slabBytes: 1 << 20, idleMs: 100 });
    const read = bytes(100, 1);
    const copy = copies.copy(read);
    read.fill(0);
    expect([...copy]).toEqual([...bytes(100, 1)]);
    expect(copy.buffer.byteLength).toBeLessThan(1 << 20);
    expect(copies.inBurst).toBe(false);
    expect(copies.slabsMade).toBe(0);
    copies.dispose();
  });

  it("copies a burst into one slab, until input pauses", () => {
    vi.useFakeTimers();
    const copies = new ReadCopies({ slabBytes: 1 << 20, idleMs: 100 });
    const big = copies.copy(bytes(BURST_READ_BYTES, 2));
    const small = copies.copy(bytes(10, 3));
    expect(copies.inBurst).toBe(true);
    expect(big.buffer).toBe(small.buffer);
    expect(big.buffer.byteLength).toBe(1 << 20);
    expect([...big]).toEqual([...bytes(BURST_READ_BYTES, 2)]);
    expect([...small]).toEqual([...bytes(10, 3)]);
    vi.advanceTimersByTime(99);
    expect(copies.inBurst).toBe(true);
    vi.advanceTimersByTime(1);
    expect(copies.inBurst).toBe(false);
    // After the pause a small read is on its own again, and the next burst takes a new slab.
    expect(copies.copy(bytes(10, 4)).buffer).not.toBe(big.buffer);
    const next = copies.copy(bytes(BURST_READ_BYTES, 5));
    expect(next.buffer).not.toBe(big.buffer);
    expect(copies.slabsMade).toBe(2);
    copies.dispose();
  });

  it("starts a new slab when a read does not fit, and keeps every byte of the old one", () => {
    vi.useFakeTimers();
    const slab = 3 * BURST_READ_BYTES;
    const copies = new ReadCopies({ slabBytes: slab, idleMs: 100 });
    const chunks = [0, 1, 2, 3, 4].map((k) => bytes(BURST_READ_BYTES + k, k));
    const copied = chunks.map((c) => copies.copy(c));
    expect(copies.slabsMade).toBe(3);
    for (const [k, c] of copied.entries()) expect(Buffer.compare(c, Buffer.from(chunks[k]!))).toBe(0);
    // A read larger than a slab gets a slab of its size.
    const huge = copies.copy(bytes(slab + 1, 9));
    expect(huge.length).toBe(slab + 1);
    expect(copies.slabsMade).toBe(4);
    copies.dispose();
  });

  it("reads a burst straight into the slab, after the read that started it, and into the reused buffer once input pauses", () => {
    vi.useFakeTimers();
    const reused = Buffer.alloc(BURST_READ_BYTES * 2);
    const copies = new ReadCopies({ slabBytes: 1 << 20, idleMs: 100, reused, missing: () => 1 << 30 });
    // Outside a burst a read goes into the reused buffer and is copied out.
    const read = (data: Uint8Array) => {
      const target = copies.readTarget();
      target.set(data);
      return { target, chunk: copies.take(target, data.length) };
    };
    const small = read(bytes(10, 1));
    expect(small.target.buffer).toBe(reused.buffer);
    expect(small.chunk.buffer).not.toBe(reused.buffer);
    const first = read(bytes(BURST_READ_BYTES, 2));
    expect(first.target.buffer).toBe(reused.buffer);
    expect(copies.inBurst).toBe(true);
    // In the burst the next reads land in the slab, one after the other, and are not copied.
    const second = read(bytes(100, 3));
    const third = read(bytes(BURST_READ_BYTES + 5, 4));
    expect(second.target.buffer).toBe(first.chunk.buffer);
    expect(second.chunk.buffer).toBe(first.chunk.buffer);
    expect(second.chunk.byteOffset).toBe(first.chunk.byteOffset + BURST_READ_BYTES);
    expect(third.chunk.byteOffset).toBe(second.chunk.byteOffset + 100);
    reused.fill(0);
    expect([...first.chunk]).toEqual([...bytes(BURST_READ_BYTES, 2)]);
    expect([...second.chunk]).toEqual([...bytes(100, 3)]);
    expect([...third.chunk]).toEqual([...bytes(BURST_READ_BYTES + 5, 4)]);
    // A read that is pending when the burst ends keeps the memory it was given, and what follows
    // goes to the reused buffer again.
    const pending = copies.readTarget();
    vi.advanceTimersByTime(100);
    expect(copies.inBurst).toBe(false);
    pending.set(bytes(7, 5));
    const late = copies.take(pending, 7);
    expect([...late]).toEqual([...bytes(7, 5)]);
    expect(late.buffer).toBe(first.chunk.buffer);
    expect(copies.readTarget().buffer).toBe(reused.buffer);
    copies.dispose();
  });

  it("reads into the reused buffer once the message misses less than a read, so that no slab waits for the client's next message", () => {
    vi.useFakeTimers();
    const reused = Buffer.alloc(BURST_READ_BYTES);
    let missing = 3 * BURST_READ_BYTES;
    const copies = new ReadCopies({ slabBytes: 1 << 20, idleMs: 100, reused, missing: () => missing });
    const read = (length: number, seed: number) => {
      const target = copies.readTarget();
      const data = bytes(length, seed);
      target.set(data);
      const chunk = copies.take(target, length);
      missing -= length;
      expect([...chunk]).toEqual([...data]);
      return target;
    };
    expect(read(BURST_READ_BYTES, 1).buffer).toBe(reused.buffer);
    // 2 reads' worth missing: straight into the slab.
    expect(read(BURST_READ_BYTES, 2).buffer).not.toBe(reused.buffer);
    expect(missing).toBe(BURST_READ_BYTES);
    expect(read(BURST_READ_BYTES - 1, 3).buffer).not.toBe(reused.buffer);
    // One byte left: the reused buffer again (and the read copied), though the burst goes on.
    expect(copies.inBurst).toBe(true);
    expect(read(1, 4).buffer).toBe(reused.buffer);
    expect(copies.readTarget().buffer).toBe(reused.buffer);
    copies.dispose();
  });

  it("starts a new slab when less than a read is left in it", () => {
    vi.useFakeTimers();
    const reused = Buffer.alloc(BURST_READ_BYTES);
    const copies = new ReadCopies({ slabBytes: 3 * BURST_READ_BYTES, idleMs: 100, reused, missing: () => 1 << 30 });
    const chunks = [0, 1, 2, 3, 4, 5].map((k) => bytes(BURST_READ_BYTES - k, k));
    const taken = chunks.map((c) => {
      const target = copies.readTarget();
      target.set(c);
      return copies.take(target, c.length);
    });
    for (const [k, c] of taken.entries()) expect(Buffer.compare(c, Buffer.from(chunks[k]!))).toBe(0);
    // The first read is copied into slab 1 and the next two are read straight into it; then 3
    // bytes are left there, less than a read, and the fourth takes slab 2.
    expect(copies.slabsMade).toBe(2);
    expect(taken[3]!.buffer).not.toBe(taken[2]!.buffer);
    expect(taken[5]!.buffer).toBe(taken[3]!.buffer);
    copies.dispose();
  });

  it("makes slabs larger than the largest request glibc serves from its heap", () => {
    expect(SLAB_BYTES).toBeGreaterThan(32 * 1024 * 1024);
  });
});

describe("encodeMessage", () => {
  it("gives the bytes the library gives, a large message in a mapped buffer", () => {
    const small = { jsonrpc: "2.0", id: 1, result: { text: "“quoted” — ✓ 😀" } };
    expect(encodeMessage(small).equals(Buffer.from(JSON.stringify(small), "utf8"))).toBe(true);
    const large = {
      jsonrpc: "2.0",
      id: 2,
      result: { lines: Array.from({ length: MAPPED_MESSAGE_CHARS / 32 }, (_, i) => `line ${i} — “${"é".repeat(40)}” 😀`) },
    };
    const encoded = encodeMessage(large);
    expect(encoded.buffer.byteLength).toBeGreaterThanOrEqual(SLAB_BYTES);
    expect(encoded.equals(Buffer.from(JSON.stringify(large), "utf8"))).toBe(true);
  });

  it("fits a large message of characters that each take the most bytes, and one of surrogate pairs", () => {
    const widest = { jsonrpc: "2.0", id: 3, result: "€".repeat(MAPPED_MESSAGE_CHARS) };
    const encoded = encodeMessage(widest);
    expect(encoded.length).toBe(3 * MAPPED_MESSAGE_CHARS + JSON.stringify({ ...widest, result: "" }).length);
    expect(encoded.equals(Buffer.from(JSON.stringify(widest), "utf8"))).toBe(true);
    // A lone surrogate is escaped by JSON.stringify; a pair becomes 4 bytes for 2 units.
    const pairs = { jsonrpc: "2.0", id: 4, result: `${"😀".repeat(MAPPED_MESSAGE_CHARS / 2)}\ud800` };
    expect(encodeMessage(pairs).equals(Buffer.from(JSON.stringify(pairs), "utf8"))).toBe(true);
  });
});

describe("encodeMessage of a message of 128 KiB to 1 MB", () => {
  it("maps every message whose UTF-8 can reach 128 KiB, the smallest block whose free raises glibc's threshold", () => {
    expect((MAPPED_MESSAGE_CHARS - 1) * MAX_UTF8_BYTES_PER_CHAR).toBeLessThan(128 * 1024);
    const medium = { jsonrpc: "2.0", id: 5, result: "x".repeat(130 * 1024) };
    const encoded = encodeMessage(medium);
    expect(encoded.buffer.byteLength).toBeGreaterThanOrEqual(SLAB_BYTES);
    expect(encoded.equals(Buffer.from(JSON.stringify(medium), "utf8"))).toBe(true);
  });
});

describe("encodeMessage's memory, reused from one large message to the next", () => {
  /** A response whose answer's messages are kept as bytes (`keptJson.ts`), `n` in every message. */
  const answer = (n: number) => {
    const messages = Array.from({ length: MAPPED_MESSAGE_CHARS / 16 }, (_, i) => ({ role: "user", content: `${n}: message ${i} “é” 😀` }));
    return { context: { messages }, stats: { n } };
  };

  it("reuses the last large message's memory", () => {
    const first = encodeMessage({ jsonrpc: "2.0", id: 1, result: encodeContextAnswer(answer(1)) });
    const second = encodeMessage({ jsonrpc: "2.0", id: 2, result: encodeContextAnswer(answer(2)) });
    expect(first.length).toBeGreaterThan(MAPPED_MESSAGE_CHARS);
    expect(second.buffer === first.buffer).toBe(true);
    expect(second.equals(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 2, result: answer(2) })))).toBe(true);
  });

  it("is free again whenever the library's writer asks, even when the stream takes its time", async () => {
    const received: Buffer[] = [];
    // Takes each chunk by reference and reads it only when it calls back, as a slow pipe does.
    const slow = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        setTimeout(() => {
          received.push(Buffer.from(chunk));
          callback();
        }, 5);
      },
    });
    const contentTypeEncoder = { name: "application/json", encode: (message: Message) => Promise.resolve(encodeMessage(message)) };
    const writer = new StreamMessageWriter(slow, { charset: "utf-8", contentTypeEncoder });
    const results = [1, 2, 3].map((n) => answer(n));
    const messages = results.map((result, n) => ({ jsonrpc: "2.0", id: n, result: n === 1 ? result : encodeContextAnswer(result) }));
    await Promise.all(messages.map((message) => writer.write(message as Message)));
    const written = Buffer.concat(received).toString("utf8");
    const bodies = written.split(/Content-Length: \d+\r\n\r\n/).slice(1);
    expect(bodies.length).toBe(3);
    // Compared as booleans: a difference of megabytes would take long to print.
    expect(bodies.map((body, id) => body === JSON.stringify({ jsonrpc: "2.0", id, result: results[id] }))).toEqual([true, true, true]);
  });
});

/**
 * Bytes that do not repeat with any period a read could align with, so that a chunk read into the
 * memory of another does not look the same.
 */
function unrepeating(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0, x = 12345; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

describe("standardInput over a pipe", () => {
  beforeAll(ensureBuilt);

  /**
   * A child that reads its standard input through `standardInput()` and reports its length, the
   * hash of the chunks it kept (taken at the end, so a chunk overwritten later shows), and its end;
   * with `throwAt`, its listener throws once, at that chunk (as a reader that fails would).
   */
  function readThroughChild(payload: Buffer, pieces: number, throwAt = -1): Promise<string> {
    const script = `
      const { standardInput } = require(${JSON.stringify(join(REPO_ROOT, "out", "lsp", "stdin.js"))});
      const { Readable } = require("node:stream");
      const hash = require("node:crypto").createHash("sha256");
      let length = 0;
      // Every chunk pushed must have reached the listener when the next read's memory is chosen
      // (the server's reader says then what the message still misses): counted, as "stale".
      let pushed = 0;
      let stale = 0;
      const push = Readable.prototype.push;
      Readable.prototype.push = function (chunk) { if (chunk) pushed += chunk.length; return push.call(this, chunk); };
      const input = standardInput(() => { if (pushed !== length) stale++; return ${payload.length} - length; });
      const kept = [];
      let errors = 0;
      process.on("uncaughtException", () => errors++);
      input.on("data", (chunk) => { length += chunk.length; kept.push(chunk); if (kept.length === ${throwAt}) throw new Error("the reader failed"); });
      input.on("end", () => {
        for (const chunk of kept) hash.update(chunk);
        process.stdout.write(length + " " + hash.digest("hex") + " " + (input === process.stdin ? "stdin" : "own") + " stale " + stale + (errors ? " errors " + errors : ""));
      });
    `;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    const step = Math.ceil(payload.length / pieces);
    (async () => {
      for (let at = 0; at < payload.length; at += step) {
        if (!child.stdin.write(payload.subarray(at, at + step))) await new Promise((resolve) => child.stdin.once("drain", resolve));
        if (pieces > 1) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      child.stdin.end();
    })();
    return new Promise((resolve) => child.on("close", () => resolve(out)));
  }

  it("delivers every byte of a large message written at once, and its end", async () => {
    const payload = unrepeating(5 * 1024 * 1024 + 17);
    const expected = `${payload.length} ${createHash("sha256").update(payload).digest("hex")} own stale 0`;
    expect(await readThroughChild(payload, 1)).toBe(expected);
  });

  it("keeps every byte of a chunk handed on when the reader throws on it (the next read goes elsewhere)", async () => {
    const payload = unrepeating(5 * 1024 * 1024 + 3);
    const expected = `${payload.length} ${createHash("sha256").update(payload).digest("hex")} own stale 0 errors 1`;
    expect(await readThroughChild(payload, 1, 5)).toBe(expected);
  });

  it("delivers every byte of input written in small pieces with pauses", async () => {
    const payload = Buffer.from("Content-Length: 2\r\n\r\n{}".repeat(2000), "latin1");
    const expected = `${payload.length} ${createHash("sha256").update(payload).digest("hex")} own stale 0`;
    expect(await readThroughChild(payload, 40)).toBe(expected);
  });
});
