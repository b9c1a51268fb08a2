/**
 * The second half of Pi's `/tree` (`tree.ts` builds the graph, flattens it and filters it): from the
 * visible flat nodes to the rows drawn. Pi 1.6's tree selector re-links each visible node to its
 * nearest visible ancestor (`recalculateVisualStructure`), lays out indents, connectors and `│`
 * gutters again over that visible tree, marks the active path (`buildActivePath`), picks the row
 * the cursor starts on (`findNearestVisibleIndex`) and draws each row's prefix.
 *
 * Kept apart from `tree.ts` because it only reads the flat nodes and the ids' parent links: it
 * never sees the child lists or the filter modes. Every walk is bounded, and where Pi would loop
 * forever the walk stops and notes it in the view's `hangs`.
 */

import { Flag, type Skeleton } from "./skeleton";
import { ABSENT_KEY, keyText as keyTextOf, NULL_KEY, truthyKey } from "./keys";
import { type Gutters, PrefixCache } from "./treePrefix";

export interface FlatNode {
  entry: number;
  indent: number;
  showConnector: boolean;
  isLast: boolean;
  gutters: Gutters;
  isVirtualRootChild: boolean;
}

export interface TreeRow {
  /** The entry shown (the last entry of its id). */
  entry: number;
  /** The tree drawing before the entry (`│  ├⊟ `). */
  prefix: string;
  /** On the path from the root to the leaf (Pi's "• "). */
  active: boolean;
  label?: unknown;
  /** The row Pi's cursor starts on. */
  selected: boolean;
  /** Visible children in this view. */
  children: number;
}

/** Where a walk notes that Pi would never finish (the `TreeView` it fills). */
export interface HangNote {
  hangs?: string;
}

/** The parent id `/tree` follows from an entry: its `parentId`, null for a null or absent one. */
export function parentOf(sk: Skeleton, node: number): string | null {
  return sk.flags[node]! & Flag.ParentNull || sk.parentKeys[node] === ABSENT_KEY ? null : sk.parentKeys[node]!;
}

/** The gutters a node's children are drawn with: its own, plus its connector's column when it shows one. */
export function gutterBelow(
  showConnector: boolean,
  isVirtualRootChild: boolean,
  multipleRoots: boolean,
  indent: number,
  isLast: boolean,
  gutters: Gutters,
): Gutters {
  const connectorDisplayed = showConnector && !isVirtualRootChild;
  const currentDisplayIndent = multipleRoots ? Math.max(0, indent - 1) : indent;
  const connectorPosition = Math.max(0, currentDisplayIndent - 1);
  return connectorDisplayed ? { position: connectorPosition, show: !isLast, outer: gutters } : gutters;
}

/** Pi's `buildActivePath`: the ids from the leaf up while the id is truthy. */
export function activeKeys(sk: Skeleton, entryMap: Map<string, FlatNode>, bound: number, view: HangNote): Set<string> {
  const active = new Set<string>();
  if (!truthyKey(sk.leafKey)) return active;
  let current: string | null = sk.leafKey!;
  for (let steps = 0; current !== null && truthyKey(current) && steps <= bound; steps++) {
    if (active.has(current)) {
      // Pi's walk has no guard: it goes round this loop forever.
      view.hangs ??= `Pi's /tree never opens on this file: the walk up from the leaf loops (${JSON.stringify(keyTextOf(current))} is its own ancestor)`;
      break;
    }
    active.add(current);
    const f = entryMap.get(current);
    if (!f) break;
    current = parentOf(sk, f.entry);
  }
  return active;
}

export interface VisualStructure {
  visibleParent: Map<string, string | null>;
  visibleChildren: Map<string | null, string[]>;
  multipleRoots: boolean;
}

