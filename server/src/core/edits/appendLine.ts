/**
 * What the session edits that only append have in common: which Pi reads the file at all, the
 * entry an appended line may name as its parent, and the text that appends one line.
 *
 * Pi writes one entry per `appendFileSync(path, JSON.stringify(entry) + "\n")`, so an appended line
 * is the same: compact JSON with Pi's key order, and a line break after it. A file whose last line
 * has no line break (a cut-off entry, or an editor that dropped it) gets one before the new line,
 * as Pi 1.x adds one when it opens such a file, so that the cut-off text stays a line of its own.
 */

import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";
import type { SessionDocument } from "../session/document";
import { freshEntryId, type Random } from "../base/ids";
import { versionRules } from "../session/semantics/version";
import { clip } from "../base/text";

/** The two Pi lines the edits are checked against: Pi 1.x (1.6.0) and Pi 0.73/0.74 (0.74.2). */
export type PiReader = "1.x" | "0.74";

/** Why an edit is not offered: one sentence, for a disabled action or the command line. */
export interface Refusal {
  ok: false;
  reason: string;
}

/** A line to append, with the id it gives the new entry. */
export interface AppendedLine {
  ok: true;
  /** The new entry as Pi would write it, without a line break. */
  line: string;
  /** The new entry's id. */
  id: string;
  /** What the user should know before relying on the line: only one Pi reads the file. */
  warning?: ReaderWarning;
}

export interface EditClock {
  /** The time of the new entries (`timestamp`) and of a fork's UUIDv7 id. */
  now: Date;
  /** Randomness in [0, 1) for new ids; `Math.random` by default. */
  random?: Random;
}

export function refuse(reason: string): Refusal {
  return { ok: false, reason };
}

/**
 * Whether `reader` opens the file without refusing, rewriting or throwing, and without migrating it
 * (a v1/v2 file gets new ids when Pi opens it, so no id in it can be named yet).
 */
export function piReads(doc: SessionDocument, reader: PiReader): boolean {
  const a = doc.analysis;
  if (a.headerState !== "ok") return false;
  const rules = versionRules(a);
  if (!rules.current) return false;
  // Pi 1.x does not strip a byte order mark, so the header line does not parse and the file is refused.
  if (reader === "1.x") return !(doc.hasBom && doc.parsed[0]?.kind === "value");
  // Pi 0.73/0.74 keeps a `null` line as an entry and throws reading its type.
  return !a.falsyLines.some((line) => {
    const p = doc.parsed[line];
    return p?.kind === "value" && p.value === null;
  });
}

/** Why no edit can be made to this file at all, or undefined when some Pi reads it. */
export function unreadable(doc: SessionDocument): Refusal | undefined {
  if (piReads(doc, "1.x") || piReads(doc, "0.74")) return undefined;
  const a = doc.analysis;
  if (a.headerState !== "ok") return refuse("Pi does not open this file (no valid session header), so there is no session to resume, edit or fork");
  if (!versionRules(a).current) return refuse("Pi migrates this file and gives its entries new ids when it opens it; migrate it to version 3 first");
  return refuse("neither Pi 1.x nor Pi 0.73/0.74 opens this file as it is; fix the errors first");
}

/**
 * Which Pi will not read the line appended to a file that one Pi reads: said with the line, as
 * `drop-from-context` says it refusing, so that no line goes in without a word. A file starting
 * with a byte order mark is the case in practice: Pi 0.73/0.74 strips the mark, Pi 1.x refuses.
 */
export function otherReaderWarning(doc: SessionDocument): ReaderWarning | undefined {
  if (!piReads(doc, "1.x") && piReads(doc, "0.74")) {
    const text = "Pi 1.x refuses this file as it is, so only Pi 0.73/0.74 resumes from the new line";
    return {
      only: "0.74",
      text: doc.hasBom
        ? `${text}: the file starts with a byte order mark (U+FEFF), on which Pi 1.x's header line does not parse (\`pi-session-lsp check --fix\` removes it)`
        : text,
    };
  }
  if (piReads(doc, "1.x") && !piReads(doc, "0.74"))
    return { only: "1.x", text: "Pi 0.73/0.74 throws opening this file (a line holds null), so only Pi 1.x resumes from the new line" };
  return undefined;
}

/** The one Pi that reads a file another refuses, and the sentence that says so. */
export interface ReaderWarning {
  only: PiReader;
  text: string;
}

/**
 * Whether a new line can name `entry` as its parent and reach exactly it: its id is a string Pi
 * follows, Pi's `byId` files this entry under it (not a later duplicate), and its path ends.
 */
export function nameable(a: SessionAnalysis, entry: Entry): Refusal | undefined {
  if (typeof entry.id !== "string" || entry.id === "") return refuse("this entry has no string id that a new line could name as its parent");
  if (a.byId.get(entry.key) !== entry) return refuse(`a later entry has the same id ${JSON.stringify(clip(entry.id))}, and Pi would find that one instead`);
  if (a.reachesCycle[entry.index]) return refuse("the path from this entry runs into a parent cycle, on which Pi 0.74 hangs and Pi 1.x fails");
  return undefined;
}

/** A fresh entry id for this file, as Pi's `generateId` makes one. */
export function newEntryId(a: SessionAnalysis, random?: Random): string {
  return freshEntryId((id) => a.byId.has(id), random);
}

/** The text that appends `line` to the document: after a line break the document lacks, and ending with one. */
export function appendedText(doc: SessionDocument, line: string): string {
  return doc.analysis.endsWithNewline ? `${line}\n` : `\n${line}\n`;
}
