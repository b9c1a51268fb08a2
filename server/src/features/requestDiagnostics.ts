/**
 * Diagnostics for requests that will fail, or that the model will see changed: what Pi's pipeline
 * sends the provider when it resumes the session (`core/pi/provider/request.ts`, Pi 1.x, for the model
 * Pi resumes with), checked against what that provider documents (`providerRules.ts`).
 *
 * - `orphaned-tool-result` (error): a tool result the provider receives without its call right
 *   before it — the call's turn stopped with `error`/`aborted` (Pi drops it, keeps the result), a
 *   user message or another turn came between them (Pi answers the call "No result provided" and
 *   sends the real result later), or the last compaction summarised the call away;
 * - `tool-call-without-result` (information): a call Pi answers with a synthetic result;
 * - `empty-user-message` (information): a user message Pi sends without text;
 * - `context-over-window` (warning): Pi's own estimate of the resumed context exceeds the model's
 *   window in pi-ai's catalogue;
 * - `request-throws` (error): Pi's pipeline throws (for Pi 1.x, or Pi 0.73/0.74 where only it does);
 * - images and request size: `imageDiagnostics.ts`; compactions: `compactionDiagnostics.ts`.
 *
 * Each diagnostic is on the entry to blame and says what Pi does and what the provider answers.
 * Nothing here runs for a file Pi would not open (no header); for an older version, which Pi
 * migrates first, only `request-throws` is said (`migratedThrows`), the structural diagnostics
 * saying the rest.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { ContextBuild } from "../core/pi/buildContext";
import { toolCallBlock } from "../core/session/semantics/toolPairs";
import { activeContext, activeContext074, contextInputLines } from "../core/pi/activeContext";
import type { SessionDocument } from "../core/session/document";
import type { Steps } from "../core/base/steps";
import type { ProviderRequest, ProviderResult } from "../core/pi/provider/types";
import type { ModelInfo } from "../core/pi/provider/catalog";
import { buildProviderRequest } from "../core/pi/provider/request";
import { type KeptAcrossRelease, type KeptForInputs, keptAcrossRelease, keptForSameInputs, predecessorOf, releasedTable } from "../core/session/semantics/memo";
import { versionRules } from "../core/session/semantics/version";
import { singleLine } from "../core/base/text";
import { compactionDiagnostics, compactionKeepsToolResult } from "./compactionDiagnostics";
import { imageFindings, requestSizeFindings } from "./imageDiagnostics";
import { carriedFindings, madePlain } from "./requestFindingsCarry";
import { updateRequestFindings } from "./requestFindingsUpdate";
import { conversionFailure, reasoningRefusal } from "../core/pi/provider/apiConversion";
import {
  apiOf,
  capital,
  contentPath,
  emptyUsers,
  type Located,
  located,
  modelOf,
  overWindow,
  type RequestFindings,
  type RequestInputs,
  withAll,
} from "./diagnostics/requestFindings";
import { diagnostic } from "./diagnostics/report";
import { callIdsOf, refusedToolResults } from "./diagnostics/requestScans";
import { standingFinding } from "./diagnostics/standingFindings";
import { contextDocument } from "./migratedView";
import { needsMigration } from "./migration";
import { ruleFor } from "./providerRules";
import { providerRequestOf } from "./providerView";

type Message = Record<string, unknown>;

/**
 * Kept for the structure and the requests they were made from: the request diagnostics read the
 * active contexts and the provider requests built from them, each shared and kept by the core for
 * as long as what it reads is unchanged (`activeContext`, `sharedProviderRequest`, which chooses
 * the resumed model again on every call), so the same objects mean the same findings. Their
 * ranges are on the lines of the entries those contexts are built from and the header, which such
 * an edit leaves as they were. When an edit inside those lines updated the context and the
 * request in place (`core/pi/contextUpdate.ts`), the findings are updated from the last ones in
 * proportion to the edit (`requestFindingsUpdate.ts`).
 */
