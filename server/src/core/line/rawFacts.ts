/**
 * A scan of a session's raw UTF-8 bytes for what Pi's index needs of every line, without
 * `JSON.parse`: whether the line is blank, valid JSON or not, and for a valid object its top-level
 * `type`, `id`, `parentId` and whether it has a non-null `message`.
 *
 * `context FILE` parses only the lines its answer reads (`scannedContext.ts`); every other line is
 * only scanned here. The scan is a complete JSON validator, as strict as `JSON.parse` (strings
 * without raw control characters and with valid escapes, numbers by the grammar, literals, commas
 * and colons in their places, nothing but whitespace after the value), so that a line the scan
 * calls valid is exactly a line `JSON.parse` accepts, and its top-level keys are the last of each
 * name, as `JSON.parse` keeps them. It does no allocation per byte: strings are walked byte by byte
 * in a tight loop, and only the short values it reports are decoded (`rawStrings.ts`).
 *
 * Whatever the scan cannot decide for sure it reports as `unsure` (a line that does not start with
 * `{`, whitespace Pi's `trim()` knows but JSON does not, an `id` that is not a string, a `parentId`
 * that is neither a string nor null, nesting deeper than `MAX_DEPTH`), and the caller takes the
 * full path instead. Pure: bytes in, facts out.
 */

import { decodeRange, decodeShort, sameBytes, stringValue, typeOf } from "./rawStrings";

/** What the scan found on one line. */
export enum LineKind {
  Blank = 0,
  /** Not JSON: Pi skips it. */
  Invalid = 1,
  /** A JSON object, with its facts in the `ScannedFacts` passed in. */
  Object = 2,
  /** The scan cannot tell for sure what Pi makes of the line. */
  Unsure = 3,
}

/** The top-level facts of an object line; the scan overwrites every field. */
export interface ScannedFacts {
  /** `type` when it is a string. */
  type: string | undefined;
  /** `id`: a string, or undefined when absent. */
  id: string | undefined;
  /** `parentId`: a string, null, or undefined when absent. */
  parentId: string | null | undefined;
  /** Whether a `message` key is present with a value other than null. */
  hasMessage: boolean;
  /**
   * Whether `id` is neither a string nor absent (`oddId`), or `parentId` neither a string, null nor
   * absent (`oddParent`): Pi keys and follows such values too, which is left to the full path.
   */
  oddId: boolean;
  oddParent: boolean;
  /**
   * Where the id of the last line that had one lies, and its text: almost every line's `parentId`
   * is the line before's id, whose string is then reused instead of decoded again. Kept between
   * lines, so one `ScannedFacts` serves the lines of one buffer, in order.
   */
  lastId?: { start: number; end: number; value: string } | undefined;
}

/** Nesting deeper than this is left to the full path (and to `JSON.parse`'s own limits). */
const MAX_DEPTH = 1000;

/** The open containers of the line being scanned, outermost first: 1 for an object, 0 for an array. */
const stack = new Uint8Array(MAX_DEPTH);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

// The top-level keys the scan reports.
const OTHER = 0;
const TYPE = 1;
const ID = 2;
const PARENT_ID = 3;
const MESSAGE = 4;

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Whether `trim()` leaves nothing of the ASCII bytes `[start, end)` (false as soon as one is not ASCII whitespace). */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c !== 0x20 && (c < 0x09 || c > 0x0d)) return false;
  }
  return true;
}

/** Where the id of the line before the one being scanned lies, and its text (module variables: no allocation per line). */
let previousStart = -1;
let previousEnd = -1;
let previousValue: string | undefined;

/** Whether the last string `stringEnd` passed holds an escape (a module variable: no allocation per string). */
let lastEscaped = false;

/** The bytes being scanned, read four at a time through `words` (over the whole buffer, so `offset` places `bytes` in it). */
let wordBytes: Uint8Array | undefined;
let words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
let offset = 0;

function useWords(bytes: Uint8Array): void {
  if (bytes === wordBytes) return;
  wordBytes = bytes;
  words = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
  offset = bytes.byteOffset;
}

/**
 * The end of the string whose opening quote is at `start` (the offset after its closing quote), or
 * -1 when it is not a valid JSON string before `end`; `lastEscaped` tells whether it holds an escape.
 * Most of a session is string content, so it is skipped four bytes at a time while no byte is a
 * quote, a backslash or a control character (the word tests of "Bit Twiddling Hacks": a byte below
 * 0x20, a byte equal to 0x22 or 0x5c), and read byte by byte only around those.
 */
