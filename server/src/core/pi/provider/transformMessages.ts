/**
 * pi-ai's `transformMessages` (`api/transform-messages.ts` in 1.6, `providers/transform-messages.ts`
 * in 0.74): the provider-independent step every API's conversion starts with, reproduced for the
 * model Pi sends to. An API's own tool call id normalisation is applied only when one is passed
 * (`wire/request.ts`, for the HTTP body); the provider view shows the ids as stored.
 *
 * 1. (1.6 only) A message whose `content` is null or missing gets `content: []`.
 * 2. For a model that takes no images, every run of images in a user message (array content) or a
 *    tool result becomes one text placeholder.
 * 3. Assistant messages of another model (provider, api or id differ) lose their thinking blocks
 *    (1.6; 0.74 turns readable thinking into text), text blocks lose everything but `type` and
 *    `text`, tool calls lose `thoughtSignature`; empty unsigned thinking is dropped either way.
 * 4. Assistant messages that stopped with `error` or `aborted` are dropped, with their tool calls.
 *    Tool calls left without a result before the next assistant or user message (or the end) get
 *    a synthetic error result, "No result provided". 1.6 holds a system message that comes while
 *    calls are open back until they are closed.
 *
 * Tool results are never dropped or moved: a result whose call was dropped, or that comes after the
 * user message that closed its call, reaches the provider as it is. That is what makes such a
 * session fail on every request (see the request diagnostics).
 *
 * Values are copied with the same spreads and array methods as Pi's, so `JSON.stringify` of the
 * result equals the real function's. Where Pi's function throws (a content that is not an array, a
 * null block, thinking that is not a string), this returns the failure instead.
 */

import type { PipelineVersion } from "./convertToLlm";

/** What the transform reads of the model: its identity and whether it takes images. */
export interface TransformModel {
  provider: unknown;
  id: unknown;
  api: unknown;
  input: readonly string[];
}

export const NO_RESULT_TEXT = "No result provided";
const NON_VISION_USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)";
const NON_VISION_TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)";

export interface Placeholder {
  /** Index of the synthetic result in the output. */
  at: number;
  /** Index (in the input) of the assistant message whose tool call it answers. */
  call: number;
  toolCallId: unknown;
  toolName: unknown;
}

export interface TransformOutput {
  messages: unknown[];
  /** For each output message, the index of the input message it comes from, or -1 for a synthetic result. */
  origin: number[];
  placeholders: Placeholder[];
  /** Input indexes of the assistant messages dropped for their stop reason. */
  dropped: number[];
  /** Input indexes of the system messages held back behind open tool calls (1.6). */
  held: number[];
  /** Images replaced by a text placeholder, because the model takes none. */
  imagesOmitted: number;
}

export type TransformResult = ({ ok: true } & TransformOutput) | { ok: false; index: number; reason: string };

type Message = Record<string, unknown>;

/**
 * An API's tool call id normalisation (`normalizeToolCallId` of pi-ai's conversions), applied to the
 * tool calls of another model's turns and, through the ids it changed, to later results.
 */
export type NormalizeToolCallId = (id: string, source: Record<string, unknown>) => string;

export function transformMessages(
  input: readonly unknown[],
  model: TransformModel,
  version: PipelineVersion,
  now: () => number,
  normalizeToolCallId?: NormalizeToolCallId,
): TransformResult {
  // Steps 1 to 3 read one message each; Pi runs each over every message before the next, so the
  // first image failure is reported before any assistant failure.
  const prepared = input.map((msg) => prepareMessage(msg as Message, model, version));
  let failure: Extract<Prepared, { ok: false }> | undefined;
  let at = -1;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    if (!p.ok && (failure === undefined || (p.step === "images" && failure.step === "assistant"))) {
      failure = p;
      at = i;
      if (p.step === "images") break;
    }
  }
  if (failure) return { ok: false, index: at, reason: failure.reason };
  let imagesOmitted = 0;
  const transformed: Message[] = [];
  for (const p of prepared as Extract<Prepared, { ok: true }>[]) {
    imagesOmitted += p.images;
    transformed.push(p.message);
  }
  if (normalizeToolCallId) {
    const failed = normalizeIds(transformed, model, normalizeToolCallId);
    if (failed !== undefined) return { ok: false, index: failed, reason: "a tool call id that is not a string" };
  }
  return closeToolCalls(transformed, version, now, imagesOmitted);
}

