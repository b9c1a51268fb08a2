/**
 * The session file Pi holds, read and diagnosed for the extension: bounded in size (Pi keeps
 * running while the analysis runs, on its thread), read only (Pi appends to it), and diagnosed
 * once per version of the file (its size, modification time and inode), so that a request after
 * a request costs an `fstat`, not an analysis. The file is read through `io/boundedFile.ts`.
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { forgetValues } from "../core/line/values";
import { SessionDocument } from "../core/session/document";
import { type DoctorReport, doctorReport } from "../features/api/doctor";
import { isNonEmptyFile, readBoundedFile } from "../io/boundedFile";
import { folderInputs, sessionFacts } from "../io/sessionFacts";

/** The largest session `/doctor` reads inside Pi (64 MiB): more would hold Pi up for seconds. */
export const MAX_DOCTOR_BYTES = 64 * 1024 * 1024;
/** The largest session the automatic checks (the resume notice, the request warning) read: they run on Pi's way. */
export const MAX_AUTOMATIC_BYTES = 16 * 1024 * 1024;

export type Diagnosed = { ok: true; report: DoctorReport; path: string } | { ok: false; why: string };

/** The last report, for the version of the file it was made from: a request after a request costs an `fstat`. */
let last: { version: string; diagnosed: Diagnosed } | undefined;

/** Whether `path` is a file with more than a header: a session worth checking (a new one is not). */
export function hasEntries(path: string): boolean {
  return isNonEmptyFile(path);
}

/** The doctor's report on the file at `path`, or why there is none; `limit` bounds the bytes read. */
export function diagnose(path: string, limit: number): Diagnosed {
  const full = resolve(path);
  const read = readBoundedFile(full, limit, (version) => last?.version === version);
  if (!read.ok) {
    return {
      ok: false,
      why: read.tooLarge
        ? `${read.why} the doctor reads inside Pi (so that Pi is not held up); run pi-session-lsp doctor ${full} in a terminal, or pi-session-lsp check, which streams a session of any size`
        : read.why,
    };
  }
  if ("cached" in read && last) return last.diagnosed;
  if (!("bytes" in read)) return { ok: false, why: `cannot read ${full}` };
  let diagnosed: Diagnosed;
  try {
    // Pi reads sessions as UTF-8, as this does; a file that is not UTF-8 is one Pi 1.x refuses.
    const doc = new SessionDocument(pathToFileURL(full).href, "jsonl", 0, read.bytes.toString("utf8"));
    const facts = sessionFacts(doc, folderInputs({ version: "1.x" }), { encoding: "utf-8", bom: false, lossless: true });
    diagnosed = { ok: true, report: doctorReport(doc, { facts, path: full }), path: full };
  } finally {
    // The parsed values kept meanwhile belong to lines of this document alone, which the next run
    // does not read (it makes a new document), and Pi's process has no idle collection to let them
    // go: a large session's held path behind a compaction, which nothing reads, stayed until
    // another large session was read.
    forgetValues();
  }
  last = { version: read.version, diagnosed };
  return diagnosed;
}

/** The one-line notice for a resumed session with faults, or undefined for a sound one (or one too large to check on the way). */
export function resumeNotice(path: string): string | undefined {
  const found = diagnose(path, MAX_AUTOMATIC_BYTES);
  if (!found.ok) return undefined;
  const { verdict, summary } = found.report;
  if (verdict === "healthy" || verdict === "notes") return undefined;
  return `pi-session-lsp: ${summary} /doctor explains what and what to do.`;
}

/**
 * The warning before a request, for the faults the request diagnostics find in the session the
 * payload is built from (an error in the report's "next request" group, on an entry of Pi's
 * current branch) that `warned` does not hold yet; they are added to it. The payload is read, never changed, and only its model's name
 * is taken from it: however large it is, it costs nothing more.
 */
export function requestWarning(path: string, payload: unknown, warned: Set<string>, onBranch: (entryId: string) => boolean): string | undefined {
  const found = diagnose(path, MAX_AUTOMATIC_BYTES);
  if (!found.ok) return undefined;
  const group = found.report.groups.find((g) => g.id === "request");
  // Only a fault of an entry on the branch Pi builds this request from: after a move in /tree
  // (kept in Pi's memory until its next line), the file's last line is not where Pi is.
  const fresh = (group?.findings ?? []).filter(
    (f) => f.severity === 1 && !warned.has(`${f.code}\0${f.message}`) && (f.entryId === undefined || onBranch(f.entryId)),
  );
  if (fresh.length === 0) return undefined;
  for (const f of fresh) warned.add(`${f.code}\0${f.message}`);
  const model = modelOf(payload);
  const faults = fresh.map((f) => `line ${f.line}: ${f.code}: ${f.message}`).join(" ");
  return `pi-session-lsp: this request${model ? ` to ${model}` : ""} carries what the provider refuses (it is sent unchanged). ${faults} Remedy: ${group!.advice} /doctor offers the repaired copy.`;
}

function modelOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined;
  const model = (payload as Record<string, unknown>).model;
  return typeof model === "string" ? model.slice(0, 100) : undefined;
}
