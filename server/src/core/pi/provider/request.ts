/**
 * What the provider receives: Pi's whole message pipeline after `buildSessionContext`, as data.
 *
 *     context messages ─► convertToLlm (pi-coding-agent) ─► transformMessages (pi-ai), for the
 *     model Pi resumes with ─► each API's own conversion (not reproduced)
 *
 * The result is the message list an API's conversion starts from, equal byte for byte to what the
 * real functions return (test/parity, both Pi versions), with each message traced back to the
 * entry it comes from and every change the pipeline made recorded: messages left out, assistant
 * turns dropped, tool calls answered with a synthetic result, system messages held back, images
 * replaced. A failure Pi would throw is returned as data, on the entry to blame.
 *
 * Not reproduced, because the file does not say: an extension's `context` hook (`transformContext`)
 * and the `blockImages` setting, which change the messages before conversion; the system message
 * Pi 1.x adds when the tools loaded now differ from the session's. Each API's tool call id
 * normalisation, system message collapsing and conversion into the HTTP body are in `wire/`
 * (`context --stage request`). Synthetic results carry the time `now()` gives, as Pi's carry
 * `Date.now()`.
 */

import type { Entry } from "../../session/entry";
import type { ContextBuild, PiFlavor } from "../buildContext";
import { contextCarry } from "../contextCarry";
import { contextSplice } from "../contextUpdate";
import { convertToLlm, type PipelineVersion } from "./convertToLlm";
import type { ModelInfo } from "./catalog";
import { chooseModel, givenModel, type ModelChoice } from "./resumedModel";
import { updateRequest } from "./requestUpdate";
import { transformMessages } from "./transformMessages";
import type { ProviderRequest, ProviderResult } from "./types";

export interface ProviderOptions {
  flavor?: PiFlavor;
  /** The time a synthetic tool result carries (Pi: `Date.now()` when it builds the request). */
  now: () => number;
  /**
   * The model to prepare the messages for, instead of the one Pi resumes with (`givenModel`); read by
   * `buildProviderRequest` only: the shared request is always the resumed model's.
   */
  model?: ModelInfo;
}

export function pipelineVersion(flavor: PiFlavor | undefined): PipelineVersion {
  return flavor === "0.74" ? "0.74" : "1.x";
}

/** The provider messages of a built context. */
export function buildProviderRequest(build: ContextBuild, options: ProviderOptions): ProviderResult {
  const version = pipelineVersion(options.flavor);
  const choice = options.model ? givenModel(build.path, build.context, version, options.model) : chooseModel(build.path, build.context, version);
  return requestFor(build, choice, version, options.now);
}

/**
 * The last request built from each context build, per pipeline version, with the model it was
 * built for. A build is never changed once made (its messages are the parses it was built from,
 * which an edit replaces rather than changes), and the semantic layer hands out the same build
 * object for as long as the lines it reads are the same objects (`activeContext`).
 */
const requests = new WeakMap<ContextBuild, Partial<Record<PipelineVersion, { choice: ModelChoice; result: ProviderResult }>>>();

/**
 * `buildProviderRequest`, built once per context build and pipeline version: the diagnostics, the
 * lenses and the `piSession/buildContext` request share it, across edits that leave the build
 * and the resumed model as they were.
 *
 * The request is a function of the build's messages, the pipeline version and the model Pi
 * resumes with, and nothing else. The model is chosen again on every call (a walk back from the
 * leaf to the first model change or assistant message, whose parses an edit may have swapped
 * while the build stayed), and the last request is reused only when that choice is the same:
 * the same catalogue model object, or the same primitive provider and id for a model the
 * catalogue lacks. The first caller's `now` dates the synthetic results.
 */
export function sharedProviderRequest(build: ContextBuild, options: ProviderOptions): ProviderResult {
  const version = pipelineVersion(options.flavor);
  const choice = chooseModel(build.path, build.context, version);
  let memo = requests.get(build);
  if (!memo) requests.set(build, (memo = {}));
  const last = memo[version];
  if (last && sameChoice(last.choice, choice)) return last.result;
  const result = updatedRequest(build, choice, version) ?? carriedRequest(build, choice, version) ?? requestFor(build, choice, version, options.now);
  memo[version] = { choice, result };
  return result;
}

/**
 * The request of a build updated from another (`contextSplice`), made from the other's request for
 * the same model by redoing only the replaced messages (`updateRequest`), or undefined.
 */
function updatedRequest(build: ContextBuild, choice: ModelChoice, version: PipelineVersion): ProviderResult | undefined {
  const splice = contextSplice(build);
  if (!splice) return undefined;
  const last = requests.get(splice.from)?.[version];
  if (!last?.result.ok || !sameChoice(last.choice, choice)) return undefined;
  const request = updateRequest(last.result.request, splice, build.context.messages, choice.transformModel, version);
  if (!request) return undefined;
  return request === last.result.request ? last.result : { ok: true, request };
}

