/**
 * One session file as Pi's session list sees it (`SessionManager.list` / `listAll`, through
 * `buildSessionInfo`), computed line by line so that a file of any size is read in bounded memory.
 *
 * Pi 1.x reads the file with `readline` (lines end at "\n", "\r\n" or a lone "\r"), skips blank,
 * unparsable and falsy lines, and drops the whole session from the list when its first entry is
 * not a `session` header or when any of its expressions throws on an odd value (a `session_info`
 * whose `name` is not a string, a `message` that is `null`, a user or assistant `content` that is
 * neither a string nor an array, a `null` content block). Pi 0.74 reads the whole file into one
 * string (so a file over V8's string limit, 512 MiB, is dropped), trims it, splits it on "\n",
 * keeps every parsed value (a `null` line then throws), and otherwise computes the same fields.
 * The code below repeats Pi's expressions on the parsed values, inside the same `try`, so an odd
 * value has exactly the effect it has in Pi.
 *
 * Besides Pi's fields it gathers what our listing shows (entries, branches) and, on request, what
 * the editor's workspace symbols need (`IndexSymbols`) and a search match (`SessionSearch`).
 */

import { type IdKey, idKeyOf } from "../base/ids";
import { PiIndex, VALUE_KEYS } from "../session/piIndex";
import { locate, type JsonPath } from "../line/locate";
import { type LinePlace as FilePlace, PiLineFeed } from "./piLines";
import type { PiVersion } from "./location";
import { shortValue } from "../base/text";
import { applyLabel, listedName } from "../session/rules";
import { type ParsedSearchQuery, type SearchMatch, SessionSearch } from "./search";

/** The fields of Pi's `SessionInfo` that its list returns, `allMessagesText` aside; dates as epoch milliseconds (NaN for an invalid date). */
export interface PiSessionInfo {
  path: string;
  id: unknown;
  cwd: string;
  name?: string;
  parentSessionPath?: unknown;
  created: number;
  modified: number;
  messageCount: number;
  firstMessage: string;
}

/** A place in the file: a 0-based line (lines end at "\n") and a UTF-16 range inside it. */
export interface LinePlace {
  line: number;
  start: number;
  end: number;
}

/** What the editor's workspace symbols list for a session that is not open. */
export interface IndexSymbols {
  id?: { text: string; at: LinePlace };
  /** The header's `parentSession` value, when it is a string. */
  parentSession?: LinePlace;
  name?: { text: string; at: LinePlace };
  firstMessage?: { text: string; at: LinePlace };
  labels: { text: string; at: LinePlace }[];
  /** Labels left out beyond `MAX_INDEX_LABELS`. */
  labelsCut: number;
}

export interface SessionScan {
  /** Pi's entry for the file; absent when Pi leaves the file out of its list. */
  info?: Omit<PiSessionInfo, "path">;
  /** Why Pi leaves the file out. */
  dropped?: string;
  /** The first parsed value, when it is an object (the header, or what Pi took for one). */
  header?: { id: unknown; cwd: unknown; parentSession: unknown; timestamp: unknown };
  /** Entries after the header. */
  entries: number;
  /** Tips of the tree: entries with a string id that no entry names as its parent. */
  branches: number;
  /** Lines the reader could not hold (longer than its limit); Pi 1.x would have read them. */
  unreadLines: number;
  /** The walk up from the leaf runs into a parent cycle: Pi cannot resume the session. */
  leafLoops?: true;
  search?: SearchMatch;
  symbols?: IndexSymbols;
}

export interface ScanOptions {
  search?: ParsedSearchQuery;
  symbols?: boolean;
}

export const MAX_INDEX_LABELS = 1000;
/** Longest symbol or preview text kept, in UTF-16 code units. */
const MAX_SYMBOL_TEXT = 200;

/** Pi's `extractTextContent`, on whatever `content` holds (it throws where Pi throws). */
function extractTextContent(content: unknown): string {
  if (typeof content === "string") return content;
  const blocks = content as { type?: unknown; text?: unknown }[];
  return blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(" ");
}

