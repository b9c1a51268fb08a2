/**
 * Tree navigation: the session tree as a type hierarchy and as a call hierarchy.
 *
 * - Type hierarchy: the supertype of an entry is its parent, its subtypes are its children (the
 *   branches that start there), sorted by time as Pi's `getTree` sorts them.
 * - Call hierarchy: incoming calls are the entries that name this one (children through
 *   `parentId`, and labels, context edits, branch summaries and compactions through `targetId`,
 *   `fromId` and `firstKeptEntryId`); outgoing calls are the entries this one names (its parent,
 *   then the target of its own reference field).
 *
 * Every request answers one level from the analysis' index: the parent is one array read, the
 * children one slice of the children index, the referrers one lookup in the memoised reference
 * index. Nothing walks the tree, so a 50,000-deep chain costs no more than a short one, and a
 * parent cycle only means the client can keep expanding.
 *
 * An item carries `{ uri, version, entryId, line }` in `data` to find its entry again. The line is
 * tried first, as long as it still holds an entry with that id (this keeps the identity of an entry
 * whose id is duplicated); otherwise the id is looked up as Pi does (the last holder). When neither
 * finds it, because the document changed under the item, the answer is empty. Nothing here throws
 * on client data.
 */

import type { CallHierarchyIncomingCall, CallHierarchyOutgoingCall, Position, Range, SymbolKind } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { sortSiblings } from "../core/session/semantics/siblings";
import { groupDigits } from "../core/base/text";
import { entryKind, entryTitle } from "./entryTitle";
import { otherReferenceField, referencesTo } from "../core/session/semantics/references";

/** What an item carries to find its entry again. A type alias, so that it is valid LSP `data`. */
export type HierarchyData = {
  uri: string;
  version: number;
  /** The entry's id, or null for an entry without a string id. */
  entryId: string | null;
  /** 0-based line of the entry when the item was made. */
  line: number;
};

/** The shape shared by `CallHierarchyItem` and `TypeHierarchyItem`. */
export interface HierarchyItem {
  name: string;
  kind: SymbolKind;
  detail?: string;
  uri: string;
  /** The whole entry line. */
  range: Range;
  /** The entry's `id` value (the line when it has none). */
  selectionRange: Range;
  /** Null on the item that ends a cut list, which cannot be expanded. */
  data: HierarchyData | null;
}

/** What the handlers receive back from the client: any item, with data we may or may not recognise. */
export interface ItemRef {
  uri: string;
  data?: unknown;
}

/** The item for the entry on the cursor's line (any position on it), or nothing off entries. */
export function prepareHierarchy(doc: SessionDocument, requested: Position): HierarchyItem[] {
  const position = doc.piPosition(requested);
  const entry = position && doc.analysis.entryAtLine[position.line];
  return entry ? [hierarchyItem(doc, entry)] : [];
}

/** Type hierarchy supertypes: the parent entry, or nothing for a root or a dangling `parentId`. */
export function typeHierarchySupertypes(doc: SessionDocument, item: ItemRef): HierarchyItem[] {
  const entry = resolveHierarchyItem(doc, item);
  const parent = entry && doc.analysis.parent[entry.index];
  return parent ? [hierarchyItem(doc, parent)] : [];
}

/** The most items one level of a hierarchy lists; a last item says how many more there are. */
export const MAX_HIERARCHY_ITEMS = 1000;

/** Type hierarchy subtypes: the children (branches), oldest first as in Pi's tree, at most `MAX_HIERARCHY_ITEMS`. */
export function typeHierarchySubtypes(doc: SessionDocument, item: ItemRef): HierarchyItem[] {
  const entry = resolveHierarchyItem(doc, item);
  if (!entry) return [];
  const children = sortedChildren(doc.analysis, entry);
  const items = children.slice(0, MAX_HIERARCHY_ITEMS).map((child) => hierarchyItem(doc, child));
  if (children.length > MAX_HIERARCHY_ITEMS) items.push(moreItem(doc, entry, children.length - MAX_HIERARCHY_ITEMS, "children"));
  return items;
}

/**
 * The item that ends a cut list: it names how many more there are and points at the entry whose
 * list it is; it carries no data, so it cannot be expanded.
 */
function moreItem(doc: SessionDocument, entry: Entry, more: number, what: string): HierarchyItem {
  const range = doc.lineRange(entry.line);
  return {
    name: `… ${groupDigits(more)} more ${what} (the list stops at ${groupDigits(MAX_HIERARCHY_ITEMS)})`,
    kind: entryKind(entry),
    uri: doc.uri,
    range,
    selectionRange: range,
    data: null,
  };
}

/**
 * Call hierarchy incoming calls: the children, each at its `parentId`, then the entries that name
 * this one by `targetId`, `fromId` or `firstKeptEntryId`, in file order. An entry that does both
 * appears once with both ranges. References count only for the entry Pi resolves the id to (the
 * last holder of a duplicated id).
 */