/**
 * The request of a build carried over an edit of the tree elsewhere (`contextCarry`): the same
 * messages and the same model make the same request, whose entries are mapped onto the new path
 * as the build's were; undefined when the carried build's request was not made, or the model differs.
 */
function carriedRequest(build: ContextBuild, choice: ModelChoice, version: PipelineVersion): ProviderResult | undefined {
  const carry = contextCarry(build);
  if (!carry) return undefined;
  const last = requests.get(carry.from)?.[version];
  if (!last || !sameChoice(last.choice, choice)) return undefined;
  const { entryOf } = carry;
  const map = (e: Entry | undefined): Entry | undefined => e && entryOf(e);
  if (!last.result.ok) return carried(last.result, { ...last.result, entry: map(last.result.entry) });
  const r = last.result.request;
  const request: ProviderRequest = {
    ...r,
    sources: r.sources.map(map),
    leftOut: r.leftOut.map((x) => ({ ...x, entry: map(x.entry) })),
    dropped: r.dropped.map((x) => ({ ...x, entry: map(x.entry) })),
    placeholders: r.placeholders.map((p) => ({ ...p, call: map(p.call) })),
    held: r.held.map((x) => ({ ...x, entry: map(x.entry) })),
  };
  return carried(last.result, { ok: true, request });
}

/** Each carried request's source, the last step only (as `contextCarry`'s). */
const carriedFrom = new WeakMap<ProviderResult, ProviderResult>();

function carried(from: ProviderResult, result: ProviderResult): ProviderResult {
  // The link from `from` goes, so that a chain of edits does not keep every earlier request alive.
  carriedFrom.delete(from);
  carriedFrom.set(result, from);
  return result;
}

/** The request `result` was carried from (`carriedRequest`), if it was: what it finds, the other found, on entries mapped one to one. */
export function requestCarriedFrom(result: ProviderResult): ProviderResult | undefined {
  return carriedFrom.get(result);
}

/** Whether two model choices make the same request: the transform reads only the model, the view also what was selected. */
function sameChoice(x: ModelChoice, y: ModelChoice): boolean {
  if (x.transformModel !== y.transformModel) return false;
  if ((x.model === null) !== (y.model === null) || (x.selected === null) !== (y.selected === null)) return false;
  if (x.selected && y.selected && !(Object.is(x.selected.provider, y.selected.provider) && Object.is(x.selected.modelId, y.selected.modelId))) return false;
  if (x.model && y.model && x.model !== y.model) {
    // A model the catalogue lacks is a new object each time: equal when it names the same primitives.
    if (x.model.inCatalog !== false || y.model.inCatalog !== false) return false;
    if (!Object.is(x.model.provider, y.model.provider) || !Object.is(x.model.id, y.model.id)) return false;
  }
  return isPrimitive(x.selected?.provider) && isPrimitive(x.selected?.modelId);
}

/** A value compared by `Object.is` is the same value only when it is not an object (an object from an edited line is a new one). */
function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== "object" && typeof v !== "function");
}

function requestFor(build: ContextBuild, choice: ModelChoice, version: PipelineVersion, now: () => number): ProviderResult {
  const { context, sources } = build;
  const converted = convertToLlm(context.messages, version);
  if (!converted.ok) return { ok: false, entry: sources[converted.index], contextIndex: converted.index, reason: converted.reason, model: choice.model };
  const transformed = transformMessages(converted.messages, choice.transformModel, version, now);
  if (!transformed.ok) {
    const at = converted.from[transformed.index]!;
    return { ok: false, entry: sources[at], contextIndex: at, reason: transformed.reason, model: choice.model };
  }
  const contextIndex = transformed.origin.map((k) => (k < 0 ? -1 : converted.from[k]!));
  const placeholders = transformed.placeholders.map((p) => ({
    at: p.at,
    call: sources[converted.from[p.call]!],
    toolCallId: p.toolCallId,
    toolName: p.toolName,
  }));
  const messageSources: (Entry | undefined)[] = contextIndex.map((k) => (k < 0 ? undefined : sources[k]));
  for (const p of placeholders) messageSources[p.at] = p.call;
  return {
    ok: true,
    request: {
      model: choice.model,
      selected: choice.selected,
      messages: transformed.messages,
      sources: messageSources,
      contextIndex,
      leftOut: converted.leftOut.map(({ index, why }) => ({ entry: sources[index], contextIndex: index, why })),
      dropped: transformed.dropped.map((k) => {
        const at = converted.from[k]!;
        const stopReason = (converted.messages[k] as { stopReason?: unknown }).stopReason === "error" ? "error" : "aborted";
        return { entry: sources[at], contextIndex: at, stopReason };
      }),
      placeholders,
      held: transformed.held.map((k) => ({ entry: sources[converted.from[k]!], contextIndex: converted.from[k]! })),
      imagesOmitted: transformed.imagesOmitted,
    },
  };
}

/** `{"model": …, "messages": [...]}`, the provider view as the CLI prints it. */
export function providerViewJson(request: ProviderRequest): string {
  return JSON.stringify({ model: request.model, messages: request.messages });
}
