/** Checks of each line: blank, malformed and cut-off lines, values that are not objects, the line's own findings, and what needs the parent. */

import type { Entry } from "../../core/analysis";
import { describe } from "../../core/lineFindings";
import { versionRules } from "../../core/semantics/version";
import { shortValue } from "../../core/text";
import type { Report } from "./report";

/** Fields that a v1 file lacks and Pi's migration adds. */
const V1_ADDED_FIELDS: ReadonlySet<string> = new Set(["id", "parentId", "firstKeptEntryId"]);

export function checkLines(r: Report): void {
  const { doc, a } = r;
  const last = doc.lineCount - 1;
  const lastNonBlank = r.lastNonBlankLine();
  const malformedIds = r.malformedIds();
  const v1 = r.isV1;
  const lastEntry = a.entries[a.entries.length - 1];
  for (let line = 0; line < doc.lineCount; line++) {
    const p = doc.parsed[line]!;
    if (p.kind === "blank") {
      if (line === last && doc.lines[line] === "") continue; // The empty piece after the final newline.
      r.add("blank-line", "Blank line. Pi skips it.", () => r.lineRange(line));
      continue;
    }
    if (p.kind === "malformed") {
      if (line === lastNonBlank && r.isTruncatedLine(line)) {
        r.add(
          "truncated-line",
          () =>
            `The last line is cut off (${p.error}), as when Pi is stopped while appending. Pi skips it${r.orphansOf(malformedIds.get(line))}. Pi 1.x appends a newline after it when it opens the file; Pi 0.73/0.74 writes its next entry onto this same line, so that entry is lost too.`,
          () => r.lineRange(line),
        );
      } else {
        r.add(
          "malformed-json",
          () => `This line is not valid JSON (${p.error}). Pi skips it when it opens the file${r.orphansOf(malformedIds.get(line))}.`,
          () => r.lineRange(line),
        );
      }
      continue;
    }
    if (!p.isObject) {
      r.add("not-an-object", notAnObjectMessage(r, line, p.value), r.lineRange(line));
      continue;
    }
    const entry = a.entryAtLine[line];
    for (const finding of p.findings) {
      if (v1 && finding.code === "missing-field" && V1_ADDED_FIELDS.has(finding.field ?? "")) continue;
      let message = finding.message;
      if (finding.code === "missing-message" && entry && a.onActivePath[entry.index]) {
        message += " It is on the path from the last line, so Pi fails as soon as it resumes this session.";
      }
      if (finding.field === "id" && entry && entry === lastEntry) message += lastEntryIdNote(entry);
      r.add(finding.code, message, doc.jsonRange(line, finding.span.start, finding.span.end));
    }
    if (!entry || v1) continue;
    checkTimestampOrder(r, entry);
    if (entry.type === "message") checkHookMessage(r, entry);
  }
}

function notAnObjectMessage(r: Report, line: number, value: unknown): string {
  const { a } = r;
  const what = `This line is JSON (${describe(value)}) but not an object.`;
  const beforeHeader = a.headerLine === undefined || line < a.headerLine;
  if (line === a.headerLine) {
    return `${what} Pi takes it for the header: Pi 0.73/0.74 overwrites the whole file with a fresh header, and Pi 1.x refuses to open it.`;
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
      ? `${what} Pi 1.x skips it; Pi 0.73/0.74 takes it for an invalid header and overwrites the whole file with a fresh one.`
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

function checkTimestampOrder(r: Report, entry: Entry): void {
  const parent = r.a.parent[entry.index];
  const time = entry.parsed.time;
  const parentTime = parent?.parsed.time;
  if (time === undefined || parentTime === undefined || time >= parentTime) return;
  r.add(
    "timestamp-backwards",
    `This entry's timestamp is earlier than its parent's (line ${parent!.line + 1}, ${shortValue(parent!.parsed.object?.timestamp)}). Pi does not mind, but it orders sibling branches by timestamp.`,
    r.valueRange(entry.line, ["timestamp"]),
  );
}

function checkHookMessage(r: Report, entry: Entry): void {
  if (entry.parsed.role !== "hookMessage") return;
  if (!versionRules(r.a).current) return; // Pi renames it while migrating the file.
  r.add(
    "hook-message-in-v3",
    "`hookMessage` is the v2 name of the `custom` role. Pi renames it only when it migrates a v2 file; in a v3 file the role is unknown and the message never reaches the model.",
    r.valueRange(entry.line, ["message", "role"]),
  );
}
