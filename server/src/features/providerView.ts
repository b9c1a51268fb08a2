/**
 * The third view of a session, after the file and the built context: what the provider receives
 * (`core/pi/provider/request.ts`), for the CLI's `context --stage provider`, the `piSession/buildContext`
 * request with `stage: "provider"` and the context lenses.
 *
 * - `providerSummary`: counts of what the pipeline changed, memoised per analysis, flavor and leaf,
 *   so the lenses build each request at most once per version of the document;
 * - `providerNote`: the lens's words for where the provider's messages differ from the context
 *   ("the provider gets 41 messages: 2 dropped, 1 placeholder result"), or nothing when they do not;
 * - `renderProviderMarkdown`: the provider's messages to read, through `contextMarkdown.ts`.
 *
 * Synthetic tool results carry the time the request was first built (`Date.now()`), as Pi's carry
 * the time of the request.
 */

import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { ContextBuild, PiFlavor } from "../core/pi/buildContext";
import { sharedProviderRequest } from "../core/pi/provider/request";
import type { ProviderRequest, ProviderResult } from "../core/pi/provider/types";
import type { ResumedModel } from "../core/pi/provider/resumedModel";
import { messagesDeeperThan, nestedDeeperThan } from "../core/base/depth";
import { contextMarkdownOptions, renderContextMarkdown } from "./contextMarkdown";
import { groupDigits, shortValue, singleLine } from "../core/base/text";

export type ContextStage = "context" | "provider";

export interface ProviderStats {
  /** Messages the provider receives (before an API's own conversion). */
  messages: number;
  /** `provider/id` of the model the messages are prepared for, or null (Pi restores none). */
  model: string | null;
  /** Whether pi-ai's built-in catalogue has that model (false: Pi falls back to its default model, unless models.json defines it). */
  inCatalog: boolean | null;
  /** Context messages `convertToLlm` leaves out (`!!` bash runs, unknown roles, 0.74's system messages). */
  leftOut: number;
  /** Assistant turns dropped because they stopped with `error` or `aborted`. */
  dropped: number;
  /** Tool calls answered with a synthetic "No result provided". */
  placeholders: number;
  /** System messages held back behind open tool calls (Pi 1.x). */
  held: number;
  /** Images replaced with text because the model takes none. */
  imagesOmitted: number;
  /** Why Pi's pipeline throws on this context, when it does (`line` is 0-based). */
  error?: { message: string; line: number | null };
}

/**
 * The provider request of a built context, shared by every feature that shows or checks it: built
 * once per build and Pi version (`sharedProviderRequest`), its synthetic results dated when it was
 * first built.
 */
export function providerRequestOf(build: ContextBuild, flavor: PiFlavor): ProviderResult {
  return sharedProviderRequest(build, { flavor, now: Date.now });
}

const summaries = new WeakMap<SessionAnalysis, Map<string, ProviderStats>>();

/** The provider statistics for the context built from `leaf`, memoised per analysis, flavor and leaf. */
export function providerSummary(a: SessionAnalysis, leaf: Entry | null, flavor: PiFlavor, build: () => ContextBuild | undefined): ProviderStats | undefined {
  let memo = summaries.get(a);
  if (!memo) summaries.set(a, (memo = new Map()));
  const key = `${flavor}:${leaf ? leaf.index : "none"}`;
  const known = memo.get(key);
  if (known) return known;
  const built = build();
  if (!built) return undefined;
  const stats = statsOf(providerRequestOf(built, flavor));
  memo.set(key, stats);
  return stats;
}

export function statsOf(result: ProviderResult): ProviderStats {
  if (!result.ok) {
    return {
      messages: 0,
      model: modelName(result.model),
      inCatalog: result.model ? result.model.inCatalog !== false : null,
      leftOut: 0,
      dropped: 0,
      placeholders: 0,
      held: 0,
      imagesOmitted: 0,
      error: { message: `Pi's message pipeline throws on ${result.reason}`, line: result.entry ? result.entry.line : null },
    };
  }
  const r = result.request;
  return {
    messages: r.messages.length,
    model: modelName(r.model),
    inCatalog: r.model ? r.model.inCatalog !== false : null,
    leftOut: r.leftOut.length,
    dropped: r.dropped.length,
    placeholders: r.placeholders.length,
    held: r.held.length,
    imagesOmitted: r.imagesOmitted,
  };
}

