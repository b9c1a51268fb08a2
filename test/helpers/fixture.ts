/**
 * Annotated session fixtures, in the spirit of rust-analyzer's `//^^^ error` annotations.
 *
 * A fixture is the text of a session with annotation lines after the line they describe:
 *
 *     {"type":"message","id":"b","parentId":"zz",...}
 *     # error dangling-parent @ "zz" : names no entry
 *
 * - `# <severity> <code>` expects a diagnostic on the whole line above;
 * - `@ <token>` narrows the range to the first occurrence of `<token>` in that line (`<token>#2` the
 *   second one), `@ $` to its last character and `@ ^` to the empty range at its start;
 * - `: <message>` gives the diagnostic's whole message, compared with equality (not as a substring:
 *   a wrong sentence added to a message must fail the fixture). Every annotation carries one. A
 *   message that holds a line break, a tab or leading or trailing whitespace is written as a JSON
 *   string instead: `:json "first line\nsecond line"` (none does today).
 *
 * `UPDATE_EXPECT=1 npx vitest run test/diagnostics/fixtures.test.ts` rewrites the message of every
 * annotation that matches a diagnostic (same line, range, severity and code) with what the server
 * says now, as the snapshot tests do (test/helpers/snapshot.ts): write the session and the
 * annotations without messages, run with the switch, then READ the messages before committing
 * them: that reading is what the whole-message comparison is for.
 *
 * An annotation placed before any session line refers to line 0. That is how a fixture for an empty
 * (0-byte) file is written: a fixture that holds nothing but `# error empty-file @ ^` has no session
 * line at all, so its text is "" and the annotation names the empty range at line 0, column 0.
 * Tokens are looked up once the whole fixture is read, so such an annotation may also precede a
 * non-empty line 0. In a `#! bom` fixture, line 0's columns count the byte order mark as column 0
 * (as the server's UTF-16 positions do), and a token made of a literal U+FEFF character names it.
 *
 * Directives on the first lines shape the text: `#! crlf` (CRLF line endings), `#! bom` (a byte
 * order mark), `#! no-final-newline`. A line `#! raw <json string>` stands for a line whose text is
 * that JSON string's value (for lines that must hold whitespace or control characters).
 * A line `#! facts <json>` gives what the checks know of the file beyond its text (`SessionFacts`
 * of server/src/core/disk/facts.ts: its encoding, where it lies among Pi's folders), as `check` and
 * the server gather them from the file system.
 * Lines that start with `#` are never session lines, since every session line starts with JSON.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionFacts } from "../../server/src/core/disk/facts";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";

export interface ExpectedDiagnostic {
  line: number;
  start: number;
  end: number;
  severity: string;
  code: string;
  message?: string;
  /** The index of the annotation's line in the fixture's source (for UPDATE_EXPECT). */
  sourceLine?: number;
}

export interface Fixture {
  text: string;
  expected: ExpectedDiagnostic[];
  /** From `#! facts`; {} when the fixture has none. */
  facts: SessionFacts;
}

const SEVERITIES = ["", "error", "warning", "information", "hint"];
const ANNOTATION = /^# (error|warning|information|hint) ([a-z0-9-]+)(?: @ (.+?))?(?: (:|:json) (.+))?$/;

