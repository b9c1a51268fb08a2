/**
 * A bounded outline of Pi's `/tree` for a terminal: Pi's rows, with long runs of ordinary entries
 * folded into one "⋮ N more" line, so that a 50,000-entry session prints a screenful that still
 * shows every branch point, branch start and tip, label, compaction and branch summary, and the
 * rows around the selected one. `--depth` also folds what lies deeper than a number of branch
 * levels, and a line budget caps the whole. With `all`, every row is kept.
 */

import type { TreeView } from "./tree";
import type { TreeRow } from "./treeLayout";
import type { Skeleton } from "./skeleton";

export type OutlineItem = { kind: "row"; index: number } | { kind: "elided"; count: number; prefix: string; deeper: boolean };

export interface OutlineOptions {
  /** Keep every row. */
  all?: boolean;
  /** Fold rows more than this many branch levels deep. */
  depth?: number;
  /** Most items printed (default 400). */
  maxItems?: number;
  /** Rows shown on each side of the selected row. */
  context?: number;
}

export interface Outline {
  items: OutlineItem[];
  /** Rows not printed because the budget ran out. */
  cut: number;
}

/** Branch levels of a row: its indent, in Pi's three-column steps. */
export function levelOf(row: TreeRow): number {
  return row.prefix.length / 3;
}

/**
 * The prefix of a row turned into the gutter of a line in its run: connectors become plain gutters.
 * Regular expressions write characters above U+00FF as escapes (`\u251c` for the connector "├"):
 * the bundler copies a regular expression as it is written, and one such character in a bundle
 * makes V8 hold the bundle's whole source at two bytes a character (test/cli/bundle.test.ts).
 */
function runPrefix(prefix: string): string {
  return prefix
    .replace(/\u251c/g, "│")
    .replace(/\u2514/g, " ")
    .replace(/[\u2500\u229f\u229e]/g, " ");
}

export function outlineTree(view: TreeView, sk: Skeleton, options: OutlineOptions = {}): Outline {
  const rows = view.rows;
  const maxItems = options.maxItems ?? 400;
  if (options.all) return { items: rows.map((_, index) => ({ kind: "row" as const, index })), cut: 0 };
  const context = options.context ?? 2;
  const keep = new Uint8Array(rows.length);
  const small = rows.length <= Math.min(maxItems, 120);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const type = sk.types[row.entry];
    const landmark =
      small ||
      i === 0 ||
      i === rows.length - 1 ||
      Math.abs(i - view.selectedIndex) <= context ||
      row.label !== undefined ||
      type === "compaction" ||
      type === "branch_summary" ||
      row.children !== 1 ||
      /[\u251c\u2514]/.test(row.prefix.slice(-3)) ||
      (i > 0 && rows[i - 1]!.children > 1);
    if (landmark) keep[i] = 1;
  }
  const items: OutlineItem[] = [];
  let cut = 0;
  let i = 0;
  while (i < rows.length) {
    const row = rows[i]!;
    if (options.depth !== undefined && levelOf(row) > options.depth) {
      // Everything from here while deeper than the limit folds into one line.
      let j = i;
      while (j < rows.length && levelOf(rows[j]!) > options.depth) j++;
      items.push({ kind: "elided", count: j - i, prefix: runPrefix(row.prefix.slice(0, options.depth * 3 + 3)), deeper: true });
      i = j;
      continue;
    }
    if (keep[i]) {
      items.push({ kind: "row", index: i });
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && !keep[j] && rows[j]!.prefix === row.prefix && (options.depth === undefined || levelOf(rows[j]!) <= options.depth)) j++;
    if (j - i <= 2) {
      for (let k = i; k < j; k++) items.push({ kind: "row", index: k });
    } else {
      items.push({ kind: "elided", count: j - i, prefix: runPrefix(row.prefix), deeper: false });
    }
    i = j;
  }
  if (items.length > maxItems) {
    for (const item of items.slice(maxItems)) cut += item.kind === "row" ? 1 : item.count;
    items.length = maxItems;
  }
  return { items, cut };
}
