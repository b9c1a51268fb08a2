/**
 * The context Pi builds for the model: `buildSessionContext()` reproduced exactly, for Pi 1.x and
 * for Pi 0.73/0.74, from the cached analysis.
 *
 * The result has the shape of Pi's (`{messages, thinkingLevel, model}`) and, serialised with
 * `JSON.stringify`, the same bytes: stored messages are the very objects parsed from their lines
 * (key order kept), synthetic messages are built with Pi's key order, and values are copied with
 * Pi's JavaScript semantics (`new Date(timestamp).getTime()`, `?? []`, absent keys).
 *
 * The two versions differ (observed with the real packages, see test/parity):
 * - Pi 1.x applies `context_edit` entries (the last selected edit per target replaces or removes the
 *   target's content); Pi 0.73/0.74 ignores them.
 * - Pi 1.x sends a compaction's `systemMessage` checkpoint before its summary; 0.73/0.74 sends only
 *   the summary.
 * - Pi 1.x drops `system` messages from the range kept before the last compaction; 0.73/0.74 keeps them.
 * - Pi 1.x gives a user/assistant/toolResult message whose content is null or missing `[]` (a system
 *   message `""`), and a custom message without content `[]`; 0.73/0.74 sends them as stored.
 * - With the `retained-tail` flavour, the last compaction's `retainedTail` messages follow its
 *   summary and replace the entries kept before it (`firstKeptEntryId` is then ignored).
 *
 * Where Pi fails, the build says how instead of failing: a leaf whose path runs into a parent cycle
 * makes Pi hang (0.73/0.74) or run out of memory (1.x); a `message` entry without a message, or a
 * selected `context_edit` without a replacement, makes it throw a TypeError.
 */

import { releasedTable } from "../session/semantics/memo";
import { dateTime } from "../base/loose";
import { pathTo } from "../session/semantics/walk";
import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";

/**
 * Which Pi to follow: `1.x` is the `SessionManager` of Pi 1.x (1.6.0 checked); `0.74` that of
 * Pi 0.73/0.74; `retained-tail` is 1.x plus the compaction `retainedTail` described by Pi 0.83's
 * documentation and the seed documents (used by the bundled runtime of 0.87–0.99): a compaction
 * that carries it is a self-contained checkpoint. No released `SessionManager` reads `retainedTail`,
 * so `1.x` ignores it, as Pi 1.6 does.
 */
export type PiFlavor = "1.x" | "0.74" | "retained-tail";

export interface SessionContext {
  messages: unknown[];
  thinkingLevel: unknown;
  model: { provider: unknown; modelId: unknown } | null;
}

export interface ContextBuild {
  context: SessionContext;
  /** The entries from the root to the leaf. */
  path: Entry[];
  /** The entries Pi selects for the context, in Pi's order (the compaction first when there is one). */
  selected: Entry[];
  /** The last compaction on the path, whose summary starts the context. */
  compaction: Entry | undefined;
  /** For each message of `context.messages`, the entry it comes from. */
  sources: Entry[];
}

export type ContextFailure =
  /** The path from the leaf runs into a parent cycle. */
  | { kind: "cycle"; entry: Entry }
  /** Pi throws a TypeError building the context, because of this entry. */
  | { kind: "type-error"; entry: Entry; reason: string };

export type ContextResult = { ok: true; build: ContextBuild } | { ok: false; failure: ContextFailure };

export interface BuildOptions {
  /** The entry to build from; the file's last entry (Pi's leaf after opening) by default. `null` builds the empty context. */
  leaf?: Entry | null;
  flavor?: PiFlavor;
}

const EMPTY: SessionContext = { messages: [], thinkingLevel: "off", model: null };

