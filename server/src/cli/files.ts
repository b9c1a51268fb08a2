/**
 * Reading a session file the way untrusted input must be read: only regular files (a FIFO named
 * `x.jsonl` would block forever, a link to `/dev/zero` would never end), never more than
 * `MAX_FILE_BYTES`, and decoded with its encoding named, since Pi reads UTF-8 only.
 */

import * as nodeFs from "node:fs";
import { kindOf } from "../io/lineReader";
import { groupDigits } from "../core/base/text";

/** The largest file read: far above real sessions (tens of MB), and below V8's longest string. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface OpenedFile {
  /** The path as given or found. */
  path: string;
  /** Open for reading until `closeFile`: `check --fix` re-reads through it to see what changed. */
  fd: number;
  bytes: Buffer;
  /** `fstat` of the open file, taken after reading it. */
  stat: nodeFs.Stats;
}

export class ReadRefused extends Error {}

/** Closes the file once; later calls do nothing (a descriptor number is reused by the next open). */
export function closeFile(file: OpenedFile, fs: Pick<typeof nodeFs, "closeSync"> = nodeFs): void {
  if (file.fd < 0) return;
  const fd = file.fd;
  file.fd = -1;
  try {
    fs.closeSync(fd);
  } catch {
    // Closing a descriptor that was only read cannot lose anything.
  }
}

/**
 * Opens `path` (following links), refuses anything but a regular file, and reads it whole, at most
 * `MAX_FILE_BYTES`. The open does not block on a FIFO put there after it was listed (`O_NONBLOCK`)
 * and never makes a terminal the controlling one (`O_NOCTTY`). The caller closes `fd`.
 */
export function openSessionFile(path: string, fs: typeof nodeFs = nodeFs): OpenedFile {
  const { fd, stat: before } = openRegularFile(path, fs);
  try {
    if (before.size > MAX_FILE_BYTES) throw new ReadRefused(tooLarge(before.size));
    const bytes = readAll(fd, before.size, fs);
    return { path, fd, bytes, stat: fs.fstatSync(fd) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Opens `path` for reading as `openSessionFile` does (no blocking on a FIFO, no controlling
 * terminal) and refuses anything but a regular file, reading nothing: the streaming check reads
 * through the descriptor line by line. The caller closes `fd`.
 */
export function openRegularFile(path: string, fs: typeof nodeFs = nodeFs): { fd: number; stat: nodeFs.Stats } {
  const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = nodeFs.constants;
  const fd = fs.openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ReadRefused(`it is ${kindOf(stat)}, not a regular file`);
    return { fd, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function tooLarge(size: number | undefined): string {
  const mib = (n: number) => `${groupDigits(Math.round(n / 1024 / 1024))} MiB`;
  return `it is ${size === undefined ? "larger than" : `${mib(size)}, more than`} the ${mib(MAX_FILE_BYTES)} this tool reads`;
}

/** Reads from the start to the end, however the size changes meanwhile, at most `MAX_FILE_BYTES`. */
export function readAll(fd: number, sizeHint: number, fs: Pick<typeof nodeFs, "readSync"> = nodeFs): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let chunk = Buffer.allocUnsafe(Math.min(Math.max(sizeHint + 1, 64 * 1024), MAX_FILE_BYTES + 1));
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, total);
    if (n === 0) break;
    total += n;
    if (total > MAX_FILE_BYTES) throw new ReadRefused(tooLarge(undefined));
    chunks.push(chunk.subarray(0, n));
    chunk = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, MAX_FILE_BYTES + 1 - total));
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Standard input, read whole and bounded like a file. A non-blocking descriptor (a terminal some
 * shells leave so) answers EAGAIN until there is input; then it waits a little and asks again.
 */
export function readStdin(fs: typeof nodeFs = nodeFs): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 20);
        continue;
      }
      if (code === "EOF") break;
      throw error;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_FILE_BYTES) throw new ReadRefused(tooLarge(undefined));
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}
