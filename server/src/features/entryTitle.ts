/**
 * One-line names and symbol kinds for entries, shared by every feature that lists entries: the
 * outline, the type and call hierarchies, and workspace symbols.
 *
 * A title reads like Pi's tree view: `user: "Fix the failing test…"`, `assistant: toolCall read, bash`,
 * `compaction (48,210 tokens)`, `label: checkpoint-1`, `model: anthropic/claude-sonnet-4-5`. It is
 * built from the entry's cached parse (no JSON is parsed again), stays on one line, and its work is
 * bounded whatever the size of the line: previews are cut on code point boundaries, never inside a
 * surrogate pair.
 */

import type { SymbolKind } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import { nameOfValue } from "../core/session/rules";
import { groupDigits, singleLine } from "../core/base/text";
import { renewableWeakMap } from "../core/base/weakTables";

/** The LSP symbol kinds used here (the values of `SymbolKind`, which is a type-only import). */
export const SYMBOL = {
  File: 1,
  Module: 2,
  Namespace: 3,
  Package: 4,
  Property: 7,
  Field: 8,
  Interface: 11,
  Function: 12,
  String: 15,
  Number: 16,
  Array: 18,
  Object: 19,
  Key: 20,
  Null: 21,
  Struct: 23,
  Event: 24,
  Operator: 25,
} as const satisfies Record<string, SymbolKind>;

/** Code points of message text shown in a name. */
export const PREVIEW_CODE_POINTS = 40;
/** Code points of a label, session name, type or model shown in a name. */
export const NAME_CODE_POINTS = 60;
/** Tool names listed for an assistant message without text. */
const MAX_TOOL_NAMES = 4;

/** Titles by the line parse they were made from: a title depends on the line's text alone, so it outlives edits elsewhere. */
const titles = renewableWeakMap<object, string>();

/** A one-line, bounded, never empty name for an entry. */
export function entryTitle(entry: Entry): string {
  let title = titles.get(entry.parsed);
  if (title === undefined) {
    title = titleOf(entry);
    titles.set(entry.parsed, title);
  }
  return title;
}

function titleOf(entry: Entry): string {
  const o = entry.parsed.object;
  if (!o) return "(not an object)";
  switch (entry.type) {
    case undefined:
      return "(no type)";
    case "message":
      return messageName(o.message);
    case "compaction": {
      const tokens = o.tokensBefore;
      return typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0 ? `compaction (${groupDigits(tokens)} tokens)` : "compaction";
    }
    case "branch_summary":
      return quoted("branch summary", o.summary);
    case "label":
      return typeof o.label === "string" && o.label !== "" ? `label: ${singleLine(o.label, NAME_CODE_POINTS) || '""'}` : "label: (cleared)";
    case "session_info":
      return nameOfValue(o.name).name !== undefined ? `session name: ${singleLine(o.name as string, NAME_CODE_POINTS)}` : "session name: (cleared)";
    case "model_change":
      return `model: ${field(o.provider)}/${field(o.modelId)}`;
    case "thinking_level_change":
      return `thinking: ${field(o.thinkingLevel)}`;
    case "custom":
      return `custom: ${field(o.customType)}`;
    case "custom_message":
      return `custom message: ${field(o.customType)}`;
    case "usage":
      return `usage: ${field(o.kind)}`;
    case "context_edit":
      return `context edit → ${field(o.targetId)}${o.replacement === null ? " (remove)" : ""}`;
    default:
      return singleLine(entry.type, NAME_CODE_POINTS) || '""';
  }
}

function messageName(message: unknown): string {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return "message (no message)";
  const m = message as Record<string, unknown>;
  if (typeof m.role !== "string") return "message (no role)";
  const role = singleLine(m.role, NAME_CODE_POINTS) || '""';
  switch (m.role) {
    case "user": {
      const text = firstText(m.content);
      if (text !== undefined) return quoted(role, text);
      return hasImage(m.content) ? `${role}: (image)` : role;
    }
    case "assistant": {
      const text = firstText(m.content);
      if (text !== undefined) return quoted(role, text);
      const tools = toolNames(m.content);
      if (tools) return `${role}: toolCall ${tools}`;
      if (typeof m.errorMessage === "string" && m.errorMessage.trim()) return quoted(`${role}: error`, m.errorMessage);
      return hasBlock(m.content, "thinking") ? `${role}: (thinking)` : role;
    }
    case "toolResult":
      return `${role}: ${typeof m.toolName === "string" ? singleLine(m.toolName, NAME_CODE_POINTS) || "?" : "?"}${m.isError === true ? " (error)" : ""}`;
    case "bashExecution":
      return quoted(role, m.command);
    case "custom":
    case "hookMessage":
      return `custom message: ${field(m.customType)}`;
    case "system": {
      const text = firstText(m.content);
      if (text !== undefined) return quoted(role, text);
      const sections = m.sections !== null && typeof m.sections === "object" && !Array.isArray(m.sections) ? Object.keys(m.sections) : [];
      return sections.length > 0 ? `${role}: sections ${singleLine(sections.join(", "), NAME_CODE_POINTS)}` : role;
    }
    case "branchSummary":
    case "compactionSummary":
      return quoted(role, m.summary);
    default:
      return quoted(role, firstText(m.content));
  }
}

/** `label: "preview…"`, or just `label` when there is no text. */
function quoted(label: string, text: unknown): string {
  if (typeof text !== "string") return label;
  const preview = singleLine(text, PREVIEW_CODE_POINTS);
  return preview ? `${label}: "${preview}"` : label;
}

/** A string field shown in a name, or "?" when it is not a non-empty string. */
function field(value: unknown): string {
  return typeof value === "string" ? singleLine(value, NAME_CODE_POINTS) || "?" : "?";
}

/** The first non-blank text of string or block-array content. */
function firstText(content: unknown): string | undefined {
  if (typeof content === "string") return content.trim() ? content : undefined;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string" && b.text.trim()) return b.text;
  }
  return undefined;
}

function hasBlock(content: unknown, type: string): boolean {
  return Array.isArray(content) && content.some((b) => b !== null && typeof b === "object" && (b as Record<string, unknown>).type === type);
}

function hasImage(content: unknown): boolean {
  return hasBlock(content, "image");
}

/** `read, bash`, at most a few names, then `+N`. */
function toolNames(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const names: string[] = [];
  let more = 0;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type !== "toolCall") continue;
    if (names.length < MAX_TOOL_NAMES) names.push(typeof b.name === "string" ? singleLine(b.name, NAME_CODE_POINTS) || "?" : "?");
    else more++;
  }
  if (names.length === 0) return undefined;
  return more > 0 ? `${names.join(", ")}, +${more}` : names.join(", ");
}

/** The symbol kind an entry is shown with (icons in outlines and hierarchies). */
export function entryKind(entry: Entry): SymbolKind {
  // Few kinds, each a name that reads as a group: editors such as Emacs (imenu) group the outline
  // by kind name, so every message is an Event (its name says the role), in conversation order.
  switch (entry.type) {
    case "message":
      return SYMBOL.Event;
    case "compaction":
    case "branch_summary":
      return SYMBOL.Module;
    case "label":
      return SYMBOL.Key;
    case "session_info":
      return SYMBOL.File;
    case "model_change":
    case "thinking_level_change":
      return SYMBOL.Property;
    case "custom":
    case "custom_message":
    case "usage":
    case "context_edit":
      return SYMBOL.Object;
    default:
      return SYMBOL.Null;
  }
}