export function buildContext(a: SessionAnalysis, options: BuildOptions = {}): ContextResult {
  const flavor = options.flavor ?? "1.x";
  const leaf = options.leaf === undefined ? a.leaf : options.leaf;
  if (leaf === null || leaf === undefined) {
    return { ok: true, build: { context: { ...EMPTY, messages: [] }, path: [], selected: [], compaction: undefined, sources: [] } };
  }
  // Past a cycle, the path from Pi's own leaf is the analysis's active path: a copy of it (the
  // build keeps its path, which must not change with the analysis) costs less than walking its
  // parents again, once for each version on a large open.
  if (a.reachesCycle[leaf.index]) return { ok: false, failure: { kind: "cycle", entry: leaf } };
  return contextOfPath(leaf === a.leaf ? a.activePath.slice() : pathTo(a, leaf), flavor);
}

/**
 * The context of a path (root first, free of cycles), as Pi's `buildSessionContext` makes it once
 * it has walked up from the leaf. Of the entries it reads only what the answer needs: every
 * entry's `type`, `noMessage` of every message entry, the settings of the last entries that set
 * them, and the values of the selected entries, so that a path whose lines are parsed on demand
 * (`scannedContext.ts`) parses no more than those. Without `keep`, each line's messages are made for
 * `flavor` alone and not filed (see `messagesOfLine`): for a path built once and let go.
 */
export function contextOfPath(path: Entry[], flavor: PiFlavor, keep = true): ContextResult {
  const messages: unknown[] = [];
  const sources: Entry[] = [];
  const visited = visitContextOfPath(
    path,
    flavor,
    (message, source) => {
      messages.push(message);
      sources.push(source);
    },
    keep,
  );
  if (!visited.ok) return visited;
  const { thinkingLevel, model, selected, compaction } = visited;
  return { ok: true, build: { context: { messages, thinkingLevel, model }, path, selected, compaction, sources } };
}

/** A context visited message by message: what `ContextBuild` holds besides the messages and their sources. */
export type ContextVisit =
  | ({ ok: true; path: Entry[] } & Pick<SessionContext, "thinkingLevel" | "model"> & Pick<ContextBuild, "selected" | "compaction">)
  | { ok: false; failure: ContextFailure };

/**
 * The context built from `leaf` (which may run into a parent cycle) given to `visit` one message at
 * a time, in order, and not kept: a path whose messages do not fit in memory (a 1 GB session read
 * as a stream, `diff`) is summarised as it goes. A line's messages are taken from the lines' table
 * when a build made them already, and otherwise made again and not filed there.
 */
export function visitContext(a: SessionAnalysis, leaf: Entry, flavor: PiFlavor, visit: (message: unknown, source: Entry) => void): ContextVisit {
  if (a.reachesCycle[leaf.index]) return { ok: false, failure: { kind: "cycle", entry: leaf } };
  return visitContextOfPath(pathTo(a, leaf), flavor, visit, false);
}

/** `contextOfPath`, each message given to `visit` instead of kept; `keep` files each line's messages in the lines' table. */
function visitContextOfPath(path: Entry[], flavor: PiFlavor, visit: (message: unknown, source: Entry) => void, keep = true): ContextVisit {
  // Pi reads `entry.message.role` of every message entry on the path, which throws on a missing message.
  const missing = messageEntryWithout(path);
  if (missing) return { ok: false, failure: { kind: "type-error", entry: missing, reason: "a message entry without a message" } };
  const { thinkingLevel, model } = settingsOf(path);

  const { selected, compaction } = selectEntries(path, flavor);
  const edits = new Map<unknown, Entry>();
  if (flavor !== "0.74") {
    for (const entry of selected) if (entry.type === "context_edit") edits.set(entry.parsed.reference, entry);
  }
  for (let i = 0; i < selected.length; i++) {
    const entry = selected[i]!;
    // Only the newest compaction, at the head of the selection, contributes its summary.
    if (entry.type === "compaction" && i > 0) continue;
    let produced = messagesOfLine(entry, flavor === "0.74", keep);
    if (i === 0 && entry.type === "compaction" && flavor === "retained-tail") produced = produced.concat(retainedTail(entry) ?? []);
    // Pi's `edits.get(sourceEntry.id)`: a Map lookup by the raw id, which the keys compare as.
    const edit = edits.size === 0 ? undefined : edits.get(entry.key);
    if (edit) {
      const replacement = record(edit.parsed.value)?.replacement;
      if (replacement === undefined) return { ok: false, failure: { kind: "type-error", entry: edit, reason: "a context edit without a replacement" } };
      produced = replacement === null ? [] : produced.map((message) => applyReplacement(message, replacement));
    }
    for (const message of produced) visit(message, entry);
  }
  return { ok: true, path, thinkingLevel, model, selected, compaction };
}

