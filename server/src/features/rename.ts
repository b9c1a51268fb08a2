/**
 * Rename of an entry id (and of a tool call id), on the id itself or on any place that names it.
 *
 * An entry id is named by its own `id` and by `parentId`, `targetId` (label, context_edit), `fromId`
 * (branch_summary) and `firstKeptEntryId` (compaction) of other entries: the reference index lists
 * them all, so a rename is one edit per place. Every holder of a duplicated id is renamed with it,
 * since Pi cannot tell them apart either. A tool call id is named by the `toolCall` block and by the
 * `toolCallId` of every tool result that answers it.
 *
 * The new name is written with `JSON.stringify`, so it is always valid JSON; names that Pi would
 * not have written or that would change what the file means are refused with a message: an empty
 * id, one with quotes, backslashes or control characters, an id that already exists (the rename
 * would merge two entries), and "root" (the `fromId` sentinel for "no entry").
 */

import type { Position, Range, TextEdit, WorkspaceEdit } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import type { JsonPath } from "../core/line/locate";
import { clip } from "../core/base/text";
import { referencesTo } from "../core/session/semantics/references";
import { targetAt } from "./target";

/** A rename that cannot be done, with the reason to show (the server answers InvalidParams). */
export interface RenameRefusal {
  error: string;
}

export interface PrepareRenameResult {
  /** The id's text between its quotes. */
  range: Range;
  /** The id as JSON reads it. */
  placeholder: string;
}

export function isRenameRefusal(value: unknown): value is RenameRefusal {
  return value !== null && typeof value === "object" && typeof (value as RenameRefusal).error === "string";
}

/** What is renamed: an entry id or a tool call id. */
interface RenameSubject {
  kind: "entry" | "tool-call";
  id: string;
  /** The quoted value under the cursor. */
  range: Range;
}

function subjectAt(doc: SessionDocument, position: Position): RenameSubject | RenameRefusal {
  const target = targetAt(doc, position);
  const a = doc.analysis;
  switch (target?.kind) {
    case "entry-id":
      return { kind: "entry", id: target.id, range: target.range };
    case "reference":
      if (!a.byId.has(target.id)) {
        const what = target.field === "fromId" && target.id === "root" ? `"root" is the sentinel for "no entry"` : `"${clip(target.id)}" names no entry`;
        return { error: `Cannot rename: ${what}. Rename an id that an entry declares.` };
      }
      return { kind: "entry", id: target.id, range: target.range };
    case "tool-call":
    case "tool-result":
      return { kind: "tool-call", id: target.id, range: target.range };
    default:
      return { error: "Cannot rename: the cursor is not on an entry id, a reference to one (parentId, targetId, fromId, firstKeptEntryId) or a tool call id." };
  }
}

/** The range and current name of the id under the cursor, or why it cannot be renamed. */
export function prepareRename(doc: SessionDocument, position: Position): PrepareRenameResult | RenameRefusal {
  const subject = subjectAt(doc, position);
  if (isRenameRefusal(subject)) return subject;
  const { start, end } = subject.range;
  return {
    range: {
      start: { line: start.line, character: start.character + 1 },
      end: { line: end.line, character: Math.max(start.character + 1, end.character - 1) },
    },
    placeholder: subject.id,
  };
}

/** Characters an id must not contain: quotes, backslashes, C0 and C1 controls, DEL, line and paragraph separators. */
const FORBIDDEN = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Why `name` cannot be an id, or undefined when it can. */
export function invalidIdReason(name: string): string | undefined {
  if (name === "") return "an id cannot be empty";
  const bad = FORBIDDEN.exec(name);
  if (bad) {
    const c = bad[0];
    const what = c === '"' ? "a quote" : c === "\\" ? "a backslash" : `a control character (U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
    return `an id cannot contain ${what}`;
  }
  return undefined;
}

/** The edits that rename the id under the cursor to `newName` everywhere it is named. */
export function computeRename(doc: SessionDocument, position: Position, newName: string): WorkspaceEdit | RenameRefusal {
  const subject = subjectAt(doc, position);
  if (isRenameRefusal(subject)) return subject;
  const invalid = invalidIdReason(newName);
  if (invalid) return { error: `Cannot rename to "${clip(newName)}": ${invalid}.` };
  if (newName === subject.id) return { changes: { [doc.uri]: [] } };
  const places = subject.kind === "entry" ? entryIdPlaces(doc, subject.id, newName) : toolCallPlaces(doc, subject.id, newName);
  if (isRenameRefusal(places)) return places;
  const text = JSON.stringify(newName);
  const edits: TextEdit[] = [];
  for (const { line, path } of places) {
    const range = doc.rangeOf(line, path);
    if (!range) return { error: `Cannot rename: the id on line ${line + 1} could not be located.` };
    edits.push({ range, newText: text });
  }
  edits.sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
  return { changes: { [doc.uri]: edits } };
}

interface Place {
  line: number;
  path: JsonPath;
}

function entryIdPlaces(doc: SessionDocument, id: string, newName: string): Place[] | RenameRefusal {
  const a = doc.analysis;
  if (a.byId.has(newName))
    return {
      error: `Cannot rename to "${clip(newName)}": an entry with this id already exists (line ${a.byId.get(newName)!.line + 1}); the two entries would merge.`,
    };
  if (newName === "root") return { error: `Cannot rename to "root": a branch summary's fromId "root" means "no entry", so an entry must not be called that.` };
  const places: Place[] = [];
  const holders = a.duplicates.get(id) ?? (a.byId.has(id) ? [a.byId.get(id)!] : []);
  for (const holder of holders) places.push({ line: holder.line, path: ["id"] });
  for (const ref of referencesTo(a, id)) places.push({ line: ref.entry.line, path: [ref.field] });
  return places;
}

function toolCallPlaces(doc: SessionDocument, id: string, newName: string): Place[] | RenameRefusal {
  const places: Place[] = [];
  for (const entry of doc.analysis.entries) {
    const p = entry.parsed;
    if (p.toolCallIds?.includes(newName))
      return { error: `Cannot rename to "${clip(newName)}": a tool call with this id already exists (line ${entry.line + 1}).` };
    if (p.toolResultId === id) places.push({ line: entry.line, path: ["message", "toolCallId"] });
    else if (p.toolCallIds?.includes(id)) {
      const content = ((p.object?.message as Record<string, unknown> | undefined)?.content ?? []) as unknown[];
      content.forEach((block, i) => {
        const b = block as Record<string, unknown> | null;
        if (b !== null && typeof b === "object" && b.type === "toolCall" && b.id === id)
          places.push({ line: entry.line, path: ["message", "content", i, "id"] });
      });
    }
  }
  return places;
}
