/**
 * The built context as the editor asks for it: the custom request `piSession/buildContext` and the
 * command `piSession.showContext` (run by the context lenses) both answer with Pi's context for a
 * leaf, `{messages, thinkingLevel, model}` exactly as `buildSessionContext()` returns it, and its
 * statistics (messages by role, Pi's token estimate, model, thinking level, compaction used).
 *
 * The leaf is found the way Pi finds it: no id means the file's last entry (where Pi resumes), an id
 * means `byId`'s entry for it (the last holder of a duplicated id). A failed build (a parent cycle,
 * which makes Pi hang, or an entry that makes it throw) is an answer too, with `context: null` and
 * an `error`; only a request that names no open document or no existing entry is refused.
 *
 * Statistics are memoised per analysis and leaf, so the lenses, which show them, build each context
 * at most once per version of the document; full builds are not kept (a 50,000-entry path is
 * megabytes of references), except the last one asked for, which the command reuses after a lens.
 */

import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { cycleReachedFrom } from "../core/session/semantics/walk";
import { buildContext, type ContextBuild, type ContextFailure, type ContextResult, type PiFlavor, type SessionContext } from "../core/pi/buildContext";
import { MAX_ANSWER_DEPTH, messagesDeeperThan, nestedDeeperThan } from "../core/base/depth";
import type { SessionDocument } from "../core/session/document";
import { shortValue } from "../core/base/text";
import { currentSystem } from "../core/pi/systemPrompt";
import { estimateContextTokens } from "../core/pi/tokens";
import { contextMarkdownOptions, renderContextMarkdown } from "./contextMarkdown";
import { activeContext, activeContext074 } from "../core/pi/activeContext";
import { contextDocument, migrationNote } from "./migratedView";
import { addProviderStage, type ContextStage, type ProviderStats, type ProviderView } from "./providerView";

export const BUILD_CONTEXT_REQUEST = "piSession/buildContext";
export const SHOW_CONTEXT_COMMAND = "piSession.showContext";

export interface BuildContextParams {
  uri: string;
  /** The entry to resume from, by id as Pi looks it up; absent or null: the file's last entry. */
  leafId?: string | null;
  /** Which Pi builds the context: "1.x" (the default) or "0.74" (Pi 0.73/0.74). */
  flavor?: PiFlavor;
  /** "json" (the default) or "markdown", which adds the conversation rendered for people. */
  format?: "json" | "markdown";
  /** "context" (the default), or "provider", which adds what the provider receives (`provider`, `providerStats`). */
  stage?: ContextStage;
  /**
   * Bounds the answer to the messages from index `start` (default 0) up to `end` (exclusive;
   * default: to the last) of the context, and of the provider's messages with `stage: "provider"`,
   * as `Array.prototype.slice` takes them (a negative index counts from the end: `{start: -50}` is
   * the last 50); `stats` and `providerStats` still describe them all.
   */
  messages?: { start?: number; end?: number };
  /** false leaves `context` out of the answer (for a client that shows the Markdown, or the provider's messages, only). */
  context?: boolean;
}

export interface ContextStats {
  /** Number of messages in the context. */
  messages: number;
  /** Messages by `role` ("(none)" for a message without a string role). */
  byRole: Record<string, number>;
  /** Pi's estimate for the whole context: `usageTokens + trailingTokens`. */
  estimatedTokens: number;
  /** The usage recorded by the last usable assistant message (0 when there is none). */
  usageTokens: number;
  /** One token per four characters of the messages after it. */
  trailingTokens: number;
  /** `provider/modelId` in force at the leaf, or null. */
  model: string | null;
  thinkingLevel: unknown;
  /** The compaction whose summary starts the context; `line` is 0-based. */
  compaction: { id: string | null; line: number; tokensBefore: unknown; firstKeptEntryId: unknown } | null;
  /** The entry the context was built from (0-based line), or null for a session without entries. */
  leaf: { id: string | null; line: number } | null;
  /**
   * The system prompt in force at the end of the context, replayed as Pi 1.x replays its system
   * messages (sections patched by name, tools added and removed), or null without system messages.
   */
  system: { sections: string[]; tools: string[]; promptChars: number } | null;
  /** For a v1/v2 file: that Pi migrates it in memory and rewrites it when it opens it (the context is the migrated one). */
  migration?: string;
}

export interface BuildContextResult {
  /** Pi's `buildSessionContext()` result (its messages bounded by `messages`), or null when Pi would fail (see `error`); absent with `context: false`. */
  context?: SessionContext | null;
  stats: ContextStats;
  /** Why Pi builds no context from this leaf: "cycle" (Pi 0.74 hangs, 1.x throws a RangeError) or "type-error" (Pi throws). */
  error?: { kind: ContextFailure["kind"]; message: string; line: number };
  /** The conversation as Markdown, when asked for with `format: "markdown"` (the provider's messages for `stage: "provider"`). */
  markdown?: string;
  /** With `stage: "provider"`: `{model, messages}` as pi-ai's transformMessages gives them, or null when Pi's pipeline throws. */
  provider?: ProviderView | null;
  /** With `stage: "provider"`: what the pipeline changed, and why it throws when it does. */
  providerStats?: ProviderStats;
}

