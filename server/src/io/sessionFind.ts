/**
 * `find`'s work: which session `pi --session ARG` opens, the other sessions the argument could
 * mean, and (for text) the sessions whose name or messages match it as `/resume`'s search does.
 *
 * An id or prefix needs little reading: every header first (a few KB each), then in full only the
 * files whose header id starts with the argument, or whose header cannot be read quickly, because
 * Pi's choice among them depends on their `modified` (which needs the whole file). A text search
 * reads everything, on the worker pool.
 */

import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { assembleList, type ListedSession } from "../core/disk/list";
import { cwdMatches, type PiProcess, type PiVersion, type SessionLocation } from "../core/disk/location";
import { looksLikePath, type Resolution, resolveLikePi, searchesTextFirst } from "../core/disk/resolve";
import { parseSearchQuery } from "../core/disk/search";
import { idMatches } from "../core/session/rules";
import { type HeaderProbe, mayHaveId, probeHeader, type ScanOutcome, type ScanTask } from "./scanFile";
import { type PoolOptions, scanAll } from "./scanPool";
import { filesFor } from "./sessionQuery";
import { type FileStats, folderFiles, inListAllOrder, locate, type SessionFile } from "./sessionStore";

export interface FindRequest {
  version: PiVersion;
  arg: string;
  cwd?: string;
  sessionDir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Search names and messages: always, never, or when the argument is not an id or matches none. */
  text?: "auto" | "always" | "never";
  pool?: Omit<PoolOptions, "sizes">;
  /** Whether a text search may pass over the files whose bytes cannot match (default true; the answer is the same). */
  prefilter?: boolean;
}

export interface Candidate {
  session: ListedSession;
  /** In this project's list, or only in another project's. */
  scope: "local" | "global";
  /** Its place in the list Pi searches (1 = first). */
  rank: number;
  exact: boolean;
}

export interface FindResult {
  process: PiProcess;
  location: SessionLocation;
  arg: string;
  resolution: Resolution;
  /** The session Pi opens, when it is a listed one. */
  opens?: ListedSession;
  /** Every listed session whose id starts with the argument, this project's first, each list in Pi's order. */
  candidates: Candidate[];
  /** Sessions matching the argument as `/resume`'s search, best first; undefined when no text search ran. */
  text?: ListedSession[];
  /** Files read in full / in all. */
  read: { full: number; files: number };
  /** Pi 1.x: the header cwd of the session Pi opens, when that folder does not exist (Pi then asks before opening it). */
  missingCwd?: string;
  /** Pi 1.x, ARG a path: what Pi makes of a file that is not a session it can open (see `pathStateOf`). */
  pathState?: PathState;
  /**
   * The files a `re:` search gave up on, in list order (see `io/boundedRegex.ts`): `timedOut`,
   * where a test ran out of time (one per thread at most), and `skipped`, those not searched after.
   */
  searchGaveUp?: { timedOut: string[]; skipped: string[] };
}

/**
 * What Pi 1.6 does with `--session PATH` when PATH is not a session file: `SessionManager.open`
 * reads the header (`readSessionHeader`, which throws on a folder or an unreadable file), then
 * `_setSessionFile` (core/session-manager.js:675-700) starts a new session when the file does not
 * exist or is empty (written to that path), and throws "Session file is not a valid pi session"
 * when the file has bytes but its first parsed entry is not a header with a string id (nothing
 * parsed counts too). `openSessionOrExit` (main.js:304-312) prints that error and exits 1.
 */
export type PathState = { kind: "missing" } | { kind: "empty" } | { kind: "stops"; error: string };

function pathStateOf(path: string): PathState | undefined {
  let size: number;
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) return { kind: "stops", error: "EISDIR: illegal operation on a directory, read" };
    size = stats.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "stops", error: (error as Error).message };
  }
  if (size === 0) return { kind: "empty" };
  const probe = probeHeader(path, size);
  if (probe.missing === "none" || probe.missing === "no-string-id") return { kind: "stops", error: `Session file is not a valid pi session: ${path}` };
  if (probe.missing === "unreadable") return { kind: "stops", error: `the file cannot be read: ${path}` };
  // A header or a first MiB without a line end ("too-long", which Pi then reads whole): Pi opens it.
  return undefined;
}

