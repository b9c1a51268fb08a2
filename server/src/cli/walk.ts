/**
 * The files `check` looks at: the paths given, and the `*.jsonl` files under the folders given.
 *
 * A folder comes from someone else's machine as often as a session does, so the walk trusts none
 * of it: it never follows a link to a folder (a `self -> .` link would list every file again, and
 * two such links never finish; a link out of the folder would let `--fix` write outside it), knows
 * each folder by device and inode so a bind mount cannot loop either, and takes only regular
 * files: a FIFO named `x.jsonl` would block the read forever and a link to `/dev/zero` would never
 * end, so those are skipped with a note. A link to a regular file is checked, but `--fix` never
 * writes through a link found in a folder: the file it names may be anywhere.
 */

import * as nodeFs from "node:fs";
import { join } from "node:path";
import { kindOf } from "../io/lineReader";
import { groupDigits } from "../core/base/text";

export interface Target {
  path: string;
  /** Whether `--fix` may write it: named on the command line, or a regular file inside a folder given. */
  writable: boolean;
  /** Why `--fix` may not write it. */
  notWritable?: string;
}

export interface WalkReport {
  /** Something skipped that is not an error: a link to a folder, a FIFO named `*.jsonl`. */
  note(text: string): void;
  /** A path that cannot be read: the exit status becomes 2. */
  unreadable(text: string): void;
}

/** At most this many folders are entered, so that a hostile tree ends in bounded time. */
const MAX_FOLDERS = 100_000;

/** Files to check, in a stable order (each folder's files sorted), each file once. */
export function expandPaths(paths: readonly string[], report: WalkReport, fs: typeof nodeFs = nodeFs): Target[] {
  const all: { target: Target; stat: nodeFs.Stats }[] = [];
  const add = (target: Target, stat: nodeFs.Stats) => all.push({ target, stat });
  for (const path of paths) {
    let stat: nodeFs.Stats;
    try {
      stat = fs.statSync(path);
    } catch (error) {
      report.unreadable(`cannot read ${path}: ${errorText(error)}`);
      continue;
    }
    if (stat.isDirectory()) {
      for (const found of walk(path, stat, report, fs)) add(found.target, found.stat);
    } else if (stat.isFile()) {
      // A path given by name is the user's choice: a link given so is fixed at the file it names.
      add({ path, writable: true }, stat);
    } else {
      report.unreadable(`cannot read ${path}: it is ${kindOf(stat)}, not a regular file`);
    }
  }
  // The same file named twice, or by a link next to it, is checked once: under a name `--fix` may
  // write if it has one, else under the first.
  const chosen = new Map<string, Target>();
  for (const { target, stat } of all) {
    const key = `${stat.dev}:${stat.ino}`;
    const before = chosen.get(key);
    if (!before || (!before.writable && target.writable)) chosen.set(key, target);
  }
  const kept = new Set(chosen.values());
  return all.map((x) => x.target).filter((target) => kept.has(target));
}

function walk(root: string, rootStat: nodeFs.Stats, report: WalkReport, fs: typeof nodeFs): { target: Target; stat: nodeFs.Stats }[] {
  const found: { target: Target; stat: nodeFs.Stats }[] = [];
  const seenFolders = new Set<string>([`${rootStat.dev}:${rootStat.ino}`]);
  // An explicit stack instead of recursion: trees can be deep.
  const stack = [root];
  let entered = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    if (++entered > MAX_FOLDERS) {
      report.unreadable(`stopped searching ${root} after ${groupDigits(MAX_FOLDERS)} folders`);
      break;
    }
    let entries: nodeFs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      report.unreadable(`cannot read ${dir}: ${errorText(error)}`);
      continue;
    }
    entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    const folders: string[] = [];
    const files: { target: Target; stat: nodeFs.Stats }[] = [];
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const isSession = entry.name.endsWith(".jsonl");
      let stat: nodeFs.Stats;
      try {
        stat = fs.lstatSync(full);
      } catch {
        continue; // Removed since it was listed: nothing to check.
      }
      if (stat.isDirectory()) {
        const key = `${stat.dev}:${stat.ino}`;
        if (seenFolders.has(key)) continue;
        seenFolders.add(key);
        folders.push(full);
      } else if (stat.isFile()) {
        if (isSession) files.push({ target: { path: full, writable: true }, stat });
      } else if (stat.isSymbolicLink()) {
        let to: nodeFs.Stats;
        try {
          to = fs.statSync(full);
        } catch {
          if (isSession) report.note(`skipped ${full}: a link that leads nowhere`);
          continue;
        }
        if (to.isDirectory()) report.note(`not searched: ${full}, a link to a folder (links to folders are not followed)`);
        else if (!isSession) continue;
        else if (to.isFile())
          files.push({
            target: { path: full, writable: false, notWritable: "it is a link found in a folder, and --fix writes only inside the paths given" },
            stat: to,
          });
        else report.note(`skipped ${full}: a link to ${kindOf(to)}, not a regular file`);
      } else if (isSession) {
        report.note(`skipped ${full}: it is ${kindOf(stat)}, not a regular file`);
      }
    }
    found.push(...files);
    // Reversed, so that the stack pops the folders in name order.
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]!);
  }
  // Sorted by path as a whole, as before: a folder's files, then its subfolders', in name order.
  return found.sort((x, y) => (x.target.path < y.target.path ? -1 : x.target.path > y.target.path ? 1 : 0));
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
