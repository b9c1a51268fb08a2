/**
 * Completion: what can be typed at the cursor, from the schema tables and the analysis.
 *
 * - in an entry's `type` value: the entry types; in a message's `role` value: the roles;
 * - at a key position of an entry or of its `message`: the fields of that type or role not yet
 *   present, as snippets with placeholders;
 * - in a `parentId` / `targetId` / `fromId` / `firstKeptEntryId` value: entry ids, the leaf first,
 *   then the entries nearest the cursor;
 * - in a toolResult's `toolCallId` value: the tool calls on its path that have no result yet;
 * - on a blank line: a whole new entry of each common kind, as Pi writes it, with a fresh id, the
 *   entry above as parent and the current time.
 *
 * A line being typed is rarely valid JSON, so the line is read by a tolerant scanner (`scanLine`)
 * that needs only the text before the cursor to be a valid JSON prefix; text after the cursor is
 * read as far as it is valid, to learn the keys already present. The scanner skips strings with
 * `indexOf`, so a 400 KB line costs well under a millisecond. Nothing walks the whole document
 * except the id filter (one `startsWith` per entry), and every list is capped.
 */

import type { CompletionItem, CompletionList, MarkupContent, Position, Range } from "vscode-languageserver";
import type { Entry, SessionAnalysis } from "../core/analysis";
import type { SessionDocument } from "../core/document";
import { freshEntryId, type Random, uuidv7 } from "../core/ids";
import type { PiPosition } from "../core/positions";
import { BASE_FIELDS, ENTRY_TYPE_BY_NAME, ENTRY_TYPES, ROLE_BY_NAME, ROLES, type FieldSpec, type JsonKind } from "../core/schema";
import { singleLine } from "../core/text";
import { entryTitle } from "./entryTitle";
import { isReferenceField } from "../core/semantics/references";

export interface CompletionOptions {
  /** The clock; defaults to the real one. */
  now?: () => Date;
  /** Uniform numbers in [0, 1) for fresh ids; defaults to `crypto.randomUUID`. */
  random?: () => number;
}

/** At most this many id or tool call candidates; the list says `isIncomplete` when cut. */
export const MAX_ID_ITEMS = 200;

/** The LSP constants used here (the enums are type-only imports). */
const KIND = { Text: 1, Field: 5, Reference: 18, EnumMember: 20, Snippet: 15, Value: 12 } as const;
const SNIPPET = 2;
const PLAIN = 1;

const EMPTY: CompletionList = { isIncomplete: false, items: [] };

/** A line holding only a word being typed (not JSON yet). */
const WORD_LINE = /^[ \t]*[A-Za-z_]+$/;

