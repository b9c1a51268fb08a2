/**
 * A one-screen summary of a session, gathered entry by entry while the skeleton is read, and Pi's
 * own totals: `AgentSession#getSessionStats` (what `/session` prints) and, for 1.x,
 * `getUsageCostBreakdown`.
 *
 * Pi 1.x totals every entry of the file (`usage` entries, compactions and branch summaries with a
 * `usage`, tool results with one), so its loop (`PiUsageTotals` of `usage.ts`, which `usage` shares)
 * runs here in file order, with the same JavaScript arithmetic on the same values: the sums are
 * equal to the last bit, and an odd value (a missing `usage`) throws here where it throws in Pi. Pi 0.74 totals only the messages of the
 * context it resumed with, so its numbers come from the skeleton's active path after the read.
 */

import { looseText } from "../base/text";
import { Flag, Role, type Skeleton, skeletonIndex, walkUp } from "./skeleton";
import { addUsage, newUsageTotals, PiUsageTotals, totalTokens } from "./usage";

type Obj = Record<string, unknown>;

/** Pi's `SessionStats` without `sessionFile` and `contextUsage`. */
export interface PiSessionStats {
  sessionId: unknown;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  totalMessages: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
}

const MAX_FILES = 500;
const MAX_LISTED = 50;

export interface SessionInfoReport {
  byType: Record<string, number>;
  roles: Record<string, number>;
  models: { model: string; messages: number }[];
  thinkingLevels: { level: string; changes: number; messages: number }[];
  toolCalls: { name: string; calls: number }[];
  files: { read: string[]; changed: string[]; more: number };
  compactions: { line: number; tokensBefore: unknown }[];
  compactionCount: number;
  branchSummaries: number;
  /** Earliest and latest valid entry timestamps (ms). */
  first?: number;
  last?: number;
  /** Pi's `/session` totals, or why computing them throws in Pi. */
  piStats?: PiSessionStats | { throws: string };
  /** Pi 1.x `getUsageCostBreakdown`. */
  usageBreakdown?: { key: string; cost: number; tokens: number }[] | { throws: string };
}

/** What Pi 0.74's totals need from an assistant entry, kept until the active path is known. */
interface AssistantFacts {
  usage: unknown;
  toolCalls: number | string;
}

/**
 * The file a tool call reads or changes: the `path` (or `file_path`) argument of Pi's `read`, and
 * of its `edit` and `write`, which change it; undefined for any other call.
 */
export function fileOfToolCall(name: string, args: unknown): { path: string; changed: boolean } | undefined {
  if (name !== "read" && name !== "edit" && name !== "write") return undefined;
  const a = args as Obj | null | undefined;
  const path = a && typeof a === "object" ? (a.path ?? a.file_path) : undefined;
  return typeof path === "string" ? { path, changed: name !== "read" } : undefined;
}

export class StatsCollector {
  private readonly byType = new Map<string, number>();
  private readonly roles = new Map<string, number>();
  private readonly models = new Map<string, number>();
  private readonly thinking = new Map<string, { changes: number; messages: number }>();
  private readonly tools = new Map<string, number>();
  private readonly read = new Set<string>();
  private readonly changed = new Set<string>();
  private moreFiles = 0;
  private readonly compactions: { line: number; tokensBefore: unknown }[] = [];
  private compactionCount = 0;
  private branchSummaries = 0;
  private first: number | undefined;
  private last: number | undefined;
  /** Pi 1.x getSessionStats and getUsageCostBreakdown, accumulated in file order. */
  private readonly pi = new PiUsageTotals();
  /** Pi 0.74: facts per assistant entry index. */
  readonly assistants = new Map<number, AssistantFacts>();

  constructor(readonly version: "1.x" | "0.74") {}

  /** An `EntryObserver` for the skeleton builder. */
  readonly observe = (value: unknown, index: number, _text: string, place: { line: number }): void => {
    const entry = value as Obj;
    if (entry === null || typeof entry !== "object") return;
    const type = typeof entry.type === "string" ? entry.type : "(no type)";
    this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    const time = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
    if (!Number.isNaN(time)) {
      this.first = this.first === undefined ? time : Math.min(this.first, time);
      this.last = this.last === undefined ? time : Math.max(this.last, time);
    }
    this.summarize(entry, type, index, place.line);
    if (this.version === "1.x") this.pi.step(entry);
  };

