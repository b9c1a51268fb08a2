/**
 * The listings the command line and the editor ask for, end to end: where Pi looks, which files it
 * reads, every file scanned on the worker pool, and Pi's list assembled from the results.
 */

import { type AssembledList, assembleList } from "../core/disk/list";
import { cwdMatches, type PiProcess, type PiVersion, type SessionLocation } from "../core/disk/location";
import type { ScanTask } from "./scanFile";
import { type PoolOptions, scanAll } from "./scanPool";
import { allFiles, type FileStats, folderFiles, locate, type SessionFile } from "./sessionStore";

export interface ListRequest {
  version: PiVersion;
  cwd?: string;
  sessionDir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** `list(cwd)` (the project's sessions) or `listAll()`. */
  scope: "current" | "all";
  /** A `/resume` search query to match while reading. */
  query?: string;
  symbols?: boolean;
  pool?: Omit<PoolOptions, "sizes">;
}

export interface Listing extends AssembledList {
  process: PiProcess;
  location: SessionLocation;
  scope: "current" | "all";
  /** The files read, in Pi's reading order. */
  files: SessionFile[];
}

export function filesFor(version: PiVersion, location: SessionLocation, scope: "current" | "all", stats: FileStats = "stat"): SessionFile[] {
  return scope === "current" ? folderFiles(version, location.currentDir, false, stats) : allFiles(version, location, stats);
}

export async function listSessions(request: ListRequest): Promise<Listing> {
  const { process, location } = locate(request);
  const files = filesFor(request.version, location, request.scope);
  const tasks: ScanTask[] = files.map((f) => ({ path: f.path, version: request.version, read: "info", query: request.query, symbols: request.symbols }));
  const outcomes = await scanAll(tasks, { ...request.pool, sizes: files.map((f) => f.size) });
  const keep = request.scope === "current" && location.filterByCwd ? (info: { cwd: string }) => cwdMatches(info.cwd, process) : undefined;
  return { process, location, scope: request.scope, files, ...assembleList(outcomes, keep) };
}