export function parseFixture(source: string): Fixture {
  const sourceLines = source.replace(/\n$/, "").split("\n");
  let crlf = false;
  let bom = false;
  let finalNewline = true;
  let facts: SessionFacts = {};
  const lines: string[] = [];
  const annotations: {
    line: number;
    severity: string;
    code: string;
    token: string | undefined;
    message: string | undefined;
    raw: string;
    sourceLine: number;
  }[] = [];
  for (const [sourceLine, raw] of sourceLines.entries()) {
    if (raw.startsWith("#! ")) {
      const directive = raw.slice(3).trim();
      if (directive === "crlf") crlf = true;
      else if (directive === "bom") bom = true;
      else if (directive === "no-final-newline") finalNewline = false;
      else if (directive.startsWith("raw ")) lines.push(JSON.parse(directive.slice(4)) as string);
      else if (directive.startsWith("facts ")) facts = JSON.parse(directive.slice(6)) as SessionFacts;
      else throw new Error(`unknown fixture directive: ${raw}`);
      continue;
    }
    if (raw.startsWith("#")) {
      const match = ANNOTATION.exec(raw);
      if (!match) throw new Error(`malformed annotation: ${raw}`);
      const [, severity, code, token, marker, written] = match;
      const message = marker === ":json" ? (JSON.parse(written!) as string) : written;
      // Before any session line, an annotation refers to line 0 (the only line of an empty file).
      annotations.push({ line: Math.max(0, lines.length - 1), severity: severity!, code: code!, token, message, raw, sourceLine });
      continue;
    }
    lines.push(raw);
  }
  const expected: ExpectedDiagnostic[] = annotations.map(({ line, severity, code, token, message, raw, sourceLine }) => {
    const text = (bom && line === 0 ? "\uFEFF" : "") + (lines[line] ?? "");
    const { start, end } = tokenRange(text, token, raw);
    return { line, start, end, severity, code, message, sourceLine };
  });
  const eol = crlf ? "\r\n" : "\n";
  let text = lines.join(eol);
  if (finalNewline && lines.length > 0) text += eol;
  if (bom) text = `\uFEFF${text}`;
  return { text, expected, facts };
}

function tokenRange(text: string, token: string | undefined, annotation: string): { start: number; end: number } {
  if (token === undefined) return { start: 0, end: text.length };
  if (token === "^") return { start: 0, end: 0 };
  if (token === "$") return { start: Math.max(0, text.length - 1), end: text.length };
  const occurrence = /^(.*)#(\d+)$/.exec(token);
  const needle = occurrence ? occurrence[1]! : token;
  let index = -1;
  for (let n = occurrence ? Number(occurrence[2]) : 1; n > 0; n--) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`token ${needle} not found in the line annotated by: ${annotation}`);
  }
  return { start: index, end: index + needle.length };
}

/** An annotation's message part as the fixture writes it: ` : <message>`, or `:json` when it must be escaped. */
export function writtenMessage(message: string): string {
  return /[\u0000-\u001f\u2028\u2029]|^\s|\s$/.test(message) ? ` :json ${JSON.stringify(message)}` : ` : ${message}`;
}

/**
 * The fixture's source with each annotation's message replaced by the one `messageOf` gives it
 * (UPDATE_EXPECT); an annotation `messageOf` has no message for is left as it is.
 */
export function updateFixtureMessages(
  source: string,
  expected: readonly ExpectedDiagnostic[],
  messageOf: (e: ExpectedDiagnostic) => string | undefined,
): string {
  const sourceLines = source.split("\n");
  for (const e of expected) {
    const message = messageOf(e);
    if (message === undefined || e.sourceLine === undefined) continue;
    const raw = sourceLines[e.sourceLine]!;
    const match = ANNOTATION.exec(raw)!;
    const [, severity, code, token] = match;
    sourceLines[e.sourceLine] = `# ${severity} ${code}${token === undefined ? "" : ` @ ${token}`}${writtenMessage(message)}`;
  }
  return sourceLines.join("\n");
}

export function diagnose(text: string, facts?: SessionFacts): Diagnostic[] {
  return computeDiagnostics(new SessionDocument("file:///fixture.jsonl", "jsonl", 1, text), facts);
}

/** A diagnostic as one comparable line: `L3 5-9 error dangling-parent`. */
export function describeDiagnostic(d: { line: number; start: number; end: number; severity: string; code: string }): string {
  return `L${d.line + 1} ${d.start}-${d.end} ${d.severity} ${d.code}`;
}

export function actualOf(diagnostics: readonly Diagnostic[]): (ExpectedDiagnostic & { message: string })[] {
  return diagnostics.map((d) => {
    if (d.range.start.line !== d.range.end.line) throw new Error(`diagnostic spans lines: ${JSON.stringify(d)}`);
    return {
      line: d.range.start.line,
      start: d.range.start.character,
      end: d.range.end.character,
      severity: SEVERITIES[d.severity ?? 0]!,
      code: String(d.code),
      message: typeof d.message === "string" ? d.message : d.message.value,
    };
  });
}
