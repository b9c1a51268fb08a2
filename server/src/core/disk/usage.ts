/**
 * The tokens and cost a session file records, as Pi 1.x counts them: `AgentSession#getSessionStats`
 * (what `/session` prints) and `getUsageCostBreakdown` (its cost per model) both go over every entry
 * of the file, every branch and what was compacted away, and take the `usage` of `usage` entries,
 * of assistant messages, of tool results that carry one, and of compactions and branch summaries
 * that carry one. `usageSlot` is that one step, shared by `info`'s totals (`stats.ts`) and `usage`.
 *
 * `PiUsageTotals` repeats Pi's loops with the same JavaScript arithmetic on the same values, in file
 * order, so that its sums are Pi's to the last bit and an odd value throws, or makes NaN, where it
 * does in Pi. `checkedUsage` is the other reading, for sums across files: a usage whose five
 * numbers are not all finite numbers is left out instead of poisoning the sum.
 */

import { looseString } from "../base/loose";
import { looseText } from "../base/text";
import { isoTime } from "../line/isoTime";

type Obj = Record<string, unknown>;

/** Pi's `UsageTotals`. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

export const newUsageTotals = (): UsageTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 });

/** Pi's `addUsageToTotals`, unchanged: it throws on a missing `usage` or `cost`, and sums whatever it is given, as Pi does. */
export function addUsage(totals: UsageTotals, usage: Obj): void {
  totals.input += usage.input as number;
  totals.output += usage.output as number;
  totals.cacheRead += usage.cacheRead as number;
  totals.cacheWrite += usage.cacheWrite as number;
  totals.cost += (usage.cost as Obj).total as number;
}

/** Where a usage comes from, which decides its key in Pi's breakdown. */
export type UsageSource = "assistant" | "usage" | "toolResult" | "summary";

/** The usage an entry carries for Pi's totals. */
export interface UsageSlot {
  source: UsageSource;
  /** The entry's (or its message's) `usage`, as it is: any JSON value, or undefined. */
  usage: unknown;
  /**
   * Whether `getSessionStats` adds it even when it is falsy (an assistant's, a `usage` entry's),
   * and so throws on a missing one; a tool result's or a summary's is added only when truthy.
   */
  always: boolean;
  /** The object Pi reads the breakdown key from: the message, or the `usage` entry. */
  owner: Obj;
}

/**
 * The usage an entry of the file carries, as both of Pi's loops find it, or undefined. It throws
 * where Pi's loops throw before they reach a usage (a message entry with a null `message`).
 */
export function usageSlot(entry: Obj): UsageSlot | undefined {
  const type = entry.type;
  if (type === "usage") return { source: "usage", usage: entry.usage, always: true, owner: entry };
  if (type === "branch_summary" || type === "compaction") return { source: "summary", usage: entry.usage, always: false, owner: entry };
  if (type !== "message") return undefined;
  const message = entry.message as Obj;
  // Pi reads `entry.message.role` unguarded: a missing message throws its TypeError here too.
  const role = message.role;
  if (role === "assistant") return { source: "assistant", usage: message.usage, always: true, owner: message };
  if (role === "toolResult") return { source: "toolResult", usage: message.usage, always: false, owner: message };
  return undefined;
}

/** Whether `getSessionStats` adds the slot's usage. */
export const statsAdds = (slot: UsageSlot): boolean => slot.always || Boolean(slot.usage);

/**
 * The slot's key in `getUsageCostBreakdown`: `provider/responseModel ?? model` for an assistant,
 * `provider/model` for a `usage` entry, "Tools/summaries" for the rest. The parts are made text as
 * the template literal makes them, without coercing a value (a deep array is shown short).
 */
export function breakdownKey(slot: UsageSlot): string {
  const o = slot.owner;
  if (slot.source === "assistant") return `${looseText(o.provider)}/${looseText(o.responseModel ?? o.model)}`;
  if (slot.source === "usage") return `${looseText(o.provider)}/${looseText(o.model)}`;
  return "Tools/summaries";
}

/** A usage's five numbers when each is a finite number; undefined for anything Pi would sum into NaN, a string or a throw. */
export function checkedUsage(usage: unknown): UsageTotals | undefined {
  if (usage === null || typeof usage !== "object" || Array.isArray(usage)) return undefined;
  const u = usage as Obj;
  const cost = u.cost as Obj | null | undefined;
  if (cost === null || typeof cost !== "object") return undefined;
  const values = [u.input, u.output, u.cacheRead, u.cacheWrite, cost.total];
  if (!values.every((v) => typeof v === "number" && Number.isFinite(v))) return undefined;
  const [input, output, cacheRead, cacheWrite, total] = values as number[];
  return { input: input!, output: output!, cacheRead: cacheRead!, cacheWrite: cacheWrite!, cost: total! };
}