function stringEnd(bytes: Uint8Array, start: number, end: number): number {
  let i = start + 1;
  let sawEscape = false;
  while (i < end) {
    if (((offset + i) & 3) === 0) {
      while (i + 8 <= end) {
        const k = (offset + i) >>> 2;
        if (special(words[k]!) || special(words[k + 1]!)) break;
        i += 8;
      }
      if (i + 4 <= end && !special(words[(offset + i) >>> 2]!)) i += 4;
      if (i >= end) break;
    }
    const c = bytes[i]!;
    if (c === QUOTE) {
      lastEscaped = sawEscape;
      return i + 1;
    }
    if (c === BACKSLASH) {
      sawEscape = true;
      const next = bytes[i + 1];
      if (next === 0x75) {
        if (i + 6 > end) return -1;
        for (let k = i + 2; k < i + 6; k++) if (!isHex(bytes[k]!)) return -1;
        i += 6;
      } else if (next === QUOTE || next === BACKSLASH || next === 0x2f || next === 0x62 || next === 0x66 || next === 0x6e || next === 0x72 || next === 0x74) {
        i += 2;
      } else return -1;
    } else if (c < 0x20) return -1;
    else i++;
  }
  return -1;
}

/** Whether one of the four bytes of `w` is a quote, a backslash or below 0x20. */
function special(w: number): boolean {
  const q = w ^ 0x22222222;
  const b = w ^ 0x5c5c5c5c;
  return ((((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080) !== 0;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** The end of the JSON number starting at `start`, or -1 when the grammar does not allow it. */
function numberEnd(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  if (bytes[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i])) while (i < end && isDigit(bytes[i])) i++;
  else return -1;
  if (i < end && bytes[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(bytes[i])) return -1;
    while (i < end && isDigit(bytes[i])) i++;
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    i++;
    if (i < end && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
    if (i >= end || !isDigit(bytes[i])) return -1;
    while (i < end && isDigit(bytes[i])) i++;
  }
  return i;
}

/** The end of the literal `word` at `start`, or -1. */
function literalEnd(bytes: Uint8Array, start: number, end: number, word: string): number {
  if (start + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (bytes[start + k] !== word.charCodeAt(k)) return -1;
  return start + word.length;
}

/** Which of the keys the scan reports the key string `[start, end)` (quotes included) is. */
function keyOf(bytes: Uint8Array, start: number, end: number, escaped: boolean): number {
  if (escaped) {
    const name = JSON.parse(decodeRange(bytes, start, end)) as string;
    return name === "type" ? TYPE : name === "id" ? ID : name === "parentId" ? PARENT_ID : name === "message" ? MESSAGE : OTHER;
  }
  // Told apart by length first: most keys are none of the four.
  switch (end - start - 2) {
    case 2:
      return literalEnd(bytes, start + 1, end - 1, "id") > 0 ? ID : OTHER;
    case 4:
      return literalEnd(bytes, start + 1, end - 1, "type") > 0 ? TYPE : OTHER;
    case 7:
      return literalEnd(bytes, start + 1, end - 1, "message") > 0 ? MESSAGE : OTHER;
    case 8:
      return literalEnd(bytes, start + 1, end - 1, "parentId") > 0 ? PARENT_ID : OTHER;
    default:
      return OTHER;
  }
}

// Where the scan is in the grammar.
/** After `{`: a key or `}`. */
const KEY_OR_CLOSE = 0;
/** After `,` in an object: a key. */
const KEY = 1;
/** After `:`, or `,` in an array: a value. */
const VALUE = 2;
/** After `[`: a value or `]`. */
const VALUE_OR_CLOSE = 3;
/** After a value: `,` or the container's close. */
const AFTER_VALUE = 4;

/**
 * Scans the line `bytes[start, end)` (no `"\n"` inside). For an object line, `facts` holds its
 * top-level facts afterwards.
 */
export function rawFacts(bytes: Uint8Array, start: number, end: number, facts: ScannedFacts): LineKind {
  if (start >= end) return LineKind.Blank;
  if (bytes[start] !== OPEN_BRACE) return isBlank(bytes, start, end) ? LineKind.Blank : LineKind.Unsure;
  useWords(bytes);
  // The previous line's id, copied before this line's id rewrites the record.
  const last = facts.lastId;
  previousStart = last === undefined ? -1 : last.start;
  previousEnd = last === undefined ? -1 : last.end;
  previousValue = last?.value;
  facts.type = undefined;
  facts.id = undefined;
  facts.parentId = undefined;
  facts.hasMessage = false;
  facts.oddId = false;
  facts.oddParent = false;
  stack[0] = 1;
  let depth = 1;
  let state = KEY_OR_CLOSE;
  let key = OTHER;
  let i = start + 1;
  for (;;) {
    while (i < end && isJsonSpace(bytes[i]!)) i++;
    if (i >= end) return LineKind.Invalid;
    const c = bytes[i]!;
    // An empty container closes on the same path as one closed after a value: V8 optimises the
    // scan within the first lines, and a path it has not seen run yet (the first `[]`, much later)
    // would send it back to the interpreter and have it compiled again (25 ms of a 45 MB scan).
    const closesEmpty = (state === KEY_OR_CLOSE && c === CLOSE_BRACE) || (state === VALUE_OR_CLOSE && c === CLOSE_BRACKET);
    if (state === AFTER_VALUE || closesEmpty) {
      const top = stack[depth - 1]!;
      if (c === COMMA) {
        state = top === 1 ? KEY : VALUE;
        i++;
        continue;
      }
      if (c !== (top === 1 ? CLOSE_BRACE : CLOSE_BRACKET)) return LineKind.Invalid;
      depth--;
      i++;
    } else if (state === KEY_OR_CLOSE || state === KEY) {
      if (c !== QUOTE) return LineKind.Invalid;
      const keyEnd = stringEnd(bytes, i, end);
      if (keyEnd < 0) return LineKind.Invalid;
      if (depth === 1) key = keyOf(bytes, i, keyEnd, lastEscaped);
      i = keyEnd;
      while (i < end && isJsonSpace(bytes[i]!)) i++;
      if (i >= end || bytes[i] !== COLON) return LineKind.Invalid;
      i++;
      state = VALUE;
      continue;
    } else {
      const topLevel = depth === 1 && key !== OTHER;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (topLevel) recordOther(facts, key, false);
        if (depth >= MAX_DEPTH) return LineKind.Unsure;
        stack[depth++] = c === OPEN_BRACE ? 1 : 0;
        state = c === OPEN_BRACE ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
        i++;
        continue;
      }
      let valueEnd: number;
      if (c === QUOTE) {
        valueEnd = stringEnd(bytes, i, end);
        if (valueEnd >= 0 && topLevel) recordString(facts, key, bytes, i, valueEnd, lastEscaped);
      } else {
        if (c === 0x2d || isDigit(c)) valueEnd = numberEnd(bytes, i, end);
        else if (c === 0x74) valueEnd = literalEnd(bytes, i, end, "true");
        else if (c === 0x66) valueEnd = literalEnd(bytes, i, end, "false");
        else if (c === 0x6e) valueEnd = literalEnd(bytes, i, end, "null");
        else return LineKind.Invalid;
        if (valueEnd >= 0 && topLevel) recordOther(facts, key, c === 0x6e);
      }
      if (valueEnd < 0) return LineKind.Invalid;
      i = valueEnd;
    }
    if (depth === 0) {
      while (i < end && isJsonSpace(bytes[i]!)) i++;
      if (i !== end) return LineKind.Invalid;
      return facts.oddId || facts.oddParent ? LineKind.Unsure : LineKind.Object;
    }
    state = AFTER_VALUE;
  }
}

/** A top-level string value of a reported key (a later key of the same name replaces it, as in `JSON.parse`). */
function recordString(facts: ScannedFacts, key: number, bytes: Uint8Array, start: number, end: number, escaped: boolean): void {
  if (key === MESSAGE) {
    facts.hasMessage = true;
    return;
  }
  if (escaped) {
    const value = stringValue(bytes, start, end, true);
    if (key === TYPE) facts.type = value;
    else if (key === ID) {
      facts.id = value;
      facts.oddId = false;
    } else if (key === PARENT_ID) {
      facts.parentId = value;
      facts.oddParent = false;
    }
    return;
  }
  const from = start + 1;
  const to = end - 1;
  if (key === TYPE) facts.type = typeOf(bytes, from, to);
  else if (key === ID) {
    const value = decodeShort(bytes, from, to);
    facts.id = value;
    facts.oddId = false;
    // One record per buffer, rewritten for each id: an object a line was garbage for the collector.
    const last = (facts.lastId ??= { start: from, end: to, value });
    last.start = from;
    last.end = to;
    last.value = value;
  } else if (key === PARENT_ID) {
    facts.parentId =
      previousValue !== undefined && previousEnd - previousStart === to - from && sameBytes(bytes, previousStart, from, to - from)
        ? previousValue
        : decodeShort(bytes, from, to);
    facts.oddParent = false;
  }
}

/** A top-level value of a reported key that is not a string: `null`, or a number, boolean, object or array. */
function recordOther(facts: ScannedFacts, key: number, isNull: boolean): void {
  if (key === TYPE) facts.type = undefined;
  else if (key === ID) {
    facts.id = undefined;
    facts.oddId = true;
  } else if (key === PARENT_ID) {
    facts.parentId = isNull ? null : undefined;
    facts.oddParent = !isNull;
  } else if (key === MESSAGE) facts.hasMessage = !isNull;
}
