/**
 * What the request diagnostics and their update after an edit share (`requestDiagnostics.ts`
 * computes the findings, `requestFindingsUpdate.ts` brings the last ones up to date): the shape of
 * the findings, and the checks an update runs again on the messages it replaced. In a file of its
 * own so that neither of the two imports the other.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { DiagnosticCode } from "../../core/base/codes";
import { groupDigits } from "../../core/base/text";
import type { JsonPath } from "../../core/line/locate";
import type { ContextBuild, ContextResult } from "../../core/pi/buildContext";
import type { ProviderRequest, ProviderResult } from "../../core/pi/provider/types";
import { estimateContextTokens, estimateTokens, usableUsage } from "../../core/pi/tokens";
import type { Entry } from "../../core/session/entry";
import type { SessionDocument } from "../../core/session/document";
import type { SizeFindings } from "../imageDiagnostics";
import { type EmptyUserFate, emptyUserFate, ruleFor } from "../providerRules";
import { modelName } from "../providerView";
import { diagnostic } from "./report";
import { emptyUserMessages, isEmptyContent } from "./requestScans";

type Message = Record<string, unknown>;

/** A finding with where its range comes from, so that an edit of its line can place it again. */
export interface Located {
  diagnostic: Diagnostic;
  line: number;
  /** The value the range covers, or undefined for the whole line. */
  path: JsonPath | undefined;
}

export function located(doc: SessionDocument, code: DiagnosticCode, message: string, line: number, path: JsonPath | undefined): Located {
  return { diagnostic: diagnostic(code, message, path ? doc.valueRange(line, path) : doc.lineRange(line)), line, path };
}

/** The request findings by the parts an update redoes separately, and all of them in order. */
export interface RequestFindings {
  /** Pi 0.73/0.74's pipeline throws, or Pi 1.x's (then the only finding). */
  head: Diagnostic[];
  pairing: Located[];
  /** Empty user messages, by index among the provider messages. */
  empty: { at: number; found: Located }[];
  window: Diagnostic[];
  images: Diagnostic[];
  size: SizeFindings;
  all: Diagnostic[];
}

export function withAll(f: Omit<RequestFindings, "all">): RequestFindings {
  const all = [...f.head, ...f.pairing.map((x) => x.diagnostic), ...f.empty.map((x) => x.found.diagnostic), ...f.window, ...f.images, ...f.size.diagnostics];
  return { ...f, all };
}

/** What the findings are made from, in the order `requestsOf` gives them. */
export type RequestInputs = [ContextResult, ProviderResult?, ContextResult?, ProviderResult?];

/** Where in an entry's line its message content (or block `index` of it) is. */
export function contentPath(entry: Entry, index?: number): JsonPath {
  const base: JsonPath = entry.type === "custom_message" ? ["content"] : ["message", "content"];
  return index === undefined ? base : [...base, index];
}

export function modelOf(request: ProviderRequest): string {
  return modelName(request.model) ?? "Pi's default model";
}

const FATE: Record<EmptyUserFate, string> = {
  "left out": "leaves it out of the request, so the model never sees it",
  "sent empty": "sends it with empty text",
  placeholder: 'sends "<empty>" in its place',
  "as stored": "sends it as it is",
};

/**
 * The user messages of Pi 1.x's request that hold no text, each with what Pi does with it. Pi
 * 0.73/0.74's request (`older`: undefined when that version builds no context) is read to say
 * whether it does the same: it ignores context edits, and its conversions differ for some APIs.
 * The messages without text are found once per message list: an edit of one entry that changes
 * what either version sends for it makes a new list (or names the messages it replaced, `only`),
 * and what each finding says is made again on every call, from the request's own entries.
 */
export function emptyUsers(
  doc: SessionDocument,
  build: ContextBuild,
  request: ProviderRequest,
  older: ProviderResult | undefined,
  only?: readonly number[],
): { at: number; found: Located }[] {
  const out: { at: number; found: Located }[] = [];
  let olderEmpty: Map<Entry, unknown> | undefined;
  let edits: Map<unknown, Entry> | undefined;
  // Every message is scanned once per message list (`requestScans.ts`); an update after an edit
  // inside lines reads only the messages it replaced (`only`).
  const candidates = only ?? emptyUserMessages(request.messages);
  for (const k of candidates) {
    const m = request.messages[k] as Message;
    const entry = request.sources[k];
    if (m.role !== "user" || !entry || !isEmptyContent(m.content)) continue;
    // Built on the first empty message only, so that a session without one pays nothing.
    olderEmpty ??= emptyUserContents(older);
    edits ??= lastEdits(build);
    const edit = edits.get(entry.key);
    const what = edit ? `The context edit on line ${edit.line + 1} replaces this user message with one that has no text.` : "This user message has no text.";
    const api = apiOf(request);
    const fate = emptyUserFate(api, m.content, "1.x");
    const who = oldFate(olderEmpty.get(entry), fate, api, older, edit !== undefined);
    const next = edit ? `Change line ${edit.line + 1}'s replacement if the model should see it.` : "Nothing to do unless it should say something.";
    out.push({ at: k, found: located(doc, "empty-user-message", `${what} For ${modelOf(request)}, ${who}. ${next}`, entry.line, contentPath(entry)) });
  }
  return out;
}