/**
 * pi-ai's id normalisation in message order: a result is renamed only after the call that mapped
 * its id, and the calls of a turn that is dropped later still count. Returns the index of a message
 * whose id is not a string (Pi's string method throws on it), or undefined.
 */
function normalizeIds(messages: Message[], model: TransformModel, normalize: NormalizeToolCallId): number | undefined {
  const renamed = new Map<unknown, string>();
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i]!;
    if (msg.role === "toolResult") {
      const id = renamed.get(msg.toolCallId);
      if (id !== undefined && id !== msg.toolCallId) messages[i] = { ...msg, toolCallId: id };
      continue;
    }
    if (msg.role !== "assistant") continue;
    if (msg.provider === model.provider && msg.api === model.api && msg.model === model.id) continue;
    let changed = false;
    const content: unknown[] = [];
    for (const block of msg.content as unknown[]) {
      const b = block as Message;
      if (b?.type !== "toolCall") {
        content.push(block);
        continue;
      }
      if (typeof b.id !== "string") return i;
      const id = normalize(b.id, msg);
      if (id === b.id) content.push(block);
      else {
        renamed.set(b.id, id);
        content.push({ ...b, id });
        changed = true;
      }
    }
    if (changed) messages[i] = { ...msg, content };
  }
  return undefined;
}

/** One message after steps 1 to 3, with the images it lost, or why Pi throws on it and in which step. */
export type Prepared = { ok: true; message: Message; images: number } | { ok: false; step: "images" | "assistant"; reason: string };

/**
 * Steps 1 to 3 for one message: each reads that message and the model alone, so a message's
 * result stays the same whatever the others are (the provider request is updated by redoing only
 * the messages an edit changed, `core/pi/provider/request.ts`).
 */
export function prepareMessage(input: Message, model: TransformModel, version: PipelineVersion): Prepared {
  const v16 = version === "1.x";
  let msg = input;
  // Null or missing content becomes [] for every role (1.6).
  if (v16 && msg.content == null) msg = { ...msg, content: [] };

  let images = 0;
  if (!model.input.includes("image") && ((msg.role === "user" && Array.isArray(msg.content)) || msg.role === "toolResult")) {
    const placeholder = msg.role === "user" ? NON_VISION_USER_IMAGE_PLACEHOLDER : NON_VISION_TOOL_IMAGE_PLACEHOLDER;
    const replaced = replaceImagesWithPlaceholder(msg.content, placeholder);
    if (typeof replaced === "string") return { ok: false, step: "images", reason: replaced };
    images = replaced.images;
    msg = { ...msg, content: replaced.content };
  }

  // Assistant content for the target model.
  if (msg.role !== "assistant") return { ok: true, message: msg, images };
  const content = msg.content as unknown;
  if (content === null || content === undefined) return { ok: false, step: "assistant", reason: `an assistant message whose content is ${String(content)}` };
  if (typeof (content as { flatMap?: unknown }).flatMap !== "function")
    return { ok: false, step: "assistant", reason: "an assistant message whose content is not an array" };
  const isSameModel = msg.provider === model.provider && msg.api === model.api && msg.model === model.id;
  let failure: string | undefined;
  const transformedContent = (content as unknown[]).flatMap((block): unknown => {
    if (failure !== undefined) return [];
    if (block === null || block === undefined) {
      failure = `an assistant content block that is ${String(block)}`;
      return [];
    }
    const b = block as Message;
    if (b.type === "thinking") return v16 ? thinking16(b, isSameModel, (f) => (failure = f)) : thinking074(b, isSameModel, (f) => (failure = f));
    if (b.type === "text") return isSameModel ? b : { type: "text", text: b.text };
    if (b.type === "toolCall") {
      let normalized = b;
      if (!isSameModel && b.thoughtSignature) {
        normalized = { ...b };
        delete normalized.thoughtSignature;
      }
      return normalized;
    }
    return b;
  });
  if (failure !== undefined) return { ok: false, step: "assistant", reason: failure };
  return { ok: true, message: { ...msg, content: transformedContent }, images };
}

