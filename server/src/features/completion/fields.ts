/** Completion of field names at a key position of an entry or of its `message`: the fields of that type or role not yet present, each with a value to fill in. */

import type { CompletionItem, CompletionList, Range } from "vscode-languageserver";
import type { Entry } from "../../core/session/entry";
import { BASE_FIELDS, ENTRY_TYPE_BY_NAME, ENTRY_TYPES, type FieldSpec, type JsonKind, ROLE_BY_NAME, ROLES } from "../../core/line/schema";
import { isReferenceField } from "../../core/session/semantics/references";
import { escapeMarkdown } from "../markdown";
import { type CompletionContext, insertion, KIND, markdown, rank } from "./common";
import { entryAbove, freshId } from "./ids";
import { jsonContent, type Piece, Snippet } from "./snippet";

/** The roles Pi stores (the others are produced while building a context, or renamed on migration). */
export const STORED_ROLES = ROLES.map((r) => r.role).filter((r) => r !== "branchSummary" && r !== "compactionSummary" && r !== "hookMessage");

const TYPE_FIELD: FieldSpec = { name: "type", kinds: ["string"], required: true };
const ROLE_FIELD: FieldSpec = { name: "role", kinds: ["string"], required: true };

export function entryFields(type: string | undefined): readonly FieldSpec[] {
  const spec = type === undefined ? undefined : ENTRY_TYPE_BY_NAME.get(type);
  return [TYPE_FIELD, ...BASE_FIELDS, ...(spec?.fields ?? [])];
}

export function messageFields(role: string | undefined): readonly FieldSpec[] {
  const spec = role === undefined ? undefined : ROLE_BY_NAME.get(role);
  return [ROLE_FIELD, ...(spec?.fields ?? [])];
}

/** Where the fields are completed. */
export interface FieldSite {
  line: number;
  entry: Entry | undefined;
  /** The entry's type, as far as the line says. */
  type: string | undefined;
  /** Whether the fields are those of a `message` object rather than of the entry. */
  isMessage: boolean;
}

export function fieldItems(
  c: CompletionContext,
  site: FieldSite,
  fields: readonly FieldSpec[],
  present: ReadonlySet<string>,
  current: string | undefined,
  range: Range,
  withValue: boolean,
  suffix = "",
): CompletionList {
  const items: CompletionItem[] = [];
  fields.forEach((field, i) => {
    // The key being typed is not "present": it is the one being replaced.
    if (present.has(field.name) && field.name !== current) return;
    // Compact, as Pi writes (`JSON.stringify`): no space after the colon.
    const key = JSON.stringify(field.name);
    const text = withValue ? new Snippet([`${key}:`, ...valuePieces(c, site, field)]) : key;
    items.push({
      label: field.name,
      kind: KIND.Field,
      detail: `${field.kinds.join(" | ")}${field.required ? "" : " (optional)"}`,
      documentation: field.effect ? markdown(`When missing or wrong: ${escapeMarkdown(field.effect)}`) : undefined,
      sortText: rank((field.required ? 0 : 1000) + i),
      filterText: key,
      ...insertion(c, range, text, suffix),
    });
  });
  return { isIncomplete: false, items };
}

/** The value of a new field: a placeholder with a real default, so that the plain text is valid JSON too. */
function valuePieces(c: CompletionContext, site: FieldSite, field: FieldSpec): Piece[] {
  if (field.name === "id" && !site.isMessage) return [{ placeholder: freshId(c.a, c.random), quoted: true }];
  if (field.name === "parentId" && !site.isMessage) {
    const parent = entryAbove(c.a, site.line) ?? c.a.leaf;
    return parent?.id !== undefined ? [{ placeholder: jsonContent(parent.id), quoted: true }] : [{ placeholder: "null" }];
  }
  // Another entry's id (a label's target, a summary's branch, a compaction's first kept entry): the entry above.
  if (!site.isMessage && isReferenceField(site.type, field.name)) {
    const above = entryAbove(c.a, site.line) ?? c.a.leaf;
    if (above?.id !== undefined) return [{ placeholder: jsonContent(above.id), quoted: true }];
  }
  const known = Object.hasOwn(STRING_DEFAULTS, field.name) ? STRING_DEFAULTS[field.name as keyof typeof STRING_DEFAULTS] : undefined;
  if (known !== undefined && field.kinds[0] === "string") return [{ placeholder: known, quoted: true }];
  if (field.name === "timestamp") return site.isMessage ? [{ placeholder: String(c.now.getTime()) }] : [{ placeholder: c.now.toISOString(), quoted: true }];
  if (field.name === "type" && !site.isMessage) return [{ choice: ENTRY_TYPES.map((t) => t.type), quoted: true }];
  if (field.name === "role" && site.isMessage) return [{ choice: STORED_ROLES, quoted: true }];
  if (field.name === "message" && !site.isMessage) return ['{"role":', { choice: STORED_ROLES, quoted: true }, { final: true }, "}"];
  return placeholder(field.kinds, field.name);
}

/**
 * Values that Pi writes in string fields, so that a client without snippets, which inserts the
 * defaults as they are, gets a line Pi would take (a model that exists, a thinking level that is one).
 */
export const STRING_DEFAULTS = {
  provider: "anthropic",
  modelId: "claude-sonnet-4-5",
  model: "claude-sonnet-4-5",
  api: "anthropic-messages",
  thinkingLevel: "medium",
  stopReason: "stop",
} as const;

function placeholder(kinds: readonly JsonKind[], name: string): Piece[] {
  switch (kinds[0]) {
    case "string":
      return [{ placeholder: name, quoted: true }];
    case "number":
      return [{ placeholder: "0" }];
    case "boolean":
      return [{ choice: ["false", "true"] }];
    case "object":
      return ["{", { placeholder: "" }, "}"];
    case "array":
      return ["[", { placeholder: "" }, "]"];
    default:
      return [{ placeholder: "null" }];
  }
}