export function computeCompletion(doc: SessionDocument, requested: Position, options: CompletionOptions = {}): CompletionList {
  const position = doc.piPosition(requested);
  if (!position) return EMPTY;
  const line = position.line;
  const text = doc.lines[line]!;
  const now = options.now ?? (() => new Date());
  const a = doc.analysis;
  const parsed = doc.parsed[line]!;
  if (parsed.kind === "blank") return newEntryCompletion(doc, a, position, now(), options.random);
  // A word typed on an empty line ("us", "comp") filters the new-entry snippets, which replace it.
  if (parsed.kind === "malformed" && position.character === text.length && WORD_LINE.test(text))
    return newEntryCompletion(doc, a, position, now(), options.random);

  const offset = doc.jsonOffset(line);
  const cursor = position.character - offset;
  const json = doc.jsonText(line);
  if (cursor < 0 || cursor > json.length) return EMPTY;
  const scan = scanLine(json, cursor);
  if (!scan) return EMPTY;
  const at = scan.at;
  const range = (start: number, end: number): Range => doc.jsonRange(line, start, end);
  const entry = a.entryAtLine[line];
  // The facts of the line: from its parse when it is valid, else from the scan.
  const object = parsed.kind === "value" ? parsed.object : undefined;
  const type = object ? (typeof object.type === "string" ? object.type : undefined) : scan.type;
  const message = object ? object.message : undefined;
  const role = object
    ? message !== null && typeof message === "object" && typeof (message as Record<string, unknown>).role === "string"
      ? ((message as Record<string, unknown>).role as string)
      : undefined
    : scan.role;
  if (type === "session") return EMPTY;

  if (at.kind === "string" && !at.isKey) {
    const edit = range(at.start, at.end);
    const typed = json.slice(at.start, cursor);
    const key = at.path[at.path.length - 1];
    if (at.path.length === 1 && key === "type") return valueItems(typeItems(), edit, false);
    if (at.path.length === 2 && at.path[0] === "message" && key === "role" && (type === "message" || type === undefined))
      return valueItems(roleItems(), edit, false);
    if (at.path.length === 1 && typeof key === "string" && isReferenceField(type, key)) return idCompletion(a, line, entry, edit, typed, key);
    if (at.path.length === 2 && at.path[0] === "message" && key === "toolCallId" && type === "message" && role === "toolResult") {
      return toolCallCompletion(a, line, entry, scan.parentId, edit, typed);
    }
    return EMPTY;
  }
  if (at.kind === "value") {
    // After `"type":` or `"role":` with no value yet: the quoted names.
    const key = at.path[at.path.length - 1];
    const edit = range(cursor, cursor);
    if (at.path.length === 1 && key === "type") return valueItems(typeItems(), edit, true);
    if (at.path.length === 2 && at.path[0] === "message" && key === "role" && (type === "message" || type === undefined))
      return valueItems(roleItems(), edit, true);
    return EMPTY;
  }
  // A key position, or a key being typed.
  let fields: readonly FieldSpec[];
  let present: ReadonlySet<string>;
  if (at.path.length === 0) {
    fields = entryFields(type);
    present = object ? new Set(Object.keys(object)) : scan.topKeys;
  } else if (at.path.length === 1 && at.path[0] === "message" && (type === "message" || type === undefined)) {
    fields = messageFields(role);
    present = object && message !== null && typeof message === "object" && !Array.isArray(message) ? new Set(Object.keys(message)) : scan.messageKeys;
  } else {
    return EMPTY;
  }
  const context: FieldContext = { a, line, entry, now: now(), random: options.random, isMessage: at.path.length === 1 };
  if (at.kind === "string") {
    // Inside a key string: replace the whole key; add the value only when no colon follows it.
    const withValue = !at.colonFollows;
    return fieldItems(fields, present, at.key, range(at.start - 1, at.closed ? at.end + 1 : cursor), withValue, context);
  }
  // Right before another member, the new one needs a comma after it.
  let next = cursor;
  while (next < json.length && /\s/.test(json[next]!)) next++;
  return fieldItems(fields, present, undefined, range(cursor, cursor), true, context, json.charCodeAt(next) === 34 ? "," : "");
}

// ---- Entry types and roles ----------------------------------------------------------------------

interface NamedItem {
  name: string;
  detail: string;
  documentation: string;
}

