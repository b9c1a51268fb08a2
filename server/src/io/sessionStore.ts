/**
 * The file-system side of finding sessions: what Pi's process would see (home, physical cwd,
 * environment, settings files), and the session files of a folder or of every project, in the
 * order Pi reads them. The decisions are made by `core/disk/location.ts` and
 * `core/disk/list.ts`; this module only reads.
 */

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { byMtimeThenName, byNameDescending } from "../core/disk/list";
import { locateSessions, type PiProcess, type PiVersion, type SessionLocation, type SettingsText, settingsPaths } from "../core/disk/location";

export interface LocateOptions {
  version: PiVersion;
  /** The project folder, as `cd DIR && pi` would see it; default: this process's cwd. */
  cwd?: string;
  /** `--session-dir` as typed; a relative folder is Pi's, relative to `cwd`. */
  sessionDir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The process Pi would run as: `cd` resolves symbolic links, so Pi's `process.cwd()` is the physical path. */
export function piProcess(options: Omit<LocateOptions, "version">): PiProcess {
  const env = options.env ?? process.env;
  const wanted = resolve(options.cwd ?? ".");
  let cwd = wanted;
  try {
    cwd = realpathSync(wanted);
  } catch {
    // A folder that does not exist (a moved project) is taken as written.
  }
  return {
    home: options.home ?? homedir(),
    cwd,
    agentDirEnv: env.PI_CODING_AGENT_DIR,
    sessionDirEnv: env.PI_CODING_AGENT_SESSION_DIR,
    // As typed: `--cwd DIR` stands for `cd DIR && pi`, and Pi reads a relative `--session-dir`
    // against its own cwd, DIR, which `core/disk/location.ts` resolves it against, as it does
    // the environment variable and the settings.
    sessionDirFlag: options.sessionDir,
  };
}

/** A settings file's text as Pi's `FileSettingsStorage` reads it. */
export function readSettingsText(path: string): SettingsText {
  if (!existsSync(path)) return { path, text: undefined };
  try {
    return { path, text: readFileSync(path, "utf8") };
  } catch (error) {
    return { path, text: undefined, readError: (error as Error).message };
  }
}

export function locate(options: LocateOptions): { process: PiProcess; location: SessionLocation } {
  const p = piProcess(options);
  const paths = settingsPaths(options.version, p);
  const location = locateSessions(options.version, p, { global: readSettingsText(paths.global), project: readSettingsText(paths.project) });
  if (!location.problem && location.source === "default") {
    const problem = defaultFolderProblem(location.projectDir);
    if (problem) location.problem = problem;
  }
  return { process: p, location };
}

/**
 * Why Pi could not make the project's default folder, if it could not. With no folder of its own
 * (flag, variable or setting), Pi calls `getDefaultSessionDir(cwd)` for every session command, and
 * that function `mkdirSync`s the folder when it is missing (`core/session-manager.js` of Pi 1.6,
 * lines 297-301; 0.74 too, as `defaultSessionDir` in core/disk/location.ts notes, though only 1.6
 * was run to check) with nothing to catch an error, so Pi stops at startup. The usual
 * cause is a long working directory: its whole path becomes one folder name, and a name longer
 * than the file system allows (255 bytes on ext4, XFS and Btrfs) fails with ENAMETOOLONG.
 * Looking the folder up fails the same way without creating anything, so the check only reads;
 * a folder that is merely absent (ENOENT) is what Pi creates, and is no problem.
 */
function defaultFolderProblem(dir: string): string | undefined {
  const name = basename(dir);
  // On a first run even `<agent>/sessions` is missing, and the lookup stops there with ENOENT
  // before it meets the long name; so the name is also looked up in the nearest folder that exists.
  let existing = dirname(dir);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const probes = existsSync(dirname(dir)) ? [dir] : [dir, join(existing, name)];
  for (const probe of probes) {
    let code: string | undefined;
    try {
      statSync(probe);
      return undefined;
    } catch (error) {
      code = (error as NodeJS.ErrnoException).code;
    }
    if (code === undefined || code === "ENOENT") continue;
    const why =
      code === "ENAMETOOLONG"
        ? `the folder name Pi makes of this working directory is ${Buffer.byteLength(name)} bytes, longer than the file system allows`
        : `looking it up fails with ${code}`;
    return `Pi stops at startup: it cannot create its session folder ${dir} (${why}); give it a folder with --session-dir or PI_CODING_AGENT_SESSION_DIR (Error: ${code}, mkdir)`;
  }
  return undefined;
}

export interface SessionFile {
  path: string;
  name: string;
  /** The folder it was listed from. */
  dir: string;
  size: number;
  mtimeMs: number | undefined;
}

function statOf(path: string): { size: number; mtimeMs: number | undefined } {
  try {
    const s = statSync(path);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return { size: 0, mtimeMs: undefined };
  }
}

function jsonlIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
}

