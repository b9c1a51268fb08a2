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

/** Entries of a skeleton read back from the file one at a time. */
export class EntryReader {
  private readonly file: LineFile;
  private readonly cache = new Map<number, Obj | undefined>();

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
      const entry = this.entry(owners[k]!);
      const call = entry ? toolCallsOf(entry).get(id) : undefined;
      if (call) return call;
    }
    return undefined;
  }

  close(): void {
    this.file.close();
  }
}