function typeItems(): NamedItem[] {
  return ENTRY_TYPES.map((t) => ({
    name: t.type,
    detail: t.summary,
    documentation: `**\`${t.type}\`** entry\n\n${t.summary}\n\n- **In the model's context:** ${t.context}\n- **Since:** ${/^v\d/.test(t.since) ? `session format ${t.since}` : t.since}\n- **Fields:** ${t.fields.map((f) => `\`${f.required ? f.name : `${f.name}?`}\``).join(", ")}`,
  }));
}

function roleItems(): NamedItem[] {
  return ROLES.map((r) => ({
    name: r.role,
    detail: r.summary,
    documentation: `**\`${r.role}\`** message\n\n${r.summary}\n\n- **To the model:** ${r.toModel}\n- **Fields:** ${r.fields.map((f) => `\`${f.required ? f.name : `${f.name}?`}\``).join(", ")}`,
  }));
}

function valueItems(named: readonly NamedItem[], range: Range, quoted: boolean): CompletionList {
  const items: CompletionItem[] = named.map((n, i) => {
    const newText = quoted ? JSON.stringify(n.name) : jsonContent(n.name);
    return {
      label: n.name,
      kind: KIND.EnumMember,
      detail: n.detail,
      documentation: markdown(n.documentation),
      sortText: rank(i),
      filterText: quoted ? newText : n.name,
      textEdit: { range, newText },
    };
  });
  return { isIncomplete: false, items };
}

// ---- Field names ----------------------------------------------------------------------------------

interface FieldContext {
  a: SessionAnalysis;
  line: number;
  entry: Entry | undefined;
  now: Date;
  random: (() => number) | undefined;
  isMessage: boolean;
}

/** The roles Pi stores (the others are produced while building a context, or renamed on migration). */
const STORED_ROLES = ROLES.map((r) => r.role).filter((r) => r !== "branchSummary" && r !== "compactionSummary" && r !== "hookMessage");

const TYPE_FIELD: FieldSpec = { name: "type", kinds: ["string"], required: true };
const ROLE_FIELD: FieldSpec = { name: "role", kinds: ["string"], required: true };

function entryFields(type: string | undefined): readonly FieldSpec[] {
  const spec = type === undefined ? undefined : ENTRY_TYPE_BY_NAME.get(type);
  return [TYPE_FIELD, ...BASE_FIELDS, ...(spec?.fields ?? [])];
}

function messageFields(role: string | undefined): readonly FieldSpec[] {
  const spec = role === undefined ? undefined : ROLE_BY_NAME.get(role);
  return [ROLE_FIELD, ...(spec?.fields ?? [])];
}

function fieldItems(
  fields: readonly FieldSpec[],
  present: ReadonlySet<string>,
  current: string | undefined,
  range: Range,
  withValue: boolean,
  context: FieldContext,
  suffix = "",
): CompletionList {
  const items: CompletionItem[] = [];
  fields.forEach((field, i) => {
    // The key being typed is not "present": it is the one being replaced.
    if (present.has(field.name) && field.name !== current) return;
    // Compact, as Pi writes (`JSON.stringify`): no space after the colon.
    const newText = withValue ? `${JSON.stringify(field.name)}:${valueSnippet(field, context)}` : JSON.stringify(field.name);
    items.push({
      label: field.name,
      kind: KIND.Field,
      detail: `${field.kinds.join(" | ")}${field.required ? "" : " (optional)"}`,
      documentation: field.effect ? markdown(`When missing or wrong: ${field.effect}`) : undefined,
      sortText: rank((field.required ? 0 : 1000) + i),
      filterText: JSON.stringify(field.name),
      insertTextFormat: withValue ? SNIPPET : PLAIN,
      textEdit: { range, newText: newText + suffix },
    });
  });
  return { isIncomplete: false, items };
}

/** The value part of a field snippet, with a placeholder. */
function valueSnippet(field: FieldSpec, c: FieldContext): string {
  if (field.name === "id" && !c.isMessage) return `"\${1:${freshId(c.a, c.random)}}"`;
  if (field.name === "parentId" && !c.isMessage) {
    const parent = entryAbove(c.a, c.line) ?? c.a.leaf;
    return parent?.id !== undefined ? `"\${1:${escapeSnippet(jsonContent(parent.id))}}"` : "${1:null}";
  }
  if (field.name === "timestamp") return c.isMessage ? `\${1:${c.now.getTime()}}` : `"\${1:${c.now.toISOString()}}"`;
  if (field.name === "type" && !c.isMessage) return `"\${1|${ENTRY_TYPES.map((t) => t.type).join(",")}|}"`;
  if (field.name === "role" && c.isMessage) return `"\${1|${STORED_ROLES.join(",")}|}"`;
  if (field.name === "message" && !c.isMessage) return `{"role":"\${1|${STORED_ROLES.join(",")}|}"$0\\}`;
  return placeholder(field.kinds, field.name);
}

function placeholder(kinds: readonly JsonKind[], name: string): string {
  switch (kinds[0]) {
    case "string":
      return `"\${1:${name}}"`;
    case "number":
      return "${1:0}";
    case "boolean":
      return "${1|false,true|}";
    case "object":
      return "{$1}";
    case "array":
      return "[$1]";
    case "null":
      return "${1:null}";
    default:
      return "$1";
  }
}

// ---- Entry ids ------------------------------------------------------------------------------------

function idCompletion(a: SessionAnalysis, line: number, self: Entry | undefined, range: Range, typed: string, field: string): CompletionList {
  const isParent = field === "parentId";
  const items: CompletionItem[] = [];
  let cut = false;
  const taken = new Set<Entry>();
  const add = (entry: Entry, note: string | undefined): boolean => {
    if (items.length >= MAX_ID_ITEMS) {
      cut = true;
      return false;
    }
    const id = entry.id!;
    taken.add(entry);
    items.push({
      label: id,
      kind: KIND.Reference,
      detail: entryTitle(entry),
      documentation: markdown(`Line ${entry.line + 1}${note ? ` · ${note}` : ""}\n\n${entryTitle(entry).replace(/[\\`*_[\]<>]/g, "\\$&")}`),
      sortText: rank(items.length),
      filterText: id,
      textEdit: { range, newText: jsonContent(id) },
    });
    return true;
  };
  // Only the entry Pi finds for an id (the last holder) is offered, never the entry itself, and
  // for a parent none of its descendants, which would close a cycle Pi hangs on.
  const usable = (e: Entry): boolean =>
    e.id?.startsWith(typed) === true && e !== self && a.byId.get(e.id) === e && !(isParent && self !== undefined && a.isAncestor(self, e));
  // A compaction keeps history from an entry on its own path: its ancestors come first, nearest
  // first (the walk is bounded by the number of entries, so it ends on a cyclic chain).
  if (field === "firstKeptEntryId" && self) {
    let e = a.parent[self.index];
    for (let steps = 0; e && steps < a.entries.length && items.length < MAX_ID_ITEMS; steps++, e = a.parent[e.index]) {
      if (usable(e)) add(e, "on the path before this compaction");
    }
  }
  const leaf = a.leaf;
  if (leaf && !taken.has(leaf) && usable(leaf)) add(leaf, "the current leaf (where Pi resumes)");
  // Nearest first: walk outwards from the cursor, entries above winning ties.
  const entries = a.entries;
  let below = firstEntryAtOrAfter(entries, line);
  let above = below - 1;
  if (below < entries.length && entries[below]!.line === line) below++;
  while (above >= 0 || below < entries.length) {
    const up = above >= 0 ? entries[above]! : undefined;
    const down = below < entries.length ? entries[below]! : undefined;
    const next = up && (!down || line - up.line <= down.line - line) ? up : down!;
    if (next === up) above--;
    else below++;
    if (taken.has(next) || !usable(next)) continue;
    if (!add(next, undefined)) break;
  }
  return { isIncomplete: cut, items };
}

