/**
 * The one place that writes a session file: `check --fix` replacing a file with its fixed text
 * without losing a byte, even while Pi appends to it.
 *
 * Pi takes no lock on session files (Pi 1.6 and 0.74 lock only settings.json and auth.json, with
 * proper-lockfile); it appends each entry with `appendFileSync(path)`, which opens the path anew
 * every time, and rewrites a file in place only when it migrates it. So there is no lock to take,
 * and the writer instead makes sure the file is still what was read:
 *
 * 1. The backup is a second name for the original (a hard link FILE.bak; a copy of the bytes read
 *    where the file system has no hard links), so it keeps its mode, owner and times, and whatever
 *    is written to the original until the rename ends up in it. An older FILE.bak is first moved
 *    out of Pi's folder (`backups.ts`), so one backup stays beside each session.
 * 2. The fixed text is written and flushed to a temporary file next to the file, with the file's
 *    mode and owner (a replacement that cannot keep the owner is refused).
 * 3. Just before the rename, the file is compared with what was read: same inode, size and mtime,
 *    and the same bytes. If anything differs (Pi appended, or rewrote it), the temporary file and
 *    the backup are removed and the file is left as it is: `FileChanged`.
 * 4. The temporary file is renamed over the file (atomic on one file system), and the folder
 *    flushed.
 * 5. An entry Pi appended between the last comparison and the rename went to the old inode, now the
 *    backup: the writer copies those bytes to the end of the new file (`recovered`). A writer that
 *    opened the old file before the rename and writes to it later still writes into the backup.
 *
 * A link is fixed at the file it names, and stays a link. A file with several hard links is refused:
 * replacing it would leave the other names on the old, unfixed inode (where Pi, if it opened it by
 * another name, would keep appending), and rewriting it in place cannot be done atomically nor
 * checked against Pi's appends, so either way a byte could be lost.
 */

import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";
import { backupBeside, retireBackups } from "./backups";
import { readAll, type OpenedFile } from "./files";
import { groupDigits } from "../core/base/text";

/** The file system calls the writer makes; tests inject failures and concurrent writers. */
export type FixFs = Pick<
  typeof nodeFs,
  | "openSync"
  | "writeSync"
  | "fsyncSync"
  | "closeSync"
  | "renameSync"
  | "unlinkSync"
  | "fstatSync"
  | "lstatSync"
  | "readSync"
  | "realpathSync"
  | "fchmodSync"
  | "fchownSync"
  | "linkSync"
>;

/** The file changed between the read and the replacement; it is left as it is. */
export class FileChanged extends Error {}

/** The file cannot be replaced without changing what it is (links, owner); it is left as it is. */
export class FixRefused extends Error {}

export interface Replaced {
  /** Where the original is saved. */
  backup: string;
  /** Where the older backups beside the file were moved, when there were any. */
  history?: string;
  /** The file written: the file a link names, or the path itself. */
  target: string;
  /** Whether the path given is a symbolic link (it stays one; `target` is what it names). */
  viaLink: boolean;
  /** Bytes Pi appended during the rename, moved into the new file. */
  recovered: number;
  /** Whether Pi also appended to the new file before they were moved, so the two are out of order. */
  reordered: boolean;
}

export function replaceFile(file: OpenedFile, text: string | Buffer, fs: FixFs = nodeFs): Replaced {
  const read = file.stat;
  // A link is resolved so that the link stays a link and the file it names gets the fix.
  const target = fs.realpathSync(file.path);
  const viaLink = fs.lstatSync(file.path).isSymbolicLink();
  const now = fs.lstatSync(target);
  if (now.ino !== read.ino || now.dev !== read.dev) throw new FileChanged("it was replaced by another file since it was read");
  if (read.nlink > 1) {
    throw new FixRefused(
      `it has ${read.nlink} hard links: replacing it would leave the other names on the unfixed original, and rewriting it in place cannot be made safe against Pi appending to it; fix a copy, or remove the other links`,
    );
  }
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  const backup = makeBackup(fs, target, file);
  let temp: string | undefined;
  try {
    temp = writeExclusive(fs, (n) => join(dirname(target), `.${basename(target)}.${process.pid}.${n}.tmp`), bytes, read);
    assertUnchanged(fs, file, target);
    fs.renameSync(temp, target);
    temp = undefined;
  } catch (error) {
    // Nothing was replaced: the backup is not needed, and a second link left behind would make
    // the next `--fix` refuse the file.
    removeQuietly(fs, temp);
    removeQuietly(fs, backup.path);
    throw error;
  }
  syncFolder(fs, dirname(target));
  const recovered = recoverTail(fs, file, target, bytes.length, backup.linked ? undefined : backup.path);
  return { ...settleBackup(fs, backup.path, target), target, viaLink, ...recovered };
}

