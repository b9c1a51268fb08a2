/**
 * What the model saw on two branches of one session: where their paths part, the messages only
 * one of the two contexts Pi would build holds, and, for the entries only one branch has, what they
 * cost (assistant usage), the tools they called and the files they read or changed.
 *
 * A context message is the same on both sides when it comes from the same entry (the same line):
 * the compaction summary of a shared compaction is shared, a message kept on one side only because
 * the other side compacted it away is that side's alone. Tokens are estimated as the core does
 * (`core/pi/tokens.ts`, Pi's own estimate), files as `info` counts them (`fileOfToolCall`).
 */

import { clip, singleLine } from "../core/base/text";
import { fileOfToolCall } from "../core/disk/stats";
import type { ContextBuild } from "../core/pi/buildContext";
import { estimateContextTokens, estimateTokens } from "../core/pi/tokens";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { pathTo } from "../core/session/semantics/walk";

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

/** Each context message's key: its source entry's index and its place among that entry's messages. */
function messageKeys(build: ContextBuild): string[] {
  const seen = new Map<number, number>();
  return build.sources.map((entry) => {
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

function side(leaf: Entry, build: ContextBuild, keys: string[], other: Set<string>, branch: Entry[]): BranchSide {
  const only: DiffMessage[] = [];
  let onlyCount = 0;
  let onlyTokens = 0;
  const messages = build.context.messages;
  for (let k = 0; k < messages.length; k++) {
    if (other.has(keys[k]!)) continue;
    const tokens = estimateTokens(messages[k]);
    onlyCount++;
    onlyTokens += tokens;
    const source = build.sources[k]!;
    if (only.length < MAX_LISTED_MESSAGES)
      only.push({ line: source.line, id: source.id, role: messageRole(messages[k]), tokens, preview: previewOf(messages[k]) });
  }
  const facts = branchFacts(branch);
  return {
    leaf: { id: leaf.id, line: leaf.line },
    contextMessages: messages.length,
    contextTokens: estimateContextTokens(messages).tokens,
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
 * The difference between the contexts built from `leafA` and `leafB` (each free of parent
 * cycles, as a successful build is).
 */
export function branchDiff(a: SessionAnalysis, leafA: Entry, buildA: ContextBuild, leafB: Entry, buildB: ContextBuild): BranchDiff {
  const pathA = pathTo(a, leafA);
  const pathB = pathTo(a, leafB);
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
  const keysA = messageKeys(buildA);
  const keysB = messageKeys(buildB);
  const setA = new Set(keysA);
  const setB = new Set(keysB);
  let shared = 0;
  for (const key of keysA) if (setB.has(key)) shared++;
  return {
    ancestor: ancestor ? { id: ancestor.id, line: ancestor.line, type: ancestor.type } : undefined,
    shared,
    a: side(leafA, buildA, keysA, setB, pathA.slice(ancestorAt + 1)),
    b: side(leafB, buildB, keysB, setA, pathB.slice(atB + 1)),
  };
}