export function callHierarchyIncomingCalls(doc: SessionDocument, item: ItemRef): CallHierarchyIncomingCall[] {
  const entry = resolveHierarchyItem(doc, item);
  if (!entry) return [];
  const a = doc.analysis;
  const ranges = new Map<Entry, Range[]>();
  for (const child of sortedChildren(a, entry)) ranges.set(child, [doc.valueRange(child.line, ["parentId"])]);
  if (entry.id !== undefined && a.byId.get(entry.id) === entry) {
    for (const ref of referencesTo(a, entry.id)) {
      if (ref.field === "parentId") continue; // the children, already listed from the resolved tree
      const range = doc.valueRange(ref.entry.line, [ref.field]);
      const list = ranges.get(ref.entry);
      if (list) list.push(range);
      else ranges.set(ref.entry, [range]);
    }
  }
  const calls: CallHierarchyIncomingCall[] = [];
  for (const [from, fromRanges] of ranges) {
    if (calls.length === MAX_HIERARCHY_ITEMS) {
      calls.push({ from: moreItem(doc, entry, ranges.size - MAX_HIERARCHY_ITEMS, "entries that name it"), fromRanges: [] });
      break;
    }
    calls.push({ from: hierarchyItem(doc, from), fromRanges });
  }
  return calls;
}

/**
 * Call hierarchy outgoing calls: the parent, at this entry's `parentId`, then the entry named by
 * this entry's own reference field (a label's or context edit's `targetId`, a branch summary's
 * `fromId`, a compaction's `firstKeptEntryId`) when it exists.
 */
export function callHierarchyOutgoingCalls(doc: SessionDocument, item: ItemRef): CallHierarchyOutgoingCall[] {
  const entry = resolveHierarchyItem(doc, item);
  if (!entry) return [];
  const a = doc.analysis;
  const calls: CallHierarchyOutgoingCall[] = [];
  const parent = a.parent[entry.index];
  if (parent) calls.push({ to: hierarchyItem(doc, parent), fromRanges: [doc.valueRange(entry.line, ["parentId"])] });
  const field = otherReferenceField(entry.type);
  const id = field ? entry.parsed.object?.[field] : undefined;
  const target = typeof id === "string" && id !== "" ? a.byId.get(id) : undefined;
  if (field && target) {
    const range = doc.valueRange(entry.line, [field]);
    if (target === parent) calls[0]!.fromRanges.push(range);
    else calls.push({ to: hierarchyItem(doc, target), fromRanges: [range] });
  }
  return calls;
}

/**
 * The entry an item stands for in the current version of `doc`, or undefined when the item is not
 * ours, belongs to another document, or names an entry that no longer exists.
 */
export function resolveHierarchyItem(doc: SessionDocument, item: ItemRef): Entry | undefined {
  const data = item?.data as Partial<Record<keyof HierarchyData, unknown>> | null | undefined;
  if (data === null || typeof data !== "object") return undefined;
  const { entryId, line } = data;
  if (typeof line !== "number" || !Number.isInteger(line) || line < 0) return undefined;
  if (entryId !== null && typeof entryId !== "string") return undefined;
  if (item.uri !== doc.uri || (data.uri !== undefined && data.uri !== doc.uri)) return undefined;
  const a = doc.analysis;
  const atLine = a.entryAtLine[line];
  if (atLine && (atLine.id ?? null) === entryId) return atLine;
  return entryId === null ? undefined : a.byId.get(entryId);
}

/** The hierarchy item of an entry. */
export function hierarchyItem(doc: SessionDocument, entry: Entry): HierarchyItem {
  const line = entry.line;
  const range = doc.lineRange(line);
  return {
    name: entryTitle(entry),
    kind: entryKind(entry),
    detail: entryDetail(doc.analysis, entry),
    uri: doc.uri,
    range,
    selectionRange: entry.id !== undefined ? doc.valueRange(line, ["id"]) : range,
    data: { uri: doc.uri, version: doc.version, entryId: entry.id ?? null, line },
  };
}

/** `<id> · line 12`, plus what is unusual about the entry's place in the tree. */
function entryDetail(a: SessionAnalysis, entry: Entry): string {
  const parts = [entry.id ?? "(no id)", `line ${entry.line + 1}`];
  if (a.onActivePath[entry.index]) parts.push("active path");
  if (entry.id !== undefined && a.byId.get(entry.id) !== entry) parts.push("duplicate id, shadowed");
  if (typeof entry.parentId === "string" && entry.parentId !== "" && !a.parent[entry.index]) parts.push("dangling parentId");
  if (a.cycleOf[entry.index]! >= 0) parts.push("in a parent cycle");
  return parts.join(" · ");
}

/** The children of an entry, oldest first, as Pi's `getTree` orders them. */
function sortedChildren(a: SessionAnalysis, entry: Entry): Entry[] {
  return sortSiblings(a.childrenOf(entry));
}