export type ContextAnswer = { ok: true; result: BuildContextResult; build: ContextBuild | undefined } | { ok: false; message: string };

/** The leaf a request names: `undefined` for an unknown id (Pi's `byId` has no such entry). */
export function leafFor(a: SessionAnalysis, leafId: string | null | undefined): Entry | null | undefined {
  if (leafId === undefined || leafId === null) return a.leaf ?? null;
  return a.byId.get(leafId);
}

/**
 * Answers `piSession/buildContext` for an open document. Refuses (ok: false, for an InvalidParams
 * error) a leaf id that no entry has, or parameters of the wrong type.
 */
export function computeContextRequest(doc: SessionDocument, params: Partial<BuildContextParams>): ContextAnswer {
  const { leafId, flavor = "1.x", format = "json", stage = "context", messages: window, context: withContext = true } = params;
  if (leafId !== undefined && leafId !== null && typeof leafId !== "string") return { ok: false, message: "leafId must be a string" };
  if (flavor !== "1.x" && flavor !== "0.74" && flavor !== "retained-tail") {
    return { ok: false, message: `flavor must be "1.x", "0.74" or "retained-tail", not ${JSON.stringify(flavor)}` };
  }
  if (format !== "json" && format !== "markdown") return { ok: false, message: `format must be "json" or "markdown", not ${JSON.stringify(format)}` };
  if (stage !== "context" && stage !== "provider") return { ok: false, message: `stage must be "context" or "provider", not ${JSON.stringify(stage)}` };
  if (typeof withContext !== "boolean") return { ok: false, message: "context must be true or false" };
  const bounds = messageBounds(window);
  if (typeof bounds === "string") return { ok: false, message: bounds };
  // A v1/v2 file: Pi builds from the entries it migrates in memory (and rewrites the file).
  const a = contextDocument(doc).analysis;
  const migration = migrationNote(doc);
  const leaf = leafFor(a, leafId);
  if (leaf === undefined) return { ok: false, message: `no entry has the id ${JSON.stringify(leafId)}` };
  const built = lastBuild(a, leaf, flavor);
  const summary = contextSummary(a, leaf, flavor).stats;
  const stats = migration ? { ...summary, migration } : summary;
  const sent = built.ok ? bounds(built.build.context.messages) : [];
  const context = built.ok ? (sent === built.build.context.messages ? built.build.context : { ...built.build.context, messages: sent }) : null;
  const result: BuildContextResult = built.ok ? { context, stats } : { context: null, stats, error: errorOf(a, built.failure) };
  if (!withContext) delete result.context;
  if (format === "markdown") {
    result.markdown = built.ok ? renderContextMarkdown(built.build, contextMarkdownOptions(a, flavor)) : `# No context\n\n${result.error!.message}.\n`;
  }
  // The answer is sent as JSON, which a value thousands of levels deep would make throw: the
  // messages are checked one by one, each once per message object (\`messagesDeeperThan\`), the
  // rest of the answer as a whole; the provider stage checks its own part.
  const rest = result.context ? { ...result, context: { ...result.context, messages: [] } } : result;
  let tooDeep = nestedDeeperThan(rest, MAX_ANSWER_DEPTH) || (withContext && messagesDeeperThan(sent, 3, MAX_ANSWER_DEPTH));
  if (stage === "provider" && built.ok) tooDeep = addProviderStage(a, result, built.build, flavor, format, MAX_ANSWER_DEPTH, bounds) || tooDeep;
  if (tooDeep)
    return {
      ok: false,
      message: `the context holds a value nested more than ${MAX_ANSWER_DEPTH} levels deep, too deep to send as JSON (pi-session-lsp context --format markdown shows it)`,
    };
  return { ok: true, result, build: built.ok ? built.build : undefined };
}

/** The `messages` parameter as a function that bounds a message list, or why it is refused. */
function messageBounds(window: BuildContextParams["messages"] | undefined): ((messages: unknown[]) => unknown[]) | string {
  if (window === undefined) return (messages) => messages;
  const index = (v: unknown) => v === undefined || (typeof v === "number" && Number.isSafeInteger(v));
  if (window === null || typeof window !== "object" || !index(window.start) || !index(window.end)) {
    return "messages must be {start, end}, each a whole number (counted from the end when negative) or left out";
  }
  const { start = 0, end } = window;
  return (messages) => messages.slice(start, end);
}

/**
 * Answers the command `piSession.showContext` with arguments `[uri, entryId | null]` and, optionally,
 * a third `{flavor, format, stage}` as in the request.
 */
