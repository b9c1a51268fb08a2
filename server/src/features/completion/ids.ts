/**
 * Completion of ids: in a `parentId` / `targetId` / `fromId` / `firstKeptEntryId` value the entry
 * ids (for a compaction its ancestors first, then the leaf, then the entries nearest the cursor), in
 * a toolResult's `toolCallId` the tool calls on its path that have no result yet.
 */

import type { CompletionItem, CompletionList, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import { type Entry, firstEntryFrom } from "../../core/session/entry";
import { freshEntryId, type Random } from "../../core/base/ids";
import { ancestors } from "../../core/session/semantics/walk";
import { openToolCalls } from "../../core/session/semantics/toolPairs";
import { singleLine } from "../../core/base/text";
import { entryTitle } from "../entryTitle";
import { escapeMarkdown, inlineCode } from "../markdown";
import { type CompletionContext, insertion, KIND, MAX_ID_ITEMS, markdown, rank } from "./common";
import { jsonContent } from "./snippet";

/** A fresh entry id in Pi's form, not used by any entry of the file. */
export function freshId(a: SessionAnalysis, random?: Random): string {
  return freshEntryId((id) => a.byId.has(id), random);
}

/** `close` follows each id: the closing quote of a string not closed yet. */
export function idCompletion(
  c: CompletionContext,
  line: number,
  self: Entry | undefined,
  range: Range,
  typed: string,
  field: string,
  close = "",
): CompletionList {
  const { a } = c;
  const isParent = field === "parentId";
  const items: CompletionItem[] = [];
  let cut = false;
  const taken = new Set<Entry>();
  const add = (entry: Entry, note: string | undefined): boolean => {
    if (items.length >= MAX_ID_ITEMS) {
      cut = true;
      return false;
    }
    const id = entry.id!;
    taken.add(entry);
    items.push({
      label: id,
      kind: KIND.Reference,
      detail: entryTitle(entry),
      documentation: markdown(`Line ${entry.line + 1}${note ? ` · ${note}` : ""}\n\n${escapeMarkdown(entryTitle(entry))}`),
      sortText: rank(items.length),
      filterText: id,
      ...insertion(c, range, jsonContent(id) + close),
    });
    return true;
  };
  // Only the entry Pi finds for an id (the last holder) is offered, never the entry itself, and
  // for a parent none of its descendants, which would close a cycle Pi hangs on.
  const usable = (e: Entry): boolean =>
    e.id?.startsWith(typed) === true && e !== self && a.byId.get(e.id) === e && !(isParent && self !== undefined && a.isAncestor(self, e));
  // A compaction keeps history from an entry on its own path: its ancestors come first, nearest first.
  if (field === "firstKeptEntryId" && self) {
    for (const e of ancestors(a, self)) {
      if (items.length >= MAX_ID_ITEMS) break;
      if (usable(e)) add(e, "on the path before this compaction");
    }
  }
  const leaf = a.leaf;
  if (leaf && !taken.has(leaf) && usable(leaf)) add(leaf, "the current leaf (where Pi resumes)");
  // Nearest first: walk outwards from the cursor, entries above winning ties.
  const entries = a.entries;
  let below = firstEntryFrom(entries, line);
  let above = below - 1;
  if (below < entries.length && entries[below]!.line === line) below++;
  while (above >= 0 || below < entries.length) {
    const up = above >= 0 ? entries[above]! : undefined;
    const down = below < entries.length ? entries[below]! : undefined;
    const next = up && (!down || line - up.line <= down.line - line) ? up : down!;
    if (next === up) above--;
    else below++;
    if (taken.has(next) || !usable(next)) continue;
    if (!add(next, undefined)) break;
  }
  return { isIncomplete: cut, items };
}

/** The nearest entry with an id on a line above `line`. */
export function entryAbove(a: SessionAnalysis, line: number): Entry | undefined {
  for (let i = firstEntryFrom(a.entries, line) - 1; i >= 0; i--) {
    const e = a.entries[i]!;
    if (e.id !== undefined) return e;
  }
  return undefined;
}

/** Where a new or edited line's path starts: its resolved parent, else its parentId, else the entry above. */
function pathStart(a: SessionAnalysis, line: number, self: Entry | undefined, parentId: string | null | undefined): Entry | undefined {
  if (self) return a.parent[self.index];
  if (typeof parentId === "string") return a.byId.get(parentId);
  if (parentId === null) return undefined;
  return entryAbove(a, line);
}

export function toolCallCompletion(
  c: CompletionContext,
  line: number,
  self: Entry | undefined,
  parentId: string | null | undefined,
  range: Range,
  typed: string,
  close = "",
): CompletionList {
  const { calls, cut } = openToolCalls(c.a, pathStart(c.a, line, self, parentId), MAX_ID_ITEMS);
  const items: CompletionItem[] = [];
  for (const call of calls) {
    if (!call.id.startsWith(typed)) continue;
    items.push({
      label: call.id,
      kind: KIND.Reference,
      detail: `toolCall ${call.name === undefined ? "?" : singleLine(call.name, 60) || "?"}`,
      documentation: markdown(
        `A tool call without a result on this path: line ${call.entry.line + 1} (${call.entry.id === undefined ? "no id" : inlineCode(call.entry.id)}).`,
      ),
      sortText: rank(items.length),
      filterText: call.id,
      ...insertion(c, range, jsonContent(call.id) + close),
    });
  }
  return { isIncomplete: cut, items };
}
