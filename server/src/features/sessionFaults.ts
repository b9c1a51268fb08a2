/**
 * Faults users report that the file itself shows (users.md), each established from Pi's loader:
 *
 * - `oh-my-pi-session` (error): an oh-my-pi file, whose first line is oh-my-pi's 256-byte title
 *   slot (`{"type":"title","v":1,…}`) and whose header is on line 2. Pi takes the first parseable
 *   line for the header, so Pi 1.x refuses the file and Pi 0.73/0.74 overwrites it; one diagnostic
 *   says so and nothing else is checked (its entries follow oh-my-pi's format, not Pi's).
 * - `misplaced-header` (warning): the header is not the first parseable line; besides the
 *   `missing-header` error on the line Pi takes for the header, the real header says it is ignored.
 * - `leaf-hides-messages` (warning, #9930): Pi resumes from the last line; when that is a metadata
 *   entry (a rename, a label, a model change …) hung on an older entry by a client whose leaf was
 *   stale, the resumed context silently leaves out the newest messages.
 * - `interleaved-writers` (information, #8300, #8848, #8177): two processes appending to one file
 *   make two branches that grow in turns, line by line, seconds apart.
 *
 * Every walk along parents is bounded by the entry's depth and skips entries that reach a cycle.
 */

import type { Diagnostic } from "vscode-languageserver";
import { StampedMarks } from "../core/base/entryArrays";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { ancestors, ancestorWhere } from "../core/session/semantics/walk";
import type { DiagnosticCode } from "../core/base/codes";
import type { SessionDocument } from "../core/session/document";
import type { JsonPath } from "../core/line/locate";
import { isResumeMarker } from "../core/edits/resumeFrom";
import { groupDigits, singleLine } from "../core/base/text";
import { diagnostic, olderRefusal } from "./diagnostics/report";

/** Entries that give the model a message; every other type is metadata. */
const MESSAGE_TYPES: ReadonlySet<string | undefined> = new Set(["message", "custom_message", "branch_summary", "compaction"]);

/** Two lines written this close together (ms) read as one burst of work. */
const NEAR_MS = 60_000;

/** The one diagnostic of an oh-my-pi file, or undefined for any other file. */
export function ohMyPiSession(doc: SessionDocument): Diagnostic | undefined {
  const lines: number[] = [];
  for (let line = 0; line < doc.lineCount && lines.length < 2; line++) if (doc.parsed[line]!.kind === "value") lines.push(line);
  if (lines.length < 2) return undefined;
  const title = doc.parsed[lines[0]!]!;
  const header = doc.parsed[lines[1]!]!;
  if (title.kind !== "value" || header.kind !== "value" || title.object?.type !== "title" || typeof title.object.v !== "number" || header.type !== "session")
    return undefined;
  const message =
    `This is an oh-my-pi session: line ${lines[0]! + 1} is oh-my-pi's title slot, and the session header is on line ${lines[1]! + 1}. ` +
    'Pi takes the first line it can parse for the header, so Pi 1.x refuses to open the file ("Session file is not a valid pi session") and Pi 0.73/0.74 overwrites it with a fresh header, losing every entry. ' +
    "Open it with oh-my-pi (omp); its entries follow oh-my-pi's format, so this file is not checked further.";
  return diagnostic("oh-my-pi-session", message, doc.valueRange(lines[0]!, ["type"]));
}

/** A finding on a line, located when it is shown (the line's text may move under an edit inside it). */
interface Finding {
  code: DiagnosticCode;
  message: string;
  line: number;
  path: JsonPath;
}

/**
 * What these checks find depends on the tree, the types and the times alone, which an edit inside a
 * line leaves as they were: the findings are kept for the structure, and only located again.
 */
const findingsByStructure = new WeakMap<object, Finding[]>();

export function sessionFaultDiagnostics(doc: SessionDocument): Diagnostic[] {
  const a = doc.analysis;
  let findings = findingsByStructure.get(a.structure);
  if (!findings) {
    findings = [];
    const misplaced = misplacedHeader(doc);
    if (misplaced) findings.push(misplaced);
    if (a.headerState === "ok") {
      const hidden = leafHidesMessages(a);
      if (hidden) findings.push(hidden);
      const writers = interleavedWriters(a);
      if (writers) findings.push(writers);
    }
    findingsByStructure.set(a.structure, findings);
  }
  return findings.map((f) => diagnostic(f.code, f.message, doc.valueRange(f.line, f.path)));
}

function misplacedHeader(doc: SessionDocument): Finding | undefined {
  const a = doc.analysis;
  if (a.headerState !== "missing" || a.headerLine === undefined) return undefined;
  for (let line = a.headerLine + 1; line < doc.lineCount; line++) {
    const p = doc.parsed[line]!;
    if (p.kind !== "value" || p.type !== "session") continue;
    const message =
      `This is the session header, but Pi reads only the first line it can parse as the header (line ${a.headerLine + 1}) and takes this one for an ordinary entry: ` +
      `Pi 1.x refuses to open the file and Pi 0.73/0.74 ${olderRefusal(doc)}. Move this line to the top of the file.`;
    return { code: "misplaced-header", message, line, path: ["type"] };
  }
  return undefined;
}

/** The entries from `from` up to (not including) the first one on the active path, bounded by depth. */
function branchAbove(a: SessionAnalysis, from: Entry): Entry[] {
  if (a.onActivePath[from.index]) return [];
  const out: Entry[] = [from];
  for (const e of ancestors(a, from)) {
    if (a.onActivePath[e.index]) break;
    out.push(e);
  }
  return out;
}

