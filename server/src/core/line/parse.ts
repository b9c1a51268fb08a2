/**
 * The per-line parse: one line of text in, a `ParsedLine` out.
 *
 * Architecture invariant: the result depends only on the line's text, never on its neighbours or
 * its position, so it can be cached across edits and shared between documents. Facts that need
 * other lines (is this the header, does this parent exist) are derived later by `analyze`.
 *
 * The parse never throws. A line Pi cannot parse becomes a `malformed` line with the error;
 * a line that parses also carries the findings that need only its own text (field types, unknown
 * roles, bad timestamps), with spans located in the line.
 */

import { idKeyOf } from "../base/ids";
import type { BlankLine, LineFacts, MalformedLine, ParsedLine } from "./facts";
import { checkLine, type LineFinding } from "./findings";
import { type CachedValueLine, NO_FINDINGS, ParsedValueLine } from "./record";
import { rememberValue } from "./values";
import { ENTRY_TYPE_BY_NAME } from "./schema";
import { isoTime } from "./isoTime";

const BLANK: BlankLine = { kind: "blank" };

/** Whether Pi treats the line as blank: `line.trim()` is empty. */
function isBlank(text: string): boolean {
  // Almost every line starts with "{"; only the others need the full trim.
  return text.charCodeAt(0) !== 123 && text.trim().length === 0;
}

/** Whether `c` can start a JSON value (`{ [ " - 0-9 t f n`). */
function startsValue(c: number): boolean {
  return c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110;
}

/**
 * A line that cannot be JSON because of its first character, found without `JSON.parse` (which
 * costs microseconds to throw, minutes on millions of such lines). `JSON.parse`'s own message is
 * made only if a diagnostic asks for it.
 */
class UnparsableLine implements MalformedLine {
  readonly kind = "malformed";
  private message: string | undefined;

  constructor(private readonly text: string) {}

  get error(): string {
    if (this.message === undefined) {
      try {
        JSON.parse(this.text);
        this.message = "Unexpected token";
      } catch (e) {
        this.message = e instanceof Error ? e.message : String(e);
      }
    }
    return this.message;
  }
}

/**
 * Makes the record of a line that parses from its text and facts, for a document that keeps its
 * lines its own way (the streamed check keeps the text on disk): made once, instead of a record
 * holding the text and then a copy of its facts.
 */
export type ValueLineMaker = (text: string, facts: LineFacts) => CachedValueLine;

export function parseLine(text: string): ParsedLine {
  return parseLineWith(text, undefined);
}

/**
 * `parseLine`, the record of a line that parses made by `make` (see `ValueLineMaker`); a function
 * apart, so that `lines.map(parseLine)` passes no index for it. `withFindings: false` leaves the
 * line's findings out (the record says it has none): for a reader that never reports them and
 * asks `parseLine` again if it ever does (`scannedContext.ts`), since the checks are a tenth of
 * the time of a parse. `withSecrets: false` leaves out only the credentials' findings, for a record
 * that finds them in its text when they are first read (`deferredSecrets.ts`).
 */
export function parseLineWith(text: string, make: ValueLineMaker | undefined, withFindings = true, withSecrets = true): ParsedLine {
  if (isBlank(text)) return BLANK;
  let first = 0;
  for (let c = text.charCodeAt(0); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++first));
  if (!startsValue(text.charCodeAt(first))) return new UnparsableLine(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "malformed", error: e instanceof Error ? e.message : String(e) };
  }
  const object = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const type = typeof object?.type === "string" ? object.type : undefined;
  const id = typeof object?.id === "string" ? object.id : undefined;
  const rawParent = object?.parentId;
  const parentId = typeof rawParent === "string" || rawParent === null ? rawParent : undefined;
  const idKey = object ? idKeyOf(object.id) : undefined;
  const parentKey = object ? idKeyOf(rawParent) : undefined;
  const looksLikePi =
    type !== undefined && (type === "session" || ENTRY_TYPE_BY_NAME.has(type) || (id !== undefined && object !== undefined && "parentId" in object));
  const timestamp = object?.timestamp;
  const time = typeof timestamp === "string" ? isoTime(timestamp) : undefined;
  let findings: readonly LineFinding[] = NO_FINDINGS;
  if (object && withFindings) {
    const found = checkLine(text, object, type, withSecrets);
    // Most lines have no finding; they share one empty array instead of holding 50,000.
    if (found.length > 0) findings = found;
  }
  let toolCallIds: string[] | undefined;
  let toolResultId: string | undefined;
  let role: string | undefined;
  const message = type === "message" ? object!.message : undefined;
  if (message !== null && typeof message === "object") {
    const m = message as Record<string, unknown>;
    if (typeof m.role === "string") role = m.role;
    if (m.role === "toolResult" && typeof m.toolCallId === "string") toolResultId = m.toolCallId;
    else if (m.role === "assistant" && Array.isArray(m.content)) toolCallIds = toolCallIdsOf(m.content);
  }
  const referenceField =
    type === "label" || type === "context_edit" ? "targetId" : type === "branch_summary" ? "fromId" : type === "compaction" ? "firstKeptEntryId" : undefined;
  const reference = referenceField && object ? idKeyOf(object[referenceField]) : undefined;
  const m = message !== null && typeof message === "object" ? (message as Record<string, unknown>) : undefined;
  const model =
    type === "model_change"
      ? { provider: object!.provider, modelId: object!.modelId }
      : role === "assistant"
        ? { provider: m!.provider, modelId: m!.model }
        : undefined;
  const thinkingLevel = type === "thinking_level_change" ? object!.thinkingLevel : undefined;
  const facts: LineFacts = {
    type,
    id,
    parentId,
    idKey,
    parentKey,
    time,
    toolCallIds,
    toolResultId,
    role,
    reference,
    looksLikePi,
    findings,
    falsy: !value,
    isObject: object !== undefined,
    model,
    thinkingLevel,
    noMessage: type === "message" && (message === undefined || message === null),
  };
  const line = make === undefined ? new ParsedValueLine(text, facts) : make(text, facts);
  rememberValue(line, value);
  return line;
}

function toolCallIdsOf(content: unknown[]): string[] | undefined {
  let ids: string[] | undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "toolCall" && typeof b.id === "string") (ids ??= []).push(b.id);
  }
  // An array grown by `push` keeps room for 16 elements; the copy is as long as its content, and it
  // stays for the life of the line.
  return ids?.slice();
}
