/**
 * What the Responses APIs make of the request: the step after `transformMessages` that turns the
 * provider messages into the API's input items (pi-ai's own conversion, not reproduced otherwise,
 * `request.ts`), as far as it fails a request. Found by comparing our verdicts with the bodies Pi
 * 1.6 sends (test/pi/wire, test/parity/expected/wire-verdicts.tsv).
 *
 * `convertResponsesMessages` (pi-ai's openai-responses-shared, 0.74.2 and 1.6.0 alike; shared by
 * `openai-responses`, `azure-openai-responses` and `openai-codex-responses`, which all send
 * `store: false`) turns each assistant message into items, block by block: a thinking block that
 * carries a signature becomes the reasoning item the signature holds (an unguarded
 * `JSON.parse(block.thinkingSignature)`), a text block a message item, a tool call a function call.
 * `transformMessages` keeps signed thinking only for the model that wrote it, so these concern a
 * session's turns from the very model it goes to:
 *
 * - a signature that is not JSON (another API's opaque signature, a hand edit) makes the conversion
 *   throw a SyntaxError: nothing is sent (`conversionFailure`);
 * - OpenAI refuses a reasoning item that no item of its turn follows ("Item 'rs_…' of type
 *   'reasoning' was provided without its required following item."), as after a turn cut short
 *   with only its reasoning, and, since nothing is stored, one without its `encrypted_content`
 *   ("Item with id 'rs_…' not found. Items are not persisted when `store` is set to false."), as Pi
 *   wrote before it kept that content (earendil-works/pi#6409) (`reasoningRefusal`).
 */

import { renewableWeakMap } from "../../base/weakTables";

const RESPONSES_APIS: ReadonlySet<string> = new Set(["openai-responses", "azure-openai-responses", "openai-codex-responses"]);

export function isResponsesApi(api: unknown): boolean {
  return typeof api === "string" && RESPONSES_APIS.has(api);
}

export interface ConversionFailure {
  /** Index of the provider message the conversion throws on. */
  index: number;
  /** Index of the block in that message's content. */
  block: number;
  reason: string;
}

export interface ReasoningRefusal {
  /** Index of the provider message whose reasoning item OpenAI refuses, and of its thinking block. */
  index: number;
  block: number;
  /** The reasoning item's id, as the error names it (from the file: shown through `singleLine`). */
  id: unknown;
  why: "no following item" | "no encrypted content";
}

/** An input item of one assistant message, by the block it comes from. */
interface Item {
  kind: "reasoning" | "output";
  block: number;
  id?: unknown;
  stored?: boolean;
}

/** An assistant message as the conversion sees it: its items, or the block it throws on. */
type Converted = { items: Item[] } | { throwsAt: number };

/**
 * Each assistant message's conversion, remembered per message object: an edit replaces the messages
 * it changes and keeps the others (`requestUpdate.ts`), so a request updated after an edit parses
 * only the new messages' signatures again.
 */
const converted = renewableWeakMap<object, Converted>();

function convert(m: object, content: readonly unknown[]): Converted {
  const known = converted.get(m);
  if (known) return known;
  const items: Item[] = [];
  let result: Converted = { items };
  for (let k = 0; k < content.length; k++) {
    const b = content[k] as { type?: unknown; thinkingSignature?: unknown } | null;
    if (b === null || typeof b !== "object") continue;
    if (b.type === "text" || b.type === "toolCall") items.push({ kind: "output", block: k });
    if (b.type !== "thinking" || !b.thinkingSignature) continue;
    let item: unknown;
    try {
      // As pi-ai calls it: on the value, which a signature that is not a string turns into text first.
      item = JSON.parse(b.thinkingSignature as string);
    } catch {
      result = { throwsAt: k };
      break;
    }
    const o = item !== null && typeof item === "object" ? (item as { id?: unknown; encrypted_content?: unknown }) : {};
    items.push({ kind: "reasoning", block: k, id: o.id, stored: typeof o.encrypted_content === "string" });
  }
  converted.set(m, result);
  return result;
}

/** The assistant messages of a request with their conversion, in order; other messages as `null`. */
function* assistantItems(messages: readonly unknown[]): Generator<[number, Converted | null]> {
  for (let index = 0; index < messages.length; index++) {
    const m = messages[index] as { role?: unknown; content?: unknown } | null;
    const assistant = m !== null && typeof m === "object" && m.role === "assistant" && Array.isArray(m.content);
    yield [index, assistant ? convert(m, m.content as unknown[]) : null];
  }
}

/**
 * Each message list's verdicts for the last API asked: a request carried over an edit of the tree
 * (`carriedRequest` in `request.ts`) keeps its predecessor's message list, which is never changed
 * once its request is made (an update copies it, `requestUpdate.ts`), so that a line inserted or a
 * parent changed elsewhere does not walk the 10,000 messages' conversions again.
 */
const verdicts = new WeakMap<readonly unknown[], { api: unknown; failure?: [ConversionFailure | undefined]; refusal?: [ReasoningRefusal | undefined] }>();

function verdictsOf(messages: readonly unknown[], api: unknown): { failure?: [ConversionFailure | undefined]; refusal?: [ReasoningRefusal | undefined] } {
  let kept = verdicts.get(messages);
  if (!kept || !Object.is(kept.api, api)) verdicts.set(messages, (kept = { api }));
  return kept;
}

/** Where the conversion for `api` throws on `messages` (the provider messages), or undefined. */
export function conversionFailure(messages: readonly unknown[], api: unknown): ConversionFailure | undefined {
  if (!isResponsesApi(api)) return undefined;
  const kept = verdictsOf(messages, api);
  kept.failure ??= [findConversionFailure(messages, api)];
  return kept.failure[0];
}

function findConversionFailure(messages: readonly unknown[], api: unknown): ConversionFailure | undefined {
  for (const [index, c] of assistantItems(messages)) {
    if (c && "throwsAt" in c) {
      return {
        index,
        block: c.throwsAt,
        reason: `a thinking block whose thinkingSignature is not JSON, which ${String(api)}'s conversion parses as the reasoning item to replay (JSON.parse throws a SyntaxError)`,
      };
    }
  }
  return undefined;
}

/** The first reasoning item OpenAI refuses in the input Pi converts `messages` to for `api`, or undefined. */
export function reasoningRefusal(messages: readonly unknown[], api: unknown): ReasoningRefusal | undefined {
  if (!isResponsesApi(api)) return undefined;
  const kept = verdictsOf(messages, api);
  kept.refusal ??= [findReasoningRefusal(messages)];
  return kept.refusal[0];
}

function findReasoningRefusal(messages: readonly unknown[]): ReasoningRefusal | undefined {
  // A reasoning item last in its message is followed by the next message's first item, which is an
  // output only when that message is an assistant's too (a user message or a tool result is not).
  let pending: ReasoningRefusal | undefined;
  for (const [index, c] of assistantItems(messages)) {
    if (c && "throwsAt" in c) return undefined; // Nothing is sent: conversionFailure says why.
    const items = c?.items ?? [];
    if (items.length === 0 && c) continue; // An assistant message without items adds nothing to the input.
    if (pending && items[0]?.kind !== "output") return pending;
    pending = undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.kind !== "reasoning") continue;
      if (!item.stored) return { index, block: item.block, id: item.id, why: "no encrypted content" };
      const next = items[i + 1];
      if (next === undefined) pending = { index, block: item.block, id: item.id, why: "no following item" };
      else if (next.kind !== "output") return { index, block: item.block, id: item.id, why: "no following item" };
    }
  }
  return pending;
}
