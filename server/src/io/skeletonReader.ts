/**
 * Reading a session's skeleton from disk in one streaming pass, and reading back single entries
 * (by the byte offsets the skeleton recorded) for the few rows an answer shows.
 */

import { type EntryObserver, type Skeleton, SkeletonBuilder } from "../core/disk/skeleton";
import type { PiVersion } from "../core/disk/location";
import { type ToolCallInfo, toolCallsOf } from "../core/disk/treeText";
import { LineFile, type ReadOptions, readLinesSync } from "./lineReader";

export function readSkeleton(path: string, version: PiVersion, observers: EntryObserver[] = [], options: ReadOptions = {}): Skeleton {
  const builder = new SkeletonBuilder(version, observers);
  readLinesSync(path, (text, meta) => builder.line(text, meta), options);
  return builder.finish();
}

type Obj = Record<string, unknown>;

/** The tool calls kept in `EntryReader`'s call maps at most (besides the last message's). */
const MAX_CACHED_CALLS = 100_000;

/** Entries of a skeleton read back from the file one at a time. */
export class EntryReader {
  private readonly file: LineFile;
  private readonly cache = new Map<number, Obj | undefined>();
  /**
   * The tool calls of each assistant message read for a tool result, by entry: one message may
   * hold thousands of calls, each answered by its own row, and building its map again for each
   * row made `tree --all` quadratic. Kept apart from `cache`, and cleared only when the maps hold
   * more than `MAX_CACHED_CALLS` calls, so a message with very many calls keeps its own map.
   */
  private readonly callMaps = new Map<number, Map<unknown, ToolCallInfo>>();
  private cachedCalls = 0;
  /** How many call maps were built, for the test that each message's is built once. */
  callMapsBuilt = 0;

  constructor(
    path: string,
    private readonly sk: Skeleton,
  ) {
    this.file = new LineFile(path);
  }

  /** The parsed entry `i`; undefined when its line can no longer be parsed (the file changed). */
  entry(i: number): Obj | undefined {
    if (this.cache.has(i)) return this.cache.get(i);
    const text = this.file.text(this.sk.starts[i]!, this.sk.byteLengths[i]!);
    let value: Obj | undefined;
    try {
      value = text === undefined ? undefined : (JSON.parse(text.trim()) as Obj);
    } catch {
      value = undefined;
    }
    // Pi migrates a version 1 or 2 file when it opens it: `hookMessage` roles become `custom`.
    const message = value?.type === "message" ? (value.message as Obj | null | undefined) : undefined;
    if (this.sk.migrates > 0 && message && message.role === "hookMessage") message.role = "custom";
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(i, value);
    return value;
  }

  /** The tool call a tool result answers, from the last assistant message (in file order) of the tree holding it. */
  toolCall(id: unknown, keyOf: (value: unknown) => string): ToolCallInfo | undefined {
    const owners = this.sk.toolCalls.get(keyOf(id));
    if (!owners) return undefined;
    for (let k = owners.length - 1; k >= 0; k--) {
      const call = this.callsOf(owners[k]!)?.get(id);
      if (call) return call;
    }
    return undefined;
  }

  private callsOf(i: number): Map<unknown, ToolCallInfo> | undefined {
    const known = this.callMaps.get(i);
    if (known) return known;
    const entry = this.entry(i);
    if (!entry) return undefined;
    const calls = toolCallsOf(entry);
    this.callMapsBuilt++;
    if (this.cachedCalls + calls.size > MAX_CACHED_CALLS) {
      this.callMaps.clear();
      this.cachedCalls = 0;
    }
    this.callMaps.set(i, calls);
    this.cachedCalls += calls.size;
    return calls;
  }

  close(): void {
    this.file.close();
  }
}
