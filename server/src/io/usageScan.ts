/**
 * One session file read for `usage`: streamed line by line (`lineReader.ts`), each line parsed as
 * Pi 1.x's `loadEntriesFromFile` parses it (`piLines.ts`), and each entry's usage taken as Pi's
 * `/session` takes it (`core/disk/usage.ts`). Memory is one chunk, the current line and one sum
 * per group (at most `MAX_GROUPS`), whatever the file's size; the answer is small and plain data,
 * so that a worker thread can send it (`usageWorker.ts`).
 *
 * Two sums are kept side by side: Pi's own (`PiUsageTotals`, every value as it is, throwing or
 * turning into NaN where Pi does), to say what `/session` shows for the file, and the sums of the
 * usages whose numbers are all finite, grouped, which `usage` prints. On a file whose usages are
 * all sound the two are the same additions in the same order, so equal to the last bit.
 */

import { looseText, safeSlice } from "../core/base/text";
import { headerFault, noHeaderFault } from "../core/disk/header";
import { PiLineFeed } from "../core/disk/piLines";
import {
  addTotals,
  breakdownKey,
  checkedUsage,
  newUsageTotals,
  PiUsageTotals,
  statsAdds,
  type UsageSlot,
  type UsageTotals,
  usageSlot,
  utcDay,
} from "../core/disk/usage";
import { LastSessionName } from "../core/session/rules";
import { kindOf, readLinesSync } from "./lineReader";
import { statSync } from "node:fs";

export type UsageGrouping = "day" | "model" | "project" | "session";

export interface UsageTask {
  path: string;
  by: UsageGrouping;
  /** Only usages from this UTC day on (`YYYY-MM-DD`), and up to `until` included. */
  since?: string | undefined;
  until?: string | undefined;
  maxLineBytes?: number;
}

/** A group's key when an entry has no ISO `timestamp` (by day). */
export const NO_DATE = "(no date)";
/** The group the usages of keys past `MAX_GROUPS` are added to. */
export const OTHER_GROUP = "(other)";
/** Distinct groups kept per file: a hostile file with a million model names stays small. */
export const MAX_GROUPS = 1000;
/** A key longer than this (a model name of megabytes) is cut, on a code point boundary. */
const MAX_KEY = 200;

export interface FileUsage {
  path: string;
  size: number;
  /** Why the file is not counted: it cannot be read, or Pi does not open it. */
  skipped?: string;
  id?: string;
  /** The session's name (its last `session_info`), if it has one. */
  name?: string;
  /** The header's `cwd`, as text. */
  cwd?: string;
  /** The sums by group, in the order the groups were first met. */
  groups: [string, UsageTotals][];
  /** The file's sums (of the usages kept), added in file order. */
  total: UsageTotals;
  /** Usages counted. */
  counted: number;
  /** Usages left out because their five numbers are not all finite numbers. */
  odd: number;
  /** Usages without an ISO `timestamp`, left out by `--since`/`--until`. */
  undated: number;
  /** Usages left out by `--since`/`--until`. */
  outside: number;
  /** Pi's own `/session` totals on the file, or what it throws. */
  pi?: { totals: UsageTotals } | { throws: string };
  /** Lines too long to read, whose usage is not counted. */
  unreadLines: number;
  /** What takes the file's bytes: the base64 data of inline images, and the rest of the tool results' lines. */
  space: { images: number; toolResults: number };
}

type Obj = Record<string, unknown>;

/** Reads one file's usage; never throws (a file that cannot be read is `skipped`). */
export function scanUsage(task: UsageTask, onBytes?: (bytes: number) => void): FileUsage {
  const result: FileUsage = {
    path: task.path,
    size: 0,
    groups: [],
    total: newUsageTotals(),
    counted: 0,
    odd: 0,
    undated: 0,
    outside: 0,
    unreadLines: 0,
    space: { images: 0, toolResults: 0 },
  };
  try {
    const stat = statSync(task.path);
    result.size = stat.size;
    if (!stat.isFile()) return { ...result, skipped: `it is ${kindOf(stat)}, not a regular file` };
  } catch (error) {
    return { ...result, skipped: (error as Error).message };
  }
  const reader = new UsageReader(task, result);
  try {
    let read = 0;
    readLinesSync(
      task.path,
      (text, meta) => {
        if (text === undefined) result.unreadLines++;
        else reader.feed.line(text, meta);
        return reader.refused === undefined ? undefined : false;
      },
      {
        maxLineBytes: task.maxLineBytes,
        onChunk: (bytes) => {
          read += bytes;
          onBytes?.(bytes);
        },
      },
    );
    if (read < result.size) onBytes?.(result.size - read);
  } catch (error) {
    return { ...result, skipped: (error as Error).message };
  }
  return reader.finish();
}

