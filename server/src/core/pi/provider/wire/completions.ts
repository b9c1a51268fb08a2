/**
 * pi-ai 1.6's OpenAI Chat Completions body (`api/openai-completions.js`: `convertMessages`), for
 * the compatibility pi-ai detects from the provider's name (`detectCompat`); the catalogue's
 * per-model `compat` overrides are not in our catalogue, and the model's base URL is the user's.
 *
 * - Tool call ids of another model's turns: an id with "|" (OpenAI Responses' `call|item`)
 *   becomes `call_item` sanitised, or a prefix and a hash past 40 characters; for the `openai`
 *   provider any id is cut to 40 characters.
 * - User string content is sent as it is; block content loses empty text blocks (not blank ones)
 *   and is dropped when nothing is left; images become `image_url` data URLs.
 * - An assistant turn's non-blank text blocks are joined into one string; `content` is null
 *   without text. Thinking goes back in the field its signature names (`reasoning_content`, …)
 *   or as `reasoning_details`; DeepSeek wants `reasoning_content` on every turn. A turn with
 *   neither content nor tool calls is dropped.
 * - Each tool result is a `tool` message (text joined with "\n", or a placeholder); their images
 *   follow in one user message after the run of results.
 */

import { NO_TOOL_IMAGE_TEXT } from "./images";
import { type Block, blame, blocksOf, type Message, sanitizeSurrogates, shortHash, stringOf, type WireModel } from "./common";

/** The compatibility fields the messages read, as `detectCompat` sets them from the provider's name. */
interface MessageCompat {
  requiresReasoningContentOnAssistantMessages: boolean;
  anthropicCacheControl: boolean;
}

function compatOf(model: WireModel): MessageCompat {
  return {
    requiresReasoningContentOnAssistantMessages: model.provider === "deepseek",
    anthropicCacheControl: model.provider === "openrouter" && model.id.startsWith("anthropic/"),
  };
}

export function completionsToolCallId(model: WireModel): (id: string) => string {
  return (id) => {
    if (id.includes("|")) {
      const separatorIndex = id.indexOf("|");
      const callId = id.slice(0, separatorIndex).replace(/[^a-zA-Z0-9_-]/g, "_");
      const itemId = id.slice(separatorIndex + 1).replace(/[^a-zA-Z0-9_-]/g, "_");
      const combinedId = itemId.length > 0 ? `${callId}_${itemId}` : callId;
      if (combinedId.length <= 40) return combinedId;
      const hash = shortHash(id).slice(0, 8);
      return `${callId.slice(0, Math.max(1, 40 - hash.length - 1))}_${hash}`;
    }
    if (model.provider === "openai") return id.length > 40 ? id.slice(0, 40) : id;
    return id;
  };
}

const REASONING_FIELDS = ["reasoning", "reasoning_content", "reasoning_text"];

function isReasoningDetail(detail: unknown): boolean {
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) return false;
  const d = detail as Record<string, unknown>;
  const common =
    (d.id === undefined || d.id === null || typeof d.id === "string") &&
    (d.format === undefined || typeof d.format === "string") &&
    (d.index === undefined || typeof d.index === "number");
  if (!common) return false;
  if (d.type === "reasoning.summary") return typeof d.summary === "string";
  if (d.type === "reasoning.encrypted") return typeof d.data === "string";
  if (d.type === "reasoning.text") return typeof d.text === "string" && (d.signature === undefined || d.signature === null || typeof d.signature === "string");
  return false;
}