/** The API of the model Pi resumes with, or undefined for a model pi-ai's catalogue lacks. */
export function apiOf(request: ProviderRequest): unknown {
  return request.model?.inCatalog === false ? undefined : request.model?.api;
}

/** Who does what with the message: both versions alike, or Pi 1.x and then what Pi 0.73/0.74 does, where that is known. */
function oldFate(old: unknown, fate: EmptyUserFate, api: unknown, older: ProviderResult | undefined, edited: boolean): string {
  const newer = `Pi 1.x ${FATE[fate]}`;
  // No result: Pi 0.73/0.74 builds no context from this session, which other findings say.
  if (!older) return newer;
  if (!older.ok) return `${newer}; Pi 0.73/0.74 sends no request at all (its pipeline throws)`;
  if (old !== undefined && apiOf(older.request) === api) {
    const before = emptyUserFate(api, old, "0.74");
    return before === fate ? `Pi ${FATE[fate]}` : `${newer}; Pi 0.73/0.74 ${FATE[before]}`;
  }
  return edited && old === undefined ? `${newer}; Pi 0.73/0.74 ignores context edits and sends the message as stored` : newer;
}

/** The content of each user message without text in Pi 0.73/0.74's request, by the entry it comes from. */
function emptyUserContents(older: ProviderResult | undefined): Map<Entry, unknown> {
  const out = new Map<Entry, unknown>();
  if (!older?.ok) return out;
  const { messages, sources } = older.request;
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k] as Message;
    if (m.role === "user" && sources[k] && isEmptyContent(m.content)) out.set(sources[k]!, m.content);
  }
  return out;
}

/** The context edit Pi 1.x applies to each entry it selects: the last selected one naming it. */
function lastEdits(build: ContextBuild): Map<unknown, Entry> {
  const out = new Map<unknown, Entry>();
  for (const e of build.selected) if (e.type === "context_edit") out.set(e.parsed.reference, e);
  return out;
}

export function overWindow(doc: SessionDocument, build: ContextBuild, request: ProviderRequest): Diagnostic[] {
  const model = request.model;
  if (!model || model.inCatalog === false || !(model.contextWindow > 0)) return [];
  const messages = build.context.messages;
  const estimate = estimateContextTokens(messages);
  if (estimate.tokens <= model.contextWindow) return [];
  // Pi's estimate of every prefix in one pass (a usable usage stands for everything before it),
  // then the message from which it stays over the window.
  const prefix = new Array<number>(messages.length);
  let running = 0;
  for (let i = 0; i < messages.length; i++) {
    const usage = usableUsage(messages[i]);
    running = usage !== undefined ? usage : running + estimateTokens(messages[i]);
    prefix[i] = running;
  }
  let k = messages.length - 1;
  while (k > 0 && prefix[k - 1]! > model.contextWindow) k--;
  const entry = build.sources[k];
  if (!entry) return [];
  const over = estimate.tokens - model.contextWindow;
  const message =
    `Pi estimates the context it resumes with at ${groupDigits(estimate.tokens)} tokens, ${groupDigits(over)} over the ${groupDigits(model.contextWindow)}-token window of ${modelOf(request)} (pi-ai's catalogue); this message takes it over. ` +
    `${capital(ruleFor(model.api).provider)} rejects a prompt longer than the window, so every request fails until a compaction succeeds. ` +
    "With auto-compaction on, Pi 1.x compacts before sending; Pi 0.73/0.74 does so only when the usage the last assistant message records is over its threshold, and otherwise after the provider's overflow error. The compaction's own request must fit the window too.";
  const usage = (entry.parsed.object?.message as Message | undefined)?.usage as Message | undefined;
  const usageRange = usage?.totalTokens !== undefined ? doc.valueRange(entry.line, ["message", "usage", "totalTokens"]) : doc.lineRange(entry.line);
  return [diagnostic("context-over-window", message, usageRange)];
}

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