export function computeShowContext(doc: SessionDocument, args: readonly unknown[]): ContextAnswer {
  const leafId = args[1];
  if (leafId !== undefined && leafId !== null && typeof leafId !== "string") return { ok: false, message: "the second argument must be an entry id or null" };
  const extra = args[2] !== null && typeof args[2] === "object" ? (args[2] as Partial<BuildContextParams>) : {};
  return computeContextRequest(doc, {
    flavor: extra.flavor,
    format: extra.format,
    stage: extra.stage,
    messages: extra.messages,
    context: extra.context,
    uri: doc.uri,
    leafId,
  });
}

/** What the lenses show of a context: its statistics, or why Pi fails to build it. */
export interface ContextSummary {
  stats: ContextStats;
  failure?: ContextFailure;
}

const summaryMemo = new WeakMap<SessionAnalysis, Map<string, ContextSummary>>();

/** The statistics of the context built from `leaf` (null: the empty context), memoised per analysis and leaf. */
export function contextSummary(a: SessionAnalysis, leaf: Entry | null, flavor: PiFlavor = "1.x"): ContextSummary {
  let memo = summaryMemo.get(a);
  if (!memo) summaryMemo.set(a, (memo = new Map()));
  const key = `${flavor}:${leaf ? leaf.index : "none"}`;
  let summary = memo.get(key);
  if (summary) return summary;
  summary = summaryOf(lastBuild(a, leaf, flavor), leaf);
  memo.set(key, summary);
  return summary;
}

/** One full build per analysis, the last one asked for: a lens resolved and then clicked builds once. */
const buildMemo = new WeakMap<SessionAnalysis, { key: string; result: ContextResult }>();

export function lastBuild(a: SessionAnalysis, leaf: Entry | null, flavor: PiFlavor): ContextResult {
  const key = `${flavor}:${leaf ? leaf.index : "none"}`;
  if (flavor === "1.x" && leaf !== null && leaf === a.leaf) return activeContext(a);
  if (flavor === "0.74" && leaf !== null && leaf === a.leaf) return activeContext074(a);
  const memo = buildMemo.get(a);
  if (memo?.key === key) return memo.result;
  const result = buildContext(a, { leaf, flavor });
  buildMemo.set(a, { key, result });
  return result;
}

function summaryOf(result: ContextResult, leaf: Entry | null): ContextSummary {
  const leafInfo = leaf ? { id: leaf.id ?? null, line: leaf.line } : null;
  if (!result.ok) {
    const stats = {
      messages: 0,
      byRole: {},
      estimatedTokens: 0,
      usageTokens: 0,
      trailingTokens: 0,
      model: null,
      thinkingLevel: null,
      compaction: null,
      leaf: leafInfo,
      system: null,
    };
    return { stats, failure: result.failure };
  }
  const { context, compaction } = result.build;
  // Keyed by roles from the file ("constructor", "__proto__" included): a table without a prototype.
  const byRole: Record<string, number> = Object.create(null);
  for (const message of context.messages) {
    const role = message !== null && typeof message === "object" ? (message as Record<string, unknown>).role : undefined;
    const key = typeof role === "string" ? role : "(none)";
    byRole[key] = (byRole[key] ?? 0) + 1;
  }
  const estimate = estimateContextTokens(context.messages);
  const system = currentSystem(context.messages);
  const o = compaction?.parsed.object;
  const stats: ContextStats = {
    messages: context.messages.length,
    byRole,
    estimatedTokens: estimate.tokens,
    usageTokens: estimate.usageTokens,
    trailingTokens: estimate.trailingTokens,
    model: context.model ? `${shortValue(context.model.provider)}/${shortValue(context.model.modelId)}` : null,
    thinkingLevel: context.thinkingLevel,
    compaction: compaction ? { id: compaction.id ?? null, line: compaction.line, tokensBefore: o?.tokensBefore, firstKeptEntryId: o?.firstKeptEntryId } : null,
    leaf: leafInfo,
    system: system ? { sections: system.sectionNames, tools: system.toolNames, promptChars: system.text.length } : null,
  };
  return { stats };
}

/** The `error` of an answer, without the failure's entry object. */
function errorOf(a: SessionAnalysis, failure: ContextFailure): NonNullable<BuildContextResult["error"]> {
  const line = failure.entry.line;
  if (failure.kind === "type-error") return { kind: "type-error", message: `Pi throws a TypeError: ${failure.reason} (line ${line + 1})`, line };
  const cycle = a.cycles[cycleReachedFrom(a, failure.entry)];
  const where = cycle ? ` (${cycle.length === 1 ? "line" : "lines"} ${cycleLines(cycle)})` : "";
  return {
    kind: "cycle",
    message: `the path from line ${line + 1} runs into a parent cycle${where}: Pi never builds the context (0.73/0.74 hangs, 1.x stops with "RangeError: Invalid array length")`,
    line,
  };
}

/** "3, 4, 5" (1-based, ascending), at most five lines and then "…". */
function cycleLines(cycle: readonly Entry[]): string {
  const lines = cycle.map((e) => e.line + 1).sort((x, y) => x - y);
  return lines.length > 5 ? `${lines.slice(0, 5).join(", ")}, …` : lines.join(", ");
}
