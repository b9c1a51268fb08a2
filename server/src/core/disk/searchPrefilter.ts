/**
 * `find TEXT`'s byte prefilter: what a session file's raw bytes must hold for `/resume`'s search
 * (`search.ts`) to match it, so that only the files that could match are parsed. A file the
 * prefilter passes over must never be one the exact match finds; the rules below are derived from
 * what the exact match reads, and `test/sessions/searchPrefilter.test.ts` checks them.
 *
 * Every token of a query must match, each in one of four fields: the header's `id` and `cwd`, the
 * name of a `session_info` entry, or the text of the user and assistant messages. A literal or
 * phrase token matches a field's text lowercased (a phrase with whitespace runs as one space), so
 * the token's longest run of ASCII letters and digits (its anchor) appears, in some case, inside
 * one JSON string of the file, since a run holds no whitespace and the texts Pi joins are joined
 * with a space or a comma. The string holds each character of the run as itself, as a `\uXXXX`
 * escape, or as one of the two characters outside ASCII that lowercase to ASCII letters (U+212A
 * KELVIN SIGN to "k", U+0130 to "i" and a combining dot). The prefilter treats a file holding such
 * an escape or character as one that could match. A text block whose `text` is not a string is
 * joined as JavaScript prints it (`1e2` as "100", an object as "[object Object]"), so an anchor
 * that such a print could make (only digits and "e", or a piece of "infinity" or "object") is not
 * used. A fuzzy token (a word outside quotes) may also match its characters scattered in the name
 * or the cwd, which the prefilter tests on the header's cwd and on every name in the file.
 */

import { FoldedNeedle } from "../base/foldedSearch";
import { fuzzyMatch, type ParsedSearchQuery } from "./search";

export interface PrefilterToken {
  /** What the file's bytes must hold, lowercase ASCII letters and digits; undefined when nothing safe can be asked. */
  anchor?: string;
  /** For a phrase of several words, each of ASCII letters and digits: the words, which one line of the file must hold (`PhraseBytes`). */
  phrase?: string[];
  /** The token as typed, for a scattered match in the name or cwd, when it is a fuzzy token. */
  fuzzy?: string;
}

export interface PrefilterPlan {
  tokens: PrefilterToken[];
  /** Whether a file's names and cwd are needed for a fuzzy token. */
  wantsNames: boolean;
}

/** What the reader found in one file's bytes. */
export interface PrefilterFacts {
  /** Per token: its anchor occurs, in some ASCII case. */
  found: boolean[];
  /** The bytes hold a `\uXXXX` escape of a letter, digit or `_`, or a character that lowercases to an ASCII letter. */
  foldHazard: boolean;
  /** The header's `cwd` as Pi's list reads it, when the first line shows it plainly. */
  cwd?: string;
  /** Every name of a `session_info` entry in the file, when each was read plainly. */
  names?: string[];
}

/** Runs of letters and digits that JavaScript's printing of a number or an object can make. */
function printable(run: string): boolean {
  return /^[0-9e]+$/.test(run) || "infinity".includes(run) || "object".includes(run);
}

/** The longest run of lowercase ASCII letters and digits in a lowercased token that no non-string value can print. */
export function anchorOf(lowered: string): string | undefined {
  let best: string | undefined;
  for (const run of lowered.match(/[a-z0-9]+/g) ?? []) if (!printable(run) && (best === undefined || run.length > best.length)) best = run;
  return best;
}

/**
 * The prefilter for a parsed query, or undefined when it cannot rule out any file: a regular
 * expression (which may match anything), no tokens (every session matches), or no token with an
 * anchor.
 */
export function planPrefilter(query: ParsedSearchQuery): PrefilterPlan | undefined {
  if (query.mode !== "tokens" || query.error || query.tokens.length === 0) return undefined;
  const tokens = query.tokens.map((token): PrefilterToken => {
    const anchor = anchorOf(token.value.toLowerCase());
    if (token.kind === "fuzzy") return { anchor, fuzzy: token.value };
    const phrase = anchor === undefined ? undefined : PhraseBytes.wordsOf(token.value.toLowerCase().replace(/\s+/g, " ").trim());
    return phrase ? { anchor, phrase } : { anchor };
  });
  if (tokens.every((t) => t.anchor === undefined)) return undefined;
  return { tokens, wantsNames: tokens.some((t) => t.fuzzy !== undefined) };
}

/** The UTF-8 bytes of each of JavaScript's whitespace characters (`\s`) outside ASCII, found once. */
let wideSpaces: Uint8Array[] | undefined;

function wideSpaceBytes(): Uint8Array[] {
  if (!wideSpaces) {
    wideSpaces = [];
    for (let code = 0x80; code <= 0xffff; code++) if (/\s/.test(String.fromCharCode(code))) wideSpaces.push(Buffer.from(String.fromCharCode(code), "utf8"));
  }
  return wideSpaces;
}

