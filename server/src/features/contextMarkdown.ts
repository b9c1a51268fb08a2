/**
 * The built context as a person reads it: Markdown, one section per message of Pi's
 * `buildSessionContext()` result, with a footer of statistics.
 *
 * Used by `pi-session-lsp context --format markdown` and meant for the server's "show context"
 * command. Pure: it reads a `ContextBuild` (and, for the title, the analysis) and returns a string.
 *
 * Every part of the output is bounded whatever the size of the message: a text, tool output or
 * summary shows its first lines (20 lines or 2,000 UTF-16 code units by default) and says how much
 * more there was; thinking shows one line; tool call arguments show short previews; a message shows
 * a bounded number of content blocks. Only the part shown is copied; what is cut is only counted.
 * The number of messages is not bounded unless `maxMessages` is given (the CLI prints them all).
 */

import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { ContextBuild, PiFlavor } from "../core/pi/buildContext";
import { sessionName } from "../core/session/semantics/sessionName";
import { groupDigits, safeSlice, shortValue, singleLine } from "../core/base/text";
import { code, entryRef, modelName, NAME_CODE_POINTS, plural, renderFooter } from "./contextFooter";
import { codeBlock, escapeMarkdown, shorten } from "./markdown";

import { asObject } from "../core/line/schema";
import { releasedTable } from "../core/session/semantics/memo";
import { renewableWeakMap } from "../core/base/weakTables";

export interface ContextMarkdownOptions {
  /** The session's name as Pi shows it (`getSessionName`), for the title. */
  sessionName?: string;
  /** The header's id, for the title. */
  sessionId?: string;
  /** The Pi version whose context this is, named under the title. */
  flavor?: PiFlavor;
  /** Lines shown of a text, tool output or summary (default 20). */
  maxLines?: number;
  /** UTF-16 code units shown of a text, tool output or summary (default 2,000). */
  maxChars?: number;
  /** Show only the last this many messages (the footer still counts all of them). */
  maxMessages?: number;
  /** The title's first words ("Context" by default). */
  heading?: string;
  /** Footer lines (Markdown list items) after the statistics. */
  notes?: string[];
}

/** Content blocks shown per message; more are counted. */
const MAX_BLOCKS = 30;
/** Code points of thinking shown (on one line). */
const THINKING_CODE_POINTS = 160;
/** Code points of one tool call argument value. */
const ARG_CODE_POINTS = 60;
/** Tool call arguments shown per call. */
const MAX_ARGS = 6;

/** Options for `renderContextMarkdown` read from the analysis: the session's name and id. */
export function contextMarkdownOptions(a: SessionAnalysis, flavor?: PiFlavor): ContextMarkdownOptions {
  const id = a.header?.id;
  return { sessionName: sessionName(a).name, sessionId: typeof id === "string" ? id : undefined, flavor };
}

export function renderContextMarkdown(build: ContextBuild, options: ContextMarkdownOptions = {}): string {
  const limits: Limits = { lines: options.maxLines ?? 20, chars: options.maxChars ?? 2000 };
  const { messages } = build.context;
  const out: string[] = [];

  const name = options.sessionName ? singleLine(options.sessionName, NAME_CODE_POINTS) : "";
  const id = options.sessionId ? singleLine(options.sessionId, NAME_CODE_POINTS) : "";
  const heading = options.heading ?? "Context";
  out.push(name ? `# ${heading} of “${escapeMarkdown(name)}”` : id ? `# ${heading} of session ${escapeMarkdown(id)}` : `# ${heading}`);
  const about: string[] = [];
  if (name && id) about.push(`session ${code(id)}`);
  const leaf = build.path[build.path.length - 1];
  about.push(leaf ? `leaf ${entryRef(leaf)}` : "no entries");
  if (options.flavor) about.push(`as Pi ${options.flavor} builds it`);
  out.push("", `${about.join(" · ")}`);

  let first = 0;
  if (options.maxMessages !== undefined && messages.length > options.maxMessages) {
    first = messages.length - Math.max(0, options.maxMessages);
    out.push("", `*… ${groupDigits(first)} earlier ${plural(first, "message")} not shown*`);
  }
  if (messages.length === 0) out.push("", "*The context is empty: the model sees no messages.*");
  for (let i = first; i < messages.length; i++) out.push(renderedMessage(messages[i], i + 1, build.sources[i], limits));

  out.push("", "---", "", ...renderFooter(build), ...(options.notes ?? []));
  return joined(messages, out);
}

