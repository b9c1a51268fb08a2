/**
 * The editor's index of session files that are not open: for each `*.jsonl` under Pi's sessions
 * folder and the workspace folders, its header (id, cwd, parentSession), name, first message and
 * labels with their places, from one streaming read per file on the worker pool. The language
 * server (`lsp/workspaceIndex.ts`) builds it in the background and keeps it current as files change.
 */

import { type Dirent, promises as fsp } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { IndexSymbols } from "../core/disk/info";
import type { PiVersion } from "../core/disk/location";
import type { ScanOutcome } from "./scanFile";
import { type PoolOptions, scanAll } from "./scanPool";

export interface IndexedSession {
  path: string;
  size: number;
  mtimeMs: number | undefined;
  /** The header's id, when it is a string. */
  id?: string;
  cwd?: unknown;
  /** The header's `parentSession` resolved to an absolute path, when it is a string. */
  parentSession?: string;
  name?: string;
  symbols?: IndexSymbols;
  /** Why Pi's list leaves the file out (it may still be a session of interest). */
  dropped?: string;
}

export interface IndexOptions {
  /** Folders to index: Pi's sessions folder is read two levels deep, any other folder recursively (bounded). */
  roots: readonly string[];
  /** Folders read only two levels deep (Pi's sessions folder); default: none. */
  sessionRoots?: readonly string[];
  version?: PiVersion;
  maxFiles?: number;
  pool?: Omit<PoolOptions, "sizes">;
}

export interface SessionIndex {
  byPath: Map<string, IndexedSession>;
  sessions: number;
  symbols: number;
  /** Files left out because there were more than `maxFiles`. */
  cut: number;
}

export const DEFAULT_MAX_FILES = 20_000;
const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn", "out", "dist", "build", "target", ".venv", "__pycache__"]);
const MAX_DEPTH = 12;

/** At most this many folders are read under one root, so that a hostile tree ends in bounded time. */
const MAX_FOLDERS = 100_000;

/**
 * The `*.jsonl` files under `root`: `depth` levels deep, skipping build and dependency folders, at
 * most `max`, each real folder read once. A folder comes from someone else's machine as often as
 * a session does: a `self -> .` link would list every file again, and a few such links would fill
 * the index with copies or never end, so links to folders are followed only with `linkedFolders`
 * (Pi 1.x follows links to project folders in its sessions folder), and even then a folder already
 * read (known by device and inode, which also catches a bind mount) is not read again.
 */
export async function jsonlFiles(root: string, depth: number, max: number, linkedFolders = false): Promise<string[]> {
  const out: string[] = [];
  const seenFolders = new Set<string>();
  const queue: { dir: string; level: number }[] = [{ dir: resolve(root), level: 0 }];
  for (let next = 0; next < queue.length && out.length < max && seenFolders.size < MAX_FOLDERS; next++) {
    const { dir, level } = queue[next]!;
    let entries: Dirent[];
    try {
      const stat = await fsp.stat(dir);
      const key = `${stat.dev}:${stat.ino}`;
      if (seenFolders.has(key)) continue;
      seenFolders.add(key);
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith(".jsonl")) {
        out.push(path);
        if (out.length >= max) break;
      } else if ((entry.isDirectory() || (linkedFolders && entry.isSymbolicLink())) && level + 1 < depth && !SKIP_DIRS.has(entry.name)) {
        queue.push({ dir: path, level: level + 1 });
      }
    }
  }
  return out;
}

/** An index entry from a scan outcome. */
export function indexedFrom(outcome: ScanOutcome): IndexedSession {
  const scan = outcome.scan;
  const entry: IndexedSession = { path: outcome.path, size: outcome.size, mtimeMs: outcome.mtimeMs };
  const header = scan?.header;
  if (typeof header?.id === "string") entry.id = header.id;
  if (header && header.cwd !== undefined) entry.cwd = header.cwd;
  if (typeof header?.parentSession === "string" && header.parentSession !== "") entry.parentSession = resolve(dirname(outcome.path), header.parentSession);
  if (scan?.info?.name !== undefined) entry.name = scan.info.name;
  if (scan?.symbols) entry.symbols = scan.symbols;
  if (scan?.dropped) entry.dropped = scan.dropped;
  else if (outcome.error) entry.dropped = outcome.error;
  return entry;
}

/** Scans the given files (on the worker pool) into index entries; files that are not sessions are left out. */
export async function indexFiles(
  paths: readonly string[],
  version: PiVersion,
  pool?: IndexOptions["pool"],
  sizes?: readonly number[],
): Promise<IndexedSession[]> {
  const outcomes = await scanAll(
    paths.map((path) => ({ path, version, read: "info" as const, symbols: true })),
    { ...pool, ...(sizes ? { sizes } : {}) },
  );
  return outcomes.map(indexedFrom).filter((s) => s.id !== undefined);
}

/** Builds the index of every session file under the roots. */
export async function indexSessions(options: IndexOptions): Promise<SessionIndex> {
  const max = options.maxFiles ?? DEFAULT_MAX_FILES;
  const seen = new Set<string>();
  const files: string[] = [];
  const add = (paths: string[]) => {
    for (const p of paths) {
      if (seen.has(p)) continue;
      seen.add(p);
      if (files.length < max) files.push(p);
    }
  };
  // Pi 1.x follows links to project folders in its sessions folder; 0.73/0.74 reads real folders only.
  const linked = (options.version ?? "1.x") === "1.x";
  for (const root of options.sessionRoots ?? []) add(await jsonlFiles(root, 2, max + 1, linked));
  for (const root of options.roots) add(await jsonlFiles(root, MAX_DEPTH, max + 1));
  const sizes = await Promise.all(
    files.map((f) =>
      fsp.stat(f).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const indexed = await indexFiles(files, options.version ?? "1.x", options.pool, sizes);
  const byPath = new Map(indexed.map((s) => [s.path, s]));
  let symbols = 0;
  for (const s of indexed) symbols += 1 + (s.name ? 1 : 0) + (s.symbols?.firstMessage ? 1 : 0) + (s.symbols?.labels.length ?? 0);
  return { byPath, sessions: byPath.size, symbols, cut: Math.max(0, seen.size - files.length) };
}