function clip(text: string): string {
  const flat = text
    .slice(0, MAX_SYMBOL_TEXT * 4)
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > MAX_SYMBOL_TEXT ? `${flat.slice(0, MAX_SYMBOL_TEXT - 1)}…` : flat;
}

/**
 * Where the value at `path` lies, in an editor's lines: `line` is the editor's line on which `text`
 * starts, and a lone "\r" inside `text` before the value (JSON whitespace, which a Pi 0.74 read
 * keeps in its text) moves it to a later line. The end stays on the start's line.
 */
function placeOf(text: string, line: number, path: JsonPath): LinePlace {
  const found = locate(text, path);
  if (!found) return { line, start: 0, end: Math.min(text.length, 1) };
  const { start, end } = found.value;
  const cr = text.lastIndexOf("\r", start - 1);
  if (start === 0 || cr < 0) return { line, start, end };
  let crs = 0;
  for (let at = text.indexOf("\r"); at >= 0 && at < start; at = text.indexOf("\r", at + 1)) crs++;
  const next = text.indexOf("\r", start);
  return { line: line + crs, start: start - cr - 1, end: (next >= 0 && next < end ? next : end) - cr - 1 };
}

/** How many of an editor's line breaks a Pi line holds inside: its "\r"s, but the one of a "\r\n" ending. */
function loneCarriageReturns(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) count++;
  return text.endsWith("\r") ? count - 1 : count;
}

class Dropped extends Error {}

/**
 * Feeds the lines of one file (split on "\n", as the line reader delivers them) through Pi's list
 * semantics for one version.
 */
export class SessionInfoBuilder {
  private header: Record<string, unknown> | undefined;
  private headerSeen = false;
  private dropped: string | undefined;
  private name: string | undefined;
  private messageCount = 0;
  private firstMessage = "";
  private lastActivityTime: number | undefined;
  private entries = 0;
  private unread = 0;
  private readonly ids = new Set<string>();
  private readonly parents = new Set<string>();
  private readonly search: SessionSearch | undefined;
  private readonly symbols: IndexSymbols | undefined;
  private readonly idLines = new Map<string, LinePlace>();
  private readonly labels = new Map<unknown, { text: string; at: LinePlace }>();
  private readonly feed: PiLineFeed;
  /** Pi's index of the entries and each entry's parent key, for the walk up from the leaf. */
  private readonly index = new PiIndex<IdKey, number>(VALUE_KEYS);
  private readonly parentKeys: IdKey[] = [];
  /**
   * The leaf is not judged when the entries read here may not be those Pi resumes from: a line
   * holds a "\r" (Pi 1.x's list, `readline`, splits it there and its loader does not), or a value
   * after the header is not an object (Pi's loader keeps it, with rules of its own).
   */
  private unjudged = false;
  /** The file starts with a byte order mark (which 1.x's `JSON.parse` refuses, so the line is skipped). */
  private bomFirst = false;

  constructor(
    readonly version: PiVersion,
    options: ScanOptions = {},
  ) {
    this.feed = new PiLineFeed(version === "1.x" ? "list16" : "whole074", (value, text, place) => this.entry(value, text, place));
    if (options.search) this.search = new SessionSearch(options.search);
    if (options.symbols) this.symbols = { labels: [], labelsCut: 0 };
  }

  /** Whether more lines can change the result (false once Pi would have dropped the file). */
  get wantsMore(): boolean {
    return this.dropped === undefined;
  }

  /** One line without its "\n"; `text` is undefined for a line too long to hold. */
  line(text: string | undefined, place: FilePlace): void {
    if (this.dropped !== undefined) return;
    if (place.start === 0 && text?.charCodeAt(0) === 0xfeff) this.bomFirst = true;
    if (this.version === "1.x" && text !== undefined && text.indexOf("\r") >= 0) this.unjudged = true;
    if (text === undefined) {
      this.unread++;
      return;
    }
    // The editor's index answers in an editor's lines, which a lone "\r" also ends: each line is
    // told on which of those it starts (a Pi 0.74 read parses a line only once the next has come).
    this.feed.line(text, this.loneCrs === 0 ? place : { ...place, lspLine: place.line + this.loneCrs });
    if (this.symbols) this.loneCrs += loneCarriageReturns(text);
  }

