/**
 * The parses of a batch of lines as plain data, so that another thread can parse lines for a
 * document: `packLines` runs `parseLine` on each line and keeps what `CachedValueLine` packs (the
 * ids, the time, the bits, the rare facts) or a malformed line's error, column by column so that a
 * structured clone of it is a few arrays of strings and numbers; `unpackLines` makes the `ParsedLine`s from that and the
 * document's own line texts. The result equals `parseLine` of each text: it is `parseLine`'s, packed
 * and unpacked by the same class, and a line whose parse is O(1) without `JSON.parse` (blank, or
 * not JSON from its first character) is not sent at all but parsed again by `unpackLines`.
 */

import { parseLine } from "./parse";
import { CachedValueLine, type PackedFacts, type RareFacts, unpackedLine } from "./record";
import type { ParsedLine } from "./facts";

/** What a line's parse is in a batch. */
enum Kind {
  /** Parsed again where the batch is unpacked (blank, not JSON from its first character, or with facts that are not plain data). */
  Again = 0,
  Value = 1,
  Malformed = 2,
}

export interface PackedBatch {
  /** The number of lines. */
  count: number;
  /** Their characters in all: both threads must have parsed the same texts. */
  chars: number;
  kinds: Uint8Array;
  /** Of the value lines, in order. */
  ids: (string | undefined)[];
  parents: (string | null | undefined)[];
  times: (number | undefined)[];
  bits: Int32Array;
  /** The rare facts of the value lines that have any, and the index (among value lines) of each. */
  rareAt: number[];
  rares: RareFacts[];
  /** The errors of the malformed lines, in order. */
  errors: string[];
}

/** Parses `texts` (JSON texts, as `parseLine` takes them) into a batch. */
export function packLines(texts: readonly string[]): PackedBatch {
  const count = texts.length;
  const kinds = new Uint8Array(count);
  const ids: (string | undefined)[] = [];
  const parents: (string | null | undefined)[] = [];
  const times: (number | undefined)[] = [];
  const bits: number[] = [];
  const rareAt: number[] = [];
  const rares: RareFacts[] = [];
  const errors: string[] = [];
  let chars = 0;
  for (let i = 0; i < count; i++) {
    const text = texts[i]!;
    chars += text.length;
    const parsed = parseLine(text);
    if (parsed instanceof CachedValueLine) {
      const facts: PackedFacts = CachedValueLine.packed(parsed);
      if (facts.rare && !plainData(facts.rare)) continue;
      kinds[i] = Kind.Value;
      if (facts.rare) {
        rareAt.push(ids.length);
        rares.push(facts.rare);
      }
      ids.push(facts.id);
      parents.push(facts.parentId);
      times.push(facts.time);
      bits.push(facts.bits);
    } else if (parsed.kind === "malformed" && Object.hasOwn(parsed, "error")) {
      // A plain malformed line carries `JSON.parse`'s message; the lazy kind (`UnparsableLine`) is
      // parsed again where it is unpacked, at no cost.
      kinds[i] = Kind.Malformed;
      errors.push(parsed.error);
    }
  }
  return { count, chars, kinds, ids, parents, times, bits: Int32Array.from(bits), rareAt, rares, errors };
}

/** Whether a value is a primitive, which a structured clone gives back as it was. */
function primitive(value: unknown): boolean {
  return value === null || typeof value !== "object";
}

/**
 * Whether rare facts cross threads unchanged: an id that is an object or an array (an `OpaqueId`)
 * would lose its class, and a model or thinking level that is a value of the line could be nested
 * too deep to clone; such a line is parsed again where it is unpacked.
 */
function plainData(rare: RareFacts): boolean {
  return (
    primitive(rare.idKey) &&
    primitive(rare.parentKey) &&
    primitive(rare.reference) &&
    primitive(rare.thinkingLevel) &&
    (rare.model === undefined || (primitive(rare.model.provider) && primitive(rare.model.modelId)))
  );
}

/**
 * Puts the parses of `batch` into `into` from index `first` on, for the texts `texts[first..]` (the
 * ones it was packed from); false, with nothing trusted, when the batch does not fit those texts.
 */
export function unpackLines(batch: PackedBatch, texts: readonly string[], first: number, into: ParsedLine[]): boolean {
  const { count, kinds } = batch;
  if (first + count > texts.length || kinds.length !== count) return false;
  let chars = 0;
  for (let i = 0; i < count; i++) chars += texts[first + i]!.length;
  // The text's last line keeps a "\r" that no "\n" follows, which the worker strips from every
  // piece it is sent (`io/parseWorker.ts`), and that line is parsed again where the parses are
  // taken: without this, the last batch never fitted and every worker parse was thrown away.
  const last = texts[texts.length - 1]!;
  if (first + count === texts.length && last.charCodeAt(last.length - 1) === 13) chars--;
  if (chars !== batch.chars) return false;
  let value = 0;
  let rare = 0;
  let error = 0;
  for (let i = 0; i < count; i++) {
    const text = texts[first + i]!;
    const kind = kinds[i];
    if (kind === Kind.Value) {
      const rareFacts = batch.rareAt[rare] === value ? batch.rares[rare++] : undefined;
      into[first + i] = unpackedLine(text, {
        id: batch.ids[value],
        parentId: batch.parents[value],
        time: batch.times[value],
        bits: batch.bits[value]!,
        rare: rareFacts,
      });
      value++;
    } else if (kind === Kind.Malformed) into[first + i] = { kind: "malformed", error: batch.errors[error++]! };
    else into[first + i] = parseLine(text);
  }
  return value === batch.bits.length && error === batch.errors.length && rare === batch.rares.length;
}

/**
 * Parses of a document's lines made elsewhere (another thread) while its text arrived, for the
 * document to take instead of parsing its lines itself (see `io/parsePool.ts`).
 */
export interface LineParses {
  /**
   * The parses of `lines` (the document's lines), equal to `parseHere` of each, which parses the
   * lines the other thread has not; undefined when they cannot be had, and the document then parses
   * every line itself. Called at most once; the parses are given up after it.
   */
  take(lines: readonly string[], parseHere: (text: string, line: number) => ParsedLine): ParsedLine[] | undefined;
  /** Gives the parses up, unused. */
  dispose(): void;
}
