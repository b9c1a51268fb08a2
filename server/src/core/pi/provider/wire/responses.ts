/**
 * pi-ai 1.6's OpenAI Responses `input` (`api/openai-responses-shared.js`:
 * `convertResponsesMessages`), without grammar tools, tool changes or configuration updates.
 *
 * - Tool call ids of another model's turns: each part of `call|item` is sanitised to
 *   `[a-zA-Z0-9_-]`, 64 characters, trailing "_" removed; for the `openai`, `openai-codex` and
 *   `opencode` providers a foreign item id becomes `fc_` and a hash.
 * - User content becomes `input_text` / `input_image` parts (string content one part); block
 *   content with no block is dropped.
 * - Assistant turns are flattened into items: signed thinking is its stored reasoning item
 *   (`JSON.parse` of the signature, which throws on anything else, such as an Anthropic
 *   signature), text is a `message` item whose id comes from its signature or is `msg_pi_N`, and a
 *   tool call is a `function_call` whose `fc_` item id is kept only for the same model.
 * - A tool result is a `function_call_output` (text, or parts when there are images).
 */

import { NO_TOOL_IMAGE_TEXT } from "./images";
import { type Block, blame, blocksOf, type Message, sanitizeSurrogates, shortHash, stringOf, WireFailure, type WireModel } from "./common";

const TOOL_CALL_PROVIDERS = new Set(["openai", "openai-codex", "opencode"]);

function normalizeIdPart(part: string): string {
  const sanitized = part.replace(/[^a-zA-Z0-9_-]/g, "_");
  return (sanitized.length > 64 ? sanitized.slice(0, 64) : sanitized).replace(/_+$/, "");
}

export function responsesToolCallId(model: WireModel): (id: string, source: Message) => string {
  return (id, source) => {
    if (!TOOL_CALL_PROVIDERS.has(model.provider) || !id.includes("|")) return normalizeIdPart(id);
    const [callId, itemId] = id.split("|") as [string, string];
    const foreign = source.provider !== model.provider || source.api !== model.api;
    let item = foreign ? `fc_${shortHash(itemId)}`.slice(0, 64) : normalizeIdPart(itemId);
    if (!item.startsWith("fc_")) item = normalizeIdPart(`fc_${item}`);
    return `${normalizeIdPart(callId)}|${item}`;
  };
}

/** `parseTextSignature`: a v1 JSON signature gives the id and phase, anything else is the id. */
function textSignature(signature: unknown): { id: string; phase?: string } | undefined {
  if (!signature) return undefined;
  const text = stringOf(signature);
  if (text.startsWith("{")) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (parsed?.v === 1 && typeof parsed.id === "string") {
        return parsed.phase === "commentary" || parsed.phase === "final_answer" ? { id: parsed.id, phase: parsed.phase } : { id: parsed.id };
      }
    } catch {
      // A legacy plain signature, as pi-ai reads it.
    }
  }
  return { id: text };
}

function imagePart(image: Block): Block {
  return { type: "input_image", detail: "auto", image_url: `data:${String(image.mimeType)};base64,${String(image.data)}` };
}

function toolResultOutput(model: WireModel, content: Block[]): unknown {
  const text = content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  const images = content.filter((c) => c.type === "image");
  const hasText = text.trim().length > 0;
  if (images.length === 0 || !model.input.includes("image"))
    return sanitizeSurrogates(hasText ? text : images.length > 0 ? NO_TOOL_IMAGE_TEXT : "(no tool output)");
  const output: Block[] = [];
  if (hasText) output.push({ type: "input_text", text: sanitizeSurrogates(text) });
  for (const image of images) output.push(imagePart(image));
  return output;
}

function assistantItems(msg: Message, model: WireModel, msgIndex: number): Block[] {
  const output: Block[] = [];
  const sameProviderAndApi = msg.provider === model.provider && msg.api === model.api;
  const differentModel = sameProviderAndApi && msg.model !== model.id;
  let textBlockIndex = 0;
  for (const block of blocksOf(msg.content)) {
    if (block.type === "thinking") {
      if (block.thinkingSignature) {
        try {
          output.push(JSON.parse(stringOf(block.thinkingSignature)) as Block);
        } catch (error) {
          throw new WireFailure(`a thinking signature that is not JSON (${error instanceof Error ? error.message : String(error)})`);
        }
      }
    } else if (block.type === "text") {
      const signature = textSignature(block.textSignature);
      const fallback = textBlockIndex === 0 ? `msg_pi_${msgIndex}` : `msg_pi_${msgIndex}_${textBlockIndex}`;
      textBlockIndex++;
      let id = signature?.id;
      if (!id) id = fallback;
      else if (id.length > 64) id = `msg_${shortHash(id)}`;
      const item: Block = {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: sanitizeSurrogates(block.text), annotations: [] }],
        status: "completed",
        id,
      };
      if (signature?.phase !== undefined) item.phase = signature.phase;
      output.push(item);
    } else if (block.type === "toolCall") {
      const [callId, itemIdRaw] = stringOf(block.id).split("|");
      const itemId = differentModel || !itemIdRaw?.startsWith("fc_") ? undefined : itemIdRaw;
      const call: Block = { type: "function_call" };
      if (itemId !== undefined) call.id = itemId;
      Object.assign(call, { call_id: callId, name: block.name, arguments: JSON.stringify(block.arguments) });
      output.push(call);
    }
  }
  return output;
}

/**
 * The conversation's items. `msgIndex` counts every message after Pi's leading system prompt,
 * which is always there, so the first conversation message is 0.
 */
export function responsesInput(messages: readonly Message[], model: WireModel): Block[] {
  const input: Block[] = [];
  let msgIndex = 0;
  for (const msg of messages) {
    try {
      msgIndex = convertOne(msg, model, msgIndex, input);
    } catch (error) {
      throw blame(error, msg);
    }
  }
  return input;
}

/**
 * One message's items, appended to `input`; returns the next message's index (`msg_pi_N`). A user
 * message with no block, or an assistant turn with no item, leaves the count as it is: pi-ai's
 * `continue` skips it too.
 */
function convertOne(msg: Message, model: WireModel, msgIndex: number, input: Block[]): number {
  if (msg.role === "user") {
    if (typeof msg.content === "string") input.push({ role: "user", content: [{ type: "input_text", text: sanitizeSurrogates(msg.content) }] });
    else {
      const content = blocksOf(msg.content).map((item) =>
        item.type === "text" ? { type: "input_text", text: sanitizeSurrogates(item.text) } : imagePart(item),
      );
      if (content.length === 0) return msgIndex;
      input.push({ role: "user", content });
    }
  } else if (msg.role === "assistant") {
    const items = assistantItems(msg, model, msgIndex);
    if (items.length === 0) return msgIndex;
    input.push(...items);
  } else if (msg.role === "toolResult") {
    const [callId] = stringOf(msg.toolCallId).split("|");
    input.push({ type: "function_call_output", call_id: callId, output: toolResultOutput(model, blocksOf(msg.content)) });
  }
  return msgIndex + 1;
}

export function responsesBody(model: WireModel, messages: readonly Message[]): Record<string, unknown> {
  return { model: model.id, input: responsesInput(messages, model) };
}
