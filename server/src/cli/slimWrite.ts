/**
 * `slim`'s second pass: the file copied byte for byte, but for the lines the plan names, each
 * rewritten by `slimLine`. Memory is one copy buffer and the longest rewritten line, whatever the
 * file's size; every line not rewritten (a broken one included) is copied as its raw bytes, never
 * decoded and encoded again.
 *
 * A named line is left as it is when its bytes are not valid UTF-8 (writing its decoded text back
 * would change bytes Pi reads as U+FFFD into a real U+FFFD, and other bytes with them), when it no
 * longer parses as the entry the first pass saw, or when the rewrite would not parse.
 */

import type { Hash } from "node:crypto";
import * as nodeFs from "node:fs";
import { SLIM_KINDS, type SlimKind, slimLine } from "../core/edits/slim";

/** A line to rewrite: where it is (without its "\n") and the type the first pass saw. */
export interface SlimTarget {
  /** 0-based line number. */
  line: number;
  start: number;
  bytes: number;
  type: string;
}

export interface SlimTotals {
  /** Per kind: how many values were replaced and the bytes that saved. */
  kinds: Record<SlimKind, { count: number; saved: number }>;
  linesChanged: number;
  /** The 0-based numbers of the lines changed (one per entry changed, so bounded as the skeleton is). */
  changedLines: number[];
  bytesIn: number;
  bytesOut: number;
}

const COPY_BYTES = 1024 * 1024;

export function emptyTotals(): SlimTotals {
  const kinds = {} as SlimTotals["kinds"];
  for (const kind of SLIM_KINDS) kinds[kind] = { count: 0, saved: 0 };
  return { kinds, linesChanged: 0, changedLines: [], bytesIn: 0, bytesOut: 0 };
}

/** Where the copy goes: a file descriptor, or nowhere (a dry run counts only). */
type Sink = number | undefined;

function readExactly(fd: number, buffer: Buffer, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = nodeFs.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

function writeAll(sink: Sink, bytes: Uint8Array, totals: SlimTotals): void {
  totals.bytesOut += bytes.length;
  if (sink === undefined) return;
  for (let n = 0; n < bytes.length; ) n += nodeFs.writeSync(sink, bytes, n, bytes.length - n);
}

/** Copies `[from, to)` of `source` to `sink`, hashing it; false when the file ended early. */
function copyRange(source: number, from: number, to: number, sink: Sink, hash: Hash, totals: SlimTotals, buffer: Buffer): boolean {
  for (let pos = from; pos < to; ) {
    const n = readExactly(source, buffer, Math.min(buffer.length, to - pos), pos);
    if (n === 0) return false;
    const chunk = buffer.subarray(0, n);
    hash.update(chunk);
    totals.bytesIn += n;
    writeAll(sink, chunk, totals);
    pos += n;
  }
  return true;
}

/** The rewritten bytes of one line, or undefined to keep it as it is. */
function rewrite(raw: Buffer, target: SlimTarget, minBytes: number, totals: SlimTotals): Buffer | undefined {
  const text = raw.toString("utf8");
  if (text.includes("\uFFFD") && !Buffer.from(text, "utf8").equals(raw)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || (value as { type?: unknown }).type !== target.type) return undefined;
  const slimmed = slimLine(text, value, minBytes);
  if (!slimmed) return undefined;
  try {
    JSON.parse(slimmed.text);
  } catch {
    return undefined;
  }
  for (const cut of slimmed.cuts) {
    totals.kinds[cut.kind].count++;
    totals.kinds[cut.kind].saved += cut.removedBytes - cut.addedBytes;
  }
  totals.linesChanged++;
  totals.changedLines.push(target.line);
  return Buffer.from(slimmed.text, "utf8");
}

/**
 * Copies the first `size` bytes of `source` to `sink`, rewriting the `targets` (in file order),
 * and hashes the source bytes read into `hash`, so that the caller can tell later whether the file
 * still starts with them. Throws when the file is shorter than `size` (it shrank meanwhile).
 */
export function writeSlimmed(source: number, size: number, targets: readonly SlimTarget[], sink: Sink, minBytes: number, hash: Hash): SlimTotals {
  const totals = emptyTotals();
  const buffer = Buffer.allocUnsafe(COPY_BYTES);
  let pos = 0;
  for (const target of targets) {
    if (target.start < pos || target.start + target.bytes > size) continue;
    if (!copyRange(source, pos, target.start, sink, hash, totals, buffer)) throw new Error("the file shrank while it was read");
    const raw = Buffer.allocUnsafe(target.bytes);
    if (readExactly(source, raw, target.bytes, target.start) !== target.bytes) throw new Error("the file shrank while it was read");
    hash.update(raw);
    totals.bytesIn += raw.length;
    writeAll(sink, rewrite(raw, target, minBytes, totals) ?? raw, totals);
    pos = target.start + target.bytes;
  }
  if (!copyRange(source, pos, size, sink, hash, totals, buffer)) throw new Error("the file shrank while it was read");
  return totals;
}

/** Hashes `[from, to)` of the file open at `fd`: whether it still holds the bytes read. */
export function hashRange(fd: number, from: number, to: number, hash: Hash): boolean {
  const buffer = Buffer.allocUnsafe(COPY_BYTES);
  for (let pos = from; pos < to; ) {
    const n = readExactly(fd, buffer, Math.min(buffer.length, to - pos), pos);
    if (n === 0) return false;
    hash.update(buffer.subarray(0, n));
    pos += n;
  }
  return true;
}