/** The index of the first entry on `line` or after it (entries are in line order). */
function firstEntryAtOrAfter(entries: readonly Entry[], line: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (entries[mid]!.line < line) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The nearest entry with an id on a line above `line`. */
function entryAbove(a: SessionAnalysis, line: number): Entry | undefined {
  for (let i = firstEntryAtOrAfter(a.entries, line) - 1; i >= 0; i--) {
    const e = a.entries[i]!;
    if (e.id !== undefined) return e;
  }
  return undefined;
}

// ---- Tool call ids --------------------------------------------------------------------------------

interface OpenCall {
  entry: Entry;
  id: string;
  name: string | undefined;
}

/**
 * The tool calls on the path above `start` (inclusive) that no toolResult between them and `start`
 * answers, nearest first. The walk follows resolved parents, bounded by the number of entries, so
 * it ends on a cyclic chain.
 */
function openToolCalls(a: SessionAnalysis, start: Entry | undefined, limit: number): { calls: OpenCall[]; cut: boolean } {
  const answered = new Set<string>();
  const calls: OpenCall[] = [];
  let current = start;
  for (let steps = 0; current && steps < a.entries.length; steps++) {
    const p = current.parsed;
    if (p.toolResultId !== undefined) answered.add(p.toolResultId);
    if (p.toolCallIds) {
      for (const id of p.toolCallIds) {
        if (answered.has(id)) continue;
        answered.add(id); // a repeated id is offered once, at its nearest call
        if (calls.length >= limit) return { calls, cut: true };
        calls.push({ entry: current, id, name: toolName(current, id) });
      }
    }
    current = a.parent[current.index];
  }
  return { calls, cut: false };
}

function toolName(entry: Entry, id: string): string | undefined {
  const content = (entry.parsed.object?.message as Record<string, unknown> | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "toolCall" && b.id === id) return typeof b.name === "string" ? b.name : undefined;
  }
  return undefined;
}

