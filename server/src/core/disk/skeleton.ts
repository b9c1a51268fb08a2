/**
 * The shape of a session, read line by line in bounded memory: what Pi's `open` keeps
 * (`loadEntriesFromFile` + `_buildIndex`) reduced to a few numbers and short strings per entry,
 * enough to rebuild Pi's tree (`getTree`), its leaf, labels and active path, for a file of any
 * size. The text of an entry is not kept: a second pass reads back only the lines an answer shows
 * (`starts` and `byteLengths` locate them).
 *
 * Ids are compared as Pi's `Map`s compare them, by value for strings and numbers and by identity
 * for objects, through `KeyMaker` (`skeletonKeys.ts`): every id, parent id and target id becomes a
 * string key.
 */

import { headerFault, noHeaderFault } from "./header";
import { dateTime } from "../base/loose";
import { PiIndex } from "../session/piIndex";
import { applyLabel } from "../session/rules";
import { ABSENT_KEY, DISK_KEYS, KeyMaker, NULL_KEY } from "./keys";
import { type LinePlace, PiLineFeed } from "./piLines";
import type { PiVersion } from "./location";

/** How Pi's `SessionManager.open` fares with the file. */
export type LoadState =
  /** It opens. */
  | "ok"
  /** The file has no entries at all (0 bytes, or only blank lines): Pi starts a fresh session in it. */
  | "empty"
  /** The first parsed line is not a header with a string id: 1.x refuses the file, 0.74 overwrites it. */
  | "invalid"
  /** Pi throws while reading it (0.74 on a `null` line). */
  | "throws";

export enum Role {
  None = 0,
  User = 1,
  Assistant = 2,
  ToolResult = 3,
  BashExecution = 4,
  Custom = 5,
  System = 6,
  Other = 7,
}

/** Per-entry flags. */
export enum Flag {
  /** `parentId === null`. */
  ParentNull = 1,
  /** `parentId === id`: Pi's `getTree` takes it for a root. */
  SelfParent = 2,
  /** An assistant message without text that is neither an error nor aborted: hidden in `/tree` unless it is the leaf. */
  QuietAssistant = 4,
  /** Pi's `/tree` throws on this entry (a `null` message, a text block whose text is not a string). */
  TreeThrows = 8,
  /** A branch summary with a truthy `summary` (it contributes a message to the context). */
  HasSummary = 16,
  /** A message entry whose `message` is null or missing (reading its role throws). */
  MessageMissing = 32,
  /** With `MessageMissing`: the message is `null` (else absent). */
  MessageNull = 64,
}

export interface Skeleton {
  version: PiVersion;
  load: LoadState;
  /** Why Pi does not open the file as it is, in words (also set, with `load` "ok", for a file Pi migrates). */
  loadMessage?: string;
  header?: Record<string, unknown>;
  headerLine?: number;
  /** Entries after the header, in file order (Pi's `getEntries()`). */
  n: number;
  keys: string[];
  /** The key of each entry's `parentId` (meaningless where `Flag.ParentNull` is set). */
  parentKeys: string[];
  types: string[];
  /** `new Date(timestamp).getTime()` of each entry (NaN when invalid), as `getTree` sorts by. */
  times: Float64Array;
  lines: Int32Array;
  starts: Float64Array;
  byteLengths: Float64Array;
  roles: Uint8Array;
  flags: Uint8Array;
  /** Pi's `labelsById` at the end of the file: target key → label. */
  labels: Map<string, unknown>;
  /** The key of each tool call id → the assistant entries holding such a tool call, in file order. */
  toolCalls: Map<string, number[]>;
  /** For each compaction entry: the key of its `firstKeptEntryId`. */
  firstKept: Map<number, string>;
  /**
   * Pi migrates the file when it opens it: 1 for a version 1 file (every entry gets a new id and
   * the entries become one chain; here the ids are placeholders), 2 for version 2 (`hookMessage`
   * roles become `custom`), 0 for none.
   */
  migrates: 0 | 1 | 2;
  /** The key of the leaf id (the last entry's `id`); undefined when there are no entries (leaf `null`). */
  leafKey: string | undefined;
  /** Lines longer than the reader holds: Pi would have read them, this skeleton skipped them. */
  unreadLines: number[];
  /** Lines Pi skips: blank ones aside, those it cannot parse (and 1.x's falsy values). */
  skippedLines: number;
  /** Lines Pi reads as a second header and ignores. */
  extraHeaders: number;
  bytes: number;
}

