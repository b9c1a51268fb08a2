/**
 * One session file read for a listing, a search or the editor's index: the work a worker thread
 * does per file (`scanWorker.ts`), also callable in-process. Reads only what the answer needs: the
 * first lines for a header probe, the whole file (streamed) for Pi's list fields, nothing at all
 * for a file Pi 0.74 cannot read into one string.
 */

import { constants } from "node:buffer";
import { closeSync, type Stats, statSync } from "node:fs";
import { HEADER_SCAN_BYTES, headerCandidate16, type SessionScan, SessionInfoBuilder } from "../core/disk/info";
import type { PiVersion } from "../core/disk/location";
import { parseSearchQuery } from "../core/disk/search";
import { planPrefilter } from "../core/disk/searchPrefilter";
import { idMatches } from "../core/session/rules";
import { BoundedRegex } from "./boundedRegex";
import { FilePrefilter } from "./searchPrefilter";
import { kindOf, openRegularWithStatsSync, type ReadOptions, readLinesSync } from "./lineReader";

const NEWLINE = 0x0a;

export interface ScanTask {
  path: string;
  version: PiVersion;
  /** What to compute: Pi's list fields (and search, symbols) by reading the whole file, or only the header. */
  read: "info" | "header";
  /** A `/resume` search query to match while reading. */
  query?: string;
  symbols?: boolean;
  maxLineBytes?: number;
  /**
   * The file may be passed over, unparsed, when its bytes show that `query` cannot match it
   * (`searchPrefilter.ts`); its outcome then says `ruledOut` and has no scan.
   */
  prefilter?: boolean;
  /**
   * The argument `find` was given: the header is probed on the descriptor the prefilter reads (the
   * outcome's `probe`, for every file), and a file whose header could match it as an id is never
   * passed over, since it decides what Pi opens.
   */
  probeForId?: string;
}

/** Pi 1.x `readSessionHeader`'s view of the file: its header's id and cwd, or why it has none. */
export interface HeaderProbe {
  header?: { id: string; cwd: unknown; parentSession: unknown; timestamp: unknown };
  /** "none": no header (the first entry is something else, or there is none); "no-string-id"; "too-long": no line ends in the first MiB; "unreadable". */
  missing?: "none" | "no-string-id" | "too-long" | "unreadable";
}

export interface ScanOutcome {
  path: string;
  size: number;
  mtimeMs: number | undefined;
  scan?: SessionScan;
  probe?: HeaderProbe;
  /** The file could not be read (Pi's list skips it). */
  error?: string;
  /** What Pi's list does on this file instead of skipping it: it waits forever or dies (see `unlistable`). */
  piFails?: string;
  /**
   * The query's regular expression did not finish on this file, which did not match as far as it
   * was searched: "timeout", a test ran out of time here; "skipped", the pattern had run out of
   * time on an earlier file of this thread (see boundedRegex.ts).
   */
  searchGaveUp?: "timeout" | "skipped";
  /** The prefilter found that the task's query cannot match the file, which was not parsed. */
  ruledOut?: true;
}

/**
 * Whether Pi's list could show the file with an id `arg` matches: its header says so, or its
 * header cannot be read the quick way (1.x lists a header without a string id; 0.74 strips a byte
 * order mark).
 */
export function mayHaveId(probe: HeaderProbe, arg: string, version: PiVersion): boolean {
  if (probe.header) return idMatches(probe.header, arg);
  return version === "0.74" || probe.missing !== "none";
}

/** The prefilter of the query this thread searches, made once per query. */
let prefilterCache: { query: string; prefilter: FilePrefilter | undefined } | undefined;

function prefilterFor(query: string): FilePrefilter | undefined {
  if (prefilterCache?.query !== query) {
    const plan = planPrefilter(parseSearchQuery(query));
    prefilterCache = { query, prefilter: plan ? new FilePrefilter(plan) : undefined };
  }
  return prefilterCache.prefilter;
}