/** The last Markdown rendered of each message list, with the sections it was joined from. */
const lastJoined = releasedTable<readonly unknown[], { sections: readonly string[]; text: string }>();

/**
 * The sections joined into the Markdown; the same string as the last time for the same message list
 * when every section is equal: the editor asks again after each edit outside the context, which
 * leaves every message's section as it was (`renderedMessage`), and the join of a 20,000-message
 * context took 6 ms, with a server answer that then finds its JSON kept by the string's identity
 * (`lsp/keptJson.ts`) instead of comparing megabytes.
 */
function joined(messages: readonly unknown[], sections: readonly string[]): string {
  const last = lastJoined.get(messages);
  if (last && last.sections.length === sections.length && last.sections.every((section, i) => section === sections[i])) return last.text;
  const text = `${sections.join("\n")}\n`;
  lastJoined.set(messages, { sections, text });
  return text;
}

/**
 * One message of a context as `renderContextMarkdown` renders it (its `## n.` section, after a blank
 * line): `export` renders a branch message by message as it streams, with larger limits.
 */
export function renderMessageMarkdown(
  message: unknown,
  n: number,
  source: Entry | undefined,
  options: Pick<ContextMarkdownOptions, "maxLines" | "maxChars"> = {},
): string {
  return renderedMessage(message, n, source, { lines: options.maxLines ?? 20, chars: options.maxChars ?? 2000 });
}

// ---- Messages --------------------------------------------------------------------------------

interface Limits {
  lines: number;
  chars: number;
}

/**
 * The last rendering of each message object (the lines joined, after the blank line before it),
 * with what it was rendered with: a context built again after an edit (`core/pi/contextUpdate.ts`)
 * shares every message the edit left alone, so its Markdown renders only the messages that
 * changed or moved. The source's id and line are compared, not just the entry, which an edit
 * inside its line keeps.
 */
const rendered = renewableWeakMap<object, { n: number; source: Entry | undefined; id: unknown; line: number; type: unknown; limits: string; text: string }>();

function renderedMessage(message: unknown, n: number, source: Entry | undefined, limits: Limits): string {
  const key = `${limits.lines}:${limits.chars}`;
  const last = message !== null && typeof message === "object" ? rendered.get(message) : undefined;
  const line = source?.line ?? -1;
  if (
    last &&
    last.n === n &&
    last.source === source &&
    Object.is(last.id, source?.id) &&
    last.line === line &&
    last.type === source?.type &&
    last.limits === key
  ) {
    return last.text;
  }
  const from =
    source === undefined ? "" : source.id !== undefined ? ` · ${code(singleLine(source.id, NAME_CODE_POINTS) || '""')}` : ` · line ${source.line + 1}`;
  const text = ["", ...renderMessage(message, n, from, limits, source?.type === "compaction")].join("\n");
  if (message !== null && typeof message === "object") rendered.set(message, { n, source, id: source?.id, line, type: source?.type, limits: key, text });
  return text;
}