/** Called for each entry (after the header) with its parsed value and index. */
export type EntryObserver = (entry: unknown, index: number, text: string, place: LinePlace) => void;

const ROLES: Record<string, Role> = {
  user: Role.User,
  assistant: Role.Assistant,
  toolResult: Role.ToolResult,
  bashExecution: Role.BashExecution,
  custom: Role.Custom,
  system: Role.System,
};

/** Growable typed arrays for a count of entries not known in advance. */
function grow<T extends Float64Array | Int32Array | Uint8Array>(array: T, need: number, make: (n: number) => T): T {
  if (need <= array.length) return array;
  const next = make(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

/** Pi 1.6 `/tree`'s `hasTextContent`; throws where Pi throws (a truthy text that is not a string). */
function hasTextContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim().length > 0;
  if (Array.isArray(content)) {
    for (const c of content) {
      if (typeof c === "object" && c !== null && "type" in c && c.type === "text") {
        const text = (c as { text?: { trim(): string } }).text;
        if (text && text.trim().length > 0) return true;
      }
    }
  }
  return false;
}

export class SkeletonBuilder {
  private readonly feed: PiLineFeed;
  private readonly keyMaker = new KeyMaker();
  private readonly observers: EntryObserver[];
  private header: Record<string, unknown> | undefined;
  private headerLine: number | undefined;
  private headerSeen = false;
  private load: LoadState = "ok";
  private loadMessage: string | undefined;
  private n = 0;
  private keys: string[] = [];
  private parentKeys: string[] = [];
  private types: string[] = [];
  private typeNames = new Map<string, string>();
  private times = new Float64Array(1024);
  private lines = new Int32Array(1024);
  private starts = new Float64Array(1024);
  private byteLengths = new Float64Array(1024);
  private roles = new Uint8Array(1024);
  private flags = new Uint8Array(1024);
  private labels = new Map<string, unknown>();
  private toolCalls = new Map<string, number[]>();
  private firstKept = new Map<number, string>();
  private firstKeptIndex = new Map<number, number>();
  private unreadLines: number[] = [];
  private parsedLines = 0;
  private contentLines = 0;
  private extraHeaders = 0;
  private bytes = 0;

  constructor(
    readonly version: PiVersion,
    observers: EntryObserver[] = [],
  ) {
    this.observers = observers;
    this.feed = new PiLineFeed(version === "1.x" ? "load16" : "whole074", (value, text, place) => this.value(value, text, place));
  }

  /** One line without its "\n"; `text` undefined for a line too long to read. */
  line(text: string | undefined, place: LinePlace & { newline?: boolean }): void {
    this.bytes = Math.max(this.bytes, place.start + place.bytes + (place.newline ? 1 : 0));
    if (text === undefined) {
      this.unreadLines.push(place.line);
      return;
    }
    if (text.trim()) this.contentLines++;
    this.feed.line(text, place);
  }

  private value(value: unknown, text: string, place: LinePlace): void {
    this.parsedLines++;
    if (this.load !== "ok") return;
    if (!this.headerSeen) {
      this.headerSeen = true;
      if (value === null) {
        // Only 0.74 keeps a null value: `header.type` throws.
        this.load = "throws";
        this.loadMessage = `Pi 0.74 throws a TypeError reading line ${place.line + 1} (null)`;
        return;
      }
      const h = value as Record<string, unknown>;
      const wrong = headerFault(h, place.line);
      if (wrong !== undefined) {
        this.load = "invalid";
        this.loadMessage = wrong;
        return;
      }
      this.header = h;
      this.headerLine = place.line;
      return;
    }
    if (value === null) {
      this.load = "throws";
      this.loadMessage = `Pi 0.74 throws a TypeError reading line ${place.line + 1} (null)`;
      return;
    }
    const entry = value as Record<string, unknown>;
    if (entry.type === "session") {
      this.extraHeaders++;
      return;
    }
    this.add(entry, text, place);
  }

  private add(entry: Record<string, unknown>, text: string, place: LinePlace): void {
    const i = this.n++;
    const need = i + 1;
    this.times = grow(this.times, need, (k) => new Float64Array(k));
    this.lines = grow(this.lines, need, (k) => new Int32Array(k));
    this.starts = grow(this.starts, need, (k) => new Float64Array(k));
    this.byteLengths = grow(this.byteLengths, need, (k) => new Float64Array(k));
    this.roles = grow(this.roles, need, (k) => new Uint8Array(k));
    this.flags = grow(this.flags, need, (k) => new Uint8Array(k));
    const km = this.keyMaker;
    const key = km.key(entry.id);
    this.keys.push(key);
    const parentId = entry.parentId;
    let flags = 0;
    if (parentId === null) flags |= Flag.ParentNull;
    else if (parentId === entry.id) flags |= Flag.SelfParent;
    this.parentKeys.push(parentId === entry.id ? key : km.key(parentId));
    const type = typeof entry.type === "string" ? entry.type : `\u0000${typeof entry.type}`;
    let interned = this.typeNames.get(type);
    if (interned === undefined) {
      interned = type;
      this.typeNames.set(type, type);
    }
    this.types.push(interned);
    this.times[i] = dateTime(entry.timestamp);
    this.lines[i] = place.line;
    this.starts[i] = place.start;
    this.byteLengths[i] = place.bytes;
    if (entry.type === "label") {
      const target = km.key(entry.targetId);
      applyLabel(this.labels, target, entry.label, () => entry.label);
    }
    if (entry.type === "compaction") {
      this.firstKept.set(i, km.key(entry.firstKeptEntryId));
      if (typeof entry.firstKeptEntryIndex === "number") this.firstKeptIndex.set(i, entry.firstKeptEntryIndex);
    }
    if (entry.type === "branch_summary" && entry.summary) flags |= Flag.HasSummary;
    if (entry.type === "message") {
      const message = entry.message as Record<string, unknown> | null | undefined;
      if (message === null || message === undefined) flags |= Flag.MessageMissing | (message === null ? Flag.MessageNull : 0);
      try {
        const role = message!.role;
        this.roles[i] = typeof role === "string" ? (ROLES[role] ?? Role.Other) : Role.None;
        if (role === "assistant") {
          const content = message!.content;
          const stopReason = message!.stopReason;
          const errorOrAborted = stopReason && stopReason !== "stop" && stopReason !== "toolUse";
          if (!hasTextContent(content) && !errorOrAborted) flags |= Flag.QuietAssistant;
          if (Array.isArray(content)) {
            for (const block of content) {
              if (typeof block === "object" && block !== null && "type" in block && block.type === "toolCall") {
                const callKey = km.key((block as { id?: unknown }).id);
                const owners = this.toolCalls.get(callKey);
                if (owners) owners.push(i);
                else this.toolCalls.set(callKey, [i]);
              }
            }
          }
        }
      } catch {
        // `entry.message.role` on a null message, or `text.trim()` on a text that is not a string.
        flags |= Flag.TreeThrows;
      }
    }
    this.flags[i] = flags;
    for (const observe of this.observers) observe(entry, i, text, place);
  }

  /**
   * Pi's `migrateV1ToV2` on the skeleton: each entry gets a fresh id (random in Pi, a placeholder
   * here) whose parent is the previous entry's, and a compaction's `firstKeptEntryIndex` (an index
   * into the file's entries, header first) becomes the id of that entry, as assigned so far.
   */
  private migrateV1(): void {
    const n = this.n;
    for (let i = 0; i < n; i++) {
      this.keys[i] = `\u0000m${i}`;
      this.parentKeys[i] = i === 0 ? NULL_KEY : `\u0000m${i - 1}`;
      this.flags[i] = (this.flags[i]! & ~(Flag.ParentNull | Flag.SelfParent)) | (i === 0 ? Flag.ParentNull : 0);
    }
    this.labels.clear();
    for (const [i, index] of this.firstKeptIndex) {
      const target = index - 1;
      // Entries after the compaction have no id yet when it is migrated.
      if (index >= 1 && target < n) this.firstKept.set(i, target <= i ? `\u0000m${target}` : ABSENT_KEY);
    }
  }

  finish(): Skeleton {
    this.feed.end();
    let load = this.load;
    let loadMessage = this.loadMessage;
    if (load === "ok" && !this.headerSeen) {
      // Pi writes a fresh header into an empty file; one with only blank or unparsable lines is invalid.
      const fault = noHeaderFault(this.bytes);
      load = fault.load;
      loadMessage = fault.message;
    }
    const version = this.header ? (this.header.version ?? 1) : 3;
    let migrates: 0 | 1 | 2 = 0;
    if (load === "ok" && !((version as number) >= 3)) {
      // Pi's own loose comparisons (`version ?? 1`, `< 2`, `< 3`).
      migrates = (version as number) < 2 ? 1 : 2;
      if (migrates === 1) this.migrateV1();
      // Pi compares loosely (`version ?? 1`, `>= 3`), as here.
      loadMessage = `the header has version ${JSON.stringify(this.header?.version) ?? "1 (none)"}: Pi migrates the file to version 3 when it opens it and rewrites it${(version as number) < 2 ? ", with new random ids" : ""}`;
    }
    const n = this.n;
    const skeleton: Skeleton = {
      version: this.version,
      load,
      n,
      keys: this.keys,
      parentKeys: this.parentKeys,
      types: this.types,
      times: this.times.subarray(0, n),
      lines: this.lines.subarray(0, n),
      starts: this.starts.subarray(0, n),
      byteLengths: this.byteLengths.subarray(0, n),
      roles: this.roles.subarray(0, n),
      flags: this.flags.subarray(0, n),
      labels: this.labels,
      toolCalls: this.toolCalls,
      firstKept: this.firstKept,
      migrates,
      // Pi's `leafId`: the id of the last entry.
      leafKey: n > 0 ? this.keys[n - 1] : undefined,
      unreadLines: this.unreadLines,
      skippedLines: this.contentLines - this.parsedLines,
      extraHeaders: this.extraHeaders,
      bytes: this.bytes,
    };
    if (loadMessage !== undefined) skeleton.loadMessage = loadMessage;
    if (this.header) skeleton.header = this.header;
    if (this.headerLine !== undefined) skeleton.headerLine = this.headerLine;
    return skeleton;
  }
}

/** Pi's index of the skeleton's entries (`PiIndex`): each key's last entry, the leaf, the parent lookup. */
export function skeletonIndex(sk: Skeleton): PiIndex<string, number> {
  const index = new PiIndex<string, number>(DISK_KEYS);
  const { keys } = sk;
  for (let i = 0; i < sk.n; i++) index.add(keys[i]!, i);
  return index;
}

/**
 * Pi's walk up from `leaf` (`getBranch`, `buildSessionContext`): entry indices, leaf first,
 * following each parent `walkParentOf` finds. Undefined when the walk comes back to an entry, a
 * parent cycle on which Pi loops forever.
 */
export function walkUp(sk: Skeleton, index: PiIndex<string, number>, leaf: number | undefined): number[] | undefined {
  return index.walk(leaf, (i) => parentKeyOf(sk, i));
}

/** Whether Pi's walk up from the leaf loops: Pi cannot resume the session. */
export function leafWalkLoops(sk: Skeleton): boolean {
  const index = skeletonIndex(sk);
  return walkUp(sk, index, index.find(sk.leafKey)) === undefined;
}

/** What a session command says of a session whose walk up from the leaf loops. */
export const LEAF_LOOPS =
  'the walk up from the leaf runs into a parent cycle, so Pi cannot resume this session (Pi 1.x fails with "RangeError: Invalid array length", 0.73/0.74 hangs)';

/** The parent Pi's walk goes to from entry `i`: its `parentId`'s last holder, when that id is truthy. */
export function walkParentOf(sk: Skeleton, index: PiIndex<string, number>, i: number): number | undefined {
  return index.find(parentKeyOf(sk, i));
}

/** The key of entry `i`'s `parentId`, undefined for `null` (whose key is not to be read). */
function parentKeyOf(sk: Skeleton, i: number): string | undefined {
  return sk.flags[i]! & Flag.ParentNull ? undefined : sk.parentKeys[i]!;
}
