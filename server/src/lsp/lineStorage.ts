/**
 * Line text held more compactly while the server is idle: the same characters, stored another way.
 *
 * V8 stores a string in one byte per character unless one of its characters is above U+00FF; then
 * every character takes two. One curly quote or check mark in a 1,300-character line doubles its
 * memory, and a quarter of the lines of a typical session hold one (12,500 of the 45 MB session's
 * 50,000: 32 MB of its 62 MB of line text). Here such a line becomes a rope (`+` of its pieces): its
 * runs of one-byte characters as one-byte strings, the other runs as they are. The rope is the same
 * string to every reader; V8 flattens it back into two-byte storage the first time anything but its
 * length reads it, so only lines nobody reads stay compact, which is what an idle server's lines are.
 * Measured on the 45 MB session: 62 MB of line text become 52 MB, in 100 ms.
 *
 * A rope is built only for a line whose parse holds the same string (a value line), so that the
 * two-byte string is let go; a line with many runs (a line of Chinese text) is left as it is, since
 * a rope of short pieces saves nothing. The pieces are joined left to right, so the rope is as deep
 * as it has pieces, which V8 reads and flattens without recursing along that depth.
 */

import type { SessionDocument } from "../core/session/document";
import { CachedValueLine } from "../core/line/record";

/** A line shorter than this is left as it is: its rope would save less than its pieces cost. */
export const MIN_ROPE_CHARS = 256;
/**
 * A line with more runs of two-byte characters than one per this many characters is left as it is:
 * each run costs about 85 bytes of pieces (two joins of 32 bytes, a one-byte piece's header; a short
 * run itself is shared), and the rope must save more than it costs: at one run per 128 characters
 * it saves a third of the line's bytes at least. One per 256 left 1,100 lines of the 45 MB session
 * two-byte that save 0.4 MB as ropes.
 */
export const CHARS_PER_RUN = 128;

const TWO_BYTE_RUN = /[^\u0000-\u00ff]+/g;
const TWO_BYTE = /[^\u0000-\u00ff]/;

/**
 * `text` as a rope of one-byte and two-byte pieces, equal to it character for character; undefined
 * when it has no character above U+00FF, or more than one run of them per `CHARS_PER_RUN` characters.
 */
export function oneByteRope(text: string, scratch = new Scratch()): string | undefined {
  if (!TWO_BYTE.test(text)) return undefined;
  const maxRuns = Math.max(1, Math.floor(text.length / CHARS_PER_RUN));
  let rope = "";
  let at = 0;
  let runs = 0;
  for (const run of text.matchAll(TWO_BYTE_RUN)) {
    if (++runs > maxRuns) return undefined;
    if (run.index > at) rope += scratch.oneByte(text, at, run.index);
    rope += scratch.twoByte(run[0]);
    at = run.index + run[0].length;
  }
  if (at < text.length) rope += scratch.oneByte(text, at, text.length);
  return rope;
}

/** A run of two-byte characters at most this long is shared by every rope that has it. */
export const MAX_SHARED_RUN = 8;

/**
 * One buffer, reused, through which characters at most U+00FF are copied into one-byte strings
 * (Latin-1 decodes to such a string): a buffer per piece would be 12,500 `malloc`s that leave holes.
 * And the short two-byte runs met so far: most are one of a few characters (a dash, an arrow, a
 * curly quote, a check mark), 27,000 strings of 24 bytes in the 45 MB session, held once each.
 */
export class Scratch {
  private buffer = Buffer.alloc(0);
  private readonly runs = new Map<string, string>();

  /** `run` (two-byte characters), or an equal string met before. */
  twoByte(run: string): string {
    if (run.length > MAX_SHARED_RUN) return run;
    const shared = this.runs.get(run);
    if (shared !== undefined) return shared;
    this.runs.set(run, run);
    return run;
  }

  /** `text.slice(start, end)` (every character at most U+00FF), stored one byte per character. */
  oneByte(text: string, start: number, end: number): string {
    const length = end - start;
    if (this.buffer.length < length) this.buffer = Buffer.allocUnsafe(Math.max(length, 2 * this.buffer.length, 64 * 1024));
    this.buffer.write(text.slice(start, end), 0, length, "latin1");
    return this.buffer.toString("latin1", 0, length);
  }
}

/** Stores the two-byte lines of `doc` that hold a value as ropes; returns how many it changed. */
export function compactLines(doc: SessionDocument): number {
  const scratch = new Scratch();
  let changed = 0;
  for (let line = 0; line < doc.lines.length; line++) {
    const text = doc.lines[line]!;
    const parsed = doc.parsed[line];
    // A line made a rope already is not read again (that would flatten it); a one-byte line is read again cheaply.
    if (text.length < MIN_ROPE_CHARS || parsed?.kind !== "value" || (parsed instanceof CachedValueLine && parsed.textStored)) continue;
    const rope = oneByteRope(text, scratch);
    if (rope === undefined || !doc.storeLineAs(line, rope)) continue;
    changed++;
  }
  return changed;
}
