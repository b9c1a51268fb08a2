/**
 * What the model saw on two branches of one session: where their paths part, the messages only
 * one of the two contexts Pi would build holds, and, for the entries only one branch has, what they
 * cost (assistant usage), the tools they called and the files they read or changed.
 *
 * A context message is the same on both sides when it comes from the same entry (the same line):
 * the compaction summary of a shared compaction is shared, a message kept on one side only because
 * the other side compacted it away is that side's alone. Tokens are estimated as the core does
 * (`core/pi/tokens.ts`, Pi's own estimate), files as `info` counts them (`fileOfToolCall`).
 *
 * A context is not held but summarised message by message as it is built (`ContextSummary`): the
 * contexts of a session larger than memory, read as a stream, are compared in bounded memory.
 */

import { clip, singleLine } from "../core/base/text";
import { fileOfToolCall } from "../core/disk/stats";
import { type ContextFailure, type PiFlavor, visitContext } from "../core/pi/buildContext";
import { estimateContextTokensOf, estimateTokens, usableUsage } from "../core/pi/tokens";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";

/** The messages only one side has that are listed one by one; the rest are counted. */
export const MAX_LISTED_MESSAGES = 200;
/** The files and tools listed per side; the rest are counted. */
const MAX_LISTED_NAMES = 100;

type Obj = Record<string, unknown>;

export interface DiffMessage {
  /** 0-based line of the entry the message comes from. */
  line: number;
  id: string | undefined;
  role: string;
  tokens: number;
  /** The start of its text, on one line. */
  preview: string;
}

export interface BranchSide {
  leaf: { id: string | undefined; line: number };
  /** The context Pi builds from this leaf: its messages and estimated tokens. */
  contextMessages: number;
  contextTokens: number;
  /** The context's messages the other side's context does not hold, in order (at most `MAX_LISTED_MESSAGES`). */
  only: DiffMessage[];
  onlyCount: number;
  onlyTokens: number;
  /** The entries on this side's path after the entry both paths share last. */
  branchEntries: number;
  /** The assistant messages among them, and the sum of their `usage.cost.total`. */
  assistantMessages: number;
  cost: number;
  tools: { name: string; calls: number }[];
  filesRead: string[];
  filesChanged: string[];
  /** Tools and files past the lists' bound. */
  more: number;
}

export interface BranchDiff {
  /** The entry both paths share last (where they part), or undefined when they share none. */
  ancestor: { id: string | undefined; line: number; type: string | undefined } | undefined;
  /** Context messages both sides hold. */
  shared: number;
  a: BranchSide;
  b: BranchSide;
}

function messageRole(message: unknown): string {
  const role = (message as Obj | null)?.role;
  return typeof role === "string" ? clip(role, 30) : "?";
}

/** The start of a message's text: its first text block, or a tool result's, or a summary's. */
function previewOf(message: unknown): string {
  const m = message as Obj | null;
  if (!m || typeof m !== "object") return "";
  if (m.role === "bashExecution" && typeof m.command === "string") return singleLine(`$ ${m.command}`, 80);
  const content = m.content ?? m.summary;
  if (typeof content === "string") return singleLine(content, 80);
  if (!Array.isArray(content)) return "";
  for (const block of content as Obj[]) {
    if (block?.type === "text" && typeof block.text === "string") return singleLine(block.text, 80);
    if (block?.type === "toolCall" && typeof block.name === "string") return singleLine(`→ ${block.name}`, 80);
    if (block?.type === "image") return "[image]";
  }
  return "";
}

/**
 * What the comparison reads of one context, message by message: where each message comes from, its
 * estimated tokens, the usage Pi would trust, its role and the start of its text. The messages
 * themselves are let go as the context is built.
 */
export interface ContextSummary {
  /** The entries from the root to the leaf. */
  path: Entry[];
  sources: Entry[];
  tokens: number[];
  usage: (number | undefined)[];
  roles: string[];
  previews: string[];
}

/**
 * A copy of a short string that shares no storage with the text it was cut from: V8 keeps the whole
 * of a sliced string's parent alive, so the previews of a 1 GB context would keep all of its texts.
 */
function detached(text: string): string {
  // JSON escapes a lone surrogate and reads it back, where a UTF-8 round trip would replace it.
  return JSON.parse(JSON.stringify(text)) as string;
}

/** The summary of the context Pi builds from `leaf`, or why Pi cannot build it. */
export function summarizeContext(
  a: SessionAnalysis,
  leaf: Entry,
  flavor: PiFlavor,
): { ok: true; summary: ContextSummary } | { ok: false; failure: ContextFailure } {
  const summary: ContextSummary = { path: [], sources: [], tokens: [], usage: [], roles: [], previews: [] };
  const visited = visitContext(a, leaf, flavor, (message, source) => {
    summary.sources.push(source);
    summary.tokens.push(estimateTokens(message));
    summary.usage.push(usableUsage(message));
    summary.roles.push(detached(messageRole(message)));
    summary.previews.push(detached(previewOf(message)));
  });
  if (!visited.ok) return visited;
  summary.path = visited.path;
  return { ok: true, summary };
}

