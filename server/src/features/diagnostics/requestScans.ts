/**
 * The request diagnostics' scans of a provider request's whole message list (which tool results the
 * provider refuses, which user messages hold no text, which blocks are images), each remembered per
 * list. A request carried over an edit of the tree (`carriedRequest` in `core/pi/provider/request.ts`)
 * keeps the message list of the request it was carried from, and no list is changed once its request
 * is made (an update copies it, `requestUpdate.ts`): so after a line is inserted, deleted or given
 * another parent, the findings read the 10,000 messages of a resumed context again only where a
 * finding is, instead of scanning them all (a third of such an edit's time on the 45 MB session).
 *
 * What a scan keeps is read from the messages alone (and from the list of context indexes, which a
 * carried request shares the same way): message indexes, never entries, which an edit of the tree
 * moves. The findings take each index's entry from the request's own `sources`.
 */

import type { ProviderRequest } from "../../core/pi/provider/types";

type Message = Record<string, unknown>;

/** A tool result the provider refuses: its message index, its call id, and where an earlier assistant turn makes that call (undefined: none). */
export interface RefusedResult {
  at: number;
  id: unknown;
  callAt: number | undefined;
}

const refusals = new WeakMap<readonly unknown[], { contextIndex: readonly number[]; adjacent: boolean; refused: RefusedResult[] }>();

/**
 * The tool results of `request` that come without their call: with `adjacent` (the provider's rule),
 * a result must answer a call of the assistant turn its run of results follows, otherwise any
 * earlier turn's call will do. Pi's own placeholders (no context index) follow their call and are
 * left out.
 */
export function refusedToolResults(request: ProviderRequest, adjacent: boolean): readonly RefusedResult[] {
  const messages = request.messages;
  const kept = refusals.get(messages);
  if (kept && kept.contextIndex === request.contextIndex && kept.adjacent === adjacent) return kept.refused;
  const refused: RefusedResult[] = [];
  // The call ids of the assistant message the current run of tool results follows, and of every earlier one.
  let owner: Set<unknown> | undefined;
  const earlier = new Map<unknown, number>();
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k] as Message;
    if (m.role === "assistant") {
      owner = new Set(callIdsOf(m));
      for (const id of owner) if (!earlier.has(id)) earlier.set(id, k);
      continue;
    }
    if (m.role !== "toolResult") {
      owner = undefined;
      continue;
    }
    if (request.contextIndex[k]! < 0) continue;
    const id = m.toolCallId;
    const accepted = adjacent ? owner?.has(id) === true : earlier.has(id);
    if (!accepted) refused.push({ at: k, id, callAt: earlier.get(id) });
  }
  refusals.set(messages, { contextIndex: request.contextIndex, adjacent, refused });
  return refused;
}

/** The ids of a message's tool call blocks. */
export function callIdsOf(message: unknown): unknown[] {
  const content = (message as Message | undefined)?.content;
  if (!Array.isArray(content)) return [];
  const ids: unknown[] = [];
  for (const b of content) if (b !== null && typeof b === "object" && (b as Message).type === "toolCall") ids.push((b as Message).id);
  return ids;
}

/** `scan`, remembered per message list. */
function perList<T>(scan: (messages: readonly unknown[]) => T): (messages: readonly unknown[]) => T {
  const found = new WeakMap<readonly unknown[], T>();
  return (messages) => {
    if (found.has(messages)) return found.get(messages) as T;
    const value = scan(messages);
    found.set(messages, value);
    return value;
  };
}

/** The indexes of the user messages of `messages` that hold no text, ascending. */
export const emptyUserMessages = perList((messages): readonly number[] => {
  const found: number[] = [];
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k] as Message;
    if (m.role === "user" && isEmptyContent(m.content)) found.push(k);
  }
  return found;
});

/** Whether a message's content holds no text: a blank string, or only text blocks of blank text. */
export function isEmptyContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim() === "";
  if (!Array.isArray(content)) return false;
  return content.every(
    (b) =>
      b !== null &&
      typeof b === "object" &&
      (b as Message).type === "text" &&
      typeof (b as Message).text === "string" &&
      ((b as Message).text as string).trim() === "",
  );
}

/** The image blocks of one message: its index, and the index of each image block in its content. */
export interface ImageBlocks {
  at: number;
  blocks: number[];
}

/** The user and tool result messages of `messages` whose content holds image blocks, ascending. */
export const imageBlocks = perList((messages): readonly ImageBlocks[] => {
  const found: ImageBlocks[] = [];
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k] as Message;
    if ((m.role !== "user" && m.role !== "toolResult") || !Array.isArray(m.content)) continue;
    const blocks: number[] = [];
    m.content.forEach((b, i) => {
      if (b !== null && typeof b === "object" && (b as Message).type === "image") blocks.push(i);
    });
    if (blocks.length > 0) found.push({ at: k, blocks });
  }
  return found;
});
