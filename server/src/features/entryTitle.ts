/**
 * One-line names for entries, shared by every feature that lists entries: the type and call
 * hierarchies, workspace symbols, and the outline.
 *
 * A title reads like Pi's tree view: `user: "Fix the failing test…"`, `assistant: [read, edit]`,
 * `compaction (48,210 tokens)`, `label: checkpoint-1`. It is built from the entry's cached parse
 * (no JSON is parsed again) and its work is bounded whatever the size of the line: only the first
 * text block is read, and only its first few hundred characters are looked at.
 */

import type { SymbolKind } from "vscode-languageserver";
import type { Entry } from "../core/analysis";

/** Longest preview of message text, in UTF-16 code units, before the ellipsis. */
export const PREVIEW_LENGTH = 40;

/** A short human name for an entry, as an outline or a tree view would show it. */
export function entryTitle(entry: Entry): string {
  const o = entry.parsed.object;
  if (!o) return "(not an object)";
  const type = entry.type;
  switch (type) {
    case undefined:
      return "(no type)";
    case "message":
      return messageTitle(o.message);
    case "compaction": {
      const tokens = o.tokensBefore;
      return typeof tokens === "number" && Number.isFinite(tokens) ? `compaction (${groupDigits(tokens)} tokens)` : "compaction";
    }
    case "branch_summary":
      return withPreview("branch_summary", o.summary);
    case "label": {
      const label = o.label;
      return label ? `label: ${short(String(label))}` : "label: (cleared)";
    }
    case "session_info": {
      const name = typeof o.name === "string" ? short(o.name) : "";
      return name ? `session_info: ${name}` : "session_info: (name cleared)";
    }
    case "model_change": {
      const provider = typeof o.provider === "string" ? o.provider : "?";
      const model = typeof o.modelId === "string" ? o.modelId : "?";
      return `model_change: ${oneLine(`${provider}/${model}`)}`;
    }
    case "thinking_level_change":
      return typeof o.thinkingLevel === "string" ? `thinking_level_change: ${oneLine(o.thinkingLevel)}` : "thinking_level_change";
    case "custom":
      return typeof o.customType === "string" ? `custom: ${oneLine(o.customType)}` : "custom";
    case "custom_message":
      return withPreview(typeof o.customType === "string" ? `custom_message (${oneLine(o.customType)})` : "custom_message", textOf(o.content));
    case "usage": {
      const kind = typeof o.kind === "string" ? ` (${oneLine(o.kind)})` : "";
      const model = typeof o.model === "string" ? `: ${oneLine(o.model)}` : "";
      return `usage${kind}${model}`;
    }
    case "context_edit": {
      const target = typeof o.targetId === "string" ? ` ${oneLine(o.targetId)}` : "";
      const action = o.replacement === null ? "remove" : "replace";
      return `context_edit: ${action}${target}`;
    }
    default:
      return oneLine(type);
  }
}

/** The symbol kind an entry is shown with (icons in outlines and hierarchies). */
export function entryKind(entry: Entry): SymbolKind {
  switch (entry.type) {
    case "message": {
      const message = entry.parsed.object?.message;
      const role = message !== null && typeof message === "object" ? (message as Record<string, unknown>).role : undefined;
      switch (role) {
        case "user":
          return SYMBOL.Event;
        case "assistant":
          return SYMBOL.Function;
        case "toolResult":
          return SYMBOL.Field;
        case "system":
          return SYMBOL.Interface;
        default:
          return SYMBOL.Object;
      }
    }
    case "compaction":
      return SYMBOL.Package;
    case "branch_summary":
      return SYMBOL.Namespace;
    case "label":
      return SYMBOL.Key;
    case "session_info":
      return SYMBOL.Module;
    case "model_change":
    case "thinking_level_change":
      return SYMBOL.Property;
    case "custom":
    case "custom_message":
      return SYMBOL.Struct;
    case "usage":
      return SYMBOL.Number;
    case "context_edit":
      return SYMBOL.Operator;
    default:
      return SYMBOL.Object;
  }
}