function renderMessage(message: unknown, n: number, from: string, limits: Limits, fromCompaction: boolean): string[] {
  const m = asObject(message);
  if (!m) return [`## ${n}. (not a message)${from}`];
  const body: string[] = [];
  let title: string;
  switch (m.role) {
    case "user":
      title = "user";
      body.push(...renderContent(m.content, limits, "text"));
      break;
    case "assistant": {
      const model = modelName(m.provider, m.model);
      const stop = m.stopReason === "error" || m.stopReason === "aborted" || m.stopReason === "length" ? `, stopped: ${m.stopReason}` : "";
      title = `assistant${model || stop ? ` (${model || "?"}${stop})` : ""}`;
      body.push(...renderContent(m.content, limits, "text"));
      if (typeof m.errorMessage === "string" && m.errorMessage.trim()) body.push(`*error:* ${escapeMarkdown(singleLine(m.errorMessage, 200))}`);
      break;
    }
    case "toolResult": {
      const tool = typeof m.toolName === "string" ? singleLine(m.toolName, NAME_CODE_POINTS) || "?" : "?";
      title = `tool result (${escapeMarkdown(tool)}${m.isError === true ? ", error" : ""})`;
      body.push(...renderContent(m.content, limits, "code"));
      break;
    }
    case "bashExecution": {
      title = "bash";
      const notes: string[] = [];
      if (typeof m.exitCode === "number") notes.push(`exit code ${m.exitCode}`);
      if (m.cancelled === true) notes.push("cancelled");
      if (m.truncated === true) notes.push("output truncated by Pi");
      if (notes.length > 0) title += ` (${notes.join(", ")})`;
      const output = typeof m.output === "string" ? m.output : "";
      const parts = [fenced(`$ ${typeof m.command === "string" ? m.command : ""}`, limits, "sh"), output.trim() ? fenced(output, limits) : ["*(no output)*"]];
      if (m.excludeFromContext === true) parts.unshift(["*Not sent to the model (`excludeFromContext`).*"]);
      body.push(...joinParts(parts));
      break;
    }
    case "custom":
    case "hookMessage": {
      const type = typeof m.customType === "string" ? singleLine(m.customType, NAME_CODE_POINTS) || "?" : "?";
      title = `custom (${escapeMarkdown(type)}${m.display === false ? ", hidden" : ""})`;
      body.push(...renderContent(m.content, limits, "text"));
      break;
    }
    case "system":
      // Pi 1.x sends a compaction's `systemMessage` (the prompt as it stood) before its summary.
      title = fromCompaction ? "system (the compaction's checkpoint of the system prompt)" : "system";
      body.push(...renderSystem(m, limits));
      break;
    case "branchSummary":
      title = `branch summary${typeof m.fromId === "string" ? ` (of the branch left at ${code(singleLine(m.fromId, NAME_CODE_POINTS))})` : ""}`;
      body.push("*Summary of a branch the conversation left, sent to the model as a user message:*", "", ...summaryBlock(m.summary, limits));
      break;
    case "compactionSummary": {
      const tokens = typeof m.tokensBefore === "number" && Number.isFinite(m.tokensBefore) ? ` (${groupDigits(m.tokensBefore)} tokens before)` : "";
      title = `compaction summary${tokens}`;
      body.push("*Summary of the earlier conversation, which the model no longer sees, sent as a user message:*", "", ...summaryBlock(m.summary, limits));
      break;
    }
    default:
      title = typeof m.role === "string" ? `${escapeMarkdown(singleLine(m.role, NAME_CODE_POINTS)) || '""'} (unknown role)` : "(no role)";
      body.push(...renderContent(m.content, limits, "text"));
  }
  const lines = [`## ${n}. ${title}${from}`];
  if (body.length > 0) lines.push("", ...body);
  return lines;
}

/** Content as string or blocks: text (as Markdown or as code), images, thinking, tool calls. */
function renderContent(content: unknown, limits: Limits, mode: "text" | "code"): string[] {
  if (typeof content === "string") return content.trim() ? textBlock(content, limits, mode) : [];
  if (!Array.isArray(content)) return content === undefined || content === null ? [] : [`*(content is ${typeof content})*`];
  const parts: string[][] = [];
  let shown = 0;
  for (const block of content) {
    if (shown === MAX_BLOCKS) {
      parts.push([`*… ${groupDigits(content.length - MAX_BLOCKS)} more content ${plural(content.length - MAX_BLOCKS, "block")}*`]);
      break;
    }
    shown++;
    const b = asObject(block);
    switch (b?.type) {
      case "text":
        if (typeof b.text === "string" && b.text.trim()) parts.push(textBlock(b.text, limits, mode));
        break;
      case "image":
        parts.push([`\\[image: ${typeof b.mimeType === "string" ? escapeMarkdown(singleLine(b.mimeType, NAME_CODE_POINTS)) || "?" : "?"}\\]`]);
        break;
      case "thinking":
        if (b.redacted === true) parts.push(["> *thinking (redacted)*"]);
        else if (typeof b.thinking === "string" && b.thinking.trim())
          parts.push([`> *thinking:* ${escapeMarkdown(singleLine(b.thinking, THINKING_CODE_POINTS))}`]);
        break;
      case "toolCall":
        parts.push([`→ ${code(toolCall(b))}`]);
        break;
      default:
        parts.push([`*\\[${b && typeof b.type === "string" ? escapeMarkdown(singleLine(b.type, NAME_CODE_POINTS)) : "?"} block\\]*`]);
    }
  }
  return joinParts(parts);
}

