/**
 * What every hover says about an entry it mentions: a headline (type, role, model, tool, line) and
 * a preview of its text, found without reading more than a few content blocks.
 */

import type { Entry } from "../../core/session/entry";
import { ENTRY_TYPE_BY_NAME } from "../../core/line/schema";
import { nameOfValue } from "../../core/session/rules";
import { clip, groupDigits, shortValue } from "../../core/base/text";
import { escapeMarkdown, inlineCode as code, quoteLine } from "../markdown";

/** How many characters of a text a preview shows. */
export const PREVIEW_CHARS = 160;

export function objectAt(o: unknown, key: string): Record<string, unknown> | undefined {
  if (o === null || typeof o !== "object") return undefined;
  const v = (o as Record<string, unknown>)[key];
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A short text for a value that should be a string: the string, "?" when absent, else a short form. */
export function str(value: unknown): string {
  return value === undefined ? "?" : shortValue(value);
}

/** `**message · assistant** · `anthropic/claude-sonnet-4-5` · line 5` */
export function headline(entry: Entry): string {
  const o = entry.parsed.object ?? {};
  const type = entry.type;
  let title: string;
  const details: string[] = [];
  if (type === undefined) {
    title = "entry without a type";
  } else if (type === "message") {
    const m = objectAt(o, "message");
    const role = m?.role;
    title = typeof role === "string" ? `message · ${clip(role, 40)}` : m ? "message without a role" : "message without a message";
    if (m) details.push(...messageDetails(m, role));
  } else {
    title = clip(type, 40);
    details.push(...entryDetails(type, o));
  }
  return [`**${escapeMarkdown(title)}**`, ...details, `line ${entry.line + 1}`].join(" · ");
}

function messageDetails(m: Record<string, unknown>, role: unknown): string[] {
  const details: string[] = [];
  if (role === "assistant") {
    if (typeof m.model === "string") details.push(code(typeof m.provider === "string" ? `${m.provider}/${m.model}` : m.model));
    if (typeof m.stopReason === "string" && m.stopReason !== "stop" && m.stopReason !== "toolUse") details.push(`stopped: ${code(m.stopReason)}`);
  } else if (role === "toolResult") {
    if (typeof m.toolName === "string") details.push(code(m.toolName));
    if (m.isError === true) details.push("error");
  } else if (role === "bashExecution") {
    if (typeof m.exitCode === "number") details.push(`exit code ${m.exitCode}`);
    if (m.excludeFromContext) details.push("excluded from context");
  } else if (role === "custom" || role === "hookMessage") {
    if (typeof m.customType === "string") details.push(code(m.customType));
  }
  return details;
}

function entryDetails(type: string, o: Record<string, unknown>): string[] {
  const details: string[] = [];
  switch (type) {
    case "compaction":
      if (typeof o.tokensBefore === "number") details.push(`${groupDigits(o.tokensBefore)} tokens before`);
      if (typeof o.firstKeptEntryId === "string") details.push(`keeps from ${code(o.firstKeptEntryId)}`);
      break;
    case "branch_summary":
      if (typeof o.fromId === "string") details.push(`from ${code(o.fromId)}`);
      break;
    case "model_change":
      details.push(code(`${str(o.provider)}/${str(o.modelId)}`));
      break;
    case "thinking_level_change":
      details.push(code(str(o.thinkingLevel)));
      break;
    case "label":
      details.push(o.label ? `${code(str(o.label))} on ${code(str(o.targetId))}` : `clears the label of ${code(str(o.targetId))}`);
      break;
    case "session_info": {
      const { name } = nameOfValue(o.name);
      details.push(name !== undefined ? code(name) : "clears the session name");
      break;
    }
    case "custom":
    case "custom_message":
      if (typeof o.customType === "string") details.push(code(o.customType));
      break;
    case "usage":
      if (typeof o.kind === "string") details.push(code(o.kind));
      if (typeof o.model === "string") details.push(code(typeof o.provider === "string" ? `${o.provider}/${o.model}` : o.model));
      break;
    case "context_edit":
      details.push(`${o.replacement === null ? "removes" : "replaces the content of"} ${code(str(o.targetId))}`);
      break;
    default:
      if (!ENTRY_TYPE_BY_NAME.has(type)) details.push("unknown type");
  }
  return details;
}

/** The text an entry shows, unclipped but found without reading more than a few blocks. */
export function previewOf(entry: Entry): string | undefined {
  const o = entry.parsed.object;
  if (!o) return undefined;
  switch (entry.type) {
    case "message": {
      const m = objectAt(o, "message");
      if (!m) return undefined;
      if (m.role === "bashExecution") return typeof m.command === "string" ? `$ ${m.command}` : undefined;
      if (m.role === "system" && m.content === "" && m.sections && typeof m.sections === "object")
        return `sections: ${Object.keys(m.sections).slice(0, 10).join(", ")}`;
      return contentText(m.content);
    }
    case "compaction":
    case "branch_summary":
      return typeof o.summary === "string" ? o.summary : undefined;
    case "custom_message":
      return contentText(o.content);
    case "context_edit":
      return contentText(objectAt(o, "replacement")?.content);
    default:
      return undefined;
  }
}

/** The first text of a message content: a string, or the first text block (else thinking, tool calls, images). */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let thinking: string | undefined;
  const calls: string[] = [];
  let images = 0;
  const n = Math.min(content.length, 50);
  for (let i = 0; i < n; i++) {
    const b = content[i];
    if (b === null || typeof b !== "object") continue;
    const block = b as Record<string, unknown>;
    if (block.type === "text" && typeof block.text === "string" && block.text.length > 0) return block.text;
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0) thinking ??= block.thinking;
    else if (block.type === "toolCall" && calls.length < 3) calls.push(`${clip(str(block.name), 40)}(${argumentsPreview(block.arguments)})`);
    else if (block.type === "image") images++;
  }
  if (calls.length > 0) return `→ ${calls.join(", ")}`;
  if (thinking !== undefined) return `(thinking) ${thinking}`;
  if (images > 0) return `[${images} image${images === 1 ? "" : "s"}]`;
  return undefined;
}

function argumentsPreview(args: unknown): string {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "";
  const parts: string[] = [];
  let count = 0;
  for (const key in args) {
    if (count++ >= 3) {
      parts.push("…");
      break;
    }
    const value = (args as Record<string, unknown>)[key];
    const shown =
      typeof value === "string" ? `"${clip(value, 40)}"` : value === null || typeof value !== "object" ? String(value) : Array.isArray(value) ? "[…]" : "{…}";
    parts.push(`${clip(key, 20)}: ${shown}`);
  }
  return parts.join(", ");
}

/** The entry's preview as a quoted line after a blank line, or "" when it has no text. */
export function previewLine(entry: Entry): string {
  const text = previewOf(entry);
  return text === undefined || text.trim() === "" ? "" : `\n\n${quoteLine(text, PREVIEW_CHARS)}`;
}

/** The entry's preview as a quoted line, or undefined when it has no text. */
export function previewQuote(entry: Entry): string | undefined {
  const text = previewOf(entry);
  return text === undefined || text.trim() === "" ? undefined : quoteLine(text, PREVIEW_CHARS);
}