  /** The lone "\r"s of the lines read so far, for the editor's index (`symbols`). */
  private loneCrs = 0;

  private entry(value: unknown, text: string, place: FilePlace): void {
    if (this.dropped !== undefined) return;
    // The editor's line the text starts on, for the places the index keeps; `place.line` in messages.
    const line = (place.lspLine ?? place.line) + (place.piece ?? 0);
    try {
      if (!this.headerSeen) {
        this.headerSeen = true;
        const header = value as Record<string, unknown>;
        if (header.type !== "session") throw new Dropped("its first entry is not a session header");
        this.header = header;
        if (this.symbols && typeof header.id === "string") this.symbols.id = { text: clip(header.id), at: placeOf(text, line, ["id"]) };
        if (this.symbols && typeof header.parentSession === "string") this.symbols.parentSession = placeOf(text, line, ["parentSession"]);
        return;
      }
      this.gather(value as Record<string, unknown>, text, line);
      const entry = value as { type?: unknown; name?: { trim(): string } | null; message?: unknown; timestamp?: unknown };
      if (entry.type === "session_info") {
        this.name = listedName(entry);
        if (this.symbols) this.symbols.name = this.name ? { text: clip(this.name), at: placeOf(text, line, ["name"]) } : undefined;
      }
      if (entry.type !== "message") return;
      this.messageCount++;
      const message = entry.message as { role?: unknown; content?: unknown; timestamp?: unknown };
      if (!(typeof message.role === "string" && "content" in message)) return;
      if (message.role !== "user" && message.role !== "assistant") return;
      this.activity(message.timestamp, entry.timestamp);
      const textContent = extractTextContent(message.content);
      if (!textContent) return;
      this.search?.addMessage(textContent, { line: place.line, id: (entry as { id?: unknown }).id, role: message.role });
      if (!this.firstMessage && message.role === "user") {
        this.firstMessage = textContent;
        if (this.symbols) this.symbols.firstMessage = { text: clip(textContent), at: placeOf(text, line, ["message", "content"]) };
      }
    } catch (error) {
      this.dropped =
        error instanceof Dropped ? error.message : `Pi's list throws on line ${place.line + 1} (${error instanceof Error ? error.message : String(error)})`;
    }
  }

  /** `getMessageActivityTime` (1.x) / `getLastActivityTime` (0.74) for one user or assistant message. */
  private activity(messageTimestamp: unknown, entryTimestamp: unknown): void {
    let time: number | undefined;
    if (typeof messageTimestamp === "number") time = messageTimestamp;
    else if (this.version === "1.x" || typeof entryTimestamp === "string") {
      const t = new Date(entryTimestamp as string).getTime();
      time = Number.isNaN(t) ? undefined : t;
    }
    if (typeof time === "number") this.lastActivityTime = Math.max(this.lastActivityTime ?? 0, time);
  }

  /** What our listing and the editor's index add: entry ids and parents (for branches), labels. */
  private gather(entry: Record<string, unknown>, text: string, line: number): void {
    if (entry === null || typeof entry !== "object") {
      this.unjudged = true;
      return;
    }
    if (entry.type === "session") return;
    this.entries++;
    const { id, parentId } = entry;
    this.index.add(idKeyOf(id), this.parentKeys.length);
    this.parentKeys.push(idKeyOf(parentId));
    if (typeof id === "string") {
      this.ids.add(id);
      if (this.symbols) this.idLines.set(id, placeOf(text, line, ["id"]));
    }
    if (typeof parentId === "string") this.parents.add(parentId);
    if (this.symbols && entry.type === "label") {
      // Pi's `labelsById`: the last label entry per target wins, and an empty label clears it.
      applyLabel(this.labels, entry.targetId, entry.label, () => ({ text: clip(shortValue(entry.label)), at: placeOf(text, line, ["label"]) }));
    }
  }

  /** Whether Pi's walk up from the leaf loops (judged only when every line was read as Pi's loader reads it). */
  private leafLoops(): boolean {
    if (this.unjudged || this.unread > 0) return false;
    const leaf = this.index.leaf;
    return leaf !== undefined && this.index.walk(leaf, (i) => this.parentKeys[i]) === undefined;
  }