/**
 * A backup under its temporary name beside `target`, until the change is made: then it becomes
 * FILE.bak (`settleBackup`). Made there, not as FILE.bak at once, so that a change that does not
 * happen leaves the backups as they were.
 */
export function pendingName(target: string, n: number): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${n}.bak`);
}

/**
 * Once the change is made: the older backups beside the file are moved out of Pi's folder
 * (`retireBackups`), and the new one takes the name FILE.bak, or FILE.bak.1, … when an older one
 * could not be moved. A second name is made and the first removed, so no backup is overwritten.
 */
export function settleBackup(fs: FixFs, pending: string, target: string): { backup: string; history?: string } {
  const history = retireBackups(target);
  for (let n = 0; n <= 1000; n++) {
    const name = backupName(target, n);
    try {
      fs.linkSync(pending, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      // No hard links here: the temporary name stays, which is still a backup, and is said.
      return { backup: pending, ...(history ? { history } : {}) };
    }
    removeQuietly(fs, pending);
    return { backup: name, ...(history ? { history } : {}) };
  }
  return { backup: pending, ...(history ? { history } : {}) };
}

/** FILE.bak, else (when an older one could not be moved away) FILE.bak.1, …: the first free. */
function backupName(target: string, n: number): string {
  return n === 0 ? backupBeside(target) : `${backupBeside(target)}.${n}`;
}

function makeBackup(fs: FixFs, target: string, file: OpenedFile): { path: string; linked: boolean } {
  for (let n = 0; ; n++) {
    const name = pendingName(target, n);
    try {
      fs.linkSync(target, name);
      return { path: name, linked: true };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && n < 1000) continue;
      if (code === "EEXIST") throw error;
      // No hard links here (EPERM, ENOTSUP, …): a copy of the bytes read instead.
      return { path: writeExclusive(fs, (k) => pendingName(target, n + k), file.bytes, file.stat, false), linked: false };
    }
  }
}

/**
 * Creates a file that did not exist (trying `nameOf(0)`, `nameOf(1)`, …) holding `bytes`, flushed,
 * with the mode of the original, and its owner where the process can set it. With `exactOwner`, an
 * owner that cannot be kept is a refusal.
 */
function writeExclusive(fs: FixFs, nameOf: (n: number) => string, bytes: Buffer, like: nodeFs.Stats, exactOwner = true): string {
  let fd: number | undefined;
  let name = "";
  for (let n = 0; fd === undefined; n++) {
    name = nameOf(n);
    try {
      fd = fs.openSync(name, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || n >= 1000) throw error;
    }
  }
  try {
    if (like.uid !== process.getuid?.() || like.gid !== process.getgid?.()) {
      try {
        fs.fchownSync(fd, like.uid, like.gid);
      } catch (error) {
        if (exactOwner)
          throw new FixRefused(
            `it belongs to user ${like.uid} and group ${like.gid}, and the fixed file could not be given that owner (${(error as Error).message}); run as its owner`,
          );
      }
    }
    // Set after any chown (which may clear set-id bits), and explicitly: the umask would narrow
    // the mode given to open (0666 became 0644).
    fs.fchmodSync(fd, like.mode & 0o7777);
    for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
  } catch (error) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // Already failing; the first error is the one to report.
      }
    }
    removeQuietly(fs, name);
    throw error;
  }
  return name;
}

/** Throws `FileChanged` unless the file at `target` is still the inode, size, mtime and bytes read. */
function assertUnchanged(fs: FixFs, file: OpenedFile, target: string): void {
  const read = file.stat;
  const same = (s: nodeFs.Stats) => s.ino === read.ino && s.dev === read.dev && s.size === read.size && s.mtimeMs === read.mtimeMs;
  if (!same(fs.fstatSync(file.fd))) throw new FileChanged(describeChange(fs.fstatSync(file.fd), read));
  const current = readAll(file.fd, read.size, fs);
  if (!current.equals(file.bytes)) throw new FileChanged("its content changed since it was read");
  // The last look, right before the rename: the inode at the path, and nothing appended since.
  if (!same(fs.lstatSync(target)) || !same(fs.fstatSync(file.fd))) throw new FileChanged("it changed since it was read");
}

export function describeChange(now: nodeFs.Stats, read: nodeFs.Stats): string {
  if (now.size > read.size) return `it grew by ${groupDigits(now.size - read.size)} bytes since it was read (Pi appending to it?)`;
  if (now.size < read.size) return "it shrank since it was read";
  return "it was modified since it was read";
}

/**
 * After the rename: bytes appended to the old inode since it was read are copied to the end of the
 * new file (and to a backup that is a copy, so that it holds the original as it finally was). Pi
 * writes each entry as a whole line with one append, so they stay whole lines.
 */
function recoverTail(fs: FixFs, file: OpenedFile, target: string, written: number, backupCopy: string | undefined): { recovered: number; reordered: boolean } {
  const all = readAll(file.fd, file.stat.size, fs);
  if (all.length <= file.bytes.length) return { recovered: 0, reordered: false };
  const tail = all.subarray(file.bytes.length);
  let reordered = false;
  for (const path of backupCopy === undefined ? [target] : [backupCopy, target]) {
    const fd = fs.openSync(path, "a");
    try {
      if (path === target) reordered = fs.fstatSync(fd).size !== written;
      for (let n = 0; n < tail.length; ) n += fs.writeSync(fd, tail, n, tail.length - n);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  return { recovered: tail.length, reordered };
}

/** Flushes the folder, so that the rename itself survives a crash. Best effort. */
export function syncFolder(fs: FixFs, folder: string): void {
  try {
    const fd = fs.openSync(folder, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some file systems cannot flush a folder; the data itself is already on disk.
  }
}

export function removeQuietly(fs: FixFs, path: string | undefined): void {
  if (path === undefined) return;
  try {
    fs.unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

export interface Appended {
  /** Where the original is saved: a copy of the bytes read (a hard link would receive the append too). */
  backup: string;
  /** Where the older backups beside the file were moved, when there were any. */
  history?: string;
  /** The file appended to: the file a link names, or the path itself. */
  target: string;
  /** Whether another writer appended right around this append (its line then is not the last one). */
  interleaved: boolean;
}

/**
 * Appends `text` to the file, as Pi appends an entry: one `O_APPEND` write at the end, so nothing
 * written before or after is lost, and no byte that was there changes. Before it, a copy of what
 * was read is kept as FILE.bak (an older one moved away first), and the file is compared with what was read, so
 * that a line computed from that text is not appended after lines Pi added meanwhile
 * (`FileChanged`; nothing is appended and the copy is removed).
 */
export function appendToFile(file: OpenedFile, text: string, fs: FixFs = nodeFs): Appended {
  const target = fs.realpathSync(file.path);
  const bytes = Buffer.from(text, "utf8");
  const backup = writeExclusive(fs, (n) => pendingName(target, n), file.bytes, file.stat, false);
  let fd: number | undefined;
  try {
    assertUnchanged(fs, file, target);
    fd = fs.openSync(target, "a");
    // The last look: the file this opened is the one read, at the size read.
    const opened = fs.fstatSync(fd);
    if (opened.ino !== file.stat.ino || opened.dev !== file.stat.dev || opened.size !== file.stat.size)
      throw new FileChanged(describeChange(opened, file.stat));
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    removeQuietly(fs, backup);
    throw error;
  }
  try {
    for (let n = 0; n < bytes.length; ) n += fs.writeSync(fd, bytes, n, bytes.length - n);
    fs.fsyncSync(fd);
    const interleaved = fs.fstatSync(fd).size !== file.stat.size + bytes.length;
    return { ...settleBackup(fs, backup, target), target, interleaved };
  } finally {
    fs.closeSync(fd);
  }
}
