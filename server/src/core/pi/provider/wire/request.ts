/**
 * The HTTP body Pi 1.6 sends when it resumes a session and the user types a prompt, for one of the
 * three APIs recorded by test/pi/wire (`context --stage request`):
 *
 *     context messages + the prompt ─► convertToLlm ─► transformMessages (with the API's tool call
 *     id normalisation) ─► system messages folded into Pi's prompt ─► the API's conversion
 *
 * The model: the one Pi resumes with (`resumedModel.ts`) when it is in the catalogue and speaks
 * the API; otherwise the stand-in of `STAND_IN_MODELS`. The fields in `VOLATILE_FIELDS` are left
 * out: they come from the machine, not from the session. Where Pi's pipeline throws, that is
 * returned instead, with the entry to blame when there is one.
 */

import type { Entry } from "../../../session/entry";
import type { ContextBuild } from "../../buildContext";
import { convertToLlm } from "../convertToLlm";
import { chooseModel } from "../resumedModel";
import { type NormalizeToolCallId, transformMessages } from "../transformMessages";
import { anthropicBody, anthropicToolCallId } from "./anthropic";
import { STAND_IN_MODELS, type WireApi, WireFailure, type WireModel, wireModelOf, withoutSystemMessages } from "./common";
import { completionsBody, completionsToolCallId } from "./completions";
import { responsesBody, responsesToolCallId } from "./responses";

/** The prompt the wire harness types; `--prompt` changes it. */
export const DEFAULT_WIRE_PROMPT = "Say ok.";

export interface WireOptions {
  /** The API to build the body for; by default the resumed model's. */
  api?: WireApi;
  prompt: string;
  /** The time the prompt and synthetic tool results carry (Pi: `Date.now()`). */
  now: () => number;
}

export type WireResult =
  | { ok: true; api: WireApi; model: WireModel; standIn: boolean; body: Record<string, unknown> }
  | { ok: false; reason: string; entry?: Entry }
  /** The resumed model speaks another API (or there is none): the caller must name one. */
  | { ok: false; noApi: string };

const NORMALIZERS: Record<WireApi, (model: WireModel) => NormalizeToolCallId> = {
  "anthropic-messages": () => anthropicToolCallId,
  "openai-completions": completionsToolCallId,
  "openai-responses": responsesToolCallId,
};

export function buildWireRequest(build: ContextBuild, options: WireOptions): WireResult {
  const choice = chooseModel(build.path, build.context, "1.x");
  const own = choice.model && choice.model.inCatalog !== false ? wireModelOf(choice.model) : undefined;
  const api = options.api ?? own?.api;
  if (api === undefined) {
    const model = choice.model;
    if (!model) return { ok: false, noApi: "Pi resumes this session with no model of its own (the context is empty or names none) and uses its default model" };
    const named = `${String(model.provider)}/${String(model.id)}`;
    if (model.inCatalog === false) return { ok: false, noApi: `the session's model ${named} is not in pi-ai's catalogue, so its API is not known` };
    return { ok: false, noApi: `the session resumes with ${named}, which speaks ${model.api}` };
  }
  const standIn = own?.api !== api;
  const model = standIn ? STAND_IN_MODELS[api] : own!;
  const prompt = { role: "user", content: [{ type: "text", text: options.prompt }], timestamp: options.now() };
  const resumed = resumedMessages(build);
  // The entry a message comes from, by its index among the messages (the prompt comes from none).
  const entryOf = (contextIndex: number | undefined) =>
    contextIndex !== undefined && resumed === build.context.messages ? build.sources[contextIndex] : undefined;
  const converted = convertToLlm([...resumed, prompt], "1.x");
  if (!converted.ok) return { ok: false, reason: converted.reason, entry: entryOf(converted.index) };
  const transformed = transformMessages(converted.messages, model, "1.x", options.now, NORMALIZERS[api](model));
  if (!transformed.ok) return { ok: false, reason: transformed.reason, entry: entryOf(converted.from[transformed.index]) };
  const conversation = withoutSystemMessages(transformed.messages);
  try {
    const body =
      api === "anthropic-messages"
        ? anthropicBody(model, conversation)
        : api === "openai-completions"
          ? completionsBody(model, conversation)
          : responsesBody(model, conversation);
    return { ok: true, api, model, standIn, body };
  } catch (error) {
    if (error instanceof WireFailure) {
      // The message it blames, back to its entry; a synthetic result to the call it answers.
      const at = error.source === undefined ? -1 : transformed.messages.indexOf(error.source);
      const origin = at < 0 ? undefined : transformed.origin[at]! >= 0 ? transformed.origin[at] : transformed.placeholders.find((p) => p.at === at)?.call;
      return { ok: false, reason: error.message, entry: entryOf(origin === undefined ? undefined : converted.from[origin]) };
    }
    // Tool call arguments are serialised with JSON.stringify, which overflows on deep nesting as Pi's does.
    if (error instanceof RangeError) return { ok: false, reason: `a value nested too deep for JSON.stringify (${error.message})` };
    throw error;
  }
}

/**
 * The conversation Pi 1.6's agent resumes with. It builds it from `getBranch()`, which starts from
 * the leaf's id: when the last entry has no id (or a falsy one) the branch is empty, and Pi sends
 * the prompt alone, though `buildSessionContext()` finds the messages (fault-last-entry-no-id).
 */
function resumedMessages(build: ContextBuild): readonly unknown[] {
  const last = build.path[build.path.length - 1];
  if (last && !(last.parsed.id || last.parsed.object?.id)) return [];
  return build.context.messages;
}