function lineSpan(entries: readonly Entry[]): string {
  let first = Infinity;
  let last = -Infinity;
  for (const e of entries) {
    first = Math.min(first, e.line);
    last = Math.max(last, e.line);
  }
  return first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
}

/**
 * The newest entry that gives the model a message: where `leaf-hides-messages` says Pi should
 * resume, and where the doctor moves Pi's leaf.
 */
export function newestMessage(a: SessionAnalysis): Entry | undefined {
  for (let i = a.entries.length - 1; i >= 0; i--) if (MESSAGE_TYPES.has(a.entries[i]!.type)) return a.entries[i];
  return undefined;
}

function leafHidesMessages(a: SessionAnalysis): Finding | undefined {
  const leaf = a.leaf;
  // Only a metadata entry that hangs on an older entry: a last line with no parent (a bare JSON
  // value, a new root) is reported by the structural checks.
  if (!leaf || leaf.type === undefined || MESSAGE_TYPES.has(leaf.type) || !a.parent[leaf.index] || a.reachesCycle[leaf.index]) return undefined;
  // "Resume from here" appends its marker on purpose: the branch was chosen, and metadata appended
  // after it (a drop-from-context's context_edit, a label) keeps that choice. Bounded by the depth.
  for (const e of [leaf, ...ancestors(a, leaf)]) {
    if (isResumeMarker(e)) return undefined;
    if (MESSAGE_TYPES.has(e.type)) break;
  }
  const newest = newestMessage(a);
  if (!newest || a.onActivePath[newest.index] || a.reachesCycle[newest.index]) return undefined;
  const left = branchAbove(a, newest).filter((e) => MESSAGE_TYPES.has(e.type));
  if (left.length === 0) return undefined;
  const parent = a.parent[leaf.index];
  const what = leaf.type ? `this ${singleLine(leaf.type, 40)} entry` : "this entry";
  const message =
    `Pi resumes the session from its last line, ${what}, which hangs on ${parent ? `an older entry (line ${parent.line + 1})` : "no parent"}: ` +
    `the context Pi resumes with leaves out the ${groupDigits(left.length)} newest message${left.length === 1 ? "" : "s"} (${lineSpan(left)}). ` +
    `A client whose view of the session was stale appends metadata like this (a rename, a label, a model change), and the session looks cut short (#9930). If that branch was not chosen on purpose, re-parent this entry on line ${newest.line + 1}.`;
  return { code: "leaf-hides-messages", message, line: leaf.line, path: ["parentId"] };
}

/** For each parent (by index), the stamp of the pass that saw it take a child: one array for every pass, not one per structural edit (`entryArrays.ts`). */
const parentSeen = new StampedMarks();

function interleavedWriters(a: SessionAnalysis): Finding | undefined {
  const { entries, parent } = a;
  const stamp = parentSeen.begin(entries.length);
  const seen = parentSeen.marks;
  const resumes: Entry[] = [];
  for (let i = 1; i < entries.length; i++) {
    const e = entries[i]!;
    const p = parent[i];
    if (p === undefined) continue;
    const previous = entries[i - 1]!;
    // A line that continues the tip of another branch, seconds after a line on this one: a second
    // writer. The times are read last, for the few lines that continue another branch: each read
    // makes a number on the heap, 100,000 of them a pass.
    if (p !== previous && p.index < i && seen[p.index] !== stamp && !a.reachesCycle[i] && near(e, previous)) resumes.push(e);
    seen[p.index] = stamp;
  }
  if (resumes.length < 2) return undefined;
  // The first resume goes back to writer A's tip after writer B's line: B's branch starts where it leaves A's path.
  const first = resumes[0]!;
  const tipOfA = a.parent[first.index]!;
  let start: Entry | undefined = a.entries[first.index - 1];
  if (start) {
    // A's tip and the entries above it, marked once, instead of the tree's order asked at every step up.
    // A second pass over the same marks, which it does not grow.
    const onPathOfA = parentSeen.begin(entries.length);
    seen[tipOfA.index] = onPathOfA;
    ancestorWhere(a, tipOfA, (up) => {
      seen[up.index] = onPathOfA;
      return false;
    });
    ancestorWhere(a, start, (up) => {
      if (seen[up.index] === onPathOfA) return true;
      start = up;
      return false;
    });
  }
  if (!start || a.reachesCycle[start.index]) return undefined;
  const leafSide = a.leaf && a.onActivePath[start.index] ? "this branch" : `the branch of line ${tipOfA.line + 1}`;
  const message =
    `From this entry on, two branches grow in turns, line by line and seconds apart (${groupDigits(resumes.length)} times a line continues the other branch's tip, first on line ${first.line + 1}): ` +
    `two Pi processes appended to the same file (#8300, #8848, #8177). Pi resumes from the last line, so it continues ${leafSide} and leaves the other one out of the context.`;
  return { code: "interleaved-writers", message, line: start.line, path: ["parentId"] };
}

/** Whether two entries were written within `NEAR_MS` of each other. */
function near(x: Entry, y: Entry): boolean {
  const tx = x.parsed.time;
  const ty = y.parsed.time;
  return tx !== undefined && ty !== undefined && Math.abs(tx - ty) <= NEAR_MS;
}
