/**
 * pi-ai 1.6's Anthropic Messages body (`api/anthropic-messages.js`: `buildParams` and
 * `convertMessages`) for an API key (not OAuth), without native tool changes or effort messages:
 * the defaults of every model of the three APIs in the corpus.
 *
 * - Tool call ids of another model's turns become `[a-zA-Z0-9_-]`, at most 64 characters
 *   (`normalizeToolCallId`, applied in `transformMessages`).
 * - A user message with string content is sent when it is not blank; block content loses blank
 *   text blocks, and is dropped when nothing is left. Images become base64 `image` blocks.
 * - Assistant blocks: blank text is dropped; redacted thinking is sent as `redacted_thinking`;
 *   thinking without a signature is sent as text; tool calls as `tool_use`. A turn with no block
 *   left is dropped.
 * - Consecutive tool results are one user message of `tool_result` blocks (text joined with "\n"
 *   as a string, or blocks when there are images); an error result's images follow all results
 *   of the turn, after a caption.
 * - The last message, when it is a user message, gets `cache_control` on its last block.
 */

import { NO_TOOL_IMAGE_TEXT, splitErrorToolResultImages } from "./images";
import { type Block, blame, blocksOf, type Message, sanitizeSurrogates, stringOf, type WireModel } from "./common";

const CACHE_CONTROL = { type: "ephemeral" };

export function anthropicToolCallId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

function imageBlock(image: Block): Block {
  return { type: "image", source: { type: "base64", media_type: image.mimeType, data: image.data } };
}

/** `convertContentBlocks`: text only becomes one string; with images, blocks (and a caption when there is no text). */
function contentBlocks(content: Block[]): unknown {
  if (!content.some((c) => c.type === "image")) return sanitizeSurrogates(content.map((c) => c.text).join("\n"));
  const blocks = content.map((block) => (block.type === "text" ? { type: "text", text: sanitizeSurrogates(block.text) } : imageBlock(block)));
  if (!blocks.some((b) => b.type === "text")) blocks.unshift({ type: "text", text: NO_TOOL_IMAGE_TEXT });
  return blocks;
}

function userMessage(msg: Message): Message | undefined {
  if (typeof msg.content === "string") return msg.content.trim().length > 0 ? { role: "user", content: sanitizeSurrogates(msg.content) } : undefined;
  const blocks = blocksOf(msg.content)
    .map((item) => (item.type === "text" ? { type: "text", text: sanitizeSurrogates(item.text) } : imageBlock(item)))
    .filter((b) => b.type !== "text" || (b.text as string).trim().length > 0);
  return blocks.length === 0 ? undefined : { role: "user", content: blocks };
}

function assistantBlocks(msg: Message): Block[] {
  const blocks: Block[] = [];
  for (const block of blocksOf(msg.content)) {
    if (block.type === "text") {
      if (stringOf(block.text).trim().length === 0) continue;
      blocks.push({ type: "text", text: sanitizeSurrogates(block.text) });
    } else if (block.type === "thinking") {
      if (block.redacted) {
        blocks.push({ type: "redacted_thinking", data: block.thinkingSignature });
        continue;
      }
      const signature = block.thinkingSignature;
      const signed = typeof signature === "string" && signature.trim().length > 0;
      if (stringOf(block.thinking).trim().length === 0 && !signed) continue;
      blocks.push(
        signed ? { type: "thinking", thinking: sanitizeSurrogates(block.thinking), signature } : { type: "text", text: sanitizeSurrogates(block.thinking) },
      );
    } else if (block.type === "toolCall") {
      blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments ?? {} });
    }
  }
  return blocks;
}

function toolResult(msg: Message, content: Block[]): Block {
  return { type: "tool_result", tool_use_id: msg.toolCallId, content: contentBlocks(content), is_error: msg.isError };
}

/** The `messages` of the body, from the transformed conversation (system messages already out). */
export function anthropicMessages(messages: readonly Message[]): Message[] {
  const params: Message[] = [];
  let current: Message | undefined;
  try {
    for (let i = 0; i < messages.length; i++) {
      const msg = (current = messages[i]!);
      if (msg.role === "user") {
        const user = userMessage(msg);
        if (user) params.push(user);
      } else if (msg.role === "assistant") {
        const blocks = assistantBlocks(msg);
        if (blocks.length > 0) params.push({ role: "assistant", content: blocks });
      } else if (msg.role === "toolResult") {
        const results: Block[] = [];
        const errorImages: Block[] = [];
        let j = i;
        for (; j < messages.length && messages[j]!.role === "toolResult"; j++) {
          const toolMsg = (current = messages[j]!);
          const content = blocksOf(toolMsg.content);
          const split = splitErrorToolResultImages(toolMsg, content);
          results.push(toolResult(toolMsg, split?.content ?? content));
          if (split) errorImages.push({ type: "text", text: split.caption }, ...split.images.map(imageBlock));
        }
        i = j - 1;
        params.push({ role: "user", content: [...results, ...errorImages] });
      }
    }
  } catch (error) {
    throw blame(error, current);
  }
  const last = params[params.length - 1];
  if (last?.role === "user") {
    if (Array.isArray(last.content)) {
      const block = last.content[last.content.length - 1] as Block | undefined;
      if (block && (block.type === "text" || block.type === "image" || block.type === "tool_result")) block.cache_control = CACHE_CONTROL;
    } else if (typeof last.content === "string") last.content = [{ type: "text", text: last.content, cache_control: CACHE_CONTROL }];
  }
  return params;
}

/** The body's fields that come from the session: the model's id and the messages. */
export function anthropicBody(model: WireModel, messages: readonly Message[]): Record<string, unknown> {
  return { model: model.id, messages: anthropicMessages(messages) };
}
