/**
 * The context Pi resumes with, from a session's raw bytes, parsing only the lines it reads.
 *
 * `context FILE` has one answer to give, and most of a long session is not in it: the lines off
 * the path, and on the path those before the last compaction, matter only through their `id`,
 * `parentId` and `type`. So every line is scanned (`line/rawFacts.ts`: valid or not, and those three
 * facts) to build Pi's index (`PiIndex`: the last entry of each id, the leaf the last entry)
 * and walk the path up from the leaf; only the lines the build reads (`contextOfPath`) are decoded
 * and parsed, on demand: their values (and their messages' roles) with `JSON.parse`, checked
 * against the scan, and the few other facts the build reads with the same `parseLine` as every
 * other reader (`ScannedLine`).
 *
 * It is a shortcut, never a second opinion: it answers only for a file it is sure of — no byte
 * order mark, a version 3 header, every line blank or an object with a string or absent `id` and
 * a string, null or absent `parentId`, a path without a cycle, a context that builds — and
 * returns undefined for any other, which the caller then builds the full way (`SessionDocument`
 * and `analyze`). Bytes that are not UTF-8 decode to U+FFFD line by line as they do in the whole
 * text, since "\n" never falls inside a sequence; the caller leaves UTF-16 to the full path. The
 * differential test (`test/cli/scannedContext.test.ts`) holds the two to the same bytes. Pure:
 * bytes in, a context out.
 */

import type { Entry } from "../session/entry";
import { PiIndex, VALUE_KEYS } from "../session/piIndex";
import { contextOfPath, type ContextResult, type PiFlavor } from "./buildContext";
import { LineKind, type ScannedFacts, rawFacts } from "../line/rawFacts";
import { decodeRange } from "../line/rawStrings";
import { type IdKey, idKeyOf } from "../base/ids";
import { parseLine, parseLineWith } from "../line/parse";
import type { LineFacts, ValueLine } from "../line/facts";
import { CachedValueLine } from "../line/record";

export interface ScannedContextOptions {
  flavor: PiFlavor;
  /** The entry to build from (`--leaf`); the file's last entry by default. */
  leafId: string | undefined;
}

/** Thrown when a parsed line disagrees with its scan, which would be a bug of the scan: the caller falls back. */
class ScanMismatch extends Error {}

/**
 * The context of the session `bytes`, or undefined when the shortcut is not sure of the file (the
 * full path then answers, with whatever it says of the file).
 */
export function scannedContext(bytes: Uint8Array, options: ScannedContextOptions): ContextResult | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  const index = scanIndex(bytes);
  if (!index) return undefined;
  const { parentIds, pi } = index;
  // The leaf asked for, else Pi's: the last entry (the scan takes no `null` id).
  const leaf = options.leafId !== undefined ? pi.byId.get(options.leafId) : pi.last;
  if (leaf === undefined) return undefined;
  // Pi's walk up from the leaf; a parent cycle the full path describes.
  const chain = pi.walk(leaf, (e) => parentIds[e]);
  if (!chain) return undefined;
  const path: Entry[] = [];
  for (let k = chain.length - 1; k >= 0; k--) path.push(lazyEntry(bytes, index, chain[k]!));
  try {
    // Built once and let go: each line's messages made for this flavor only, not filed for a next build.
    const result = contextOfPath(path, options.flavor, false);
    return result.ok ? result : undefined;
  } catch (error) {
    if (error instanceof ScanMismatch) return undefined;
    throw error;
  }
}

/** Pi's index of the scanned entries: per entry (in file order) its line, byte range and facts. */
export interface ScannedIndex {
  lines: number[];
  starts: number[];
  ends: number[];
  types: (string | undefined)[];
  ids: (string | undefined)[];
  parentIds: (string | null | undefined)[];
  hasMessage: boolean[];
  /** Pi's index of the entries by id (`PiIndex`), over their positions. */
  pi: PiIndex<IdKey, number>;
}

/**
 * Every line scanned, the header checked, the entries indexed; undefined when a line is one the
 * scan is unsure of, or the header is not a valid version 3 header (which the full path reports).
 */
export function scanIndex(bytes: Uint8Array): ScannedIndex | undefined {
  const index: ScannedIndex = { lines: [], starts: [], ends: [], types: [], ids: [], parentIds: [], hasMessage: [], pi: new PiIndex(VALUE_KEYS) };
  const facts: ScannedFacts = { type: undefined, id: undefined, parentId: undefined, hasMessage: false, oddId: false, oddParent: false };
  let header = false;
  let line = 0;
  for (let start = 0; start <= bytes.length; line++) {
    let nl = bytes.indexOf(0x0a, start);
    if (nl < 0) nl = bytes.length;
    // The document keeps the "\r" of a "\r\n" apart from the line's text.
    const end = nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
    const kind = rawFacts(bytes, start, end, facts);
    if (kind === LineKind.Unsure) return undefined;
    if (kind === LineKind.Object) {
      if (!header) {
        // The first line Pi can parse is the header: a session with a string id, at version 3.
        if (facts.type !== "session" || facts.id === undefined) return undefined;
        const value = JSON.parse(decodeRange(bytes, start, end)) as { version?: unknown };
        if (value.version !== 3) return undefined;
        header = true;
      } else if (facts.type !== "session") {
        // A later header is ignored; every other object is an entry.
        const entry = index.ids.length;
        index.lines.push(line);
        index.starts.push(start);
        index.ends.push(end);
        index.types.push(facts.type);
        index.ids.push(facts.id);
        index.parentIds.push(facts.parentId);
        index.hasMessage.push(facts.hasMessage);
        index.pi.add(facts.id, entry);
      }
    }
    start = nl + 1;
  }
  return header ? index : undefined;
}