  private summarize(entry: Obj, type: string, index: number, line: number): void {
    if (type === "model_change") this.count(this.models, `${looseText(entry.provider)}/${looseText(entry.modelId)}`, 0);
    else if (type === "thinking_level_change") this.level(looseText(entry.thinkingLevel)).changes++;
    else if (type === "compaction") {
      this.compactionCount++;
      if (this.compactions.length < MAX_LISTED) this.compactions.push({ line: line + 1, tokensBefore: entry.tokensBefore });
      const details = entry.details as Obj | undefined;
      if (details && typeof details === "object") {
        for (const f of Array.isArray(details.readFiles) ? details.readFiles : []) this.file(this.read, f);
        for (const f of Array.isArray(details.modifiedFiles) ? details.modifiedFiles : []) this.file(this.changed, f);
      }
    } else if (type === "branch_summary") this.branchSummaries++;
    if (type !== "message") return;
    const message = entry.message as Obj | null;
    if (message === null || typeof message !== "object") return;
    const role = typeof message.role === "string" ? message.role : "(no role)";
    this.roles.set(role, (this.roles.get(role) ?? 0) + 1);
    if (role !== "assistant") return;
    this.count(this.models, `${looseText(message.provider)}/${looseText(message.responseModel ?? message.model)}`, 1);
    if (typeof message.thinkingLevel === "string") this.level(message.thinkingLevel).messages++;
    const content = message.content;
    let calls: number | string = 0;
    // Pi 0.74's own expression, so that an odd content fails with Pi's words.
    const assistantMsg = message as { content: Obj[] };
    try {
      calls = assistantMsg.content.filter((c) => c.type === "toolCall").length;
    } catch (error) {
      calls = error instanceof Error ? error.message : String(error);
    }
    if (this.version === "0.74") this.assistants.set(index, { usage: message.usage, toolCalls: calls });
    if (!Array.isArray(content)) return;
    for (const block of content as Obj[]) {
      if (block === null || typeof block !== "object" || block.type !== "toolCall") continue;
      const name = typeof block.name === "string" ? block.name : "(no name)";
      this.tools.set(name, (this.tools.get(name) ?? 0) + 1);
      const file = fileOfToolCall(name, block.arguments);
      if (file) this.file(file.changed ? this.changed : this.read, file.path);
    }
  }

  private count(map: Map<string, number>, key: string, by: number): void {
    map.set(key, (map.get(key) ?? 0) + by);
  }

  private level(level: string) {
    let l = this.thinking.get(level);
    if (!l) this.thinking.set(level, (l = { changes: 0, messages: 0 }));
    return l;
  }

  private file(set: Set<string>, path: unknown): void {
    if (typeof path !== "string") return;
    if (set.has(path)) return;
    if (set.size >= MAX_FILES) this.moreFiles++;
    else set.add(path);
  }

  finish(sk: Skeleton): SessionInfoReport {
    const sorted = <T>(map: Map<string, T>, by: (v: T) => number) => [...map].sort((a, b) => by(b[1]) - by(a[1]));
    const report: SessionInfoReport = {
      byType: Object.fromEntries(sorted(this.byType, (v) => v)),
      roles: Object.fromEntries(sorted(this.roles, (v) => v)),
      models: sorted(this.models, (v) => v).map(([model, messages]) => ({ model, messages })),
      thinkingLevels: [...this.thinking].map(([level, v]) => ({ level, ...v })),
      toolCalls: sorted(this.tools, (v) => v).map(([name, calls]) => ({ name, calls })),
      files: { read: [...this.read], changed: [...this.changed], more: this.moreFiles },
      compactions: this.compactions,
      compactionCount: this.compactionCount,
      branchSummaries: this.branchSummaries,
    };
    if (this.first !== undefined) report.first = this.first;
    if (this.last !== undefined) report.last = this.last;
    if (sk.load !== "ok") return report;
    const sessionId = sk.header?.id;
    if (this.version === "1.x") {
      const { totals: t, counts, statsThrow } = this.pi;
      report.piStats =
        statsThrow !== undefined
          ? { throws: statsThrow }
          : {
              sessionId,
              ...counts,
              tokens: { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, total: totalTokens(t) },
              cost: t.cost,
            };
      report.usageBreakdown = this.pi.breakdownRows();
    } else {
      report.piStats = this.contextStats074(sk);
    }
    return report;
  }