function parseJson(text: unknown): unknown {
  if (!text || typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reasoningDetails(signature: unknown): unknown[] | undefined {
  const parsed = parseJson(signature);
  return Array.isArray(parsed) && parsed.length > 0 && parsed.every(isReasoningDetail) ? parsed : undefined;
}

function legacyEncryptedDetail(signature: unknown): unknown {
  const parsed = parseJson(signature) as Record<string, unknown> | undefined;
  return isReasoningDetail(parsed) &&
    parsed!.type === "reasoning.encrypted" &&
    typeof parsed!.id === "string" &&
    parsed!.id.length > 0 &&
    (parsed!.data as string).length > 0
    ? parsed
    : undefined;
}

function userMessage(msg: Message): Message | undefined {
  if (typeof msg.content === "string") return { role: "user", content: sanitizeSurrogates(msg.content) };
  const content = blocksOf(msg.content)
    .filter((item) => item.type !== "text" || stringOf(item.text).length > 0)
    .map((item) =>
      item.type === "text"
        ? { type: "text", text: sanitizeSurrogates(item.text) }
        : { type: "image_url", image_url: { url: `data:${String(item.mimeType)};base64,${String(item.data)}` } },
    );
  return content.length === 0 ? undefined : { role: "user", content };
}

function assistantMessage(msg: Message, model: WireModel, compat: MessageCompat): Message | undefined {
  const blocks = blocksOf(msg.content);
  const out: Message = { role: "assistant", content: null };
  const textParts = blocks.filter((b) => b.type === "text" && stringOf(b.text).trim().length > 0).map((b) => sanitizeSurrogates(b.text));
  const text = textParts.join("");
  const thinking = blocks.filter((b) => b.type === "thinking");
  const toolCalls = blocks.filter((b) => b.type === "toolCall");
  const signed = thinking.map((b) => reasoningDetails(b.thinkingSignature)).find((d) => d !== undefined);
  const legacy = toolCalls.map((b) => legacyEncryptedDetail(b.thoughtSignature)).filter((d) => d !== undefined);
  const preserved = signed ?? (legacy.length > 0 ? legacy : undefined);
  const nonEmptyThinking = thinking.filter((b) => stringOf(b.thinking).trim().length > 0);
  if (text.length > 0) out.content = text;
  if (nonEmptyThinking.length > 0 && !preserved) {
    const signature = nonEmptyThinking[0]!.thinkingSignature;
    if (typeof signature === "string" && REASONING_FIELDS.includes(signature)) out[signature] = nonEmptyThinking.map((b) => b.thinking).join("\n");
  }
  if (toolCalls.length > 0)
    out.tool_calls = toolCalls.map((tc) => ({ id: tc.id, type: "function", function: { name: tc.name, arguments: JSON.stringify(tc.arguments) } }));
  if (preserved) out.reasoning_details = preserved;
  if (compat.requiresReasoningContentOnAssistantMessages && model.reasoning && out.reasoning_content === undefined) out.reasoning_content = "";
  const hasContent = typeof out.content === "string" && out.content.length > 0;
  return hasContent || out.tool_calls ? out : undefined;
}

/** The run of tool results from `start`: a `tool` message each, then their images in one user message. */
function toolResults(messages: readonly Message[], start: number, model: WireModel, params: Message[]): number {
  const images: Block[] = [];
  let j = start;
  for (; j < messages.length && messages[j]!.role === "toolResult"; j++) {
    const toolMsg = messages[j]!;
    const content = blocksOf(toolMsg.content);
    const text = content
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n");
    const hasImages = content.some((b) => b.type === "image");
    const resultText = text.trim().length > 0 ? text : hasImages ? NO_TOOL_IMAGE_TEXT : "(no tool output)";
    params.push({ role: "tool", content: sanitizeSurrogates(resultText), tool_call_id: toolMsg.toolCallId });
    if (hasImages && model.input.includes("image"))
      for (const b of content)
        if (b.type === "image") images.push({ type: "image_url", image_url: { url: `data:${String(b.mimeType)};base64,${String(b.data)}` } });
  }
  if (images.length > 0) params.push({ role: "user", content: [{ type: "text", text: "Attached image(s) from tool result:" }, ...images] });
  return j - 1;
}

/** `addCacheControlToLastConversationMessage`, for the Anthropic models behind OpenRouter. */
function addCacheControl(params: Message[]): void {
  for (let i = params.length - 1; i >= 0; i--) {
    const message = params[i]!;
    const content = message.content;
    if (typeof content === "string") {
      if (content.length === 0) continue;
      message.content = [{ type: "text", text: content, cache_control: { type: "ephemeral" } }];
      return;
    }
    if (!Array.isArray(content)) continue;
    for (let k = content.length - 1; k >= 0; k--) {
      if ((content[k] as Block)?.type === "text") {
        (content[k] as Block).cache_control = { type: "ephemeral" };
        return;
      }
    }
  }
}

export function completionsMessages(messages: readonly Message[], model: WireModel): Message[] {
  const compat = compatOf(model);
  const params: Message[] = [];
  let current: Message | undefined;
  try {
    for (let i = 0; i < messages.length; i++) {
      const msg = (current = messages[i]!);
      if (msg.role === "user") {
        const user = userMessage(msg);
        if (user) params.push(user);
      } else if (msg.role === "assistant") {
        const assistant = assistantMessage(msg, model, compat);
        if (assistant) params.push(assistant);
      } else if (msg.role === "toolResult") i = toolResults(messages, i, model, params);
    }
  } catch (error) {
    // A run of tool results is blamed on its first: the failure names what is wrong in it.
    throw blame(error, current);
  }
  if (compat.anthropicCacheControl) addCacheControl(params);
  return params;
}

export function completionsBody(model: WireModel, messages: readonly Message[]): Record<string, unknown> {
  return { model: model.id, messages: completionsMessages(messages, model) };
}
