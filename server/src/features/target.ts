/**
 * What is under the cursor: the shared first step of definition, references, highlights and hover.
 *
 * `targetAt` locates the innermost JSON member under a position (`locateAt` on that one line; the
 * line's parse is already cached) and classifies it: an entry's own id, a reference to an entry
 * (`parentId`, `targetId`, `fromId`, `firstKeptEntryId`), a tool call id and the tool result that
 * answers it, the header's `parentSession`, an entry `type`, a message `role`, a timestamp, or just
 * somewhere on an entry or the header.
 *
 * The Pi rules behind each kind (which fields name entries, how a result finds its call) live in the
 * semantic layer (`core/session/semantics/`); this module only finds and classifies the token.
 */

import type { Position, Range } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { locateAt, type JsonPath, type Span } from "../core/line/locate";
import { isReferenceField, type ReferenceField } from "../core/session/semantics/references";

/** What is under the cursor, with the Pi line it is on. */
export type Target = TargetKind & { line: number };

export type TargetKind =
  /** On an entry's own `id` value. */
  | { kind: "entry-id"; entry: Entry; id: string; range: Range }
  /** On a value that names another entry. */
  | { kind: "reference"; field: ReferenceField; entry: Entry; id: string; range: Range }
  /** On the `id` of a `toolCall` block in an assistant message. */
  | { kind: "tool-call"; entry: Entry; id: string; range: Range }
  /** On a toolResult's `toolCallId`. */
  | { kind: "tool-result"; entry: Entry; id: string; range: Range }
  /** On the header's `parentSession`. */
  | { kind: "parent-session"; path: string; range: Range }
  /** On an entry's `type` key or value. */
  | { kind: "type"; entry: Entry | undefined; type: string; range: Range }
  /** On a message's `role` key or value. */
  | { kind: "role"; entry: Entry; role: string; range: Range }
  /** On an entry's or the header's `timestamp` value. */
  | { kind: "timestamp"; entry: Entry | undefined; value: string; range: Range }
  /** Anywhere else on the header line. */
  | { kind: "header"; range: Range }
  /** Anywhere else on an entry line. */
  | { kind: "entry"; entry: Entry; range: Range };

export function targetAt(doc: SessionDocument, requested: Position): Target | undefined {
  const position = doc.piPosition(requested);
  if (!position) return undefined;
  const line = position.line;
  const p = doc.parsed[line];
  if (p?.kind !== "value" || !p.isObject) return undefined;
  const a = doc.analysis;
  const entry = a.entryAtLine[line];
  const isHeader = line === a.headerLine || p.type === "session";
  const offset = doc.jsonOffset(line);
  const token = locateAt(doc.jsonText(line), position.character - offset);
  if (!token) return undefined;
  const span = (s: Span): Range => doc.jsonRange(line, s.start, s.end);
  const valueRange = span(token.value);
  const tokenRange = token.onKey && token.key ? span(token.key) : valueRange;
  const [first, second, third, fourth, fifth] = token.path;
  const value = valueAtPath(p.object, token.path);

  if (token.path.length === 1 && first === "type" && typeof p.type === "string") {
    return { kind: "type", line, entry, type: p.type, range: tokenRange };
  }
  if (token.path.length === 1 && first === "timestamp" && !token.onKey && typeof value === "string") {
    return { kind: "timestamp", line, entry, value, range: valueRange };
  }
  if (isHeader) {
    if (first === "parentSession" && typeof value === "string" && !token.onKey) return { kind: "parent-session", line, path: value, range: valueRange };
    return { kind: "header", line, range: tokenRange };
  }
  if (!entry) return undefined;
  if (token.path.length === 1 && !token.onKey && typeof value === "string" && typeof first === "string") {
    if (first === "id") return { kind: "entry-id", line, entry, id: value, range: valueRange };
    if (isReferenceField(entry.type, first)) return { kind: "reference", line, field: first, entry, id: value, range: valueRange };
  }
  if (first === "message" && entry.type === "message") {
    if (second === "role" && token.path.length === 2 && typeof value === "string") return { kind: "role", line, entry, role: value, range: tokenRange };
    if (second === "toolCallId" && token.path.length === 2 && !token.onKey && typeof value === "string" && p.toolResultId !== undefined) {
      return { kind: "tool-result", line, entry, id: value, range: valueRange };
    }
    // message.content[i].id of a toolCall block.
    if (second === "content" && typeof third === "number" && fourth === "id" && fifth === undefined && !token.onKey && typeof value === "string") {
      const block = valueAtPath(p.object, ["message", "content", third]) as Record<string, unknown> | undefined;
      if (block?.type === "toolCall") return { kind: "tool-call", line, entry, id: value, range: valueRange };
    }
  }
  return { kind: "entry", line, entry, range: tokenRange };
}

function valueAtPath(root: unknown, path: JsonPath): unknown {
  let current = root;
  for (const step of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}
