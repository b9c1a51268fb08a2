/**
 * The provider request brought up to date after edits inside the context's lines, in proportion to
 * the edit: when the context build was updated by replacing some messages in place
 * (`core/pi/contextUpdate.ts`), the request for the same model is the previous one with those
 * messages converted and transformed again, as long as the one step that reads across messages
 * (closing tool calls, dropping failed turns, holding system messages back) sees them as before.
 *
 * Pi's `convertToLlm` and the first three steps of `transformMessages` read one message at a time
 * (`convertMessage`, `prepareMessage`); the fourth reads of each message only its role, for an
 * assistant message its stop reason and its tool calls' ids and names, for a tool result its call
 * id. A replaced message that keeps those (and is left out, or not, for the same reason) leaves
 * every index, placeholder, dropped turn and held message of the request as it was. Anything else,
 * or a message on which Pi throws, and the request is built afresh.
 */

import type { ContextSplice } from "../contextUpdate";
import { convertMessage, type PipelineVersion } from "./convertToLlm";
import type { ProviderRequest } from "./types";
import { prepareMessage, type TransformModel } from "./transformMessages";

type Message = Record<string, unknown>;

/** A request made from `from` by replacing the provider messages at `changed` (ascending). */
export interface RequestSplice {
  from: ProviderRequest;
  changed: number[];
}

/** Only the last step is kept, as for the builds (`contextUpdate.ts`). */
const splices = new WeakMap<ProviderRequest, RequestSplice>();

/** How `request` was made from an earlier request by replacing messages, if it was. */
export function requestSplice(request: ProviderRequest): RequestSplice | undefined {
  return splices.get(request);
}

/** For each context message, the index of the provider message made from it (-1: none), kept per `contextIndex` list (shared by updated requests). */
const outputs = new WeakMap<number[], Int32Array>();

function outputIndex(request: ProviderRequest, contextMessages: number): Int32Array {
  let index = outputs.get(request.contextIndex);
  if (!index) {
    index = new Int32Array(contextMessages).fill(-1);
    request.contextIndex.forEach((c, k) => {
      if (c >= 0) index![c] = k;
    });
    outputs.set(request.contextIndex, index);
  }
  return index;
}

/**
 * `previous` (the request for `splice.from`) with the context messages `splice.changed` of the
 * new build (`messages`) in place of the old ones, or undefined when it must be built afresh.
 */
export function updateRequest(
  previous: ProviderRequest,
  splice: ContextSplice,
  messages: readonly unknown[],
  model: TransformModel,
  version: PipelineVersion,
): ProviderRequest | undefined {
  const output = outputIndex(previous, messages.length);
  let next: unknown[] | undefined;
  let images = previous.imagesOmitted;
  const changed: number[] = [];
  for (const c of splice.changed) {
    const before = convertMessage(splice.from.context.messages[c], c, version);
    const after = convertMessage(messages[c], c, version);
    if (!before.ok || !after.ok) return undefined;
    if (before.leftOut !== undefined || after.leftOut !== undefined) {
      if (before.leftOut === after.leftOut) continue;
      return undefined;
    }
    const x = prepareMessage(before.message as Message, model, version);
    const y = prepareMessage(after.message as Message, model, version);
    if (!x.ok || !y.ok || !sameAcrossMessages(x.message, y.message)) return undefined;
    images += y.images - x.images;
    const at = output[c]!;
    // A dropped turn stays dropped, for the same stop reason.
    if (at < 0) continue;
    next ??= previous.messages.slice();
    next[at] = y.message;
    changed.push(at);
  }
  if (!next && images === previous.imagesOmitted) return previous;
  const request: ProviderRequest = { ...previous, messages: next ?? previous.messages, imagesOmitted: images };
  changed.sort((p, q) => p - q);
  splices.delete(previous);
  splices.set(request, { from: previous, changed });
  return request;
}

/** Whether step 4 of `transformMessages` (and the request diagnostics' tool pairing) sees two messages alike. */
function sameAcrossMessages(x: Message, y: Message): boolean {
  if (x.role !== y.role) return false;
  if (x.role === "toolResult") return Object.is(x.toolCallId, y.toolCallId);
  if (x.role !== "assistant") return true;
  const stop = (m: Message) => (m.stopReason === "error" || m.stopReason === "aborted" ? m.stopReason : undefined);
  if (stop(x) !== stop(y)) return false;
  if (stop(x) !== undefined) return true;
  const xs = calls(x);
  const ys = calls(y);
  if (!xs || !ys || xs.length !== ys.length) return false;
  return xs.every((call, i) => Object.is(call.id, ys[i]!.id) && Object.is(call.name, ys[i]!.name));
}

/** The tool call blocks of a prepared assistant message, or undefined when step 4 throws on its content. */
function calls(m: Message): Message[] | undefined {
  const out: Message[] = [];
  for (const b of m.content as unknown[]) {
    if (b === null || b === undefined) return undefined;
    if ((b as Message).type === "toolCall") out.push(b as Message);
  }
  return out;
}
