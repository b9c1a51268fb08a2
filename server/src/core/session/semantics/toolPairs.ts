/**
 * Tool calls and the tool results that answer them, on a path.
 *
 * A toolResult answers the `toolCall` block with its `toolCallId` in the nearest assistant message
 * above it on its path (a call on another branch is not its call); a call is answered by the
 * results below it. The near search looks a few entries up or down first, because the pair is
 * almost always adjacent; when that fails, an index of every call (or result) by id (built once per
 * structure) and the tree's ancestor test settle it, so no answer walks the whole 50,000-deep path.
 */

import type { SessionAnalysis } from "../analysis";
import type { Entry } from "../entry";
import { ancestorWhere, ancestors } from "./walk";
import { perStructure } from "./memo";

/** How many entries around a call or result are searched before the index is used. */
const NEAR = 64;

export interface ToolIndex {
  /** Assistant entries by the ids of their `toolCall` blocks, in file order. */
  calls: Map<string, Entry[]>;
  /** Tool result entries by `toolCallId`, in file order. */
  results: Map<string, Entry[]>;
}

/** Adds `entry` to the list of `id` in `map`, in file order. */
function add(map: Map<string, Entry[]>, id: string, entry: Entry): void {
  const list = map.get(id);
  if (list) list.push(entry);
  else map.set(id, [entry]);
}

/**
 * The assistant entries by the ids of their tool calls, and the tool results by the id they answer,
 * each built apart in one pass over the entries by the first answer that needs it, once per
 * structure: the diagnostics need only the calls, and after a structural edit (a line broken, a
 * line inserted) building both cost twice the time. Released when idle (`releaseKept`): 4 MB for
 * the 45 MB session's 52,000 call and result ids.
 */
export const toolCallsById = perStructure(
  (a): Map<string, Entry[]> => {
    const calls = new Map<string, Entry[]>();
    for (const entry of a.entries) {
      const ids = entry.parsed.toolCallIds;
      if (ids) for (const id of ids) add(calls, id, entry);
    }
    return calls;
  },
  { releasedWhenIdle: true },
);

export const toolResultsById = perStructure(
  (a): Map<string, Entry[]> => {
    const results = new Map<string, Entry[]>();
    for (const entry of a.entries) {
      const id = entry.parsed.toolResultId;
      if (id !== undefined) add(results, id, entry);
    }
    return results;
  },
  { releasedWhenIdle: true },
);

/** Both indexes of `a`'s tool ids. */
export function toolIndex(a: SessionAnalysis): ToolIndex {
  return { calls: toolCallsById(a), results: toolResultsById(a) };
}

/** The assistant entry holding the tool call that a result on `entry` with `id` answers: the nearest ancestor with it. */
export function callFor(a: SessionAnalysis, entry: Entry, id: string): Entry | undefined {
  let far = false;
  const near = ancestorWhere(a, entry, (ancestor, steps) => {
    if (ancestor.parsed.toolCallIds?.includes(id)) return true;
    // On a cyclic chain the walk itself is bounded; elsewhere the index is cheaper past a few steps.
    far = steps >= NEAR && !a.reachesCycle[entry.index];
    return far;
  });
  return far ? nearestAncestorIn(a, toolCallsById(a).get(id), entry) : near;
}

/** The tool result entries below `entry` (an assistant message) that answer its call `id`, nearest first. */
export function resultsFor(a: SessionAnalysis, entry: Entry, id: string): Entry[] {
  // Breadth first over the nearest descendants (the result is almost always a child), then the index.
  const queue: Entry[] = a.childrenOf(entry);
  const found: Entry[] = [];
  let complete = true;
  for (let k = 0; k < queue.length; k++) {
    if (k >= NEAR) {
      complete = false;
      break;
    }
    const e = queue[k]!;
    if (e.parsed.toolResultId === id) found.push(e);
    if (a.reachesCycle[e.index]) continue;
    for (const child of a.childrenOf(e)) queue.push(child);
  }
  if (complete) return found;
  const all = (toolResultsById(a).get(id) ?? []).filter((r) => a.isAncestor(entry, r));
  return all.sort((x, y) => a.depth[x.index]! - a.depth[y.index]!);
}

/** The entry of `candidates` that is the nearest ancestor of `entry`. */
function nearestAncestorIn(a: SessionAnalysis, candidates: readonly Entry[] | undefined, entry: Entry): Entry | undefined {
  let best: Entry | undefined;
  for (const c of candidates ?? []) if (a.isAncestor(c, entry) && (!best || a.depth[c.index]! > a.depth[best.index]!)) best = c;
  return best;
}

/** The index of the `toolCall` block with `id` in an assistant entry's content, or -1. */
export function toolCallBlock(entry: Entry, id: unknown): number {
  const content = (entry.parsed.object?.message as Record<string, unknown> | undefined)?.content;
  if (!Array.isArray(content)) return -1;
  return content.findIndex(
    (b) => b !== null && typeof b === "object" && (b as Record<string, unknown>).type === "toolCall" && (b as Record<string, unknown>).id === id,
  );
}

/** The `name` of the tool call with `id` in an assistant entry, if it has a string one. */
export function toolCallName(entry: Entry, id: string): string | undefined {
  const index = toolCallBlock(entry, id);
  if (index < 0) return undefined;
  const content = (entry.parsed.object?.message as Record<string, unknown> | undefined)?.content as Record<string, unknown>[];
  const name = content[index]!.name;
  return typeof name === "string" ? name : undefined;
}

export interface OpenCall {
  entry: Entry;
  id: string;
  name: string | undefined;
}

/**
 * The tool calls on the path from `start` up (inclusive) that no tool result between them and
 * `start` answers, nearest first, at most `limit` (and whether there were more).
 */
export function openToolCalls(a: SessionAnalysis, start: Entry | undefined, limit: number): { calls: OpenCall[]; cut: boolean } {
  const answered = new Set<string>();
  const calls: OpenCall[] = [];
  // Returns true when the list is full.
  const visit = (current: Entry): boolean => {
    const p = current.parsed;
    if (p.toolResultId !== undefined) answered.add(p.toolResultId);
    for (const id of p.toolCallIds ?? []) {
      if (answered.has(id)) continue;
      answered.add(id); // a repeated id is offered once, at its nearest call
      if (calls.length >= limit) return true;
      calls.push({ entry: current, id, name: toolCallName(current, id) });
    }
    return false;
  };
  if (!start) return { calls, cut: false };
  if (visit(start)) return { calls, cut: true };
  for (const current of ancestors(a, start)) if (visit(current)) return { calls, cut: true };
  return { calls, cut: false };
}

/** Whether a result on `entry` answers a call on its path (what the `unmatched-tool-result` check asks). */
export function hasCallOnPath(a: SessionAnalysis, entry: Entry, id: string): boolean {
  return callFor(a, entry, id) !== undefined;
}