  /** Pi 0.74 `getSessionStats`: over the messages of the context it resumes with (`buildSessionContext`). */
  private contextStats074(sk: Skeleton): PiSessionStats | { throws: string } {
    const path = contextEntries074(sk);
    if ("throws" in path) return path;
    let userMessages = 0;
    let assistantMessages = 0;
    let toolResults = 0;
    let totalMessages = 0;
    let toolCalls = 0;
    const t = newUsageTotals();
    for (const i of path.entries) {
      const type = sk.types[i];
      if (type === "compaction" || type === "custom_message" || type === "branch_summary") {
        totalMessages++;
        continue;
      }
      totalMessages++;
      const role = sk.roles[i];
      if (role === Role.User) userMessages++;
      else if (role === Role.ToolResult) toolResults++;
      else if (role === Role.Assistant) {
        assistantMessages++;
        const facts = this.assistants.get(i)!;
        if (typeof facts.toolCalls === "string") return { throws: `TypeError: ${facts.toolCalls}` };
        toolCalls += facts.toolCalls;
        try {
          addUsage(t, facts.usage as Obj);
        } catch (error) {
          return { throws: `TypeError: ${error instanceof Error ? error.message : String(error)}` };
        }
      }
    }
    return {
      sessionId: sk.header?.id,
      userMessages,
      assistantMessages,
      toolCalls,
      toolResults,
      totalMessages,
      tokens: { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, total: totalTokens(t) },
      cost: t.cost,
    };
  }
}

/** The TypeError V8 raises reading `.role` of a missing message, with V8's own words. */
function roleError(message: null | undefined): string {
  try {
    return looseText((message as unknown as { role: unknown }).role);
  } catch (error) {
    return `TypeError: ${(error as Error).message}`;
  }
}

/**
 * The entries whose messages make Pi 0.74's resumed context, in order (`buildSessionContext`):
 * the path from the leaf, cut to the last compaction and what it keeps. A branch summary counts
 * only with a truthy summary; the compaction stands for its summary.
 */
export function contextEntries074(sk: Skeleton): { entries: number[] } | { throws: string } {
  const n = sk.n;
  if (n === 0 || sk.leafKey === undefined) return { entries: [] };
  // Pi 0.74's leaf, looked up by its id or else its fallback `entries[entries.length - 1]`: the
  // last entry either way.
  const index = skeletonIndex(sk);
  const path = walkUp(sk, index, index.last);
  if (!path) return { throws: "hangs: the path from the leaf runs into a parentId cycle" };
  path.reverse();
  let compactionAt = -1;
  for (let k = 0; k < path.length; k++) {
    const i = path[k]!;
    if (sk.types[i] === "message" && sk.flags[i]! & Flag.MessageMissing) return { throws: roleError(sk.flags[i]! & Flag.MessageNull ? null : undefined) };
    if (sk.types[i] === "compaction") compactionAt = k;
  }
  const contributes = (i: number) =>
    sk.types[i] === "message" || sk.types[i] === "custom_message" || (sk.types[i] === "branch_summary" && (sk.flags[i]! & Flag.HasSummary) !== 0);
  if (compactionAt < 0) return { entries: path.filter(contributes) };
  const compaction = path[compactionAt]!;
  const firstIndex = path.findIndex((i) => sk.types[i] === "compaction" && sk.keys[i] === sk.keys[compaction]);
  const out = [compaction];
  const firstKept = sk.firstKept.get(compaction);
  let found = false;
  for (let k = 0; k < firstIndex; k++) {
    const i = path[k]!;
    if (firstKept !== undefined && sk.keys[i] === firstKept) found = true;
    if (found && contributes(i)) out.push(i);
  }
  for (let k = firstIndex + 1; k < path.length; k++) if (contributes(path[k]!)) out.push(path[k]!);
  return { entries: out };
}