/** Pi's `recalculateVisualStructure`: the visible nodes' parents and children, and their indents and gutters. */
export function recalculateVisualStructure(
  sk: Skeleton,
  filtered: FlatNode[],
  entryMap: Map<string, FlatNode>,
  steps: number,
  multipleRoots: boolean,
  view: HangNote,
): VisualStructure {
  const { keys } = sk;
  const visibleIds = new Set(filtered.map((f) => keys[f.entry]!));
  const visibleParent = new Map<string, string | null>();
  const visibleChildren = new Map<string | null, string[]>([[null, []]]);
  let stepsLeft = steps;
  for (const f of filtered) {
    const id = keys[f.entry]!;
    const start = entryMap.get(id);
    let current: string | null = start ? parentOf(sk, start.entry) : null;
    while (current !== null && !visibleIds.has(current)) {
      if (--stepsLeft < 0) {
        view.hangs ??= "Pi's /tree never finishes laying out this file: its parentId links loop through hidden entries";
        current = null;
        break;
      }
      const next = entryMap.get(current);
      current = next ? parentOf(sk, next.entry) : null;
    }
    visibleParent.set(id, current);
    const list = visibleChildren.get(current);
    if (list) list.push(id);
    else visibleChildren.set(current, [id]);
  }
  if (filtered.length === 0) return { visibleParent, visibleChildren, multipleRoots };
  const visibleRoots = visibleChildren.get(null)!;
  const multiple = visibleRoots.length > 1;
  const byId = new Map<string, FlatNode>();
  for (const f of filtered) byId.set(keys[f.entry]!, f);
  type Item = [string, number, boolean, boolean, boolean, Gutters, boolean];
  const stack: Item[] = [];
  for (let i = visibleRoots.length - 1; i >= 0; i--)
    stack.push([visibleRoots[i]!, multiple ? 1 : 0, multiple, multiple, i === visibleRoots.length - 1, undefined, multiple]);
  let budget = 4 * (filtered.length + 10);
  while (stack.length > 0) {
    if (--budget < 0) {
      view.hangs ??= "Pi's /tree never finishes laying out this file (its visible tree loops)";
      break;
    }
    const [id, indent, justBranched, showConnector, isLast, gutters, isVirtualRootChild] = stack.pop()!;
    const f = byId.get(id);
    if (!f) continue;
    Object.assign(f, { indent, showConnector, isLast, gutters, isVirtualRootChild });
    const kids = visibleChildren.get(id) ?? [];
    const multipleChildren = kids.length > 1;
    const childIndent = multipleChildren ? indent + 1 : justBranched && indent > 0 ? indent + 1 : indent;
    const childGutters = gutterBelow(showConnector, isVirtualRootChild, multiple, indent, isLast, gutters);
    for (let i = kids.length - 1; i >= 0; i--)
      stack.push([kids[i]!, childIndent, multipleChildren, multipleChildren, i === kids.length - 1, childGutters, false]);
  }
  return { visibleParent, visibleChildren, multipleRoots: multiple };
}

/** Pi's `findNearestVisibleIndex(leaf)`: the row of the leaf or of its nearest visible ancestor, else the last row. */
export function nearestVisibleIndex(sk: Skeleton, filtered: FlatNode[], entryMap: Map<string, FlatNode>, bound: number): number {
  const { keys, leafKey } = sk;
  const visibleIndex = new Map<string, number>();
  for (let i = 0; i < filtered.length; i++) visibleIndex.set(keys[filtered[i]!.entry]!, i);
  let selected = filtered.length - 1;
  if (leafKey !== undefined && leafKey !== NULL_KEY) {
    let current: string | null = leafKey;
    for (let steps = 0; current !== null && steps <= bound; steps++) {
      const index = visibleIndex.get(current);
      if (index !== undefined) {
        selected = index;
        break;
      }
      const f = entryMap.get(current);
      if (!f) break;
      current = parentOf(sk, f.entry);
    }
  }
  return Math.max(0, selected);
}

/** The rows as `/tree` draws them: prefix, connector, fold mark, active mark and label. */
export function rowsOf(sk: Skeleton, filtered: FlatNode[], layout: VisualStructure, active: Set<string>, selectedIndex: number): TreeRow[] {
  const { keys } = sk;
  const { visibleParent, visibleChildren, multipleRoots } = layout;
  const isFoldable = (id: string): boolean => {
    const kids = visibleChildren.get(id);
    if (!kids || kids.length === 0) return false;
    const parent = visibleParent.get(id);
    if (parent === null || parent === undefined) return true;
    const siblings = visibleChildren.get(parent);
    return siblings !== undefined && siblings.length > 1;
  };
  const prefixes = new PrefixCache();
  return filtered.map((f, i) => {
    const id = keys[f.entry]!;
    const displayIndent = multipleRoots ? Math.max(0, f.indent - 1) : f.indent;
    const connector = f.showConnector && !f.isVirtualRootChild ? `${f.isLast ? "└" : "├"}${isFoldable(id) ? "⊟" : "─"} ` : undefined;
    const prefix = prefixes.of(f.gutters, displayIndent, connector);
    const row: TreeRow = { entry: f.entry, prefix, active: active.has(id), selected: i === selectedIndex, children: visibleChildren.get(id)?.length ?? 0 };
    const label = sk.labels.get(id);
    if (label !== undefined) row.label = label;
    return row;
  });
}
