/**
 * `find TEXT`'s byte prefilter over one file (its rules: `core/disk/searchPrefilter.ts`): the file
 * is read in 256 KiB chunks, each chunk searched for every token's anchor whatever its case, for the
 * escapes and characters that could hide one, and, for a fuzzy token, for the `session_info`
 * lines whose names it may match. Reading stops as soon as every anchor was found. A chunk keeps
 * the end of the one before, so that nothing searched for is missed across a boundary.
 */

import { readSync } from "node:fs";
import { FoldedNeedle } from "../core/base/foldedSearch";
import { couldMatch, nameOf, PhraseBytes, type PrefilterPlan, wantsNamesFor } from "../core/disk/searchPrefilter";
import { CHUNK_BYTES } from "./lineReader";

const KELVIN_SIGN = Buffer.from("\u212a");
const DOTTED_CAPITAL_I = Buffer.from("\u0130");
/** The type of a `session_info` line, with the quote that ends it. */
const SESSION_INFO = Buffer.from('session_info"');
/**
 * The end of the type `session_info` as a line's raw bytes hold it (any escape in it is a hazard
 * that settles the file first), searched for natively: a needle under 7 bytes is found by Node as
 * a `memchr` of its first byte, `_`, and a compare at each hit, without a turn of JavaScript per
 * hit (one or two bytes in a thousand of real sessions are `_`); a longer one, by a skip search that crawls over runs of
 * its own letters.
 */
const SESSION_INFO_END_AT = SESSION_INFO.indexOf("_");
const SESSION_INFO_END = SESSION_INFO.subarray(SESSION_INFO_END_AT);
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;
/** Names read from one file at most; a file with more is searched in full. */
const MAX_NAMES = 64;
const NEWLINE = 0x0a;
/**
 * The bytes read at a time. Each chunk is searched several times over (every anchor's rare byte in
 * both cases, the escapes, `session_info`), and a chunk this size stays in the core's cache
 * between those searches and for the kernel's copy into it.
 */
const READ_BYTES = 256 * 1024;
/** The longest unfinished line carried from one chunk to the next for a phrase (the line reader's chunk, as before). */
const MAX_LINE_CARRY = CHUNK_BYTES;

/** Whether a `\uXXXX` escape's code could lowercase to an ASCII letter or digit, or be the `_` of `session_info`. */
function hazardousCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x7f) || code === 0x212a || code === 0x130;
}

/** The names and cwd gathered while reading, for a fuzzy token; `unknown` once one could not be read plainly. */
interface NameFacts {
  names: string[];
  cwd?: string;
  unknown: boolean;
}

/** The prefilter of one query, reused for every file a thread reads. */
export class FilePrefilter {
  private readonly needles: (FoldedNeedle | undefined)[];
  private readonly overlap: number;
  private readonly phrases: (PhraseBytes | undefined)[];
  private readonly hasPhrase: boolean;
  private readonly buffer: Buffer;
  private readonly watchKelvin: boolean;
  private readonly watchDottedI: boolean;

  constructor(readonly plan: PrefilterPlan) {
    this.needles = plan.tokens.map((t) => (t.anchor === undefined ? undefined : new FoldedNeedle(t.anchor)));
    const longest = Math.max(SESSION_INFO.length, 6, ...this.needles.map((n) => n?.bytes.length ?? 0));
    this.overlap = longest - 1;
    this.phrases = plan.tokens.map((t) => (t.phrase ? new PhraseBytes(t.phrase) : undefined));
    this.hasPhrase = this.phrases.some(Boolean);
    // A phrase is looked for in whole lines, so the unfinished line at a chunk's end is kept for the next.
    this.buffer = Buffer.allocUnsafe(READ_BYTES + (this.hasPhrase ? Math.max(this.overlap, MAX_LINE_CARRY) : this.overlap));
    this.watchKelvin = plan.tokens.some((t) => t.anchor?.includes("k"));
    this.watchDottedI = plan.tokens.some((t) => t.anchor?.includes("i"));
  }

  /**
   * Whether the exact search could match the file open at `fd` (true for a file that cannot be
   * read here: the exact read says why). The caller opens it, so that the header's probe and this
   * sweep share one descriptor and one stat.
   */
  couldMatch(fd: number, firstChunk?: (bytes: Buffer) => void): boolean {
    try {
      return this.read(fd, firstChunk);
    } catch {
      return true;
    }
  }