/** Where a new or edited line's path starts: its resolved parent, else its parentId, else the entry above. */
function pathStart(a: SessionAnalysis, line: number, self: Entry | undefined, parentId: string | null | undefined): Entry | undefined {
  if (self) return a.parent[self.index];
  if (typeof parentId === "string") return a.byId.get(parentId);
  if (parentId === null) return undefined;
  return entryAbove(a, line);
}

function toolCallCompletion(
  a: SessionAnalysis,
  line: number,
  self: Entry | undefined,
  parentId: string | null | undefined,
  range: Range,
  typed: string,
): CompletionList {
  const { calls, cut } = openToolCalls(a, pathStart(a, line, self, parentId), MAX_ID_ITEMS);
  const items: CompletionItem[] = [];
  for (const call of calls) {
    if (!call.id.startsWith(typed)) continue;
    items.push({
      label: call.id,
      kind: KIND.Reference,
      detail: `toolCall ${call.name === undefined ? "?" : singleLine(call.name, 60) || "?"}`,
      documentation: markdown(`A tool call without a result on this path: line ${call.entry.line + 1} (\`${call.entry.id ?? "no id"}\`).`),
      sortText: rank(items.length),
      filterText: call.id,
      textEdit: { range, newText: jsonContent(call.id) },
    });
  }
  return { isIncomplete: cut, items };
}

// ---- New entries ----------------------------------------------------------------------------------