class UsageReader {
  readonly feed: PiLineFeed;
  refused: string | undefined;
  private header: Obj | undefined;
  private readonly pi = new PiUsageTotals();
  private readonly name = new LastSessionName();
  private readonly groups = new Map<string, UsageTotals>();

  constructor(
    private readonly task: UsageTask,
    private readonly result: FileUsage,
  ) {
    this.feed = new PiLineFeed("load16", (value, _text, place) => {
      this.value(value as Obj, place.line);
      this.measure(value as Obj, place.bytes);
    });
  }

  /** Where a line's bytes go: its images' base64 data, and a tool result's other bytes. */
  private measure(entry: Obj, bytes: number): void {
    const message = entry?.type === "message" ? (entry.message as Obj | null) : entry?.type === "custom_message" ? entry : undefined;
    if (message === null || typeof message !== "object") return;
    let images = 0;
    if (Array.isArray(message.content))
      for (const block of message.content as unknown[]) {
        const b = block as Obj | null;
        if (b !== null && typeof b === "object" && b.type === "image" && typeof b.data === "string") images += b.data.length;
      }
    this.result.space.images += images;
    if (message.role === "toolResult") this.result.space.toolResults += Math.max(0, bytes + 1 - images);
  }

  private value(entry: Obj, line: number): void {
    if (this.refused !== undefined) return;
    if (this.header === undefined) {
      this.refused = headerFault(entry, line);
      if (this.refused === undefined) this.header = entry;
      return;
    }
    // Pi's `getEntries()` leaves out every entry typed "session", not only the first.
    if (entry.type === "session") return;
    this.name.observe(entry);
    this.pi.step(entry);
    let slot: UsageSlot | undefined;
    try {
      slot = usageSlot(entry);
    } catch {
      // A message entry without a message: it carries no usage (Pi's /session throws, said from `pi`).
      return;
    }
    if (slot === undefined || !statsAdds(slot)) return;
    const usage = checkedUsage(slot.usage);
    if (usage === undefined) {
      this.result.odd++;
      return;
    }
    this.add(entry, slot, usage);
  }

  private add(entry: Obj, slot: UsageSlot, usage: UsageTotals): void {
    const { task, result } = this;
    const day = utcDay(entry.timestamp);
    if (task.since !== undefined || task.until !== undefined) {
      if (day === undefined) {
        result.undated++;
        return;
      }
      if ((task.since !== undefined && day < task.since) || (task.until !== undefined && day > task.until)) {
        result.outside++;
        return;
      }
    }
    const key = this.keyOf(slot, day);
    let sums = this.groups.get(key);
    if (sums === undefined) {
      const over = this.groups.size >= MAX_GROUPS;
      const kept = over ? OTHER_GROUP : key;
      sums = this.groups.get(kept);
      if (sums === undefined) this.groups.set(kept, (sums = newUsageTotals()));
    }
    addTotals(sums, usage);
    addTotals(result.total, usage);
    result.counted++;
  }

  private keyOf(slot: UsageSlot, day: string | undefined): string {
    switch (this.task.by) {
      case "day":
        return day ?? NO_DATE;
      case "model":
        return safeSlice(breakdownKey(slot), MAX_KEY);
      case "project":
        return safeSlice(looseText(this.header!.cwd), MAX_KEY);
      default:
        return this.task.path;
    }
  }

  finish(): FileUsage {
    this.feed.end();
    const result = this.result;
    if (this.header === undefined && this.refused === undefined) {
      const fault = noHeaderFault(result.size);
      // Pi opens an empty file (it writes a fresh header into it): a session that cost nothing.
      if (fault.load === "empty") return { ...result, pi: { totals: newUsageTotals() } };
      this.refused = fault.message;
    }
    if (this.refused !== undefined) return { ...result, skipped: `Pi does not open it: ${this.refused}` };
    const header = this.header!;
    const name = this.name.name;
    return {
      ...result,
      id: safeSlice(header.id as string, MAX_KEY),
      ...(name !== undefined ? { name: safeSlice(name, MAX_KEY) } : {}),
      cwd: safeSlice(looseText(header.cwd), 4096),
      groups: [...this.groups],
      pi: this.pi.statsThrow !== undefined ? { throws: this.pi.statsThrow } : { totals: { ...this.pi.totals } },
    };
  }
}