  /** `firstChunk` is shown the file's first bytes read (valid during the call only), so that a caller needs not read them again. */
  private read(fd: number, firstChunk?: (bytes: Buffer) => void): boolean {
    const { plan, needles, phrases, buffer } = this;
    const found = plan.tokens.map(() => false);
    // A phrase's two conditions hold over the whole file, each in its own chunk: the anchor
    // anywhere, and the words in a row, or a word but the last at a string's end, in one line. The
    // second may come first: a message that ends with "flaky", then, after lines of any length,
    // one that starts with "cookie" (Pi joins their texts with a space).
    const anchorSeen = plan.tokens.map(() => false);
    const phraseSeen = phrases.map((phrase) => phrase === undefined);
    const nameFacts: NameFacts | undefined = plan.wantsNames ? { names: [], unknown: false } : undefined;
    let hazard = false;
    let carry = 0;
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, carry, READ_BYTES, position);
      if (read === 0) break;
      if (position === 0) firstChunk?.(buffer.subarray(0, read));
      const end = carry + read;
      // The whole lines of the buffer end here; the rest is carried to the next chunk. Only a
      // phrase looks at lines: without one, the buffer is not searched backwards for a line end.
      const linesEnd = this.hasPhrase ? buffer.lastIndexOf(NEWLINE, end - 1) + 1 : end;
      let missing = false;
      // A short read is the file's last chunk: a phrase whose anchor is nowhere in the file cannot
      // match whatever this chunk holds, so its words are not looked for (most session files are
      // one chunk, and most do not hold the anchor of a phrase searched for). In an earlier chunk
      // they are, since the anchor may come later.
      const lastChunk = read < READ_BYTES;
      for (let i = 0; i < needles.length; i++) {
        const needle = needles[i];
        if (!needle || found[i]) continue;
        anchorSeen[i] ||= needle.occursIn(buffer, 0, end);
        if (anchorSeen[i] || !lastChunk) phraseSeen[i] ||= phrases[i]!.occursIn(buffer, 0, linesEnd);
        found[i] = anchorSeen[i]! && phraseSeen[i]!;
        if (!found[i]) missing = true;
      }
      hazard = this.hazardIn(end);
      if (hazard || !missing) return true;
      if (nameFacts && !nameFacts.unknown) this.gatherNames(nameFacts, end, carry, position === 0, lastChunk);
      position += read;
      const unfinished = end - linesEnd;
      if (unfinished > MAX_LINE_CARRY) {
        // A line longer than can be carried: a phrase in it is taken as found.
        phraseSeen.fill(true);
      }
      carry = Math.min(end, Math.max(this.overlap, unfinished <= MAX_LINE_CARRY && this.hasPhrase ? unfinished : 0));
      buffer.copyWithin(0, end - carry, end);
      // A short read is the file's end (as `gatherNames` takes it): no read more to be told so.
      if (lastChunk) break;
    }
    // The file's last line, when it has no "\n" (looked at only for a phrase whose anchor was seen).
    for (let i = 0; i < phrases.length; i++) {
      if (!anchorSeen[i]) continue;
      phraseSeen[i] ||= phrases[i]!.occursIn(buffer, 0, carry);
      found[i] ||= phraseSeen[i]!;
    }
    if (!nameFacts || !wantsNamesFor(plan, found, hazard)) return couldMatch(plan, { found, foldHazard: hazard });
    return nameFacts.unknown
      ? true
      : couldMatch(plan, { found, foldHazard: hazard, names: nameFacts.names, ...(nameFacts.cwd !== undefined ? { cwd: nameFacts.cwd } : {}) });
  }

  /**
   * Whether `buffer[0, end)` holds an escape or a character that could hide an anchor. Each is
   * found from its first byte with a `memchr` (`Buffer.indexOf` of a number, or of a needle under
   * 7 bytes): a native skip search for a longer one crawls over text made of one of its letters.
   */
  private hazardIn(end: number): boolean {
    const view = this.buffer.subarray(0, end);
    if (this.watchKelvin && view.indexOf(KELVIN_SIGN) >= 0) return true;
    if (this.watchDottedI && view.indexOf(DOTTED_CAPITAL_I) >= 0) return true;
    for (let at = view.indexOf(BACKSLASH); at >= 0 && at + 6 <= end; at = view.indexOf(BACKSLASH, at + 1)) {
      if (view[at + 1] === BACKSLASH) at++;
      else if (view[at + 1] === LETTER_U && hazardousCode(Number.parseInt(view.toString("latin1", at + 2, at + 6), 16))) return true;
    }
    return false;
  }

  /**
   * The header's cwd (from the file's first line) and the names of the `session_info` lines that
   * end in this chunk. A line that does not lie whole in the chunk, holds a "\r" (where Pi 1.x's
   * list splits it), or is one too many makes the names unknown, and the file is then searched.
   */
  private gatherNames(facts: NameFacts, end: number, carry: number, first: boolean, last: boolean): void {
    const view = this.buffer.subarray(0, end);
    if (first) {
      const lineEnd = view.indexOf(NEWLINE);
      const header = lineEnd < 0 && !last ? undefined : parsedLine(view, 0, lineEnd < 0 ? end : lineEnd);
      if (header?.type !== "session") return void (facts.unknown = true);
      facts.cwd = typeof header.cwd === "string" ? header.cwd : "";
    }
    for (let at = nextSessionInfo(view, 0); at >= 0; at = nextSessionInfo(view, at + 1)) {
      // An occurrence inside the bytes kept from the chunk before was seen there.
      if (at + SESSION_INFO.length <= carry) continue;
      const start = view.lastIndexOf(NEWLINE, at) + 1;
      const lineEnd = view.indexOf(NEWLINE, at);
      if ((start === 0 && !first) || (lineEnd < 0 && !last) || facts.names.length >= MAX_NAMES) return void (facts.unknown = true);
      const entry = parsedLine(view, start, lineEnd < 0 ? end : lineEnd);
      if (entry === null) return void (facts.unknown = true);
      if (entry?.type !== "session_info") continue;
      const name = nameOf(entry);
      if (name !== undefined) facts.names.push(name);
    }
  }
}

/** The first place at or after `from` where `SESSION_INFO` starts in `view` (found as `SESSION_INFO_END` says). */
function nextSessionInfo(view: Buffer, from: number): number {
  for (let end = view.indexOf(SESSION_INFO_END, from + SESSION_INFO_END_AT); end >= 0; end = view.indexOf(SESSION_INFO_END, end + 1)) {
    const start = end - SESSION_INFO_END_AT;
    if (view.compare(SESSION_INFO, 0, SESSION_INFO_END_AT, start, end) === 0) return start;
  }
  return -1;
}

/**
 * A line's value when it is an object, undefined when it does not parse or is not one (Pi skips or
 * drops it), and null when it holds a "\r" (Pi 1.x's list would read it as several lines).
 */
function parsedLine(bytes: Buffer, start: number, end: number): Record<string, unknown> | undefined | null {
  const text = bytes.toString("utf8", start, end);
  if (text.includes("\r")) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