function lazyEntry(bytes: Uint8Array, index: ScannedIndex, e: number): Entry {
  const id = index.ids[e];
  const parentId = index.parentIds[e];
  const type = index.types[e];
  const parsed = new ScannedLine(bytes, index.starts[e]!, index.ends[e]!, type, id, parentId, type === "message" && !index.hasMessage[e]);
  return { index: e, line: index.lines[e]!, parsed, id, parentId, key: id, parentKey: parentId, type };
}

/**
 * A line known from its scan: the facts the scan found are answered from it. Its value, which the
 * context prints, and the role of its message, which the build reads of many lines, come from one
 * `JSON.parse` checked against the scan; any other fact (read of a few lines: the settings, the
 * compaction's reference) parses the line with `parseLine` and checks that parse the same way.
 * The full parse on every line cost as much again as `JSON.parse` and compiled its fact-making
 * code (times, packed records) for a process that asks for none of it.
 */
class ScannedLine implements ValueLine {
  readonly kind = "value";
  private full: ValueLine | undefined;
  private parsedValue: Record<string, unknown> | undefined;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly start: number,
    private readonly end: number,
    readonly type: string | undefined,
    readonly id: string | undefined,
    readonly parentId: string | null | undefined,
    readonly noMessage: boolean,
  ) {}

  get idKey(): IdKey {
    return this.id;
  }

  get parentKey(): IdKey {
    return this.parentId;
  }

  get isObject(): boolean {
    return true;
  }

  get falsy(): boolean {
    return false;
  }

  /** The line's value, parsed once; a value that is not the object the scan found throws `ScanMismatch`. */
  get value(): Record<string, unknown> {
    if (this.parsedValue !== undefined) return this.parsedValue;
    let value: unknown;
    try {
      value = JSON.parse(decodeRange(this.bytes, this.start, this.end));
    } catch {
      throw new ScanMismatch("a line the scan took for JSON does not parse");
    }
    // The facts `parseLine` would find (`type`, the keys of `id` and `parentId`, a missing message), against the scan's.
    const o = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const type = typeof o?.type === "string" ? o.type : undefined;
    if (o === undefined || type !== this.type || idKeyOf(o.id) !== this.id || idKeyOf(o.parentId) !== this.parentId) {
      throw new ScanMismatch("a line's parse disagrees with its scan");
    }
    if ((type === "message" && (o.message === undefined || o.message === null)) !== this.noMessage) {
      throw new ScanMismatch("a line's parse disagrees with its scan");
    }
    this.parsedValue = o;
    return o;
  }

  get object(): Record<string, unknown> {
    return this.value;
  }

  /** `parseLine`'s role: that of a message entry's message, when it is a string. */
  get role(): string | undefined {
    if (this.type !== "message") return undefined;
    const message = this.value.message;
    const role = message !== null && typeof message === "object" ? (message as Record<string, unknown>).role : undefined;
    return typeof role === "string" ? role : undefined;
  }

  private parse(): ValueLine {
    if (this.full) return this.full;
    const { bytes, start, end } = this;
    const p = parseLineWith(decodeRange(bytes, start, end), (_text, facts) => new BufferValueLine(facts, bytes, start, end), false);
    if (p.kind !== "value" || p.type !== this.type || p.idKey !== this.id || p.parentKey !== this.parentId || p.noMessage !== this.noMessage || !p.isObject) {
      throw new ScanMismatch("a line's parse disagrees with its scan");
    }
    this.full = p;
    return p;
  }

  get model(): LineFacts["model"] {
    return this.parse().model;
  }
  get thinkingLevel(): unknown {
    return this.parse().thinkingLevel;
  }
  get time(): number | undefined {
    return this.parse().time;
  }
  get toolCallIds(): string[] | undefined {
    return this.parse().toolCallIds;
  }
  get toolResultId(): string | undefined {
    return this.parse().toolResultId;
  }
  get reference(): IdKey {
    return this.parse().reference;
  }
  get looksLikePi(): boolean {
    return this.parse().looksLikePi;
  }
  /** Parsed again with the checks: the context never reads a line's findings, so its parse leaves them out. */
  get findings(): LineFacts["findings"] {
    this.parse();
    const checked = parseLine(decodeRange(this.bytes, this.start, this.end));
    return checked.kind === "value" ? checked.findings : [];
  }
}

/**
 * A parsed line whose text is left in the session's bytes and decoded again if asked for: the
 * context keeps every value it prints, and holding each line's text besides (7 MB for the 45 MB
 * session) made the collector copy it from one generation to the next for nothing.
 */
class BufferValueLine extends CachedValueLine {
  constructor(
    facts: LineFacts,
    private readonly bytes: Uint8Array,
    private readonly start: number,
    private readonly end: number,
  ) {
    super(facts);
  }

  /** What the value cache counts the line by: its length in bytes, at least its length in characters. */
  get textLength(): number {
    return this.end - this.start;
  }

  get text(): string {
    return decodeRange(this.bytes, this.start, this.end);
  }
}