/** The LSP symbol kinds used here (the values of `SymbolKind`, which is a type-only import). */
export const SYMBOL = {
  File: 1,
  Module: 2,
  Namespace: 3,
  Package: 4,
  Field: 8,
  Interface: 11,
  Function: 12,
  Constant: 14,
  Number: 16,
  Key: 20,
  Event: 24,
  Operator: 25,
  Struct: 23,
  Object: 19,
  Property: 7,
} as const satisfies Record<string, SymbolKind>;

function messageTitle(message: unknown): string {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return "message";
  const m = message as Record<string, unknown>;
  const role = typeof m.role === "string" ? oneLine(m.role) : "message";
  switch (m.role) {
    case "assistant": {
      const text = textOf(m.content);
      if (text) return withPreview(role, text);
      const tools = toolNames(m.content);
      if (tools) return `${role}: [${tools}]`;
      if (typeof m.errorMessage === "string" && m.errorMessage) return withPreview(`${role}: error`, m.errorMessage);
      const thinking = thinkingOf(m.content);
      return thinking ? withPreview(`${role}: thinking`, thinking) : role;
    }
    case "toolResult": {
      const name = typeof m.toolName === "string" ? m.toolName : "";
      const qualifier = name || m.isError === true ? ` (${[oneLine(name), m.isError === true ? "error" : ""].filter(Boolean).join(", ")})` : "";
      return withPreview(`${role}${qualifier}`, textOf(m.content));
    }
    case "bashExecution":
      return withPreview(role, typeof m.command === "string" ? m.command : undefined);
    case "custom":
    case "hookMessage":
      return withPreview(typeof m.customType === "string" ? `${role} (${oneLine(m.customType)})` : role, textOf(m.content));
    case "system": {
      const text = textOf(m.content);
      if (text) return withPreview(role, text);
      const sections = m.sections !== null && typeof m.sections === "object" && !Array.isArray(m.sections) ? Object.keys(m.sections) : [];
      return sections.length > 0 ? `${role}: sections ${oneLine(clipped(sections.join(", ")))}` : role;
    }
    case "branchSummary":
    case "compactionSummary":
      return withPreview(role, typeof m.summary === "string" ? m.summary : undefined);
    default:
      return withPreview(role, textOf(m.content));
  }
}

/** `label: "preview…"`, or just `label` when there is no text. */
function withPreview(label: string, text: unknown): string {
  if (typeof text !== "string") return label;
  if (text === IMAGE) return `${label}: [image]`;
  const preview = oneLine(text.slice(0, PREVIEW_LENGTH * 8));
  return preview ? `${label}: "${clipped(preview)}"` : label;
}

/** What `textOf` answers for content that holds images but no text. */
const IMAGE = "\u0000image";

/** The first text of a string or block-array content, or undefined. */
function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string" && b.text.trim()) return b.text;
  }
  for (const block of content) {
    if (block !== null && typeof block === "object" && (block as Record<string, unknown>).type === "image") return IMAGE;
  }
  return undefined;
}

function thinkingOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "thinking" && typeof b.thinking === "string" && b.thinking.trim()) return b.thinking;
  }
  return undefined;
}

/** The names of the tool calls in an assistant's content, at most a few. */
function toolNames(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const names: string[] = [];
  let more = 0;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type !== "toolCall") continue;
    if (names.length < 4) names.push(typeof b.name === "string" ? oneLine(b.name.slice(0, PREVIEW_LENGTH)) : "?");
    else more++;
  }
  if (names.length === 0) return undefined;
  return more > 0 ? `${names.join(", ")}, +${more}` : names.join(", ");
}

/** A name (label, session name) on one line, bounded. */
function short(text: string): string {
  return oneLine(text.slice(0, NAME_LENGTH));
}

/** Longest label or session name shown, in UTF-16 code units. */
const NAME_LENGTH = 200;

/** Whitespace runs (line breaks included) collapsed to one space, trimmed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clipped(text: string): string {
  if (text.length <= PREVIEW_LENGTH) return text;
  let end = PREVIEW_LENGTH;
  // Do not split a surrogate pair.
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** 48210 → "48,210", independent of the locale. */
export function groupDigits(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return String(value);
  const [whole, fraction] = String(Math.abs(value)).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${value < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}