/**
 * The first message entry of `path` without a message. A function of its own: V8 optimises a long
 * loop in the middle of a running function, and that code, once the loop ends, meets calls it has
 * never seen made, gives way to the interpreter and has the whole function compiled again.
 */
function messageEntryWithout(path: readonly Entry[]): Entry | undefined {
  for (const entry of path) if (entry.type === "message" && entry.parsed.noMessage) return entry;
  return undefined;
}

/**
 * Pi's settings: those of the last entries on the path that set them, walked from the leaf: the
 * first thinking_level_change, and the first model_change or assistant message.
 */
export function settingsOf(path: readonly Entry[]): Pick<SessionContext, "thinkingLevel" | "model"> {
  let thinkingLevel: unknown = "off";
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "thinking_level_change") {
      thinkingLevel = entry.parsed.thinkingLevel;
      break;
    }
  }
  let model: SessionContext["model"] = null;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "model_change") {
      const p = entry.parsed;
      model = { provider: p.model?.provider, modelId: p.model?.modelId };
      break;
    }
    if (entry.type === "message" && entry.parsed.role === "assistant") {
      const p = entry.parsed;
      model = { provider: p.model!.provider, modelId: p.model!.modelId };
      break;
    }
  }
  return { thinkingLevel, model };
}

/**
 * Pi's selection (`buildContextEntries`): without a compaction on the path, the whole path;
 * otherwise the last compaction, then the path entries before it from the first one whose id is its
 * `firstKeptEntryId` (none when no entry before it has that id), then every entry after it.
 */
export function selectEntries(path: readonly Entry[], flavor: PiFlavor): { selected: Entry[]; compaction: Entry | undefined; keptFrom: Entry | undefined } {
  let ci = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === "compaction") {
      ci = i;
      break;
    }
  }
  if (ci < 0) return { selected: [...path], compaction: undefined, keptFrom: undefined };
  const compaction = path[ci]!;
  // Pi looks the compaction up again by id (strict equality of the raw values, which the keys
  // compare as); with duplicate ids that can be an earlier entry.
  const index = path.findIndex((e) => (flavor === "0.74" ? e.type === "compaction" : true) && e.key === compaction.key);
  const at = index < 0 ? ci : index;
  const firstKept = compaction.parsed.reference;
  const selected: Entry[] = [compaction];
  let keptFrom: Entry | undefined;
  // A retained tail stands for everything kept from before the compaction.
  const selfContained = flavor === "retained-tail" && retainedTail(compaction) !== undefined;
  for (let i = 0; i < (selfContained ? 0 : at); i++) {
    const entry = path[i]!;
    if (keptFrom === undefined && entry.key === firstKept) keptFrom = entry;
    if (keptFrom === undefined) continue;
    if (flavor !== "0.74" && isSystemMessage(entry)) continue;
    selected.push(entry);
  }
  for (let i = at + 1; i < path.length; i++) selected.push(path[i]!);
  return { selected, compaction, keptFrom };
}

/** A compaction's `retainedTail` messages, when it carries an array of them. */
function retainedTail(compaction: Entry): unknown[] | undefined {
  const tail = record(compaction.parsed.value)?.retainedTail;
  return Array.isArray(tail) ? tail : undefined;
}

/**
 * The messages a line contributes depend on that line alone, so they are kept with its parse: a
 * context built again after an edit elsewhere reuses them instead of parsing every selected line
 * again (the values are not kept with the parses, see values.ts). Pi's builders return the stored
 * message objects themselves, and nothing changes them, so sharing them between builds is safe.
 * Both versions' messages are made from one fetch of the line's value: the diagnostics build the
 * context for 1.x and for 0.74 on every open, and a 50 MB path does not fit the value cache, so a
 * value fetched twice would be parsed twice. An idle server lets them go (`releaseKept`). Without
 * `keep`, a line's messages not filed yet are made and not filed: a context visited message by
 * message (`visitContext`) would otherwise keep every message of a path larger than memory.
 */