  /** The result, given the file's modification time, size and V8's longest string (`buffer.constants.MAX_STRING_LENGTH`). */
  finish(file: { mtimeMs: number; size: number; maxStringLength: number }): SessionScan {
    this.feed.end();
    if (this.version === "0.74") {
      if (file.size > file.maxStringLength && this.dropped === undefined) {
        this.dropped = `Pi 0.74 reads the whole file into one string, and at ${file.size} bytes it is longer than V8 allows (${file.maxStringLength})`;
      }
    }
    let leaves = 0;
    for (const id of this.ids) if (!this.parents.has(id)) leaves++;
    const header = this.header;
    const scan: SessionScan = {
      entries: this.entries,
      branches: leaves,
      unreadLines: this.unread,
    };
    if (this.leafLoops()) scan.leafLoops = true;
    if (header) scan.header = { id: header.id, cwd: header.cwd, parentSession: header.parentSession, timestamp: header.timestamp };
    if (this.dropped === undefined && !header)
      this.dropped = this.headerSeen ? "its first entry is not a session header" : file.size > 0 ? "no line of it parses as JSON" : "it has no entries";
    // Pi 1.x reads lines with `readline` and `JSON.parse`s each one as it is, so a byte order mark
    // (left by some Windows editors) makes the header line unparsable and it is skipped
    // (`parseSessionEntryLine`, core/session-manager.js:314); the file then has no header first.
    // Pi 0.74 trims the whole text first, which removes the mark.
    if (this.dropped !== undefined && !header && this.bomFirst && this.version === "1.x") {
      this.dropped += "; the file starts with a byte order mark (U+FEFF), which makes Pi skip the header line as unparsable";
    }
    if (this.dropped !== undefined) {
      scan.dropped = this.dropped;
      return scan;
    }
    const h = header!;
    const headerTime = typeof h.timestamp === "string" ? new Date(h.timestamp).getTime() : Number.NaN;
    const last = this.lastActivityTime;
    const info: Omit<PiSessionInfo, "path"> = {
      id: h.id,
      cwd: typeof h.cwd === "string" ? h.cwd : "",
      created: new Date(h.timestamp as string).getTime(),
      modified: typeof last === "number" && last > 0 ? new Date(last).getTime() : !Number.isNaN(headerTime) ? headerTime : file.mtimeMs,
      messageCount: this.messageCount,
      firstMessage: this.firstMessage || "(no messages)",
    };
    if (this.name !== undefined) info.name = this.name;
    if (h.parentSession !== undefined) info.parentSessionPath = h.parentSession;
    scan.info = info;
    if (this.search) {
      const match = this.search.finish({ id: info.id, name: info.name, cwd: info.cwd });
      if (match) scan.search = match;
    }
    if (this.symbols) {
      for (const [target, label] of this.labels) {
        if (this.symbols.labels.length >= MAX_INDEX_LABELS) {
          this.symbols.labelsCut++;
          continue;
        }
        const at = typeof target === "string" ? this.idLines.get(target) : undefined;
        this.symbols.labels.push({ text: label.text, at: at ?? label.at });
      }
      scan.symbols = this.symbols;
    }
    return scan;
  }
}

/** Pi 1.x's bound on the bytes `readSessionHeader` scans for the header (`MAX_SESSION_HEADER_SCAN_BYTES`). */
export const HEADER_SCAN_BYTES = 1024 * 1024;

/**
 * Pi 1.x `parseSessionHeaderCandidate` for one line (split on "\n"): "skip" for a blank,
 * unparsable or falsy line (the scan goes on), "none" for an entry that is not a valid header
 * (the file has none), or the header. `findById`, `continueRecent` and `open` read headers so.
 */
export function headerCandidate16(text: string): "skip" | "none" | "no-string-id" | Record<string, unknown> {
  if (!text.trim()) return "skip";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "skip";
  }
  if (!value) return "skip";
  const entry = value as Record<string, unknown>;
  if (entry.type !== "session") return "none";
  return typeof entry.id === "string" ? entry : "no-string-id";
}
