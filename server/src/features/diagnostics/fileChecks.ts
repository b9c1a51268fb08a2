/** Checks of the whole file: empty or foreign files, the byte order mark, the header and its version, the final newline. */

import { describe } from "../../core/line/findings";
import { CURRENT_VERSION, ENTRY_TYPES } from "../../core/line/schema";
import { versionRules } from "../../core/session/semantics/version";
import { COERCION_DEPTH_LIMIT } from "../../core/base/loose";
import { groupDigits } from "../../core/base/text";
import { olderRefusal, type Report } from "./report";

/** Text that marks an unparsable line as a damaged Pi line rather than foreign JSON. */
const PI_LIKE_TEXT = new RegExp(`"parentId"\\s*:|"type"\\s*:\\s*"(session|${ENTRY_TYPES.map((t) => t.type).join("|")})"`);

/** What both versions do with a file without a valid header. */
function refusal(r: Report): string {
  return `Pi 0.73/0.74 ${olderRefusal(r.doc)}; Pi 1.x refuses to open it ("not a valid pi session").`;
}

/** Reports a file that is empty, blank or not a session at all; returns whether checking stops there. */
export function checkNotASession(r: Report): boolean {
  const { a, doc } = r;
  if (a.headerState === "empty-file") {
    r.add(
      "empty-file",
      "The file is empty. Pi writes a fresh session header into an empty file when it opens it; until then it is not a session.",
      r.point(0, 0),
    );
    return true;
  }
  if (doc.parsed.every((p) => p.kind === "blank")) {
    r.add(
      "empty-file",
      'The file holds only whitespace. Pi 0.73/0.74 overwrites it with a fresh session header; Pi 1.x refuses to open it ("not a valid pi session").',
      r.lineRange(0),
    );
    return true;
  }
  // Only malformed lines are read, and only for a file in which no line looks like Pi's.
  const damagedPiLine = () => r.malformedLines().some((line) => PI_LIKE_TEXT.test(doc.lines[line]!.slice(0, 2000)));
  if (!a.looksLikeSession && !damagedPiLine()) {
    r.add(
      "not-a-session",
      `This file does not look like a Pi session: no line is a Pi header or entry. It is not checked further. (Pi 0.73/0.74 ${olderRefusal(doc)}; Pi 1.x refuses to open it.)`,
      r.lineRange(r.firstNonBlankLine()),
    );
    return true;
  }
  return false;
}

export function checkBom(r: Report): void {
  // Only a mark in front of a line Pi can parse matters: "\uFEFF" alone is blank to both versions,
  // and a line that is malformed anyway is skipped by both.
  if (!r.doc.hasBom || r.doc.parsed[0]!.kind !== "value") return;
  r.add(
    "bom",
    'The file starts with a UTF-8 byte order mark. Pi 0.73/0.74 strips it, but Pi 1.x cannot parse the header line and refuses to open the file ("not a valid pi session").',
    r.span(0, 0, 1),
  );
}

export function checkHeader(r: Report): void {
  const { a } = r;
  const line = a.headerLine;
  if (a.headerState === "no-entries") {
    r.add("missing-header", `No line of this file can be parsed, so it has no session header. ${refusal(r)}`, r.lineRange(r.firstNonBlankLine()));
    return;
  }
  if (line === undefined) return;
  if (a.headerState === "missing") {
    const laterHeader = r.doc.parsed.findIndex((p) => p.kind === "value" && p.type === "session");
    const where = laterHeader >= 0 ? ` The header is on line ${laterHeader + 1}; it must be the first line Pi can parse.` : "";
    r.add(
      "missing-header",
      `The first line Pi can parse is ${r.describeLine(line)}, not a session header.${where} ${refusal(r)}`,
      r.valueRange(line, ["type"]),
    );
    return;
  }
  if (a.headerState === "invalid") {
    const p = r.doc.parsed[line]!;
    const id = p.kind === "value" ? p.object?.id : undefined;
    const problem = id === undefined ? "has no `id`" : `has ${describe(id)} as its \`id\``;
    r.add("invalid-header", `The session header ${problem}; Pi requires a string id. ${refusal(r)}`, r.valueRange(line, id === undefined ? ["type"] : ["id"]));
    return;
  }
  checkVersion(r, line);
  for (const extra of a.extraHeaderLines) {
    r.add(
      "second-header",
      `A second session header (the first is on line ${line + 1}). Pi ignores every header after the first. Pi 0.73/0.74 writes one when it continues a session that has no assistant reply yet: at the first reply it appends the whole session again, header included. This line can be deleted.`,
      r.valueRange(extra, ["type"]),
    );
  }
}

function checkVersion(r: Report, line: number): void {
  const v = versionRules(r.a);
  const range = r.valueRange(line, v.present ? ["version"] : ["type"]);
  if (v.throws) {
    // The depth at which the comparison overflows depends on the stack in front of it: measured
    // with Pi 1.6.0 and 0.74.2 on Node 22, 3,100 levels still migrate and 6,000 throw (loose.ts).
    const why =
      v.error === "RangeError"
        ? `is an array nested more than ${groupDigits(COERCION_DEPTH_LIMIT)} deep. Pi compares it with \`>= ${CURRENT_VERSION}\`, which turns it into text recursively: from about 3,130 levels (Node 22) that throws a RangeError (stack overflow) and Pi cannot open the file; just below, Pi migrates it as a v1 file`
        : `holds an object with a \`toString\` member. Pi compares it with \`>= ${CURRENT_VERSION}\`, which throws a TypeError ("Cannot convert object to primitive value"): Pi cannot open the file`;
    r.add("invalid-header", `\`version\` ${why}. Set it to ${CURRENT_VERSION}.`, range);
    return;
  }
  const rewrite = "rewrites the whole file (dropping blank lines and lines it cannot parse)";
  const steps = v.v1
    ? `migrates it as a v1 file and ${rewrite}: every entry gets a new random id and is chained to the line above it, so branches are flattened and ids in other files no longer match`
    : v.v2
      ? `migrates it from v2 to v3 (\`hookMessage\` roles become \`custom\`) and ${rewrite}`
      : `applies no migration step but still ${rewrite}`;
  if (!v.present || v.wellFormed) {
    if (v.current) return;
    const which = v.present ? `version ${String(v.raw)}` : "no version (v1)";
    r.add("old-version", `This header has ${which}. When Pi opens the file it ${steps}.`, range);
    return;
  }
  const what = describe(v.raw);
  r.add(
    "invalid-version",
    v.current
      ? `\`version\` should be a number up to ${CURRENT_VERSION}, not ${what}. Pi treats it as current and migrates nothing.`
      : `\`version\` should be a number up to ${CURRENT_VERSION}, not ${what}. Pi compares it as a number and ${steps}.`,
    range,
  );
}

export function checkFinalNewline(r: Report): void {
  const { doc, a } = r;
  if (a.endsWithNewline) return;
  const last = doc.lineCount - 1;
  // A blank last line is harmless: what Pi appends after it still parses.
  if (doc.parsed[last]!.kind === "blank") return;
  if (r.isTruncatedLine(last)) return; // Reported as truncated-line, which says the same.
  const text = doc.lines[last]!;
  const length = text.endsWith("\r") ? text.length - 1 : text.length;
  r.add(
    "no-final-newline",
    "The file does not end with a newline. Pi 1.x appends one when it opens the file; Pi 0.73/0.74 appends its next entry to this same line, so both this entry and the next become one line it cannot parse.",
    r.span(last, Math.max(0, length - 1), length),
  );
}