const EMPTY_USAGE = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`;

function newEntryCompletion(doc: SessionDocument, a: SessionAnalysis, position: PiPosition, now: Date, random: (() => number) | undefined): CompletionList {
  const line = position.line;
  const range = doc.lineRange(line);
  // The client filters on the text from the range's start to the cursor: leading blanks, then any word typed.
  const lineText = doc.lines[line]!;
  const typedBefore = lineText.slice(0, lineText.length - lineText.trimStart().length);
  const items: CompletionItem[] = [];
  const add = (label: string, detail: string, snippet: string, preview: string): void => {
    items.push({
      label,
      kind: KIND.Snippet,
      detail,
      documentation: markdown(`\`\`\`json\n${preview}\n\`\`\``),
      sortText: rank(items.length),
      filterText: typedBefore + label,
      insertTextFormat: SNIPPET,
      textEdit: { range, newText: snippet },
    });
  };

  // No header yet (an empty file, or entries without one): offer one, as Pi writes it. Nothing
  // else may precede a valid header.
  if (a.headerLine !== undefined && line < a.headerLine && a.headerState === "ok") return EMPTY;
  if (a.headerLine === undefined || line < a.headerLine) {
    const id = uuidv7(now, random);
    const head = `{"type":"session","version":3,"id":${JSON.stringify(id)},"timestamp":${JSON.stringify(now.toISOString())},"cwd":`;
    add(
      "session header",
      "The header Pi writes first (version 3, a fresh UUIDv7 id)",
      `${escapeSnippet(head)}"\${1:/home/user/project}"\\}`,
      `${head}"/home/user/project"}`,
    );
    return { isIncomplete: false, items };
  }

  const id = freshId(a, random);
  const parent = entryAbove(a, line) ?? a.leaf;
  const parentId = parent?.id;
  const ms = now.getTime();
  const base = `{"type":%TYPE%,"id":${JSON.stringify(id)},"parentId":${parentId === undefined ? "null" : JSON.stringify(parentId)},"timestamp":${JSON.stringify(now.toISOString())},`;
  const head = (type: string): string => escapeSnippet(base.replace("%TYPE%", JSON.stringify(type)));
  const lit = escapeSnippet;
  const refDefault = escapeSnippet(jsonContent(parentId ?? ""));
  // The nearest open tool call on the new entry's path, for the tool result.
  const open = openToolCalls(a, parent, 1).calls[0];
  const callId = escapeSnippet(jsonContent(open?.id ?? "toolu_01"));
  const callName = escapeSnippet(jsonContent(open?.name ?? "bash"));

  const kinds: { label: string; detail: string; parts: [string, string][] }[] = [
    {
      label: "user message",
      detail: "message · user",
      parts: [
        [head("message"), base.replace("%TYPE%", '"message"')],
        [lit(`"message":{"role":"user","content":`), `"message":{"role":"user","content":`],
        ['"${1:text}"', '"text"'],
        [lit(`,"timestamp":${ms}}}`), `,"timestamp":${ms}}}`],
      ],
    },
    {
      label: "assistant reply",
      detail: "message · assistant",
      parts: [
        [head("message"), base.replace("%TYPE%", '"message"')],
        [lit(`"message":{"role":"assistant","content":[{"type":"text","text":`), `"message":{"role":"assistant","content":[{"type":"text","text":`],
        ['"${1:reply}"', '"reply"'],
        [lit(`}],"api":`), `}],"api":`],
        ['"${2:anthropic-messages}"', '"anthropic-messages"'],
        [lit(`,"provider":`), `,"provider":`],
        ['"${3:anthropic}"', '"anthropic"'],
        [lit(`,"model":`), `,"model":`],
        ['"${4:claude-sonnet-4-5}"', '"claude-sonnet-4-5"'],
        [lit(`,"usage":${EMPTY_USAGE},"stopReason":`), `,"usage":${EMPTY_USAGE},"stopReason":`],
        ['"${5|stop,toolUse,length,error,aborted|}"', '"stop"'],
        [lit(`,"timestamp":${ms}}}`), `,"timestamp":${ms}}}`],
      ],
    },
    {
      label: "tool result",
      detail: "message · toolResult",
      parts: [
        [head("message"), base.replace("%TYPE%", '"message"')],
        [lit(`"message":{"role":"toolResult","toolCallId":`), `"message":{"role":"toolResult","toolCallId":`],
        [`"\${1:${callId}}"`, JSON.stringify(open?.id ?? "toolu_01")],
        [lit(`,"toolName":`), `,"toolName":`],
        [`"\${2:${callName}}"`, JSON.stringify(open?.name ?? "bash")],
        [lit(`,"content":[{"type":"text","text":`), `,"content":[{"type":"text","text":`],
        ['"${3:output}"', '"output"'],
        [lit(`}],"isError":`), `}],"isError":`],
        ["${4|false,true|}", "false"],
        [lit(`,"timestamp":${ms}}}`), `,"timestamp":${ms}}}`],
      ],
    },
    {
      label: "label",
      detail: "label entry",
      parts: [
        [head("label"), base.replace("%TYPE%", '"label"')],
        [lit(`"targetId":`), `"targetId":`],
        [`"\${1:${refDefault}}"`, JSON.stringify(parentId ?? "")],
        [lit(`,"label":`), `,"label":`],
        ['"${2:checkpoint}"', '"checkpoint"'],
        [lit("}"), "}"],
      ],
    },
    {
      label: "model change",
      detail: "model_change entry",
      parts: [
        [head("model_change"), base.replace("%TYPE%", '"model_change"')],
        [lit(`"provider":`), `"provider":`],
        ['"${1:anthropic}"', '"anthropic"'],
        [lit(`,"modelId":`), `,"modelId":`],
        ['"${2:claude-sonnet-4-5}"', '"claude-sonnet-4-5"'],
        [lit("}"), "}"],
      ],
    },
    {
      label: "compaction",
      detail: "compaction entry",
      parts: [
        [head("compaction"), base.replace("%TYPE%", '"compaction"')],
        [lit(`"summary":`), `"summary":`],
        ['"${1:summary}"', '"summary"'],
        [lit(`,"firstKeptEntryId":`), `,"firstKeptEntryId":`],
        [`"\${2:${refDefault}}"`, JSON.stringify(parentId ?? "")],
        [lit(`,"tokensBefore":`), `,"tokensBefore":`],
        ["${3:0}", "0"],
        [lit("}"), "}"],
      ],
    },
    {
      label: "branch summary",
      detail: "branch_summary entry",
      parts: [
        [head("branch_summary"), base.replace("%TYPE%", '"branch_summary"')],
        [lit(`"fromId":`), `"fromId":`],
        [`"\${1:${refDefault}}"`, JSON.stringify(parentId ?? "")],
        [lit(`,"summary":`), `,"summary":`],
        ['"${2:summary}"', '"summary"'],
        [lit("}"), "}"],
      ],
    },
  ];
  for (const k of kinds) add(k.label, k.detail, k.parts.map((p) => p[0]).join(""), k.parts.map((p) => p[1]).join(""));
  return { isIncomplete: false, items };
}

