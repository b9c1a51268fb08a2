/** Checks of each line: blank, malformed and cut-off lines, values that are not objects, the line's own findings, and what needs the parent. */

import type { Entry } from "../../core/session/entry";
import type { ParsedLine } from "../../core/line/facts";
import { describe } from "../../core/line/findings";
import { versionRules } from "../../core/session/semantics/version";
import { shortValue } from "../../core/base/text";
import { type Add, ascending, checkByLine, type LineFindings } from "./replay";
import { olderRefusal, type Report } from "./report";

/** Fields that a v1 file lacks and Pi's migration adds. */
const V1_ADDED_FIELDS: ReadonlySet<string> = new Set(["id", "parentId", "firstKeptEntryId"]);

/**
 * The findings of the last run are kept per line for a tree whose structure typing leaves as it is
 * (see `SessionAnalysis.structure`, `replay.ts`). Every finding of a line depends on that line's
 * parse and on structural facts, except the timestamp order, whose message quotes the parent's
 * timestamp as written (its time is structural, its text is not): so after an edit inside lines
 * only those lines and their children are checked again, and the other lines' findings are
 * replayed. On the 50 MB session this was a walk over 50,000 lines' objects on every keystroke, the
 * largest part of the checks' time per edit; now it is proportional to the lines edited and the
 * lines with findings.
 */
const memos = new WeakMap<object, LineFindings>();

export function checkLines(r: Report): void {
  const { doc, a } = r;
  const facts = lineFacts(r);
  checkByLine(r, {
    // A run without the lines' own findings keeps nothing for the next run to replay.
    memos: r.lineFindings ? memos : new WeakMap(),
    key: undefined,
    sameKey: () => true,
    // Without the lines' own findings only the lines that are not an object are faults of their
    // own (blank, not JSON, not an object): the structure's first answer walks no other line.
    lines: () => (r.lineFindings ? doc.lineCount : linesNotObjects(doc.parsed)),
    again: (edited) => {
      // Blank lines share one parse whatever their whitespace, and the last line is skipped only
      // when it is the empty piece after the final newline: it is always checked again.
      const again = [...edited, doc.lineCount - 1];
      for (const line of edited) {
        const entry = a.entryAtLine[line];
        if (entry) for (const child of a.childrenOf(entry)) again.push(child.line);
      }
      return ascending(again);
    },
    check: (line, add) => checkLine(r, line, facts, add),
    // After a structural edit, a line outside the edit whose findings were none stays without any
    // unless its parent changed (the timestamp order): every other fact a finding reads (the active
    // path, the last entry, the last line, the header, the lines around a malformed one) only changes
    // the message of a finding the line already had, and those lines are checked again.
    carry: (resplice, had) => [...had, doc.lineCount - 1, ...resplice.reparented().map((e) => e.line)],
  });
}

function* linesNotObjects(parsed: readonly ParsedLine[]): Generator<number> {
  for (let line = 0; line < parsed.length; line++) {
    const p = parsed[line]!;
    if (p.kind !== "value" || !p.isObject) yield line;
  }
}

interface LineFacts {
  last: number;
  lastNonBlank: number;
  /** Read only for malformed lines: it walks every line. */
  malformedIds: () => Map<number, string>;
  v1: boolean;
  lastEntry: Entry | undefined;
}

function lineFacts(r: Report): LineFacts {
  const { doc, a } = r;
  return {
    last: doc.lineCount - 1,
    lastNonBlank: r.lastNonBlankLine(),
    malformedIds: () => r.malformedIds(),
    v1: r.isV1,
    lastEntry: a.entries[a.entries.length - 1],
  };
}

function checkLine(r: Report, line: number, facts: LineFacts, add: (...args: Add) => void): void {
  const { doc, a } = r;
  const { v1, lastEntry } = facts;
  const p = doc.parsed[line]!;
  // The lines that are not values are checked apart: their findings make closures, whose captured
  // variables would otherwise be allocated on every call, for 50,000 lines after an edit of the tree.
  if (p.kind !== "value") {
    checkNotAValue(r, line, facts, add);
    return;
  }
  if (!p.isObject) {
    add("not-an-object", notAnObjectMessage(r, line, p.value), r.lineRange(line));
    return;
  }
  const entry = a.entryAtLine[line];
  // An indexed loop: an iterator over the (nearly always empty) findings was an object per line.
  const findings = p.findings;
  for (let k = 0; k < findings.length; k++) {
    const finding = findings[k]!;
    if (v1 && finding.code === "missing-field" && V1_ADDED_FIELDS.has(finding.field ?? "")) continue;
    let message = finding.message;
    if (finding.code === "missing-message" && entry && a.onActivePath[entry.index]) {
      message += " It is on the path from the last line, so Pi fails as soon as it resumes this session.";
    }
    if (finding.field === "id" && entry && entry === lastEntry) message += lastEntryIdNote(entry);
    add(finding.code, message, doc.jsonRange(line, finding.span.start, finding.span.end));
  }
  if (!entry || v1) return;
  checkTimestampOrder(r, entry, add);
  if (entry.type === "message") checkHookMessage(r, entry, add);
}