export async function findSessions(request: FindRequest): Promise<FindResult> {
  const { version, arg } = request;
  const { process: p, location } = locate(request);
  const wantsText = searchesTextFirst(arg, request.text);
  // A text search opens every file and takes its size and time from the descriptor: the listing
  // does not stat them (`listAll`'s order by time is then made from the scan's times).
  const stats: FileStats = wantsText ? "later" : "stat";
  const localFiles = filesFor(version, location, "current", stats);
  const allFiles = filesFor(version, location, "all", stats);
  const union = new Map<string, SessionFile>();
  for (const f of [...localFiles, ...allFiles]) union.set(f.path, f);
  const files = [...union.values()];

  // Every header, probed here for an id, or by the text search's threads on the descriptor each
  // file's prefilter reads.
  const probes = new Map<string, HeaderProbe>();
  if (!wantsText) for (const f of files) probes.set(f.path, probeHeader(f.path, f.size));
  const idCandidate = (f: SessionFile) => mayHaveId(probes.get(f.path)!, arg, version);
  // Which files to read in full: all of them for a text search, else the possible id matches.
  let full = wantsText ? files : looksLikePath(arg) ? [] : files.filter(idCandidate);
  // A text search parses only the files whose bytes could match, but never one whose id could,
  // which decides what Pi opens.
  const mayRuleOut = (f: SessionFile) => request.prefilter !== false && !idCandidate(f);
  let outcomes = wantsText
    ? await scanFull(full, version, arg, request.pool, () => request.prefilter !== false, { arg, probes })
    : await scanFull(full, version, undefined, request.pool);
  const listsOf = (outs: Map<string, ScanOutcome>) => {
    const keep = location.filterByCwd ? (info: { cwd: string }) => cwdMatches(info.cwd, p) : undefined;
    const pick = (list: SessionFile[]) => list.filter((f) => outs.has(f.path)).map((f) => outs.get(f.path)!);
    // Files listed without their times are put in `listAll`'s order by the scan's times, the
    // files the answer keeps only (Pi 1.x's tie-break by name is a slow `localeCompare`).
    const all =
      stats === "stat"
        ? allFiles
        : inListAllOrder(
            version,
            location,
            allFiles.filter((f) => outs.has(f.path)).map((f) => ({ ...f, mtimeMs: outs.get(f.path)!.mtimeMs })),
          );
    return { local: assembleList(pick(localFiles), keep).sessions, all: assembleList(pick(all)).sessions };
  };
  let lists = listsOf(outcomes);

  const exactLocal = version === "1.x" && !looksLikePath(arg) ? findById(version, location, p, probes, arg) : undefined;
  const asResolve = (s: ListedSession) => ({ path: s.info.path, id: s.info.id, cwd: s.info.cwd, modified: s.info.modified });
  const resolveFrom = () =>
    resolveLikePi({ version, arg, cwd: p.cwd, home: p.home, exactLocal, local: lists.local.map(asResolve), all: lists.all.map(asResolve) });
  let resolution = resolveFrom();
  let candidates = candidatesOf(lists, arg);
  // A candidate's rank counts every listed session, the ruled-out ones too: they are read after all.
  if (candidates.length > 0 && outcomes.size < full.length) {
    outcomes = await scanFull(full, version, arg, request.pool);
    lists = listsOf(outcomes);
    resolution = resolveFrom();
    candidates = candidatesOf(lists, arg);
  }

  // No id matched: the argument is searched as text after all.
  let text: ListedSession[] | undefined;
  if (!wantsText && request.text !== "never" && candidates.length === 0 && !looksLikePath(arg)) {
    full = files;
    outcomes = await scanFull(full, version, arg, request.pool, mayRuleOut);
    lists = listsOf(outcomes);
  }
  if (wantsText || full === files) text = textMatches(lists);
  const gaveUp = (how: "timeout" | "skipped") => (text ? full.filter((f) => outcomes.get(f.path)?.searchGaveUp === how).map((f) => f.path) : []);
  const searchGaveUp = { timedOut: gaveUp("timeout"), skipped: gaveUp("skipped") };
  const opensPath = resolution.kind === "local" || resolution.kind === "global" || resolution.kind === "path" ? resolution.path : undefined;
  let opens = opensPath ? [...lists.local, ...lists.all].find((s) => s.info.path === opensPath) : undefined;
  if (!opens && resolution.kind === "path") {
    // A path outside the lists: its own entry, as Pi's list would show it.
    const outcome = (
      await scanFull([{ path: resolve(p.cwd, resolution.path), name: "", dir: "", size: 0, mtimeMs: undefined }], version, undefined, request.pool)
    )
      .values()
      .next().value;
    if (outcome) opens = assembleList([outcome]).sessions[0];
  }
  const missingCwd = version === "1.x" && opens ? missingCwdOf(resolution, opens, p) : undefined;
  const pathState = version === "1.x" && resolution.kind === "path" ? pathStateOf(resolve(p.cwd, resolution.path)) : undefined;
  return {
    process: p,
    location,
    arg,
    resolution,
    ...(pathState ? { pathState } : {}),
    ...(opens ? { opens } : {}),
    ...(missingCwd !== undefined ? { missingCwd } : {}),
    candidates,
    ...(text ? { text } : {}),
    ...(searchGaveUp.timedOut.length + searchGaveUp.skipped.length > 0 ? { searchGaveUp } : {}),
    read: { full: full.length, files: files.length },
  };
}