/** A fresh entry id in Pi's form, not used by any entry of the file. */
export function freshId(a: SessionAnalysis, random?: Random): string {
  return freshEntryId((id) => a.byId.has(id), random);
}

// ---- Helpers --------------------------------------------------------------------------------------

function markdown(value: string): MarkupContent {
  return { kind: "markdown", value };
}

function rank(n: number): string {
  return n.toString().padStart(5, "0");
}

/** A string's JSON form without the quotes: what goes between the quotes of a JSON string. */
function jsonContent(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** Literal text in a snippet: `$`, `}` and `\` escaped. */
function escapeSnippet(text: string): string {
  return text.replace(/[$}\\]/g, "\\$&");
}

// ---- The tolerant line scanner --------------------------------------------------------------------

export type ScanAt =
  /** Inside a string; `start`/`end` bound its content (`end` is the cursor when it is not closed). */
  | { kind: "string"; isKey: boolean; path: (string | number)[]; key: string | undefined; start: number; end: number; closed: boolean; colonFollows: boolean }
  /** Where a key may start (after `{` or `,` in an object); `path` is the object's. */
  | { kind: "key"; path: (string | number)[] }
  /** Where a value may start (after `:`); `path` ends with the key. */
  | { kind: "value"; path: (string | number)[] };

export interface LineScan {
  at: ScanAt;
  /** The top-level `type` and `message.role` strings and keys, as far as the line could be read. */
  type: string | undefined;
  role: string | undefined;
  parentId: string | null | undefined;
  topKeys: Set<string>;
  messageKeys: Set<string>;
}

interface Frame {
  kind: "object" | "array";
  /** Object: "key" | "colon" | "value" | "comma"; array: "value" | "comma". */
  state: "key" | "colon" | "value" | "comma";
  key: string | undefined;
  index: number;
}

class Stop extends Error {}

/**
 * Reads `text` as JSON as far as it is valid and reports what is at `cursor`. Returns undefined
 * when the text before the cursor is not a valid JSON prefix or the cursor is not inside the root
 * object (before it, after it, or somewhere nothing can be completed, such as inside a number).
 */
export function scanLine(text: string, cursor: number): LineScan | undefined {
  const stack: Frame[] = [];
  const out: Omit<LineScan, "at"> & { at: ScanAt | undefined } = {
    at: undefined,
    type: undefined,
    role: undefined,
    parentId: undefined,
    topKeys: new Set(),
    messageKeys: new Set(),
  };
  const pathOf = (depth: number): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let k = 1; k < depth; k++) {
      const parent = stack[k - 1]!;
      path.push(parent.kind === "object" ? parent.key! : parent.index);
    }
    return path;
  };
  const isMessageObject = (): boolean => stack.length === 2 && stack[0]!.kind === "object" && stack[0]!.key === "message" && stack[1]!.kind === "object";
  let i = 0;
  let done = false;
  const n = text.length;
  try {
    while (i < n && !done) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) {
        if (i === cursor && out.at === undefined) markBetween();
        i++;
        continue;
      }
      if (i === cursor && out.at === undefined) markBetween();
      if (i >= cursor && out.at === undefined) return undefined;
      const top = stack[stack.length - 1];
      if (c === 34) {
        const end = stringEnd(text, i);
        const closed = end >= 0;
        const contentEnd = closed ? end : n;
        const isKey = top?.kind === "object" && top.state === "key";
        if (top === undefined || (!isKey && top.state !== "value")) throw new Stop();
        const raw = text.slice(i + 1, contentEnd);
        const value = closed ? decode(raw) : undefined;
        if (out.at === undefined && cursor > i && cursor <= contentEnd) {
          let colonFollows = false;
          if (closed && isKey) {
            let j = end + 1;
            while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
            colonFollows = text.charCodeAt(j) === 58;
          }
          const path = pathOf(stack.length);
          if (!isKey && top.kind === "object") path.push(top.key!);
          if (!isKey && top.kind === "array") path.push(top.index);
          out.at = {
            kind: "string",
            isKey,
            path,
            key: isKey ? (value ?? decode(text.slice(i + 1, cursor))) : undefined,
            start: i + 1,
            end: closed ? end : cursor,
            closed,
            colonFollows,
          };
        }
        if (!closed) break;
        if (isKey) {
          top.key = value;
          top.state = "colon";
          if (value !== undefined && stack.length === 1) out.topKeys.add(value);
          if (value !== undefined && isMessageObject()) out.messageKeys.add(value);
        } else {
          if (stack.length === 1 && top.key === "type" && value !== undefined) out.type = value;
          if (stack.length === 1 && top.key === "parentId" && value !== undefined) out.parentId = value;
          if (isMessageObject() && top.key === "role" && value !== undefined) out.role = value;
          top.state = "comma";
        }
        i = end + 1;
        continue;
      }
      if (c === 123 || c === 91) {
        if (top !== undefined && top.state !== "value") throw new Stop();
        if (top === undefined && i > 0 && text.slice(0, i).trim() !== "") throw new Stop();
        if (top) top.state = "comma";
        stack.push({ kind: c === 123 ? "object" : "array", state: c === 123 ? "key" : "value", key: undefined, index: 0 });
        i++;
        continue;
      }
      if (c === 125 || c === 93) {
        if (!top || top.kind !== (c === 125 ? "object" : "array")) throw new Stop();
        // `{}` / `[]` and a value before the bracket are fine; a dangling `,` or `:` is not.
        if (top.state === "colon" || (top.state === "value" && top.kind === "object")) throw new Stop();
        if (top.state === "value" && top.kind === "array" && top.index > 0) throw new Stop();
        if (top.state === "key" && top.key !== undefined) throw new Stop();
        stack.pop();
        if (stack.length === 0) done = true;
        i++;
        continue;
      }
      if (c === 58) {
        if (top?.kind !== "object" || top.state !== "colon") throw new Stop();
        top.state = "value";
        i++;
        continue;
      }
      if (c === 44) {
        if (top?.state !== "comma") throw new Stop();
        if (top.kind === "object") top.state = "key";
        else {
          top.state = "value";
          top.index++;
        }
        i++;
        continue;
      }
      // A number or literal.
      if (top?.state !== "value") throw new Stop();
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) break;
        j++;
      }
      const word = text.slice(i, j);
      if (!/^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/.test(word) && !(j === n && /^(?:t|tr|tru|f|fa|fal|fals|n|nu|nul|-?\d*\.?\d*)$/.test(word)))
        throw new Stop();
      if (cursor > i && cursor <= j && out.at === undefined) return undefined; // inside a number or literal
      if (stack.length === 1 && top.key === "parentId" && word === "null") out.parentId = null;
      top.state = "comma";
      i = j;
    }
    if (i >= cursor && out.at === undefined && !done) markBetween();
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    // Invalid text: fine after the cursor (we know what we needed), fatal before it.
    if (i < cursor || out.at === undefined) return undefined;
  }
  if (out.at === undefined) return undefined;
  return out as LineScan;

  /** Records the context at the cursor when it sits between tokens. */
  function markBetween(): void {
    const top = stack[stack.length - 1];
    if (!top) return;
    if (top.kind === "object" && top.state === "key") out.at = { kind: "key", path: pathOf(stack.length) };
    else if (top.kind === "object" && top.state === "value") out.at = { kind: "value", path: [...pathOf(stack.length), top.key!] };
  }
}

/** The index of the quote closing the string that starts at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
}

function decode(raw: string): string | undefined {
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}