/** Step 4, the one that reads across messages: drops failed turns and closes open tool calls. */
function closeToolCalls(transformed: readonly Message[], version: PipelineVersion, now: () => number, imagesOmitted: number): TransformResult {
  const v16 = version === "1.x";
  const result: unknown[] = [];
  const origin: number[] = [];
  const placeholders: Placeholder[] = [];
  const dropped: number[] = [];
  const held: number[] = [];
  let pending: { calls: Message[]; from: number } | undefined;
  let answered = new Set<unknown>();
  const heldMessages: number[] = [];
  const close = () => {
    if (pending) {
      for (const call of pending.calls) {
        if (answered.has(call.id)) continue;
        placeholders.push({ at: result.length, call: pending.from, toolCallId: call.id, toolName: call.name });
        result.push({
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: "text", text: NO_RESULT_TEXT }],
          isError: true,
          timestamp: now(),
        });
        origin.push(-1);
      }
      pending = undefined;
      answered = new Set();
    }
    for (const i of heldMessages) {
      result.push(transformed[i]);
      origin.push(i);
    }
    heldMessages.length = 0;
  };

  for (let i = 0; i < transformed.length; i++) {
    const msg = transformed[i]!;
    if (msg.role === "assistant") {
      close();
      if (msg.stopReason === "error" || msg.stopReason === "aborted") {
        dropped.push(i);
        continue;
      }
      const content = msg.content as unknown[];
      const calls: Message[] = [];
      for (const b of content) {
        // A nested array in the content is flattened into it by `flatMap`, unchecked.
        if (b === null || b === undefined) return { ok: false, index: i, reason: `an assistant content block that is ${String(b)}` };
        if ((b as Message).type === "toolCall") calls.push(b as Message);
      }
      if (calls.length > 0) {
        pending = { calls, from: i };
        answered = new Set();
      }
      result.push(msg);
      origin.push(i);
    } else if (msg.role === "toolResult") {
      answered.add(msg.toolCallId);
      result.push(msg);
      origin.push(i);
    } else if (v16 && msg.role === "system" && pending !== undefined && pending.calls.length > 0) {
      heldMessages.push(i);
      held.push(i);
    } else if (msg.role === "user") {
      close();
      result.push(msg);
      origin.push(i);
    } else {
      result.push(msg);
      origin.push(i);
    }
  }
  close();
  return { ok: true, messages: result, origin, placeholders, dropped, held, imagesOmitted };
}

/** pi-ai 1.6: thinking of another model is dropped; signed or redacted thinking kept; empty dropped. */
function thinking16(block: Message, isSameModel: boolean, fail: (reason: string) => void): unknown {
  if (!isSameModel) return [];
  if (block.redacted || block.thinkingSignature) return block;
  if (!block.thinking) return [];
  if (typeof block.thinking !== "string") {
    fail("a thinking block whose thinking is not a string");
    return [];
  }
  if (block.thinking.trim() === "") return [];
  return block;
}

/** pi-ai 0.74: redacted thinking only for the same model; readable thinking of another model becomes text. */
function thinking074(block: Message, isSameModel: boolean, fail: (reason: string) => void): unknown {
  if (block.redacted) return isSameModel ? block : [];
  if (isSameModel && block.thinkingSignature) return block;
  if (!block.thinking) return [];
  if (typeof block.thinking !== "string") {
    fail("a thinking block whose thinking is not a string");
    return [];
  }
  if (block.thinking.trim() === "") return [];
  if (isSameModel) return block;
  return { type: "text", text: block.thinking };
}

/**
 * pi-ai's `replaceImagesWithPlaceholder`: each run of image blocks becomes one text block (a
 * placeholder already there continues the run). Iterates `content` as `for…of` does: a string
 * yields its characters; anything else that is not iterable makes Pi throw (returned as a string).
 */
function replaceImagesWithPlaceholder(content: unknown, placeholder: string): { content: unknown[]; images: number } | string {
  let blocks: Iterable<unknown>;
  if (typeof content === "string" || Array.isArray(content)) blocks = content;
  else return `a message whose content (${content === null ? "null" : typeof content}) cannot be iterated`;
  const result: unknown[] = [];
  let images = 0;
  let previousWasPlaceholder = false;
  for (const block of blocks) {
    if (block === null || block === undefined) return `a content block that is ${String(block)}`;
    const b = block as Message;
    if (b.type === "image") {
      images++;
      if (!previousWasPlaceholder) result.push({ type: "text", text: placeholder });
      previousWasPlaceholder = true;
      continue;
    }
    result.push(b);
    previousWasPlaceholder = b.text === placeholder;
  }
  return { content: result, images };
}