/** `name(arg: value, …)`, each value a short one-line preview. */
function toolCall(b: Record<string, unknown>): string {
  const name = typeof b.name === "string" ? singleLine(b.name, NAME_CODE_POINTS) || "?" : "?";
  const args = b.arguments;
  const o = asObject(args);
  if (!o) return `${name}(${args === undefined ? "" : preview(args)})`;
  const keys = Object.keys(o);
  const shown = keys.slice(0, MAX_ARGS).map((key) => `${singleLine(key, NAME_CODE_POINTS)}: ${preview(o[key])}`);
  if (keys.length > MAX_ARGS) shown.push("…");
  return `${name}(${shown.join(", ")})`;
}

/** A value as short one-line JSON: a long string is cut before it is serialised. */
function preview(value: unknown): string {
  if (typeof value === "string") {
    const cut = safeSlice(value, ARG_CODE_POINTS).length;
    const json = JSON.stringify(value.slice(0, cut));
    return cut < value.length ? `${json.slice(0, -1)}…"` : json;
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return json === undefined ? shortValue(value) : singleLine(json, ARG_CODE_POINTS);
}

/** A system message: its text, the prompt sections it sets or deletes, the tools it adds or removes. */
function renderSystem(m: Record<string, unknown>, limits: Limits): string[] {
  const parts: string[][] = [];
  const text = renderContent(m.content, limits, "text");
  if (text.length > 0) parts.push(text);
  const sections = asObject(m.sections);
  if (sections) {
    for (const [key, value] of Object.entries(sections).slice(0, MAX_BLOCKS)) {
      const name = code(singleLine(key, NAME_CODE_POINTS) || '""');
      if (typeof value === "string") parts.push([`**section ${name}:**`, "", ...fenced(value, limits)]);
      else parts.push([`**section ${name}** removed`]);
    }
    const more = Object.keys(sections).length - MAX_BLOCKS;
    if (more > 0) parts.push([`*… ${groupDigits(more)} more ${plural(more, "section")}*`]);
  }
  const tools = (value: unknown) =>
    Array.isArray(value) ? value.map((t) => asObject(t)?.name).map((n) => (typeof n === "string" ? singleLine(n, NAME_CODE_POINTS) : "?")) : [];
  const removed = tools(m.toolsRemoved);
  const added = tools(m.toolsAdded);
  if (removed.length > 0) parts.push([`**tools removed:** ${listed(removed)}`]);
  if (added.length > 0) parts.push([`**tools added:** ${listed(added)}`]);
  return joinParts(parts);
}

function listed(names: string[]): string {
  const shown = names.slice(0, MAX_BLOCKS).map(code).join(", ");
  return names.length > MAX_BLOCKS ? `${shown}, … (${groupDigits(names.length - MAX_BLOCKS)} more)` : shown;
}

// ---- Text ------------------------------------------------------------------------------------

/**
 * Text from the session, fenced so that it shows as the characters it holds: Markdown in a message
 * is shown as its source (a link, an image or HTML in a session must not render), tool output as
 * plain text. The fence is longer than any backtick run inside, so nothing can close it early.
 */
function textBlock(text: string, limits: Limits, mode: "text" | "code"): string[] {
  return fenced(text, limits, mode === "text" ? "markdown" : "");
}

/** A fenced code block of the first lines, and what was cut. */
function fenced(text: string, limits: Limits, info = ""): string[] {
  const cut = shorten(text, limits);
  const lines = codeBlock(cut.text, info);
  if (cut.more) lines.push(`*${cut.more}*`);
  return lines;
}

/** A summary, fenced like every other text from the session. */
function summaryBlock(summary: unknown, limits: Limits): string[] {
  if (typeof summary !== "string" || !summary.trim()) return ["*(empty)*"];
  return fenced(summary, limits, "markdown");
}

function joinParts(parts: string[][]): string[] {
  const out: string[] = [];
  for (const part of parts) {
    if (out.length > 0) out.push("");
    out.push(...part);
  }
  return out;
}