const memo: KeptForInputs<RequestFindings> = releasedTable();

/**
 * The findings again, kept through the idle release (`lsp/memory.ts` lets the contexts and requests
 * above go): an edit after an idle pause on a line the contexts do not read (`contextInputLines`)
 * answers with them, instead of parsing the whole resumed path again to build equal ones (576 ms on
 * the 45 MB session, for a keystroke elsewhere in the file).
 */
const settled: KeptAcrossRelease<Diagnostic[]> = keptAcrossRelease(contextInputLines);

/**
 * The provider request's diagnostics of `doc`. With `rebuild`, the findings kept through the idle
 * release (`settled`) are not taken: the contexts, requests and findings they stand for are built
 * again and kept, as `rederiveRequestDiagnosticsSteps` asks.
 */
export function requestDiagnostics(doc: SessionDocument, rebuild = false): Diagnostic[] {
  const a = doc.analysis;
  if (a.headerState !== "ok") return [];
  if (!versionRules(a).current) return migratedThrows(doc);
  // A lone "\r" makes a Pi line several lines for the client, so an edit of a line no finding reads
  // can move every later finding's range: nothing is kept or reused then (as `replay.ts` does).
  const plain = doc.lspLineCount === doc.lineCount;
  const compactions = compactionDiagnostics(doc, plain);
  let value = plain && !rebuild ? settled.get(a) : undefined;
  if (!value) {
    const inputs = requestsOf(a);
    if (!plain) return [...compactions, ...computeRequestFindings(doc, inputs).all];
    value = keptForSameInputs(
      memo,
      a.structure,
      inputs,
      () => madePlain(doc, carriedFindings(doc, memo, inputs) ?? computeRequestFindings(doc, inputs), inputs),
      (lastInputs, last) => {
        const updated = updateRequestFindings(doc, lastInputs, last, inputs);
        return updated && madePlain(doc, updated, inputs);
      },
    ).all;
    settled.set(a, value);
  }
  return compactions.length === 0 ? value : [...compactions, ...value];
}

/**
 * What an edit after the idle release that `requestDiagnostics` would answer by building the
 * released contexts and requests again (one on a line they read, of the tree too) can be answered
 * with at once, while they are built: the findings kept through the release (`settled`) but those
 * on a line edited since or pointing at one, whose ranges may no longer fit the line, and the
 * compaction findings as `requestDiagnostics` makes them. The findings of the other lines stand as
 * they were until the complete list replaces them (`lsp/diagnostics.ts`), which brings any the
 * edit adds or removes elsewhere; below lines added or removed, they move with their lines
 * (`standingFinding`). Kept in turn (`standIn`), so that the next edit before the complete list
 * starts from them. Undefined when `requestDiagnostics` is cheap (what it reads is kept), when
 * nothing was kept, and when a lone "\r" splits a line for the client.
 */
export function provisionalRequestDiagnostics(doc: SessionDocument): Diagnostic[] | undefined {
  const a = doc.analysis;
  if (a.headerState !== "ok" || !versionRules(a).current || doc.lspLineCount !== doc.lineCount) return undefined;
  // Kept for this structure, or for the one an edit of the tree replaced (whose findings the new
  // structure's carry over, `requestFindingsCarry.ts`): `requestDiagnostics` answers in proportion.
  const before = predecessorOf(a);
  if (memo.has(a.structure) || (before && memo.has(before.structure)) || settled.get(a)) return undefined;
  const kept = settled.stale(a);
  if (!kept) return undefined;
  const standing: Diagnostic[] = [];
  for (const d of kept.value) {
    const moved = standingFinding(d, kept.lines);
    if (moved) standing.push(moved);
  }
  settled.standIn(a, standing);
  const compactions = compactionDiagnostics(doc, true);
  return compactions.length === 0 ? standing : [...compactions, ...standing];
}

