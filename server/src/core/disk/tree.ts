/**
 * Pi's `/tree`, row for row: `SessionManager.getTree()` (one node per id, the last entry of an id
 * wins, children sorted by timestamp, orphans as roots) and the tree selector of Pi 1.6
 * (`tree-selector.ts`): the branch holding the leaf first, single-child chains kept flat, an indent
 * and a `├─`/`└─` connector at each branch point, `│` gutters, `•` on the active path, the filter
 * modes (bookkeeping entries, `usage` entries and assistant turns that only call tools are hidden
 * by default), and the row Pi selects (the leaf, or its nearest visible ancestor).
 *
 * It works on a `Skeleton`, so a session of any size is handled; every walk is iterative and
 * bounded. Where Pi itself would hang (duplicate ids that make a node its own descendant) or throw,
 * the view says so and shows the tree with the loop cut.
 *
 * This file holds the graph and what is decided over it: `getTree()`'s child lists, the loop check,
 * which subtrees hold the leaf, the flattening (active branch first) and the filter modes, plus the
 * tree's shape for `info`. Drawing the filtered nodes (their visible parents, indents, gutters,
 * active marks and the selected row) is `treeLayout.ts`, which reads only the flat nodes.
 */

import { sortByPiTime } from "../session/rules";
import { Flag, type Skeleton, skeletonIndex, walkUp } from "./skeleton";
import { NULL_KEY } from "./keys";
import { activeKeys, type FlatNode, gutterBelow, nearestVisibleIndex, recalculateVisualStructure, rowsOf, type TreeRow } from "./treeLayout";
import type { Gutters } from "./treePrefix";

export type FilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";
export const FILTER_MODES: readonly FilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

export interface TreeView {
  rows: TreeRow[];
  selectedIndex: number;
  filter: FilterMode;
  /** Pi's `getTree()` would never return (duplicate ids make a node its own descendant). */
  hangs?: string;
  /** Pi's `/tree` would throw. */
  throws?: string;
  /** Duplicate ids made Pi repeat subtrees beyond the bound, so each entry is shown once instead. */
  collapsedRepeats?: boolean;
  /** Entries `getTree()` holds (one per id). */
  nodes: number;
}

/**
 * `getTree()` as child lists over entry indices (each id's last holder stands for it), children in
 * Pi's order, plus what `/tree` needs to lay it out.
 */
export function treeGraph(sk: Skeleton) {
  const { n, keys, parentKeys, flags, times } = sk;
  const index = skeletonIndex(sk);
  const lastByKey = index.byId;
  const roots: number[] = [];
  const children = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const node = lastByKey.get(keys[i]!)!;
    const f = flags[i]!;
    const parent = f & (Flag.ParentNull | Flag.SelfParent) ? undefined : lastByKey.get(parentKeys[i]!);
    if (parent === undefined) roots.push(node);
    else {
      const list = children.get(parent);
      if (list) list.push(node);
      else children.set(parent, [node]);
    }
  }
  // Children oldest first, by the rule the open document's siblings are sorted by.
  for (const list of children.values()) sortByPiTime(list, (child) => times[child]!);
  return { index, lastByKey, roots, children };
}

/** A reachable node that is its own descendant: `getTree`'s sorting loop then never ends. */
function findLoop(roots: number[], children: Map<number, number[]>, n: number): number | undefined {
  const color = new Uint8Array(n);
  const stack: { node: number; next: number }[] = [];
  for (const root of roots) {
    if (color[root]) continue;
    color[root] = 1;
    stack.push({ node: root, next: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const list = children.get(top.node);
      if (!list || top.next >= list.length) {
        color[top.node] = 2;
        stack.pop();
        continue;
      }
      const child = list[top.next++]!;
      if (color[child] === 1) return child;
      if (color[child] === 0) {
        color[child] = 1;
        stack.push({ node: child, next: 0 });
      }
    }
  }
  return undefined;
}

export interface TreeOptions {
  filter?: FilterMode;
  /** Most rows Pi's repeated subtrees may expand to before each entry is shown once instead. */
  maxRows?: number;
}

export function buildTreeView(sk: Skeleton, options: TreeOptions = {}): TreeView {
  const filter = options.filter ?? "default";
  const { keys } = sk;
  const { roots, children } = treeGraph(sk);
  const view: TreeView = { rows: [], selectedIndex: 0, filter, nodes: new Set(keys).size };
  const loop = findLoop(roots, children, sk.n);
  if (loop !== undefined)
    view.hangs = `Pi's getTree() never returns on this file: duplicate id ${JSON.stringify(keys[loop])} makes line ${sk.lines[loop]! + 1} its own descendant`;
  const has = containsActive(sk, roots, children);
  const maxRows = options.maxRows ?? Math.max(10_000, 4 * sk.n);
  let flat = flattenTree(sk, roots, children, has, { once: loop !== undefined, maxRows });
  if (!flat) {
    view.collapsedRepeats = true;
    flat = flattenTree(sk, roots, children, has, { once: true, maxRows })!;
  }

  // entryMap: id → the last flat node of that id.
  const entryMap = new Map<string, FlatNode>();
  for (const f of flat) entryMap.set(keys[f.entry]!, f);
  const bound = flat.length + 1;
  const active = activeKeys(sk, entryMap, bound, view);
  const filtered = applyFilter(sk, flat, filter, view);
  const layout = recalculateVisualStructure(sk, filtered, entryMap, 50 * (flat.length + 10), roots.length > 1, view);
  view.selectedIndex = nearestVisibleIndex(sk, filtered, entryMap, bound);
  view.rows = rowsOf(sk, filtered, layout, active, view.selectedIndex);
  return view;
}

/** Pi's `containsActive`, post-order over the reachable nodes (each once): 1 for a node whose subtree holds the leaf. */
function containsActive(sk: Skeleton, roots: number[], children: Map<number, number[]>): Uint8Array {
  const { keys, leafKey } = sk;
  const has = new Uint8Array(sk.n);
  const order: number[] = [];
  const seen = new Uint8Array(sk.n);
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen[node]) continue;
    seen[node] = 1;
    order.push(node);
    const list = children.get(node);
    if (list) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]!);
  }
  const leafMatches = leafKey !== undefined && leafKey !== NULL_KEY;
  for (let k = order.length - 1; k >= 0; k--) {
    const node = order[k]!;
    let h = leafMatches && keys[node] === leafKey;
    for (const child of children.get(node) ?? []) if (has[child]) h = true;
    has[node] = h ? 1 : 0;
  }
  return has;
}

