/**
 * Completion: what can be typed at the cursor, from the schema tables and the analysis.
 *
 * - in an entry's `type` value: the entry types; in a message's `role` value: the roles;
 * - at a key position of an entry or of its `message`: the fields of that type or role not yet
 *   present, each with a value to fill in (`completion/fields.ts`);
 * - in a reference value and in a toolResult's `toolCallId`: ids (`completion/ids.ts`);
 * - on a blank line: a whole new entry of each common kind (`completion/newEntries.ts`).
 *
 * A line being typed is rarely valid JSON, so it is read by the tolerant scanner of `core/line/typedLine.ts`.
 * What an item inserts is written once (`completion/snippet.ts`) and sent as a snippet to clients
 * that take them, as plain text with real values to the others. Nothing walks the whole document
 * except the id filter (one `startsWith` per entry), and every list is capped.
 */

import type { CompletionItem, CompletionList, Position, Range } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import type { Random } from "../core/base/ids";
import { readTypedLine } from "../core/line/typedLine";
import { ENTRY_TYPES, type FieldSpec, ROLES } from "../core/line/schema";
import { isReferenceField } from "../core/session/semantics/references";
import { type CompletionContext, insertion, KIND, markdown, rank, startAtWord, wordStart } from "./completion/common";
import { entryFields, fieldItems, messageFields } from "./completion/fields";
import { idCompletion, toolCallCompletion } from "./completion/ids";
import { newEntryCompletion } from "./completion/newEntries";
import { jsonContent } from "./completion/snippet";

export interface CompletionOptions {
  /** The clock; defaults to the real one. */
  now?: () => Date;
  /** Uniform numbers in [0, 1) for fresh ids; defaults to `crypto.randomUUID`. */
  random?: Random;
  /** Whether the client takes snippets (`textDocument.completion.completionItem.snippetSupport`); default true. */
  snippets?: boolean;
}

const EMPTY: CompletionList = { isIncomplete: false, items: [] };

/** A line holding only a word being typed (not JSON yet). */
const WORD_LINE = /^[ \t]*[A-Za-z_]+$/;

export function computeCompletion(doc: SessionDocument, requested: Position, options: CompletionOptions = {}): CompletionList {
  const position = doc.piPosition(requested);
  if (!position) return EMPTY;
  const { line } = position;
  const text = doc.lines[line]!;
  const a = doc.analysis;
  const c: CompletionContext = { a, now: (options.now ?? (() => new Date()))(), random: options.random, snippets: options.snippets ?? true };
  const parsed = doc.parsed[line]!;
  // A blank line, or a word typed on an empty line ("us", "comp"): the new-entry items, which replace it.
  if (parsed.kind === "blank" || (parsed.kind === "malformed" && position.character === text.length && WORD_LINE.test(text)))
    return newEntryCompletion(c, line, text, doc.lineRange(line));

  const cursor = position.character - doc.jsonOffset(line);
  const json = doc.jsonText(line);
  if (cursor < 0 || cursor > json.length) return EMPTY;
  const scan = readTypedLine(json, cursor);
  if (!scan) return EMPTY;
  const at = scan.at;
  const range = (start: number, end: number): Range => doc.jsonRange(line, start, end);
  const entry = a.entryAtLine[line];
  // The facts of the line: from its parse when it is valid, else from the scan.
  const object = parsed.kind === "value" ? parsed.object : undefined;
  const type = object ? (typeof object.type === "string" ? object.type : undefined) : scan.type;
  const message = object ? object.message : undefined;
  const messageObject = message !== null && typeof message === "object" && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  const role = object ? (typeof messageObject?.role === "string" ? messageObject.role : undefined) : scan.role;
  if (type === "session") return EMPTY;
  const inMessage = (path: readonly (string | number)[]) => path[0] === "message" && (type === "message" || type === undefined);

  if (at.kind === "string" && !at.isKey) {
    const edit = range(at.start, at.end);
    const typed = json.slice(at.start, cursor);
    const key = at.path[at.path.length - 1];
    // A string not closed yet is closed by the value put in it.
    const close = at.closed ? "" : '"';
    const fromWord = (list: CompletionList) => wordAligned(list, json, at.start, cursor, range);
    if (at.path.length === 1 && key === "type") return fromWord(valueItems(c, typeItems(), edit, false, close));
    if (at.path.length === 2 && inMessage(at.path) && key === "role") return fromWord(valueItems(c, roleItems(), edit, false, close));
    if (at.path.length === 1 && typeof key === "string" && isReferenceField(type, key)) return fromWord(idCompletion(c, line, entry, edit, typed, key, close));
    if (at.path.length === 2 && at.path[0] === "message" && key === "toolCallId" && type === "message" && role === "toolResult") {
      return fromWord(toolCallCompletion(c, line, entry, scan.parentId, edit, typed, close));
    }
    return EMPTY;
  }
  if (at.kind === "value") {
    // After `"type":` or `"role":` with no value yet: the quoted names.
    const key = at.path[at.path.length - 1];
    const edit = range(cursor, cursor);
    if (at.path.length === 1 && key === "type") return valueItems(c, typeItems(), edit, true);
    if (at.path.length === 2 && inMessage(at.path) && key === "role") return valueItems(c, roleItems(), edit, true);
    return EMPTY;
  }
  // A key position, or a key being typed.
  let fields: readonly FieldSpec[];
  let present: ReadonlySet<string>;
  if (at.path.length === 0) {
    fields = entryFields(type);
    present = object ? new Set(Object.keys(object)) : scan.topKeys;
  } else if (at.path.length === 1 && inMessage(at.path)) {
    fields = messageFields(role);
    present = object && messageObject ? new Set(Object.keys(messageObject)) : scan.messageKeys;
  } else {
    return EMPTY;
  }
  const site = { line, entry, type, isMessage: at.path.length === 1 };
  if (at.kind === "string") {
    // Inside a key string: replace the whole key; add the value only when no colon follows it.
    const items = fieldItems(c, site, fields, present, at.key, range(at.start - 1, at.closed ? at.end + 1 : cursor), !at.colonFollows);
    return wordAligned(items, json, at.start - 1, cursor, range);
  }
  // Right before another member, the new one needs a comma after it.
  let next = cursor;
  while (next < json.length && /\s/.test(json[next]!)) next++;
  return fieldItems(c, site, fields, present, undefined, range(cursor, cursor), true, json.charCodeAt(next) === 34 ? "," : "");
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

/**
 * `list`, whose edits start at `start` in the line's JSON text, made to start at the word before
 * the cursor (`startAtWord`: where Vim's omni completion and ALE insert an item's text).
 */
function wordAligned(list: CompletionList, json: string, start: number, cursor: number, range: (start: number, end: number) => Range): CompletionList {
  const word = Math.max(start, wordStart(json, cursor));
  return startAtWord(list, json.slice(start, word), range(word, word).start);
}

function valueItems(c: CompletionContext, named: readonly NamedItem[], range: Range, quoted: boolean, close = ""): CompletionList {
  const items: CompletionItem[] = named.map((n, i) => {
    const newText = (quoted ? JSON.stringify(n.name) : jsonContent(n.name)) + close;
    return {
      label: n.name,
      kind: KIND.EnumMember,
      detail: n.detail,
      documentation: markdown(n.documentation),
      sortText: rank(i),
      filterText: quoted ? newText : n.name,
      ...insertion(c, range, newText),
    };
  });
  return { isIncomplete: false, items };
}
