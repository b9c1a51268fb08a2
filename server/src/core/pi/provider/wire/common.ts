/**
 * What the three API conversions of `context --stage request` share: the model they build the body
 * for, pi-ai's small helpers (`shortHash`, `sanitizeSurrogates`, `contentText`) and its system
 * message collapse, copied from pi-ai 1.6's dist so that the body is byte for byte Pi's.
 */

import type { ModelInfo } from "../catalog";

export type WireApi = "anthropic-messages" | "openai-completions" | "openai-responses";

export const WIRE_APIS: readonly WireApi[] = ["anthropic-messages", "openai-completions", "openai-responses"];

/** What a conversion reads of the model Pi sends to. */
export interface WireModel {
  provider: string;
  id: string;
  api: WireApi;
  input: readonly string[];
  reasoning: boolean;
}

/**
 * The model the body is built for when the session's own model does not speak the API asked for:
 * a custom provider of `models.json` with one model and Pi's defaults, plus reasoning and image
 * input. test/pi/wire/harness.mjs gives Pi the same models, so the recordings are comparable.
 */
export const STAND_IN_MODELS: Record<WireApi, WireModel> = {
  "anthropic-messages": { provider: "stand-in-anthropic", id: "stand-in", api: "anthropic-messages", input: ["text", "image"], reasoning: true },
  "openai-completions": { provider: "stand-in-completions", id: "stand-in", api: "openai-completions", input: ["text", "image"], reasoning: true },
  "openai-responses": { provider: "stand-in-responses", id: "stand-in", api: "openai-responses", input: ["text", "image"], reasoning: true },
};

export function isWireApi(api: unknown): api is WireApi {
  return api === "anthropic-messages" || api === "openai-completions" || api === "openai-responses";
}

/** The catalogue model as a conversion reads it. */
export function wireModelOf(info: ModelInfo): WireModel | undefined {
  if (!isWireApi(info.api)) return undefined;
  return { provider: info.provider, id: info.id, api: info.api, input: info.input, reasoning: info.reasoning };
}

export type Message = Record<string, unknown>;
export type Block = Record<string, unknown>;

/** pi-ai's `shortHash` (utils/hash.js): two 32-bit mixes in base 36. */
export function shortHash(str: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(36) + (h1 >>> 0).toString(36);
}

/** pi-ai's `sanitizeSurrogates`: unpaired surrogates are removed. Throws on a value that is not a string, as Pi's `.replace` does. */
export function sanitizeSurrogates(text: unknown): string {
  if (typeof text !== "string") throw new WireFailure(`a text that is ${text === null ? "null" : typeof text}, not a string`);
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "");
}

/** A value pi-ai calls a string method on: anything else throws there. */
export function stringOf(value: unknown): string {
  if (typeof value !== "string") throw new WireFailure(`a text that is ${value === null ? "null" : typeof value}, not a string`);
  return value;
}

/** Where pi-ai's conversion throws (a method called on a value of the wrong type), with why and on which message. */
export class WireFailure extends Error {
  source: Message | undefined;
}

/** The failure `error` is, blamed on `source` when it names no message yet; anything else is rethrown as it is. */
export function blame(error: unknown, source: Message | undefined): unknown {
  if (error instanceof WireFailure && error.source === undefined) error.source = source;
  return error;
}

/** `content.filter(...)` as pi-ai calls it on an array: anything else throws there. */
export function blocksOf(content: unknown): Block[] {
  if (!Array.isArray(content)) throw new WireFailure(`a message content that is ${content === null ? "null" : typeof content}, not an array`);
  return content.map((block) => {
    if (block === null || typeof block !== "object") throw new WireFailure(`a content block that is ${block === null ? "null" : typeof block}`);
    return block as Block;
  });
}

/**
 * pi-ai's `collapseSystemMessages` for the conversation: every system message leaves the list, its
 * text goes into the leading one, which is Pi's own system prompt and volatile (`volatile.ts`).
 * A model that takes system messages mid-conversation (DeepSeek's, by its catalogue `compat`)
 * gets them in place instead, as system messages, which are volatile too: the body printed is the
 * same either way.
 */
export function withoutSystemMessages(messages: readonly unknown[]): Message[] {
  return (messages as Message[]).filter((message) => message.role !== "system");
}
