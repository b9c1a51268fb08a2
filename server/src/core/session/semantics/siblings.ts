/**
 * Sibling order as Pi's `getTree` makes it: each node's children, pushed in file order, sorted with
 * `(a, b) => new Date(a.entry.timestamp).getTime() - new Date(b.entry.timestamp).getTime()`, by
 * `sortByPiTime` (`../rules.ts`), which the tree of a file on disk is sorted by too.
 *
 * The order is reproduced by sorting the same list with a comparator that gives the same numbers,
 * so that V8's stable sort puts the siblings where Pi's does, including where a time is NaN (an
 * unreadable timestamp makes every comparison with it NaN, which the sort reads as "equal"). The
 * times come from `dateTime` (base/loose.ts), which computes `new Date(value).getTime()` without
 * coercing a value whose coercion would throw or recurse.
 */

import { dateTime } from "../../base/loose";
import type { Entry } from "../entry";
import { sortByPiTime } from "../rules";

/** The time Pi sorts an entry by among its siblings. */
export function siblingTime(entry: Entry): number {
  if (entry.parsed.time !== undefined) return entry.parsed.time;
  return dateTime(entry.parsed.object?.timestamp);
}

/** `children` (in file order) in the order Pi's `getTree` gives them (`sortByPiTime`). */
export function sortSiblings(children: readonly Entry[]): Entry[] {
  if (children.length < 2) return [...children];
  const times = new Map<Entry, number>();
  for (const child of children) times.set(child, siblingTime(child));
  return sortByPiTime([...children], (child) => times.get(child)!);
}