/**
 * `requestDiagnostics` as steps, for the server's first open of a large session: it yields after
 * each piece the findings are made from (each version's context, then its provider request, in the
 * order `requestsOf` asks for them), which the core keeps, so that `requestDiagnostics` at the end
 * reuses them, and a request the editor sends meanwhile waits for one piece instead of all four.
 */
export function* requestDiagnosticsSteps(doc: SessionDocument, rebuild = false): Steps<Diagnostic[]> {
  const a = doc.analysis;
  // Findings kept through the idle release need none of the pieces (see `settled`), unless asked to build them again.
  if (a.headerState === "ok" && versionRules(a).current && (rebuild || !settled.get(a))) {
    const built = activeContext(a);
    yield;
    if (built.ok && providerRequestOf(built.build, "1.x").ok) {
      yield;
      const older = activeContext074(a);
      yield;
      if (older.ok) providerRequestOf(older.build, "0.74");
      yield;
    }
  }
  return requestDiagnostics(doc, rebuild);
}

/**
 * Builds again, as steps, what the idle release let go and `settled` stands for (both versions'
 * contexts, their provider requests and the findings made from them), so that the next edit inside
 * the resumed context updates them in proportion to the edit instead of building them from
 * nothing (130-220 ms on the 45 MB session): the server runs it once someone works again
 * (`lsp/memory.ts`), a slice at a time.
 */
export function rederiveRequestDiagnosticsSteps(doc: SessionDocument): Steps<Diagnostic[]> {
  return requestDiagnosticsSteps(doc, true);
}

/**
 * The request diagnostics as if Pi sent the resumed session to `model` rather than to the model it
 * resumes with: `pi --model` on a resumed session, or a request an extension sees going to another
 * model; the wire verdicts (test/pi/wire/verdicts.mjs) put each corpus session to a model of each
 * API this way. Built afresh on each call (nothing is memoised for a model the file does not name);
 * Pi 0.73/0.74's pipeline is not consulted, and a file Pi migrates gets `migratedThrows` as above.
 */
export function requestDiagnosticsFor(doc: SessionDocument, model: ModelInfo): Diagnostic[] {
  const a = doc.analysis;
  if (a.headerState !== "ok") return [];
  if (!versionRules(a).current) return migratedThrows(doc);
  const built = activeContext(a);
  const result = built.ok ? buildProviderRequest(built.build, { flavor: "1.x", now: Date.now, model }) : undefined;
  const findings = computeRequestFindings(doc, [built, result, undefined, undefined]).all;
  const compactions = compactionKeepsToolResult(doc);
  return compactions.length === 0 ? findings : [...compactions, ...findings];
}

/**
 * A v1 or v2 file: Pi migrates it in memory when it opens it and builds every prompt from the
 * migrated entries, whose messages the migration leaves as they were, so a message its pipeline
 * throws on fails every prompt as in a current file (an assistant message whose content is a
 * string, in real converted files). That is said here, on the original line; the other request
 * checks wait until the file is migrated, as the structural diagnostics say first.
 */
function migratedThrows(doc: SessionDocument): Diagnostic[] {
  if (!needsMigration(doc)) return [];
  const migrated = contextDocument(doc).analysis;
  const built = activeContext(migrated);
  if (!built.ok) return [];
  const result = providerRequestOf(built.build, "1.x");
  if (!result.ok) return [throwsDiagnostic(doc, result, "Pi 1.x", "")];
  const older = activeContext074(migrated);
  const old = older.ok ? providerRequestOf(older.build, "0.74") : undefined;
  return old && !old.ok ? [throwsDiagnostic(doc, old, "Pi 0.73/0.74", " (Pi 1.x's does not)")] : [];
}

/** What the findings are made from: Pi 1.x's context or its failure, then its request, then Pi 0.73/0.74's context and request. */
function requestsOf(a: SessionAnalysis): readonly unknown[] {
  const built = activeContext(a);
  if (!built.ok) return [built];
  const result = providerRequestOf(built.build, "1.x");
  if (!result.ok) return [built, result];
  const older = activeContext074(a);
  return [built, result, older, older.ok ? providerRequestOf(older.build, "0.74") : undefined];
}