const isHex = (b: number | undefined) => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/**
 * The length of the whitespace character a JSON string's raw bytes hold at `i` (below `to`), or 0:
 * a space, an escape of one (`\n`, `\r`, `\t`, `\f`, or any `\uXXXX`, which is at worst a
 * character that is not whitespace), or one of `wideSpaceBytes`.
 */
function spaceAt(bytes: Uint8Array, i: number, to: number): number {
  const b = bytes[i]!;
  if (i >= to) return 0;
  if (b === 0x20) return 1;
  if (b === 0x5c) {
    const next = bytes[i + 1];
    if (i + 2 <= to && (next === 0x6e || next === 0x72 || next === 0x74 || next === 0x66)) return 2;
    if (i + 6 <= to && next === 0x75 && isHex(bytes[i + 2]) && isHex(bytes[i + 3]) && isHex(bytes[i + 4]) && isHex(bytes[i + 5])) return 6;
    return 0;
  }
  if (b < 0xc2) return 0;
  for (const space of wideSpaceBytes()) {
    if (i + space.length > to) continue;
    let k = 0;
    while (k < space.length && bytes[i + k] === space[k]) k++;
    if (k === space.length) return space.length;
  }
  return 0;
}

/**
 * A phrase of several words (each of ASCII letters and digits, none that a number or an object
 * prints) in a file's raw bytes. `/resume` finds the phrase in the text with whitespace runs made
 * one space, so one line of the file holds either the words in a row, in any case, with
 * whitespace between them as a JSON string writes it; or a word but the last at the end of a
 * string, followed only by whitespace, since the texts Pi joins are joined with a space and a
 * phrase can run from one message or text block into the next.
 */
export class PhraseBytes {
  private readonly needles: FoldedNeedle[];

  constructor(readonly words: readonly string[]) {
    this.needles = words.map((w) => new FoldedNeedle(w));
  }

  /** The phrase's words, or undefined when a phrase is not one this class can look for. */
  static wordsOf(normalized: string): string[] | undefined {
    const words = normalized.split(" ");
    return words.length >= 2 && words.every((w) => /^[a-z0-9]+$/.test(w) && !printable(w)) ? words : undefined;
  }

  /** Whether `bytes[from, to)`, whole lines, could hold the phrase. */
  occursIn(bytes: Uint8Array, from: number, to: number): boolean {
    const [first, ...rest] = this.needles;
    // The first word's occurrences are searched once for both ways: the words in a row, or the word at a string's end.
    const endsString = (needle: FoldedNeedle, start: number) => bytes[this.afterSpaces(bytes, start + needle.bytes.length, to)] === 0x22;
    if (first!.someOccurrence(bytes, from, to, (start) => this.inRowFrom(bytes, start + first!.bytes.length, rest, to) || endsString(first!, start)))
      return true;
    return this.needles.slice(1, -1).some((needle) => needle.someOccurrence(bytes, from, to, (start) => endsString(needle, start)));
  }

  /** The offset after the whitespace characters from `i` on. */
  private afterSpaces(bytes: Uint8Array, i: number, to: number): number {
    for (let n = spaceAt(bytes, i, to); n > 0; n = spaceAt(bytes, i, to)) i += n;
    return i;
  }

  /** Whether the words `rest` follow from `i` on, each after at least one whitespace character. */
  private inRowFrom(bytes: Uint8Array, i: number, rest: readonly FoldedNeedle[], to: number): boolean {
    for (const needle of rest) {
      const next = this.afterSpaces(bytes, i, to);
      if (next === i || !needle.startsAt(bytes, next, to)) return false;
      i = next + needle.bytes.length;
    }
    return true;
  }
}

/** Whether a token could match given what was found; `names` and `cwd` are consulted only for a fuzzy token whose anchor is absent. */
function tokenCould(token: PrefilterToken, found: boolean, facts: PrefilterFacts): boolean {
  if (token.anchor === undefined || found || facts.foldHazard) return true;
  if (token.fuzzy === undefined) return false;
  if (facts.cwd === undefined || facts.names === undefined) return true;
  const fuzzy = token.fuzzy;
  return fuzzyMatch(fuzzy, facts.cwd).matches || facts.names.some((name) => fuzzyMatch(fuzzy, name).matches);
}

/** Whether `/resume`'s search could match a file with these facts (false only when it cannot). */
export function couldMatch(plan: PrefilterPlan, facts: PrefilterFacts): boolean {
  return plan.tokens.every((token, i) => tokenCould(token, facts.found[i]!, facts));
}

/** Whether a fuzzy token's answer waits on the names and cwd: its anchor is absent and nothing else settles the file. */
export function wantsNamesFor(plan: PrefilterPlan, found: readonly boolean[], foldHazard: boolean): boolean {
  return !foldHazard && plan.tokens.some((t, i) => t.fuzzy !== undefined && t.anchor !== undefined && !found[i]);
}

/**
 * A name as Pi's list takes it from a `session_info` entry parsed from a line (`listedName`), or
 * undefined when the entry gives none; the caller treats an entry it cannot read as unknown.
 */
export function nameOf(entry: { name?: unknown }): string | undefined {
  return typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
}
