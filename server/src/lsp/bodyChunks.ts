/**
 * The bytes of one large message body as they arrived, chunk by chunk, addressed by their offset in
 * the body (`StreamedBody` scans them while the rest is still in the pipe). Chunks are kept as
 * they came (views of `stdin.ts`'s slabs), never copied into one buffer unless the body has to be
 * decoded whole (`whole`).
 */

const QUOTE = 0x22;

export class BodyChunks {
  readonly chunks: Buffer[] = [];
  /** The body offset of each chunk's first byte. */
  readonly starts: number[] = [];
  /** How many bytes arrived. */
  received = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.starts.push(this.received);
    this.received += chunk.length;
  }

  /** Every byte received, in one buffer. */
  whole(): Buffer {
    return Buffer.concat(this.chunks, this.received);
  }

  /** The index of the chunk that holds body offset `at` (a binary search: chunks may be many and small). */
  chunkAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The byte at body offset `at`. */
  byteAt(at: number): number {
    const k = this.chunkAt(at);
    return this.chunks[k]![at - this.starts[k]!]!;
  }

  /**
   * The characters between `start` and `end` of a string of the body, decoded, with a quote before
   * and after: a JSON string literal of them. A line of a long string has a byte before it (the
   * string's opening quote or the `n` of the escaped line break that ended the line before) and the
   * backslash of its own line break after it; within one chunk those two bytes are set to quotes
   * for the one decoding and put back, which saves copying every line once more to add the quotes.
   */
  quoted(start: number, end: number): string {
    const k = this.chunkAt(start);
    const chunk = this.chunks[k]!;
    const from = start - this.starts[k]! - 1;
    const to = end - this.starts[k]!;
    if (from < 0 || to >= chunk.length) return `"${this.bytes(start, end)}"`;
    const before = chunk[from]!;
    const after = chunk[to]!;
    chunk[from] = QUOTE;
    chunk[to] = QUOTE;
    try {
      return chunk.toString("utf8", from, to + 1);
    } finally {
      chunk[from] = before;
      chunk[to] = after;
    }
  }

  /** The bytes from `start` to `end`, decoded as UTF-8. */
  bytes(start: number, end: number): string {
    const k = this.chunkAt(start);
    const first = this.chunks[k]!;
    const from = start - this.starts[k]!;
    if (end - this.starts[k]! <= first.length) return first.toString("utf8", from, end - this.starts[k]!);
    const parts = [first.subarray(from)];
    for (let j = k + 1; this.starts[j]! < end; j++) parts.push(this.chunks[j]!.subarray(0, Math.min(this.chunks[j]!.length, end - this.starts[j]!)));
    return Buffer.concat(parts).toString("utf8");
  }

  /** The bytes from `start` to `end`: a view when they are in one chunk, else a copy. */
  slice(start: number, end: number): Buffer {
    const parts: Buffer[] = [];
    for (let k = this.chunkAt(start); k < this.chunks.length && this.starts[k]! < end; k++) {
      const c0 = this.starts[k]!;
      const chunk = this.chunks[k]!;
      parts.push(chunk.subarray(Math.max(start, c0) - c0, Math.min(end, c0 + chunk.length) - c0));
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
}
