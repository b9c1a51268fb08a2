/**
 * Where the command line keeps the sessions it changed, as they were: one backup beside each
 * session, FILE.bak, holding the file as it was before the last change, and older ones moved out of
 * Pi's sessions folder into a folder of their own.
 *
 * The backup beside the file must stay there: `replace.ts` makes it a hard link to the original, so
 * that whatever Pi appends to the old file while it is replaced still reaches a file the writer
 * reads back (a hard link cannot cross file systems). Only one is kept there, because Pi's folder is
 * the user's, and a pile of FILE.bak, FILE.bak.1, FILE.bak.2 … beside every session was the
 * complaint. Before a new backup is made, the previous ones (this version's FILE.bak and the
 * numbered ones older versions left) are moved to the history folder, newest kept, oldest removed
 * beyond `KEPT_PER_SESSION`.
 */

import type * as Crypto from "node:crypto";
import * as nodeFs from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

/** Backups of one session kept in the history folder; older ones are removed. */
export const KEPT_PER_SESSION = 10;

/** The backup beside `target` (the file a link names). */
export function backupBeside(target: string): string {
  return `${target}.bak`;
}

/**
 * The history folder: `PI_SESSION_LSP_BACKUP_DIR`, else `$XDG_STATE_HOME/pi-session-lsp/backups`
 * (`~/.local/state/…` by default), outside Pi's own folders.
 */
export function historyFolder(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.PI_SESSION_LSP_BACKUP_DIR;
  if (own) return own;
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(state, "pi-session-lsp", "backups");
}

/** FILE.bak and FILE.bak.N beside `target`: the backups this and older versions left there. */
function backupsBeside(target: string, fs: Pick<typeof nodeFs, "readdirSync"> = nodeFs): string[] {
  const name = basename(target);
  let names: string[];
  try {
    names = fs.readdirSync(dirname(target));
  } catch {
    return [];
  }
  return names
    .filter((n) => n === `${name}.bak` || (n.startsWith(`${name}.bak.`) && /^\d+$/.test(n.slice(name.length + 5))))
    .map((n) => join(dirname(target), n));
}

/**
 * Moves the backups beside `target` into the history folder, named after the session and the time
 * each was made (its modification time: a hard link's is the original's last write), and keeps
 * the newest `KEPT_PER_SESSION` of that session there. Best effort: a backup that cannot be moved
 * stays where it is (the writer then picks the next free name), and the change goes on.
 * Returns the folder when something was moved into it.
 */
export function retireBackups(target: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const beside = backupsBeside(target);
  if (beside.length === 0) return undefined;
  const folder = historyFolder(env);
  let moved = false;
  try {
    nodeFs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  for (const path of beside) {
    try {
      // Only files: a folder or a link under such a name is not a backup of ours, and stays.
      const stat = nodeFs.lstatSync(path);
      if (!stat.isFile()) continue;
      const made = stat.mtime.toISOString().replace(/[:.]/g, "-");
      const destination = freeName(folder, `${historyStem(target)}.${made}`);
      moveFile(path, destination);
      moved = true;
    } catch {
      // Left beside the session: nothing is lost, the pile is only not cleared.
    }
  }
  prune(folder, historyStem(target));
  return moved ? folder : undefined;
}

/**
 * The start of a session's names in the history folder: its file name, and 8 hex digits of its
 * folder's path, so that two sessions of one name in different folders keep their own backups.
 */
export function historyStem(target: string): string {
  // Node's crypto module is loaded by a backup, not by every `check`, which loads this module for `--fix`.
  const { createHash } = require("node:crypto") as typeof Crypto;
  return `${basename(target)}.${createHash("sha256").update(dirname(target)).digest("hex").slice(0, 8)}`;
}

/** `<stem>.bak`, else `<stem>.2.bak`, …: the first name not taken in `folder` (an error after 1,000). */
function freeName(folder: string, stem: string): string {
  for (let n = 1; n <= 1000; n++) {
    const path = join(folder, `${stem}${n === 1 ? "" : `.${n}`}.bak`);
    if (!nodeFs.existsSync(path)) return path;
  }
  throw new Error(`no free name for ${stem} in ${folder}`);
}

/** A second name and the first removed, or a copy across file systems: never over another file. */
function moveFile(from: string, to: string): void {
  try {
    nodeFs.linkSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw error;
    nodeFs.copyFileSync(from, to, nodeFs.constants.COPYFILE_EXCL);
  }
  nodeFs.unlinkSync(from);
}

/** Removes all but the newest `KEPT_PER_SESSION` backups of one session from the history folder. */
function prune(folder: string, session: string): void {
  let names: string[];
  try {
    names = nodeFs.readdirSync(folder).filter((n) => n.startsWith(`${session}.`) && n.endsWith(".bak"));
  } catch {
    return;
  }
  if (names.length <= KEPT_PER_SESSION) return;
  const dated = names.map((n) => {
    try {
      return { path: join(folder, n), time: nodeFs.lstatSync(join(folder, n)).mtimeMs };
    } catch {
      return { path: join(folder, n), time: 0 };
    }
  });
  dated.sort((a, b) => b.time - a.time || b.path.localeCompare(a.path));
  for (const old of dated.slice(KEPT_PER_SESSION)) {
    try {
      nodeFs.unlinkSync(old.path);
    } catch {
      // Another process removed it, or it cannot be: it only takes room.
    }
  }
}