const producedByLine = releasedTable<object, { modern: unknown[]; classic: unknown[] }>();

export function messagesOfLine(entry: Entry, classic: boolean, keep = true): unknown[] {
  let produced = producedByLine.get(entry.parsed);
  if (!produced && !keep) {
    const o = record(entry.parsed.value);
    if (!o) return [];
    return classic ? messagesOf074(entry, o) : messagesOf1x(entry, o);
  }
  if (!produced) {
    const o = record(entry.parsed.value);
    produced = o ? { modern: messagesOf1x(entry, o), classic: messagesOf074(entry, o) } : { modern: [], classic: [] };
    producedByLine.set(entry.parsed, produced);
  }
  return classic ? produced.classic : produced.modern;
}

/** Pi 1.x's `sessionEntryToContextMessages`. */
function messagesOf1x(entry: Entry, o: Record<string, unknown>): unknown[] {
  switch (entry.type) {
    case "message": {
      const message = o.message;
      const m = record(message);
      if (m?.role === "system" && m.content == null) return [{ ...m, content: "" }];
      if ((m?.role === "user" || m?.role === "assistant" || m?.role === "toolResult") && m.content == null) return [{ ...m, content: [] }];
      return [message];
    }
    case "custom_message":
      return [customMessage(o.customType, o.content ?? [], o.display, o.details, o.timestamp)];
    case "branch_summary":
      return o.summary ? [branchSummary(o.summary, o.fromId, o.timestamp)] : [];
    case "compaction": {
      const summary = compactionSummary(o.summary, o.tokensBefore, o.timestamp);
      return o.systemMessage ? [o.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** Pi 0.73/0.74's `appendMessage`, plus the summary of the selected compaction. */
function messagesOf074(entry: Entry, o: Record<string, unknown>): unknown[] {
  switch (entry.type) {
    case "message":
      return [o.message];
    case "custom_message":
      return [customMessage(o.customType, o.content, o.display, o.details, o.timestamp)];
    case "branch_summary":
      return o.summary ? [branchSummary(o.summary, o.fromId, o.timestamp)] : [];
    case "compaction":
      return [compactionSummary(o.summary, o.tokensBefore, o.timestamp)];
    default:
      return [];
  }
}

/** Pi 1.x's `projectContextEntry` for one message and a non-null replacement. */
function applyReplacement(message: unknown, replacement: unknown): unknown {
  const m = record(message);
  const role = m?.role;
  if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "custom") return message;
  // Any value but null and undefined has members to read; a primitive simply has no content.
  const content = (replacement as { content?: unknown }).content;
  const replaced = (role === "assistant" || role === "toolResult") && typeof content === "string" ? [{ type: "text", text: content }] : content;
  return { ...m, content: replaced };
}

function customMessage(customType: unknown, content: unknown, display: unknown, details: unknown, timestamp: unknown): unknown {
  return { role: "custom", customType, content, display, details, timestamp: time(timestamp) };
}

function branchSummary(summary: unknown, fromId: unknown, timestamp: unknown): unknown {
  return { role: "branchSummary", summary, fromId, timestamp: time(timestamp) };
}

function compactionSummary(summary: unknown, tokensBefore: unknown, timestamp: unknown): unknown {
  return { role: "compactionSummary", summary, tokensBefore, timestamp: time(timestamp) };
}

/** `new Date(timestamp).getTime()`, as Pi computes synthetic message times (NaN serialises as null). */
function time(timestamp: unknown): number {
  return dateTime(timestamp);
}

function isSystemMessage(entry: Entry): boolean {
  return entry.type === "message" && entry.parsed.role === "system";
}

/** The value as an object whose members can be read, or undefined for null and primitives. */
function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}