function computeRequestFindings(doc: SessionDocument, inputs: readonly unknown[]): RequestFindings {
  const [built, result, older, old] = inputs as RequestInputs;
  const none = { head: [], pairing: [], empty: [], window: [], images: [], size: { diagnostics: [] } };
  if (!built.ok || !result) return withAll(none);
  if (!result.ok) return withAll({ ...none, head: [throwsDiagnostic(doc, result, "Pi 1.x", "")] });
  const request = result.request;
  const head = conversionThrows(doc, request);
  if (older?.ok && old && !old.ok) head.push(throwsDiagnostic(doc, old, "Pi 0.73/0.74", " (Pi 1.x's does not)"));
  return withAll({
    head,
    pairing: toolPairing(doc, built.build, request),
    empty: emptyUsers(doc, built.build, request, old),
    window: overWindow(doc, built.build, request),
    images: imageFindings(doc, request),
    size: requestSizeFindings(doc, request),
  });
}

function where(entry: Entry | undefined): string {
  return entry ? `line ${entry.line + 1}` : "an earlier line";
}

function throwsDiagnostic(doc: SessionDocument, failure: Extract<ProviderResult, { ok: false }>, who: string, note: string): Diagnostic {
  const entry = failure.entry;
  const message = `${who}'s message pipeline (convertToLlm, then transformMessages) throws on this entry${note}: ${failure.reason}. Every prompt fails before a request is sent, until the entry is fixed.`;
  const range = entry ? doc.valueRange(entry.line, contentPath(entry)) : doc.lineRange(doc.analysis.headerLine ?? 0);
  return diagnostic("request-throws", message, range);
}

/**
 * The API's own conversion of the request (`apiConversion.ts`): throwing, as `request-throws`, or
 * replaying a reasoning item the Responses API refuses, as `invalid-reasoning-item`, on the entry.
 */
function conversionThrows(doc: SessionDocument, request: ProviderRequest): Diagnostic[] {
  const failure = conversionFailure(request.messages, apiOf(request));
  const entry = failure ? request.sources[failure.index] : undefined;
  if (!failure || !entry) return reasoningRefused(doc, request);
  const message = `Pi 1.x's conversion of the request for ${modelOf(request)} throws on this entry: ${failure.reason}. Every prompt to this model fails before a request is sent, until the signature is removed or the session goes to another model.`;
  return [diagnostic("request-throws", message, doc.valueRange(entry.line, contentPath(entry)))];
}

function reasoningRefused(doc: SessionDocument, request: ProviderRequest): Diagnostic[] {
  const refusal = reasoningRefusal(request.messages, apiOf(request));
  const entry = refusal ? request.sources[refusal.index] : undefined;
  if (!refusal || !entry) return [];
  const id = singleLine(String(refusal.id), 60);
  const [what, answer] =
    refusal.why === "no following item"
      ? ["no text or tool call of this turn follows it", `Item '${id}' of type 'reasoning' was provided without its required following item.`]
      : [
          "its signature lacks the reasoning's encrypted_content (Pi sends store: false, so OpenAI cannot look the item up)",
          `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false.`,
        ];
  const message = `Pi replays this thinking block to ${modelOf(request)} as the reasoning item its signature holds, and ${what}: OpenAI answers "${answer}" Every prompt to this model fails until the thinking block is removed or the session goes to another model.`;
  return [diagnostic("invalid-reasoning-item", message, doc.valueRange(entry.line, contentPath(entry, refusal.block)))];
}

// ---- Tool calls and results -------------------------------------------------------------------