/** Adds checked numbers, in the order Pi adds them. */
export function addTotals(into: UsageTotals, add: UsageTotals): void {
  into.input += add.input;
  into.output += add.output;
  into.cacheRead += add.cacheRead;
  into.cacheWrite += add.cacheWrite;
  into.cost += add.cost;
}

/** Pi's `total` of the tokens: the four sums added, as `getSessionStats` adds them. */
export const totalTokens = (t: UsageTotals): number => t.input + t.output + t.cacheRead + t.cacheWrite;

/** The UTC day (`YYYY-MM-DD`) of an entry's ISO `timestamp`, or undefined when it has none Pi wrote. */
export function utcDay(timestamp: unknown): string | undefined {
  if (typeof timestamp !== "string") return undefined;
  const time = isoTime(timestamp);
  if (time === undefined) return undefined;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().slice(0, 10);
}

/**
 * `breakdownKey` as Pi's template literal makes it, throwing what V8 throws where it cannot make a
 * part text (a deep array overflows the stack; an object with its own `toString` has no primitive).
 */
function piKey(slot: UsageSlot): string {
  const o = slot.owner;
  const parts = slot.source === "assistant" ? [o.provider, o.responseModel ?? o.model] : slot.source === "usage" ? [o.provider, o.model] : [];
  for (const part of parts) {
    const text = looseString(part);
    if (typeof text === "object")
      throw text.error === "RangeError" ? new RangeError("Maximum call stack size exceeded") : new TypeError("Cannot convert object to primitive value");
  }
  return breakdownKey(slot);
}

const errorText = (error: unknown) => `${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}`;

/** Pi 1.x `getSessionStats`'s counts. */
export interface MessageCounts {
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  totalMessages: number;
}

/**
 * Pi 1.x `getSessionStats` and `getUsageCostBreakdown`, one entry at a time in file order, with
 * Pi's arithmetic (so equal to the last bit) and Pi's failures (the first error ends a loop, as
 * it ends Pi's).
 */
export class PiUsageTotals {
  readonly totals = newUsageTotals();
  readonly counts: MessageCounts = { userMessages: 0, assistantMessages: 0, toolCalls: 0, toolResults: 0, totalMessages: 0 };
  /** What `getSessionStats` throws on this file, once it has. */
  statsThrow: string | undefined;
  readonly breakdown = new Map<string, UsageTotals>();
  breakdownThrow: string | undefined;

  /** One entry (not the header), as Pi's `getEntries()` gives it. */
  step(entry: Obj): void {
    let slot: UsageSlot | undefined;
    let slotThrow: string | undefined;
    try {
      slot = usageSlot(entry);
    } catch (error) {
      slotThrow = errorText(error);
    }
    this.stats(entry, slot, slotThrow);
    this.breakdownStep(slot, slotThrow);
  }

  private stats(entry: Obj, slot: UsageSlot | undefined, slotThrow: string | undefined): void {
    if (this.statsThrow !== undefined) return;
    if (slotThrow !== undefined) {
      this.statsThrow = slotThrow;
      return;
    }
    try {
      if (slot && statsAdds(slot)) addUsage(this.totals, slot.usage as Obj);
      if (entry.type !== "message") return;
      const counts = this.counts;
      counts.totalMessages++;
      const message = entry.message as Obj;
      if (message.role === "user") counts.userMessages++;
      else if (message.role === "toolResult") counts.toolResults++;
      else if (message.role === "assistant") {
        counts.assistantMessages++;
        if (Array.isArray(message.content)) counts.toolCalls += (message.content as Obj[]).filter((c) => c.type === "toolCall").length;
      }
    } catch (error) {
      this.statsThrow = errorText(error);
    }
  }

  private breakdownStep(slot: UsageSlot | undefined, slotThrow: string | undefined): void {
    if (this.breakdownThrow !== undefined) return;
    if (slotThrow !== undefined) {
      this.breakdownThrow = slotThrow;
      return;
    }
    if (!slot?.usage) return;
    try {
      const key = piKey(slot);
      let totals = this.breakdown.get(key);
      if (!totals) this.breakdown.set(key, (totals = newUsageTotals()));
      addUsage(totals, slot.usage as Obj);
    } catch (error) {
      this.breakdownThrow = errorText(error);
    }
  }

  /** `getUsageCostBreakdown`'s answer, or what it throws. */
  breakdownRows(): { key: string; cost: number; tokens: number }[] | { throws: string } {
    if (this.breakdownThrow !== undefined) return { throws: this.breakdownThrow };
    return [...this.breakdown]
      .map(([key, v]) => ({ key, cost: v.cost, tokens: totalTokens(v) }))
      .filter((e) => e.cost > 0 || e.tokens > 0)
      .sort((a, b) => b.cost - a.cost);
  }
}
