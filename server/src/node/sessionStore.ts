/**
 * The file-system side of finding sessions: what Pi's process would see (home, physical cwd,
 * environment, settings files), and the session files of a folder or of every project, in the
 * order Pi reads them. The decisions are made by `core/sessionLocation.ts` and
 * `core/sessionList.ts`; this module only reads.
 */

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { byMtimeThenName, byNameDescending } from "../core/sessionList";
import { locateSessions, type PiProcess, type PiVersion, type SessionLocation, type SettingsText, settingsPaths } from "../core/sessionLocation";

export interface LocateOptions {
  version: PiVersion;
  /** The project folder, as `cd DIR && pi` would see it; default: this process's cwd. */
  cwd?: string;
  /** `--session-dir`, relative to this process's cwd. */
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
    sessionDirFlag: flagDir(options.sessionDir),
  };
}

/**
 * `--session-dir` as Pi would get it: a relative folder is taken relative to this process's cwd
 * (which may differ from the project's with `--cwd`); `~` and `file:` forms are left to Pi's rules.
 */
function flagDir(dir: string | undefined): string | undefined {
  if (dir === undefined || dir === "" || dir.startsWith("~") || dir.startsWith("file:")) return dir;
  return resolve(dir);
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
  return { process: p, location };
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
 * The `*.jsonl` files of one folder in the order Pi's `listSessionsFromDir` reads them (1.x sorts
 * them by name, descending), or with `folderOrder` as the folder lists them (1.x `findById`).
 */
export function folderFiles(version: PiVersion, dir: string, folderOrder = false): SessionFile[] {
  if (dir === "" || !existsSync(dir)) return [];
  const files = jsonlIn(dir).map((name) => ({ name, dir, path: join(dir, name), ...statOf(join(dir, name)) }));
  return version === "1.x" && !folderOrder ? byNameDescending(files) : files;
}

/** The session files `listAll` reads, in its order. */
export function allFiles(version: PiVersion, location: SessionLocation): SessionFile[] {
  if (location.all.kind === "flat") return folderFiles(version, location.all.dir);
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
  const files = dirs.flatMap((dir) => jsonlIn(dir).map((name) => ({ name, dir, path: join(dir, name), ...statOf(join(dir, name)) })));
  return version === "1.x" ? byMtimeThenName(files) : files;
}

/** The comparison key `/resume` uses for a session path: symbolic links followed. */
export function pathKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