/** What one line that ends within the scanned MiB says of the header: the probe, or undefined when the scan goes on past it. */
function probeOfLine(text: string | undefined): HeaderProbe | undefined {
  const candidate = text === undefined ? "skip" : headerCandidate16(text);
  if (candidate === "skip") return undefined;
  if (candidate === "none" || candidate === "no-string-id") return { missing: candidate };
  return { header: { id: candidate.id as string, cwd: candidate.cwd, parentSession: candidate.parentSession, timestamp: candidate.timestamp } };
}

/** `readSessionHeader` of Pi 1.x: the first parsed line within the first MiB must be a header (of the file at `path`, or open at that descriptor). */
export function probeHeader(path: string | number, size: number): HeaderProbe {
  let result: HeaderProbe | undefined;
  try {
    readLinesSync(
      path,
      (text, meta) => {
        const end = meta.start + meta.bytes;
        // A line counts when its "\n" falls inside the scanned MiB, or it ends the file within it.
        if (meta.newline ? end >= HEADER_SCAN_BYTES : size > HEADER_SCAN_BYTES) {
          result = { missing: "too-long" };
          return false;
        }
        result = probeOfLine(text);
        return result === undefined ? undefined : false;
      },
      { end: HEADER_SCAN_BYTES + 1, chunkBytes: 4096, maxLineBytes: HEADER_SCAN_BYTES },
    );
  } catch {
    return { missing: "unreadable" };
  }
  return result ?? { missing: size > HEADER_SCAN_BYTES ? "too-long" : "none" };
}

/**
 * `probeHeader` from the file's first bytes, already read (the prefilter's first chunk), when the
 * lines in them settle it: each line that decides nothing ends with a "\n" inside them, and so does
 * the one that decides, all within the scanned MiB. Undefined when they do not settle it: the
 * file is then probed from its descriptor.
 */
export function probeHeaderIn(bytes: Buffer): HeaderProbe | undefined {
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end < 0 || end >= HEADER_SCAN_BYTES) return undefined;
    const probe = probeOfLine(bytes.toString("utf8", start, end));
    if (probe) return probe;
    start = end + 1;
  }
  return undefined;
}

/**
 * Why a `*.jsonl` that is not a regular file is not listed, and what Pi does with it instead of
 * leaving it out, as recorded from Pi 1.6.0 and 0.74.2's `SessionManager.list`: both open a FIFO
 * to read it and wait for a writer forever, so `/resume` never finishes loading; Pi 1.x reads a
 * character device line by line, and on one that never ends (a link to `/dev/zero`) its line
 * buffer outgrows a string and the process dies with "RangeError: Invalid string length", where
 * 0.74's `readFile` fails and the file is left out. A folder or a socket fails to open: left out.
 */
function unlistable(stats: Stats, version: PiVersion): Pick<ScanOutcome, "error" | "piFails"> {
  const error = `it is ${kindOf(stats)}, not a regular file`;
  if (stats.isFIFO())
    return { error, piFails: `it is a FIFO, which Pi's /resume opens and then waits on for a writer forever: its list never finishes loading` };
  if (stats.isCharacterDevice() && version === "1.x")
    return {
      error,
      piFails: `it is a character device, which Pi 1.x's /resume reads as a session: one that never ends (a link to /dev/zero) makes Pi die with "RangeError: Invalid string length"`,
    };
  return { error };
}

export function scanFile(task: ScanTask, onChunk?: ReadOptions["onChunk"]): ScanOutcome {
  const swept = task.read === "info" ? sweep(task) : undefined;
  if (swept?.ruledOut) {
    onChunk?.(swept.ruledOut.size);
    return { path: task.path, size: swept.ruledOut.size, mtimeMs: swept.ruledOut.mtimeMs, ruledOut: true, ...(swept.probe ? { probe: swept.probe } : {}) };
  }
  const outcome = scanWhole(task, onChunk);
  return swept?.probe ? { ...outcome, probe: swept.probe } : outcome;
}

/**
 * The header's probe (`probeForId`) and the prefilter, on one descriptor: a file passed over is
 * answered from that descriptor's stats, so that the sweep of a folder for text opens and stats
 * each file once (it opened it three times: for the header, a stat, the prefilter).
 */