function checkNotAValue(r: Report, line: number, facts: LineFacts, add: (...args: Add) => void): void {
  const { doc } = r;
  const { last, lastNonBlank, malformedIds } = facts;
  const p = doc.parsed[line]!;
  if (p.kind === "blank") {
    if (line === last && doc.lines[line] === "") return; // The empty piece after the final newline.
    add("blank-line", "Blank line. Pi skips it.", () => r.lineRange(line));
    return;
  }
  if (p.kind !== "malformed") return;
  if (line === lastNonBlank && r.isTruncatedLine(line)) {
    add(
      "truncated-line",
      () =>
        `The last line is cut off (${p.error}), as when Pi is stopped while appending. Pi skips it${r.orphansOf(malformedIds().get(line))}. Pi 1.x appends a newline after it when it opens the file; Pi 0.73/0.74 writes its next entry onto this same line, so that entry is lost too.`,
      () => r.lineRange(line),
    );
  } else {
    add(
      "malformed-json",
      () => `This line is not valid JSON (${p.error}). Pi skips it when it opens the file${r.orphansOf(malformedIds().get(line))}.`,
      () => r.lineRange(line),
    );
  }
}

function notAnObjectMessage(r: Report, line: number, value: unknown): string {
  const { a } = r;
  const what = `This line is JSON (${describe(value)}) but not an object.`;
  const beforeHeader = a.headerLine === undefined || line < a.headerLine;
  if (line === a.headerLine) {
    return `${what} Pi takes it for the header: Pi 0.73/0.74 ${olderRefusal(r.doc)}, and Pi 1.x refuses to open it.`;
  }
  if (value === null) {
    return beforeHeader
      ? `${what} Pi 0.73/0.74 takes it for the header and throws a TypeError when it opens the file; Pi 1.x skips it.`
      : `${what} Pi 0.73/0.74 throws a TypeError when it opens the file; Pi 1.x skips it.`;
  }
  // Whether this is the last line Pi 0.73/0.74 keeps as an entry (it keeps falsy values too).
  const lastKept = line === r.lastValueLine();
  if (!value) {
    return beforeHeader
      ? `${what} Pi 1.x skips it; Pi 0.73/0.74 reads the first line it can parse as the header and ${olderRefusal(r.doc)}.`
      : `${what} Pi 1.x skips it; Pi 0.73/0.74 keeps it as an entry without an id.${lastKept ? " It is the last entry there, so Pi 0.73/0.74 resumes from it with an empty context." : ""}`;
  }
  const resumes = lastKept ? " It is the last entry, so the session resumes from it with an empty context." : "";
  return `${what} Pi keeps it as an entry without an id: nothing can refer to it.${resumes}`;
}

/** What the id of the last entry does to the next entry Pi appends, when it is not a string. */
function lastEntryIdNote(entry: Entry): string {
  if (entry.key === null) return " It is the last entry: Pi resumes from no entry at all (an empty context), and the next entry it appends starts a new root.";
  if (entry.key === undefined) return " It is the last entry: the next entry Pi appends gets no parentId and starts a new root.";
  return " It is the last entry: the next entry Pi appends names it by this value as its parentId.";
}

function checkTimestampOrder(r: Report, entry: Entry, add: (...args: Add) => void): void {
  const parent = r.a.parent[entry.index];
  const time = entry.parsed.time;
  const parentTime = parent?.parsed.time;
  if (time === undefined || parentTime === undefined || time >= parentTime) return;
  add(
    "timestamp-backwards",
    `This entry's timestamp is earlier than its parent's (line ${parent!.line + 1}, ${shortValue(parent!.parsed.object?.timestamp)}). Pi does not mind, but it orders sibling branches by timestamp.`,
    r.valueRange(entry.line, ["timestamp"]),
  );
}

function checkHookMessage(r: Report, entry: Entry, add: (...args: Add) => void): void {
  if (entry.parsed.role !== "hookMessage") return;
  if (!versionRules(r.a).current) return; // Pi renames it while migrating the file.
  add(
    "hook-message-in-v3",
    "`hookMessage` is the v2 name of the `custom` role. Pi renames it only when it migrates a v2 file; in a v3 file the role is unknown and the message never reaches the model.",
    r.valueRange(entry.line, ["message", "role"]),
  );
}