/**
 * How a listing reads each file's size and time: `stat`, one `stat` call per file; `later`, none
 * (size 0, no time), for a caller that opens every file anyway and takes both from its descriptor
 * (`find TEXT`: 2,000 stats cost more than the readdirs, the first time).
 */
export type FileStats = "stat" | "later";

/**
 * `join(dir, name)` for a name a folder listed (no separator, never "." or "..") in a folder that
 * `resolve` or `join` made (normalized): the same string, without `join`'s normalization, which
 * costs about 10 ms for 2,000 files in a fresh process (the whole listing without it, 5 ms).
 */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

function listed(dir: string, name: string, stats: FileStats): SessionFile {
  const path = childPath(dir, name);
  return { name, dir, path, ...(stats === "stat" ? statOf(path) : { size: 0, mtimeMs: undefined }) };
}

/**
 * The `*.jsonl` files of one folder in the order Pi's `listSessionsFromDir` reads them (1.x sorts
 * them by name, descending), or with `folderOrder` as the folder lists them (1.x `findById`).
 */
export function folderFiles(version: PiVersion, dir: string, folderOrder = false, stats: FileStats = "stat"): SessionFile[] {
  if (dir === "" || !existsSync(dir)) return [];
  const files = jsonlIn(dir).map((name) => listed(dir, name, stats));
  return version === "1.x" && !folderOrder ? byNameDescending(files) : files;
}

/**
 * The session files `listAll` reads, in its order; with `stats` "later", Pi 1.x's order by time is
 * left to the caller, who sorts with `byMtimeThenName` once it has the times.
 */
export function allFiles(version: PiVersion, location: SessionLocation, stats: FileStats = "stat"): SessionFile[] {
  if (location.all.kind === "flat") return folderFiles(version, location.all.dir, false, stats);
  const root = location.all.root;
  let dirs: string[] = [];
  try {
    dirs = readdirSync(root, { withFileTypes: true })
      // 1.x also follows symbolic links to project folders; 0.74 takes real folders only.
      .filter((entry) => entry.isDirectory() || (version === "1.x" && entry.isSymbolicLink()))
      .map((entry) => join(root, entry.name));
  } catch {
    return [];
  }
  const files = dirs.flatMap((dir) => jsonlIn(dir).map((name) => listed(dir, name, stats)));
  return stats === "stat" ? inListAllOrder(version, location, files) : files;
}

/** `allFiles`' files in `listAll`'s order, given their times: Pi 1.x sorts the files of every project folder by time, then name. */
export function inListAllOrder<T extends { name: string; mtimeMs: number | undefined }>(version: PiVersion, location: SessionLocation, files: T[]): T[] {
  return version === "1.x" && location.all.kind !== "flat" ? byMtimeThenName(files) : files;
}

/**
 * The comparison key `/resume` uses for a session path: symbolic links followed, and a relative
 * path (a header's `parentSession`) read against Pi's cwd, `cwd`, as `realpathSync` in Pi's
 * process reads it.
 */
export function pathKey(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