function sweep(task: ScanTask): { probe?: HeaderProbe; ruledOut?: Stats } {
  const prefilter = task.prefilter && task.query !== undefined ? prefilterFor(task.query) : undefined;
  if (prefilter === undefined && task.probeForId === undefined) return {};
  let opened: { fd: number; stats: Stats };
  try {
    opened = openRegularWithStatsSync(task.path);
  } catch {
    // The whole read says why (or what Pi does with a file that is not a regular one).
    return task.probeForId !== undefined ? { probe: { missing: "unreadable" } } : {};
  }
  const { fd, stats } = opened;
  try {
    // The header is probed from the prefilter's first chunk when its lines settle it, else read again.
    let probe: HeaderProbe | undefined;
    const fromFirstChunk = task.probeForId !== undefined ? (bytes: Buffer) => (probe = probeHeaderIn(bytes)) : undefined;
    const couldMatch = prefilter === undefined || prefilter.couldMatch(fd, fromFirstChunk);
    if (task.probeForId !== undefined) probe ??= probeHeader(fd, stats.size);
    const keep = probe !== undefined && mayHaveId(probe, task.probeForId!, task.version);
    const ruledOut = !keep && !couldMatch;
    return { ...(probe ? { probe } : {}), ...(ruledOut ? { ruledOut: stats } : {}) };
  } finally {
    closeSync(fd);
  }
}

/** The file read in full for Pi's list fields (and the search, the symbols), or its header probed. */
function scanWhole(task: ScanTask, onChunk?: ReadOptions["onChunk"]): ScanOutcome {
  let size = 0;
  let mtimeMs: number | undefined;
  try {
    const stats = statSync(task.path);
    size = stats.size;
    mtimeMs = stats.mtimeMs;
    if (!stats.isFile()) return { path: task.path, size, mtimeMs, ...unlistable(stats, task.version) };
  } catch (error) {
    return { path: task.path, size, mtimeMs, error: (error as Error).message };
  }
  if (task.read === "header") return { path: task.path, size, mtimeMs, probe: probeHeader(task.path, size) };
  const search = task.query === undefined ? undefined : parseSearchQuery(task.query);
  // A `re:` pattern is tested with a time limit (see boundedRegex.ts).
  const bounded = search?.regex instanceof RegExp ? new BoundedRegex(search.regex) : undefined;
  const builder = new SessionInfoBuilder(task.version, { search: search && bounded ? { ...search, regex: bounded } : search, symbols: task.symbols });
  const finish = (): Pick<ScanOutcome, "scan" | "searchGaveUp"> => {
    const scan = builder.finish({ mtimeMs: mtimeMs ?? Number.NaN, size, maxStringLength: constants.MAX_STRING_LENGTH });
    const gaveUp = bounded?.timedOut ? "timeout" : bounded?.skipped ? "skipped" : undefined;
    // A session that matched is answered, whatever a later test of it did.
    return gaveUp && !scan.search ? { scan, searchGaveUp: gaveUp } : { scan };
  };
  // Pi 0.74 reads the file into one string first; one too long for that is dropped unread.
  if (task.version === "0.74" && size > constants.MAX_STRING_LENGTH) {
    onChunk?.(size);
    return { path: task.path, size, mtimeMs, ...finish() };
  }
  try {
    let read = 0;
    readLinesSync(
      task.path,
      (text, meta) => {
        builder.line(text, meta);
        // Once Pi would drop the file nothing more can change the answer, except the editor's symbols.
        return builder.wantsMore || task.symbols ? undefined : false;
      },
      {
        maxLineBytes: task.maxLineBytes,
        onChunk: (bytes) => {
          read += bytes;
          onChunk?.(bytes);
        },
      },
    );
    if (read < size) onChunk?.(size - read);
  } catch (error) {
    return { path: task.path, size, mtimeMs, error: (error as Error).message };
  }
  return { path: task.path, size, mtimeMs, ...finish() };
}
