/**
 * One message of a context (`messagesOfLine`'s, as Pi builds it) as HTML for the exported page:
 * the roles `contextMarkdown.ts` knows, each as a block whose text goes through `htmlText.ts`.
 * Tool calls, tool results and bash output are folded (`<details>`), thinking is collapsible, and
 * images are shown inline when `imageSource` accepts them. Everything is bounded: at most
 * `MAX_BLOCKS` content blocks per message, each text cut at `MAX_TEXT_CHARS`.
 */

import { asObject } from "../../core/line/schema";
import { groupDigits, plural, shortValue, singleLine } from "../../core/base/text";
import { imageSource, inline, textBlock } from "./htmlText";

/** Content blocks shown per message; more are counted. */
const MAX_BLOCKS = 500;
/** Code points of a name (tool, model, custom type) in a heading. */
const NAME_CODE_POINTS = 80;

function name(value: unknown): string {
  return typeof value === "string" ? singleLine(value, NAME_CODE_POINTS) || '""' : "?";
}

/** `JSON.stringify(value, null, 2)`, or a short description of a value it cannot serialise (nested too deep). */
function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? shortValue(value);
  } catch {
    return shortValue(value);
  }
}

export function messageHtml(message: unknown): string {
  const m = asObject(message);
  if (!m) return `<div class="msg other"><h3>(not a message)</h3></div>`;
  switch (m.role) {
    case "user":
      return wrap("user", "user", content(m.content));
    case "assistant": {
      const model = typeof m.model === "string" ? ` <span class="model">${inline(`${name(m.provider)}/${name(m.model)}`)}</span>` : "";
      const stop =
        m.stopReason === "error" || m.stopReason === "aborted" || m.stopReason === "length" ? ` <span class="stop">stopped: ${m.stopReason}</span>` : "";
      const error = typeof m.errorMessage === "string" && m.errorMessage.trim() ? `<div class="error">error: ${textBlock(m.errorMessage)}</div>` : "";
      return wrap("assistant", `assistant${model}${stop}`, content(m.content) + error);
    }
    case "toolResult": {
      const summary = `tool result ${inline(name(m.toolName))}${m.isError === true ? ' <span class="stop">error</span>' : ""}`;
      return wrap("tool-result", "", `<details class="tool-result"><summary>${summary}</summary>${content(m.content)}</details>`);
    }
    case "bashExecution": {
      const notes: string[] = [];
      if (typeof m.exitCode === "number") notes.push(`exit code ${m.exitCode}`);
      if (m.cancelled === true) notes.push("cancelled");
      if (m.truncated === true) notes.push("output truncated by Pi");
      if (m.excludeFromContext === true) notes.push("not sent to the model");
      const command = typeof m.command === "string" ? m.command : "";
      const output = typeof m.output === "string" && m.output.trim() ? textBlock(m.output, "output") : "<p><i>(no output)</i></p>";
      const summary = `bash ${inline(singleLine(command, NAME_CODE_POINTS))}${notes.length ? ` (${notes.join(", ")})` : ""}`;
      return wrap("bash", "", `<details class="tool-result"><summary>${summary}</summary>${textBlock(`$ ${command}`, "command")}${output}</details>`);
    }
    case "custom":
    case "hookMessage":
      return wrap("custom", `custom ${inline(name(m.customType))}${m.display === false ? " (hidden)" : ""}`, content(m.content));
    case "system":
      return wrap("system", "system", content(m.content));
    case "branchSummary":
      return wrap("summary", "branch summary", summary(m.summary));
    case "compactionSummary": {
      const tokens = typeof m.tokensBefore === "number" && Number.isFinite(m.tokensBefore) ? ` (${groupDigits(m.tokensBefore)} tokens before)` : "";
      return wrap("summary", `compaction summary${tokens}`, summary(m.summary));
    }
    default:
      return wrap("other", typeof m.role === "string" ? `${inline(name(m.role))} (unknown role)` : "(no role)", content(m.content));
  }
}

function wrap(kind: string, title: string, body: string): string {
  return `<div class="msg ${kind}">${title ? `<h3>${title}</h3>` : ""}${body}</div>`;
}

function summary(value: unknown): string {
  return typeof value === "string" && value.trim() ? textBlock(value) : "<p><i>(empty)</i></p>";
}

/** Content as a string or blocks: text, images, thinking, tool calls. */
function content(value: unknown): string {
  if (typeof value === "string") return value.trim() ? textBlock(value) : "";
  if (!Array.isArray(value)) return value === undefined || value === null ? "" : `<p><i>(content is ${typeof value})</i></p>`;
  const parts: string[] = [];
  const count = Math.min(value.length, MAX_BLOCKS);
  for (let i = 0; i < count; i++) parts.push(block(value[i]));
  if (value.length > MAX_BLOCKS) {
    const more = value.length - MAX_BLOCKS;
    parts.push(`<p class="cut">… ${plural(more, "more content block")} not shown</p>`);
  }
  return parts.join("");
}

function block(value: unknown): string {
  const b = asObject(value);
  switch (b?.type) {
    case "text":
      return typeof b.text === "string" && b.text.trim() ? textBlock(b.text) : "";
    case "image": {
      const image = imageSource(b.mimeType, b.data);
      const type = inline(name(b.mimeType));
      if ("src" in image) return `<figure><img alt="" src="${image.src}"><figcaption>image ${type}</figcaption></figure>`;
      return `<p class="image">[image ${type}: not shown, ${image.reason}]</p>`;
    }
    case "thinking":
      if (b.redacted === true) return `<p class="thinking"><i>thinking (redacted)</i></p>`;
      return typeof b.thinking === "string" && b.thinking.trim()
        ? `<details class="thinking"><summary>thinking</summary>${textBlock(b.thinking)}</details>`
        : "";
    case "toolCall":
      return `<details class="tool-call"><summary>tool call ${inline(name(b.name))}</summary>${textBlock(prettyJson(b.arguments), "json")}</details>`;
    default:
      return `<p><i>[${b && typeof b.type === "string" ? inline(name(b.type)) : "?"} block]</i></p>`;
  }
}