/**
 * Pi's `flattenTree`: depth-first, the active branch first. Repeated nodes are expanded as Pi
 * expands them unless `once`; undefined when that makes more than `maxRows` rows.
 */
function flattenTree(
  sk: Skeleton,
  roots: number[],
  children: Map<number, number[]>,
  has: Uint8Array,
  { once, maxRows }: { once: boolean; maxRows: number },
): FlatNode[] | undefined {
  const multipleRoots = roots.length > 1;
  const flat: FlatNode[] = [];
  const emitted = new Uint8Array(sk.n);
  type Item = [number, number, boolean, boolean, boolean, Gutters, boolean];
  const stack: Item[] = [];
  const orderedRoots = [...roots].sort((a, b) => has[b]! - has[a]!);
  for (let i = orderedRoots.length - 1; i >= 0; i--) {
    stack.push([orderedRoots[i]!, multipleRoots ? 1 : 0, multipleRoots, multipleRoots, i === orderedRoots.length - 1, undefined, multipleRoots]);
  }
  while (stack.length > 0) {
    const [node, indent, justBranched, showConnector, isLast, gutters, isVirtualRootChild] = stack.pop()!;
    if (once) {
      if (emitted[node]) continue;
      emitted[node] = 1;
    }
    flat.push({ entry: node, indent, showConnector, isLast, gutters, isVirtualRootChild });
    if (flat.length > maxRows) return undefined;
    const list = children.get(node) ?? [];
    const multipleChildren = list.length > 1;
    const ordered = list.filter((c) => has[c]).concat(list.filter((c) => !has[c]));
    const childIndent = multipleChildren ? indent + 1 : justBranched && indent > 0 ? indent + 1 : indent;
    const childGutters = gutterBelow(showConnector, isVirtualRootChild, multipleRoots, indent, isLast, gutters);
    for (let i = ordered.length - 1; i >= 0; i--) {
      stack.push([ordered[i]!, childIndent, multipleChildren, multipleChildren, i === ordered.length - 1, childGutters, false]);
    }
  }
  return flat;
}

const isSettings = (type: string) =>
  type === "label" || type === "context_edit" || type === "custom" || type === "model_change" || type === "thinking_level_change" || type === "session_info";

/** Pi's `applyFilter`: the flat nodes the filter mode shows. */
function applyFilter(sk: Skeleton, flat: FlatNode[], filter: FilterMode, view: TreeView): FlatNode[] {
  const { keys, flags, types, roles, leafKey } = sk;
  const filtered: FlatNode[] = [];
  for (const f of flat) {
    const e = f.entry;
    const type = types[e]!;
    if (flags[e]! & Flag.TreeThrows && type === "message")
      view.throws ??= `Pi's /tree throws a TypeError on line ${sk.lines[e]! + 1} (its message has no role it can read, or a text block's text is not a string)`;
    if (type === "usage") continue;
    const isCurrentLeaf = keys[e] === leafKey;
    if (type === "message" && roles[e] === 2 && !isCurrentLeaf && flags[e]! & Flag.QuietAssistant) continue;
    let passes: boolean;
    switch (filter) {
      case "user-only":
        passes = type === "message" && roles[e] === 1;
        break;
      case "no-tools":
        passes = !isSettings(type) && !(type === "message" && roles[e] === 3);
        break;
      case "labeled-only":
        passes = sk.labels.has(keys[e]!);
        break;
      case "all":
        passes = true;
        break;
      default:
        passes = !isSettings(type);
    }
    if (passes) filtered.push(f);
  }
  return filtered;
}

/** The status line under Pi's tree: `(3/120)` and the filter, as `/tree` prints it. */
export function statusLine(view: TreeView): string {
  const labels = { default: "", "no-tools": " [no-tools]", "user-only": " [user]", "labeled-only": " [labeled]", all: " [all]" }[view.filter];
  return view.rows.length === 0 ? `  (0/0)${labels}` : `  (${view.selectedIndex + 1}/${view.rows.length})${labels}`;
}

/** The shape of Pi's tree: how many nodes, roots, tips and branch points, and the active path's length. */
export interface TreeShape {
  nodes: number;
  roots: number;
  leaves: number;
  branchPoints: number;
  /** Entries from the root to the leaf, or undefined when the walk up from the leaf meets a cycle. */
  activePath: number | undefined;
}

export function treeShape(sk: Skeleton): TreeShape {
  const { roots, children, index, lastByKey } = treeGraph(sk);
  let leaves = 0;
  let branchPoints = 0;
  for (const node of lastByKey.values()) {
    const count = children.get(node)?.length ?? 0;
    if (count === 0) leaves++;
    else if (count > 1) branchPoints++;
  }
  // `getBranch()` from the leaf's id: no path when the id is falsy.
  const activePath = walkUp(sk, index, index.find(sk.leafKey))?.length;
  return { nodes: lastByKey.size, roots: roots.length, leaves, branchPoints, activePath };
}