/** Each context message's key: its source entry's index and its place among that entry's messages. */
function messageKeys(summary: ContextSummary): string[] {
  const seen = new Map<number, number>();
  return summary.sources.map((entry) => {
    const n = seen.get(entry.index) ?? 0;
    seen.set(entry.index, n + 1);
    return `${entry.index}:${n}`;
  });
}

function costOf(message: Obj): number {
  const cost = ((message.usage as Obj | undefined)?.cost as Obj | undefined)?.total;
  return typeof cost === "number" && Number.isFinite(cost) ? cost : 0;
}

/** Cost, tools and files of the entries only one side's path has. */
function branchFacts(entries: readonly Entry[]) {
  const tools = new Map<string, number>();
  const read = new Set<string>();
  const changed = new Set<string>();
  let cost = 0;
  let assistants = 0;
  let more = 0;
  for (const entry of entries) {
    if (entry.type !== "message" || entry.parsed.role !== "assistant") continue;
    const message = entry.parsed.object?.message as Obj | undefined;
    if (!message || typeof message !== "object") continue;
    assistants++;
    cost += costOf(message);
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Obj[]) {
      if (!block || typeof block !== "object" || block.type !== "toolCall") continue;
      const name = typeof block.name === "string" ? block.name : "(no name)";
      if (tools.has(name) || tools.size < MAX_LISTED_NAMES) tools.set(name, (tools.get(name) ?? 0) + 1);
      else more++;
      const file = fileOfToolCall(name, block.arguments);
      const set = file?.changed ? changed : read;
      if (file && !set.has(file.path)) {
        if (set.size < MAX_LISTED_NAMES) set.add(file.path);
        else more++;
      }
    }
  }
  const toolList = [...tools].map(([name, calls]) => ({ name, calls })).sort((x, y) => y.calls - x.calls || (x.name < y.name ? -1 : 1));
  return { cost, assistants, tools: toolList, filesRead: [...read].sort(), filesChanged: [...changed].sort(), more };
}

function side(leaf: Entry, summary: ContextSummary, keys: string[], other: Set<string>, branch: Entry[]): BranchSide {
  const only: DiffMessage[] = [];
  let onlyCount = 0;
  let onlyTokens = 0;
  const count = summary.sources.length;
  for (let k = 0; k < count; k++) {
    if (other.has(keys[k]!)) continue;
    const tokens = summary.tokens[k]!;
    onlyCount++;
    onlyTokens += tokens;
    const source = summary.sources[k]!;
    if (only.length < MAX_LISTED_MESSAGES) only.push({ line: source.line, id: source.id, role: summary.roles[k]!, tokens, preview: summary.previews[k]! });
  }
  const facts = branchFacts(branch);
  return {
    leaf: { id: leaf.id, line: leaf.line },
    contextMessages: count,
    contextTokens: estimateContextTokensOf(
      count,
      (i) => summary.usage[i],
      (i) => summary.tokens[i]!,
    ).tokens,
    only,
    onlyCount,
    onlyTokens,
    branchEntries: branch.length,
    assistantMessages: facts.assistants,
    cost: facts.cost,
    tools: facts.tools,
    filesRead: facts.filesRead,
    filesChanged: facts.filesChanged,
    more: facts.more,
  };
}

/**
 * The difference between the contexts built from `leafA` and `leafB` (`summarizeContext`).
 */
export function branchDiff(leafA: Entry, summaryA: ContextSummary, leafB: Entry, summaryB: ContextSummary): BranchDiff {
  const pathA = summaryA.path;
  const pathB = summaryB.path;
  const onB = new Set(pathB.map((e) => e.index));
  let ancestorAt = -1;
  for (let k = pathA.length - 1; k >= 0; k--) {
    if (onB.has(pathA[k]!.index)) {
      ancestorAt = k;
      break;
    }
  }
  const ancestor = ancestorAt >= 0 ? pathA[ancestorAt]! : undefined;
  const atB = ancestor ? pathB.findIndex((e) => e.index === ancestor.index) : -1;
  const keysA = messageKeys(summaryA);
  const keysB = messageKeys(summaryB);
  const setA = new Set(keysA);
  const setB = new Set(keysB);
  let shared = 0;
  for (const key of keysA) if (setB.has(key)) shared++;
  return {
    ancestor: ancestor ? { id: ancestor.id, line: ancestor.line, type: ancestor.type } : undefined,
    shared,
    a: side(leafA, summaryA, keysA, setB, pathA.slice(ancestorAt + 1)),
    b: side(leafB, summaryB, keysB, setA, pathB.slice(atB + 1)),
  };
}
