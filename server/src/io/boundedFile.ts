/**
 * A whole file read up to a size limit, for a reader that must not be held up by a large one (the
 * doctor inside Pi): a file over the limit is not read at all, and the answer says why. The file is
 * opened read-only and non-blocking (a FIFO named like a session does not wait for a writer), and
 * only a regular file is read.
 */

import * as nodeFs from "node:fs";

export type BoundedFile =
  | {
      ok: true;
      bytes: Buffer;
      /** What tells this version of the file from the next: path, size, modification time, inode. */
      version: string;
    }
  | {
      ok: false;
      why: string;
      /** Set when the file is over the limit (and `why` says by how much). */
      tooLarge?: true;
    };

/** Reads `path` whole when it is a regular file of at most `limit` bytes; `cached` answers for a version read before. */
export function readBoundedFile(path: string, limit: number, cached?: (version: string) => boolean): BoundedFile | { ok: true; cached: true; version: string } {
  let fd: number;
  try {
    fd = nodeFs.openSync(path, nodeFs.constants.O_RDONLY | (nodeFs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, why: `cannot read ${path}: ${(error as Error).message}` };
  }
  try {
    const stat = nodeFs.fstatSync(fd);
    if (!stat.isFile()) return { ok: false, why: `${path} is not a regular file` };
    if (stat.size > limit) return { ok: false, why: `the session is ${megabytes(stat.size)} MB, over the ${megabytes(limit)} MB`, tooLarge: true };
    const version = `${path}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}`;
    if (cached?.(version)) return { ok: true, cached: true, version };
    const bytes = Buffer.alloc(stat.size);
    let n = 0;
    while (n < bytes.length) {
      const read = nodeFs.readSync(fd, bytes, n, bytes.length - n, n);
      if (read === 0) break;
      n += read;
    }
    return { ok: true, bytes: bytes.subarray(0, n), version };
  } finally {
    nodeFs.closeSync(fd);
  }
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);
}

/** Whether `path` is a regular file with at least one byte: a session worth reading (a new one has none yet). */
export function isNonEmptyFile(path: string): boolean {
  try {
    const stat = nodeFs.statSync(path);
    return stat.isFile() && stat.size > 0;
  } catch {
    return false;
  }
}
