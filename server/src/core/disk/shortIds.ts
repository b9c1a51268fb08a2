/**
 * The short form of an entry id that `tree` prints: its first characters, as many as no other
 * entry's id starts with, and at least eight (Pi's ids are eight hex digits, so usually the whole
 * id). Every command that takes an entry id takes a unique start of one, so the short id printed is
 * always enough to name the entry again.
 *
 * The ids are sorted once; an id's shortest unique start is one character longer than the longest
 * start it shares with a neighbour in that order, which costs a comparison per neighbour instead of
 * one per pair.
 */

import type { Skeleton } from "./skeleton";

/** The fewest characters a short id has (Pi's ids have eight). */
export const SHORT_ID_MIN = 8;

/** Gives the short id of any entry of one skeleton. */
export class ShortIds {
  private readonly sorted: string[];

  constructor(sk: Skeleton) {
    const ids = new Set<string>();
    // Only string ids can be named by a prefix; a key that starts with NUL stands for another value.
    for (let i = 0; i < sk.n; i++) {
      const key = sk.keys[i]!;
      if (key.charCodeAt(0) !== 0) ids.add(key);
      else if (key[1] === "s") ids.add(key.slice(2));
    }
    this.sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The shortest start of `id`, of at least `SHORT_ID_MIN` characters, that only it has (the whole id when none is shorter). */
  of(id: string): string {
    const at = this.indexOf(id);
    if (at < 0) return id;
    const shared = Math.max(commonPrefix(id, this.sorted[at - 1]), commonPrefix(id, this.sorted[at + 1]));
    return id.slice(0, Math.max(SHORT_ID_MIN, shared + 1));
  }

  private indexOf(id: string): number {
    let lo = 0;
    let hi = this.sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const value = this.sorted[mid]!;
      if (value === id) return mid;
      if (value < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

function commonPrefix(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