function toolPairing(doc: SessionDocument, build: ContextBuild, request: ProviderRequest): Located[] {
  const out: Located[] = [];
  const rule = ruleFor(request.model?.inCatalog === false ? undefined : request.model?.api);
  const messages = request.messages as Message[];
  const orphanedCalls = new Set<unknown>();
  // The scan of every message is remembered for the message list (`requestScans.ts`).
  for (const { at: k, id, callAt } of refusedToolResults(request, rule.adjacentResults)) {
    const cause = orphanCause(build, request, k, id, callAt);
    const entry = request.sources[k];
    if (!cause || !entry) continue; // No call on the path at all: unmatched-tool-result says so.
    orphanedCalls.add(id);
    const message =
      `Pi sends this tool result for "${singleLine(String(id), 60)}" to ${modelOf(request)} without its call: ${cause}. ` +
      `${capital(rule.provider)} documents that ${rule.toolResultRule}, and answers "${rule.toolResultError}", ` +
      "so every prompt of this session fails until this entry or its call is fixed.";
    out.push(located(doc, "orphaned-tool-result", message, entry.line, ["message", "toolCallId"]));
  }
  if (request.placeholders.length === 0) return out;
  // Built once, so that a session of a thousand interrupted calls stays linear.
  const resultOnPath = new Map<unknown, Entry>();
  for (const e of build.path) if (e.parsed.toolResultId !== undefined) resultOnPath.set(e.parsed.toolResultId, e);
  const selected = new Set(build.selected);
  const sent = new Set(request.sources);
  for (const p of request.placeholders) {
    if (orphanedCalls.has(p.toolCallId) || !p.call) continue;
    let next = p.at + 1;
    while (next < messages.length && messages[next]!.role === "toolResult") next++;
    const after = next < messages.length ? request.sources[next] : undefined;
    const before = after
      ? `before the next ${messages[next]!.role === "assistant" ? "assistant turn" : "user message"} (${where(after)})`
      : "before the end of the context";
    // The placeholder answers a call of an assistant entry, whose block the tool pairs find.
    const index = toolCallBlock(p.call, p.toolCallId);
    const path = index < 0 ? undefined : [...contentPath(p.call, index), "id"];
    const result = resultOnPath.get(p.toolCallId);
    const edited =
      result && result.line > p.call.line && selected.has(result) && !sent.has(result)
        ? ` (its result, line ${result.line + 1}, is removed by a context edit)`
        : "";
    const message = `No result follows this tool call ${before}${edited}: Pi sends a synthetic error result, "No result provided", in its place. ${capital(rule.provider)} accepts it; the model sees the call as failed.`;
    out.push(located(doc, "tool-call-without-result", message, p.call.line, path));
  }
  return out;
}

/** Why the provider gets tool result `k` without its call, or undefined when the path holds no such call. */
function orphanCause(build: ContextBuild, request: ProviderRequest, k: number, id: unknown, callAt: number | undefined): string | undefined {
  for (const d of request.dropped) {
    if (callIdsOf(build.context.messages[d.contextIndex]).includes(id)) {
      return `its call's turn (${where(d.entry)}) stopped with "${d.stopReason}", and Pi drops such turns from the request but keeps their tool results`;
    }
  }
  if (callAt !== undefined) {
    const messages = request.messages as Message[];
    let between = callAt + 1;
    while (between < k && messages[between]!.role === "toolResult") between++;
    const m = messages[between]!;
    const source = request.sources[between];
    const what =
      m.role === "assistant"
        ? "another assistant turn"
        : source?.type === "compaction"
          ? "a compaction summary"
          : source?.type === "branch_summary"
            ? "a branch summary"
            : "a user message";
    const answered = request.placeholders.some((p) => p.toolCallId === id) ? ', and Pi has already answered the call with "No result provided" before it' : "";
    return `${what} (${where(source)}) comes between the call (${where(request.sources[callAt])}) and this result${answered}`;
  }
  // The call is on the path but not in the context: the last compaction summarised it away.
  const call = build.path.find((e) => e.parsed.toolCallIds?.includes(id as string));
  if (call && build.compaction && !build.selected.includes(call)) {
    return `the compaction on line ${build.compaction.line + 1} keeps the entries from this result on but summarises its call (line ${call.line + 1}) away`;
  }
  return undefined;
}