/** 1.x `findById`: this project's folder in folder order, exact header id, this project's cwd when the folder is shared. */
function findById(
  version: PiVersion,
  location: SessionLocation,
  p: PiProcess,
  probes: Map<string, ReturnType<typeof probeHeader>>,
  arg: string,
): string | undefined {
  for (const f of folderFiles(version, location.currentDir, true, "later")) {
    const header = probes.get(f.path)?.header;
    if (header?.id !== arg) continue;
    if (location.filterByCwd && !cwdMatches(header.cwd, p)) continue;
    return f.path;
  }
  return undefined;
}

/** Every listed session whose id starts with the argument, this project's first, each list in Pi's order. */
function candidatesOf(lists: { local: ListedSession[]; all: ListedSession[] }, arg: string): Candidate[] {
  const isCandidate = (s: ListedSession) => typeof s.info.id === "string" && idMatches(s.info, arg);
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  for (const [scope, list] of [
    ["local", lists.local],
    ["global", lists.all],
  ] as const) {
    for (const [i, session] of list.entries()) {
      if (!isCandidate(session) || seen.has(session.info.path)) continue;
      seen.add(session.info.path);
      candidates.push({ session, scope, rank: i + 1, exact: session.info.id === arg });
    }
  }
  return candidates;
}

/** The sessions a text search matched, in `/resume`'s order. */
function textMatches(lists: { local: ListedSession[]; all: ListedSession[] }): ListedSession[] {
  const matched = new Map<string, ListedSession>();
  // Every project's list first, in its order, as `/resume`'s "all" scope sorts it (ties keep that order).
  for (const s of [...lists.all, ...lists.local]) if (s.search && !matched.has(s.info.path)) matched.set(s.info.path, s);
  // `/resume`'s relevance order: best score, then newest.
  return [...matched.values()].sort((a, b) => a.search!.score - b.search!.score || b.info.modified - a.info.modified);
}

/**
 * Pi 1.6 opens a session in its header's cwd, and when that folder is gone it does not open it
 * straight away: `getMissingSessionCwdIssue` (core/session-cwd.js:2-16, called at main.js:598)
 * makes it ask "Session cwd does not exist" (continue here, fork here, or cancel), and without a
 * terminal it exits 1. `SessionManager.open` takes that cwd from `readSessionHeader`, which wants
 * a string id; an empty cwd is no issue, and a relative one is looked up from Pi's cwd. A fork of
 * another project's session is made in this folder, so it has no such question.
 */
function missingCwdOf(resolution: Resolution, opens: ListedSession, p: PiProcess): string | undefined {
  if (!(resolution.kind === "local" || resolution.kind === "path") || typeof opens.info.id !== "string") return undefined;
  const headerCwd = opens.info.cwd;
  return headerCwd && !existsSync(resolve(p.cwd, headerCwd)) ? headerCwd : undefined;
}

/**
 * Reads the files in full, matching the query if there is one. A file `mayRuleOut` accepts is
 * passed over when its bytes show the query cannot match it, and is left out of the answer, as if
 * it were not in the folder: it would be listed, but not matched. With `probing`, every file's
 * header is probed on the way into `probes`, and a file whose header could match `arg` as an id
 * is never passed over.
 */
async function scanFull(
  files: SessionFile[],
  version: PiVersion,
  query: string | undefined,
  pool: FindRequest["pool"],
  mayRuleOut?: (f: SessionFile) => boolean,
  probing?: { arg: string; probes: Map<string, HeaderProbe> },
): Promise<Map<string, ScanOutcome>> {
  if (query !== undefined && parseSearchQuery(query).error) query = undefined;
  const tasks: ScanTask[] = files.map((f) => ({
    path: f.path,
    version,
    read: "info",
    ...(query !== undefined ? { query, ...(mayRuleOut?.(f) ? { prefilter: true } : {}) } : {}),
    ...(probing ? { probeForId: probing.arg } : {}),
  }));
  // Files listed without their sizes ("later") are read in the listing's order.
  const sizes = files.some((f) => f.mtimeMs !== undefined) ? files.map((f) => f.size) : undefined;
  const outcomes = await scanAll(tasks, { ...pool, ...(sizes ? { sizes } : {}) });
  if (probing) for (const o of outcomes) probing.probes.set(o.path, o.probe ?? { missing: "unreadable" });
  return new Map(outcomes.filter((o) => !o.ruledOut).map((o) => [o.path, o]));
}
