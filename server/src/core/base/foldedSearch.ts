/**
 * Finding a lowercase ASCII word in raw bytes whatever the ASCII case of the bytes, fast enough to
 * sweep a sessions folder of a gigabyte (`find TEXT`'s byte prefilter, `core/disk/searchPrefilter.ts`).
 *
 * Node has no case-insensitive byte search, and folding every byte in JavaScript costs more than
 * reading the file. So the search looks for the needle's rarest letter, in both cases, with
 * `Buffer.indexOf` (a native `memchr`), and compares the bytes around each hit. Where that letter is
 * common after all, the hits cost more than a scan, and the rest of the range is searched with
 * Horspool's algorithm on folded bytes instead, which skips up to the needle's length per step.
 */

/** Letters and digits from the rarest in session text (English, code, JSON keys) to the most common. */
const RARITY = "zqjxkvwyb9876gfhpu5432mcldrnsoiat10e";

/** Each byte with ASCII capitals made small; other bytes as they are. */
const FOLD = new Uint8Array(256);
for (let b = 0; b < 256; b++) FOLD[b] = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;

/** Hits of the rare byte allowed per byte of the range before the search switches to Horspool. */
const HITS_PER_BYTE = 1 / 128;

export class FoldedNeedle {
  /** The needle's bytes, lowercase. */
  readonly bytes: Uint8Array;
  /** Where the rarest byte sits in the needle, and its two forms. */
  private readonly pivot: number;
  private readonly pivotForms: readonly number[];
  /** Horspool's shift for each folded byte. */
  private readonly shift = new Int32Array(256);

  /** `needle`: lowercase ASCII letters and digits, at least one. */
  constructor(readonly needle: string) {
    if (!/^[a-z0-9]+$/.test(needle)) throw new Error(`not a lowercase ASCII word: ${needle}`);
    this.bytes = Uint8Array.from(needle, (c) => c.charCodeAt(0));
    let pivot = 0;
    for (let i = 1; i < needle.length; i++) if (RARITY.indexOf(needle[i]!) < RARITY.indexOf(needle[pivot]!)) pivot = i;
    this.pivot = pivot;
    const b = this.bytes[pivot]!;
    this.pivotForms = b >= 0x61 && b <= 0x7a ? [b, b - 0x20] : [b];
    const m = this.bytes.length;
    this.shift.fill(m);
    for (let i = 0; i < m - 1; i++) this.shift[this.bytes[i]!] = m - 1 - i;
  }

  /** Whether the needle occurs in `bytes[from, to)`, ignoring ASCII case. */
  occursIn(bytes: Uint8Array, from: number, to: number): boolean {
    return this.someOccurrence(bytes, from, to, () => true);
  }

  /**
   * Whether `accept` takes one of the needle's occurrences in `bytes[from, to)` (given where it
   * starts), ignoring ASCII case; the occurrences are not visited in order.
   */
  someOccurrence(bytes: Uint8Array, from: number, to: number, accept: (start: number) => boolean): boolean {
    const m = this.bytes.length;
    if (to - from < m) return false;
    // Hits of the rare byte, for each of its forms, until they turn out not to be rare here.
    let budget = 64 + (to - from) * HITS_PER_BYTE;
    const view = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from);
    for (const form of this.pivotForms) {
      for (let at = view.indexOf(form, this.pivot); at >= 0 && at + m - this.pivot <= view.length; at = view.indexOf(form, at + 1)) {
        const start = from + at - this.pivot;
        // A form searched before this one may have had hits the Horspool search will see again: it visits them twice.
        if (this.matchesAt(bytes, start) && accept(start)) return true;
        if (--budget < 0) return this.horspool(bytes, from, to, accept);
      }
    }
    return false;
  }

  /** Whether the needle starts at `start` (folded). */
  private matchesAt(bytes: Uint8Array, start: number): boolean {
    const needle = this.bytes;
    for (let j = 0; j < needle.length; j++) if (FOLD[bytes[start + j]!] !== needle[j]) return false;
    return true;
  }

  /** Horspool's search of `bytes[from, to)` on folded bytes, offering each occurrence to `accept`. */
  private horspool(bytes: Uint8Array, from: number, to: number, accept: (start: number) => boolean): boolean {
    const needle = this.bytes;
    const m = needle.length;
    const last = needle[m - 1]!;
    const shift = this.shift;
    for (let end = from + m - 1; end < to; end += shift[FOLD[bytes[end]!]!]!) {
      if (FOLD[bytes[end]!] === last && this.matchesAt(bytes, end - m + 1) && accept(end - m + 1)) return true;
    }
    return false;
  }

  /** Whether the needle starts at `start`, ignoring ASCII case, within `bytes[0, to)`. */
  startsAt(bytes: Uint8Array, start: number, to: number): boolean {
    return start + this.bytes.length <= to && this.matchesAt(bytes, start);
  }
}