/** `the provider gets 41 messages: 2 dropped, 1 placeholder result`, or "" when it gets the context as it is. */
export function providerNote(stats: ProviderStats | undefined): string {
  if (!stats) return "";
  if (stats.error) return "Pi's pipeline throws: every request fails";
  const changes: string[] = [];
  const removed = stats.dropped + stats.leftOut;
  if (removed > 0) changes.push(`${groupDigits(removed)} dropped`);
  if (stats.placeholders > 0) changes.push(`${groupDigits(stats.placeholders)} placeholder result${stats.placeholders === 1 ? "" : "s"}`);
  if (stats.held > 0) changes.push(`${groupDigits(stats.held)} system message${stats.held === 1 ? "" : "s"} moved`);
  if (stats.imagesOmitted > 0) changes.push(`${groupDigits(stats.imagesOmitted)} image${stats.imagesOmitted === 1 ? "" : "s"} omitted`);
  if (changes.length === 0) return "";
  return `the provider gets ${groupDigits(stats.messages)} message${stats.messages === 1 ? "" : "s"}: ${changes.join(", ")}`;
}

/** The provider's messages as Markdown, with what the pipeline changed in the footer. */
export function renderProviderMarkdown(a: SessionAnalysis, build: ContextBuild, request: ProviderRequest, flavor: PiFlavor): string {
  const view: ContextBuild = { ...build, context: { ...build.context, messages: request.messages }, sources: request.sources as Entry[] };
  const notes: string[] = [];
  const model = request.model;
  notes.push(
    `- **sent to:** ${model === null ? "Pi's default model (the context names none)" : model.inCatalog === false ? `${modelName(model)}, which pi-ai's catalogue lacks: Pi falls back to its default model unless models.json defines it` : `${modelName(model)} (${singleLine(model.api, 60)}, ${groupDigits(model.contextWindow)}-token window)`}`,
  );
  const listed = (items: { entry: Entry | undefined }[]) =>
    items
      .slice(0, 10)
      .map((x) => (x.entry ? `line ${x.entry.line + 1}` : "?"))
      .join(", ") + (items.length > 10 ? ", …" : "");
  if (request.dropped.length > 0)
    notes.push(
      `- **dropped:** ${groupDigits(request.dropped.length)} assistant turn(s) that stopped with an error or were aborted (${listed(request.dropped)})`,
    );
  if (request.leftOut.length > 0)
    notes.push(`- **left out:** ${groupDigits(request.leftOut.length)} message(s) no provider takes (${listed(request.leftOut)})`);
  if (request.placeholders.length > 0) {
    notes.push(
      `- **placeholder results:** ${groupDigits(request.placeholders.length)} tool call(s) answered with "No result provided" (${listed(request.placeholders.map((p) => ({ entry: p.call })))})`,
    );
  }
  if (request.held.length > 0)
    notes.push(`- **moved:** ${groupDigits(request.held.length)} system message(s) held back until the open tool calls are answered`);
  if (request.imagesOmitted > 0)
    notes.push(`- **images omitted:** ${groupDigits(request.imagesOmitted)}, replaced with text because the model takes no images`);
  return renderContextMarkdown(view, { ...contextMarkdownOptions(a, flavor), heading: "What the provider receives", notes });
}

export function modelName(model: ResumedModel | null): string | null {
  if (!model) return null;
  const part = (v: unknown) => singleLine(shortValue(v), 80);
  return `${part(model.provider)}/${part(model.id)}`;
}

/** `{model, messages}`, the provider view as the CLI prints it and the request answers it. */
export interface ProviderView {
  model: ResumedModel | null;
  messages: unknown[];
}

/**
 * Adds the provider stage to a `piSession/buildContext` answer built from `build`, its messages
 * bounded by `bounds` (the request's `messages`). Returns whether the provider view nests deeper
 * than `limit` once in the answer (one level below its top), which JSON cannot carry: the caller
 * checks the rest of the answer itself. Each message is checked once per message object
 * (`messagesDeeperThan`): a request updated after an edit shares its unchanged messages.
 */
export function addProviderStage(
  a: SessionAnalysis,
  result: { provider?: ProviderView | null; providerStats?: ProviderStats; markdown?: string },
  build: ContextBuild,
  flavor: PiFlavor,
  format: "json" | "markdown",
  limit: number,
  bounds: (messages: unknown[]) => unknown[] = (messages) => messages,
): boolean {
  const provider = providerRequestOf(build, flavor);
  const messages = provider.ok ? bounds(provider.request.messages) : [];
  result.provider = provider.ok ? { model: provider.request.model, messages } : null;
  result.providerStats = statsOf(provider);
  if (format === "markdown") {
    result.markdown = provider.ok
      ? renderProviderMarkdown(a, build, provider.request, flavor)
      : `# No provider request\n\n${result.providerStats.error!.message}: every request fails before it reaches the provider.\n`;
  }
  return provider.ok && (nestedDeeperThan(provider.request.model, limit - 2) || messagesDeeperThan(messages, 3, limit));
}
