/**
 * `slim` in place: the proved slimmed copy (a temporary file beside the session) put in the
 * session's place, as `replace.ts` replaces a fixed file, but without holding the file in memory.
 *
 * 1. The session is compared with what was read: the same inode, and the same first bytes (hashed
 *    again, in one streaming pass). Bytes Pi appended since are whole entries: they are copied to
 *    the end of the slimmed copy and the proof is made again on the two files as they now are, so
 *    an entry Pi appended onto a branch that was slimmed is a refusal, not a changed context.
 * 2. The backup is a hard link to the original (a copy where the file system has none), made under
 *    a temporary name, so that whatever Pi appends until the rename reaches it.
 * 3. The copy is renamed over the session, the folder flushed, and bytes Pi appended to the old
 *    inode between the last look and the rename are copied to the end of the new file.
 * 4. The backup becomes FILE.bak, older ones moved out of Pi's folder (`backups.ts`).
 */

import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import { dirname } from "node:path";
import { groupDigits } from "../core/base/text";
import { FileChanged, pendingName, removeQuietly, settleBackup, syncFolder } from "./replace";
import { hashRange } from "./slimWrite";

/** The most bytes Pi may append during a run that are carried over; beyond, the run is refused. */
const MAX_CARRIED_BYTES = 64 * 1024 * 1024;
/** How many times appended bytes are carried over and proved again before giving up. */
const MAX_ROUNDS = 3;

export interface CommitInput {
  /** The path given, and the file it names. */
  target: string;
  /** Open on the original since it was first read. */
  fd: number;
  stat: nodeFs.Stats;
  /** The bytes read: the original's size then, and their sha256. */
  size: number;
  prefixHash: string;
  /** The proved slimmed copy, beside the target. */
  temp: string;
  /** Proves `target` (its first `size` bytes) against `temp` again; the reason it fails, or undefined. */
  reprove: (size: number) => string | undefined;
  /** The command replacing the file, named in a refusal (default `slim`). */
  command?: "slim" | "redact";
}

export interface Committed {
  backup: string;
  history?: string;
  /** Bytes Pi appended during the run, carried into the new file (and proved). */
  carried: number;
  /** Bytes Pi appended during the rename itself, moved into the new file after it. */
  recovered: number;
}

function readRange(fd: number, from: number, to: number): Buffer {
  const buffer = Buffer.allocUnsafe(to - from);
  let done = 0;
  while (done < buffer.length) {
    const n = nodeFs.readSync(fd, buffer, done, buffer.length - done, from + done);
    if (n === 0) throw new FileChanged("it shrank since it was read");
    done += n;
  }
  return buffer;
}

function appendBytes(path: string, bytes: Buffer): void {
  const fd = nodeFs.openSync(path, "a");
  try {
    for (let n = 0; n < bytes.length; ) n += nodeFs.writeSync(fd, bytes, n, bytes.length - n);
    nodeFs.fsyncSync(fd);
  } finally {
    nodeFs.closeSync(fd);
  }
}

/** The original still begins with the bytes read and the tails carried; returns its size now. */
function checkOriginal(input: CommitInput, carried: Buffer[]): number {
  const atPath = nodeFs.lstatSync(input.target);
  if (atPath.ino !== input.stat.ino || atPath.dev !== input.stat.dev) throw new FileChanged("it was replaced by another file since it was read");
  const hash = createHash("sha256");
  if (!hashRange(input.fd, 0, input.size, hash) || hash.digest("hex") !== input.prefixHash) throw new FileChanged("its content changed since it was read");
  let at = input.size;
  for (const tail of carried) {
    if (!readRange(input.fd, at, at + tail.length).equals(tail)) throw new FileChanged("its content changed since it was read");
    at += tail.length;
  }
  const now = nodeFs.fstatSync(input.fd).size;
  if (now < at) throw new FileChanged("it shrank since it was read");
  return now;
}

/**
 * Carries what Pi appended into the copy (proving again each time), then replaces the original.
 * Throws `FileChanged` (nothing replaced, the copy removed by the caller) when the original changed
 * in another way, or the proof fails on the appended entries.
 */
export function commitSlimmed(input: CommitInput): Committed {
  const carried: Buffer[] = [];
  let known = input.size;
  for (let round = 0; ; round++) {
    const now = checkOriginal(input, carried);
    if (now === known) break;
    if (round >= MAX_ROUNDS || now - input.size > MAX_CARRIED_BYTES)
      throw new FileChanged(
        `Pi kept appending to it (${groupDigits(now - input.size)} bytes since it was read); run ${input.command ?? "slim"} again when Pi is done`,
      );
    const tail = readRange(input.fd, known, now);
    appendBytes(input.temp, tail);
    carried.push(tail);
    known = now;
    const failure = input.reprove(known);
    if (failure) throw new FileChanged(`Pi appended to it while it was ${input.command === "redact" ? "redacted" : "slimmed"}, and then ${failure}`);
  }
  const backup = linkBackup(input.target);
  try {
    nodeFs.renameSync(input.temp, input.target);
  } catch (error) {
    removeQuietly(nodeFs, backup.path);
    throw error;
  }
  syncFolder(nodeFs, dirname(input.target));
  const finalSize = nodeFs.fstatSync(input.fd).size;
  let recovered = 0;
  if (finalSize > known) {
    const tail = readRange(input.fd, known, finalSize);
    appendBytes(input.target, tail);
    if (!backup.linked) appendBytes(backup.path, tail);
    recovered = tail.length;
  }
  const settled = settleBackup(nodeFs, backup.path, input.target);
  return { ...settled, carried: known - input.size, recovered };
}

/** A second name for the original under a temporary backup name; a copy where hard links fail. */
function linkBackup(target: string): { path: string; linked: boolean } {
  for (let n = 0; n < 1000; n++) {
    const name = pendingName(target, n);
    try {
      nodeFs.linkSync(target, name);
      return { path: name, linked: true };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      nodeFs.copyFileSync(target, name, nodeFs.constants.COPYFILE_EXCL);
      return { path: name, linked: false };
    }
  }
  throw new Error(`no free backup name beside ${target}`);
}
