/**
 * The hover anywhere on an entry: a headline and a preview, then its place in the tree (depth,
 * children, label), on the active path or not, in the context Pi builds or why not, and its usage.
 */

import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { ContextState, contextSelection } from "../../core/pi/activeContext";
import { ROLE_BY_NAME } from "../../core/line/schema";
import { labels } from "../../core/session/semantics/labels";
import { referencesTo } from "../../core/session/semantics/references";
import { groupDigits, shortValue } from "../../core/base/text";
import { inlineCode as code, lineList } from "../markdown";
import { headline, objectAt, previewQuote } from "./common";

export function entryHover(a: SessionAnalysis, entry: Entry): string {
  const out = [headline(entry)];
  const quote = previewQuote(entry);
  if (quote) out.push(quote);
  const facts: string[] = [];
  facts.push(`- **Tree:** ${treeFacts(a, entry)}`);
  const label = labelFacts(a, entry);
  if (label) facts.push(`- **Label:** ${label}`);
  facts.push(`- **Active path:** ${pathFacts(a, entry)}`);
  facts.push(`- **Context:** ${contextFacts(a, entry)}`);
  const usage = usageOf(entry);
  if (usage) facts.push(...usageFacts(usage));
  const ids = idFacts(a, entry);
  if (ids) facts.push(`- **Id:** ${ids}`);
  out.push(facts.join("\n"));
  return out.join("\n\n");
}

function treeFacts(a: SessionAnalysis, entry: Entry): string {
  const parts: string[] = [];
  const depth = a.depth[entry.index]!;
  const cycle = a.cycleOf[entry.index]!;
  if (cycle >= 0) {
    const members = a.cycles[cycle]!;
    parts.push(
      `in a parent cycle of ${members.length} ${members.length === 1 ? "entry" : "entries"} (${lineList(members.map((e) => e.line))}): walking up from here, Pi 0.74 hangs and Pi 1.x fails`,
    );
  } else if (depth < 0) {
    parts.push("below a parent cycle: walking up from here, Pi 0.74 hangs and Pi 1.x fails");
  } else {
    parts.push(`depth ${groupDigits(depth)}`);
  }
  const children = a.childrenOf(entry).length;
  parts.push(
    children === 0
      ? "no children (a branch tip)"
      : `${groupDigits(children)} ${children === 1 ? "child" : "children"}${children > 1 ? " (a branch point)" : ""}`,
  );
  const parent = a.parent[entry.index];
  if (parent) {
    if (cycle < 0) parts.push(`parent on line ${parent.line + 1}`);
  } else if (typeof entry.parentId === "string" && entry.parentId !== "") {
    parts.push(`a root: its parent ${code(entry.parentId)} names no entry`);
  } else {
    parts.push("a root");
  }
  return parts.join(" · ");
}

function pathFacts(a: SessionAnalysis, entry: Entry): string {
  if (a.onActivePath[entry.index]) return entry === a.leaf ? "on it: the leaf, where Pi resumes" : "on it";
  if (a.nullLeaf) {
    return entry === a.nullLeaf
      ? "none: this last entry's id is null, so Pi resumes from no entry (an empty context)"
      : `none: the last entry (line ${a.nullLeaf.line + 1}) has the id null, so Pi resumes from no entry`;
  }
  if (a.leaf && a.activePath.length === 0)
    return `none: the last entry (line ${a.leaf.line + 1}) leads into a parent cycle, so Pi cannot resume this session (0.74 hangs, 1.x fails with a RangeError)`;
  return "not on it (another branch)";
}

function contextFacts(a: SessionAnalysis, entry: Entry): string {
  const selection = contextSelection(a);
  const state = selection.state[entry.index];
  const compactionLine = selection.compaction ? selection.compaction.line + 1 : 0;
  if (state === ContextState.Compacted) return `not in it: summarised by the compaction on line ${compactionLine}`;
  if (state === ContextState.DroppedSystem) return `kept by Pi 0.73/0.74; Pi 1.x drops system messages before the compaction on line ${compactionLine}`;
  if (state !== ContextState.Selected) return a.onActivePath[entry.index] ? "not in it" : "not in it (not on the active path)";
  let text = selectedFacts(entry, entry === selection.compaction);
  const edit = contextEditOf(a, entry);
  if (edit) text += `; Pi 1.x ${edit.parsed.object?.replacement === null ? "removes it" : "replaces its content"} (context_edit on line ${edit.line + 1})`;
  return text;
}

/** What a selected entry adds to the context. */
function selectedFacts(entry: Entry, isTheCompaction: boolean): string {
  const o = entry.parsed.object ?? {};
  switch (entry.type) {
    case "message": {
      const m = objectAt(o, "message");
      const role = m?.role;
      if (!m) return "in it, but without a `message` Pi throws a TypeError building the context";
      if (typeof role !== "string" || !ROLE_BY_NAME.has(role)) return "selected, but its role is unknown: dropped on the way to the model";
      if (role === "bashExecution" && m.excludeFromContext) return "selected, but `excludeFromContext` leaves it out of the model input";
      return "in the built context";
    }
    case "custom_message":
      return "in the built context (as user input)";
    case "branch_summary":
      return o.summary ? "in the built context, as a branch summary" : "selected, but an empty summary adds nothing";
    case "compaction":
      return isTheCompaction ? "in the built context, as the compaction summary" : "selected, but only the last compaction on the path adds a summary";
    case "context_edit":
      return "selected: Pi 1.x applies this edit to its target";
    default:
      return "selected, but this entry adds no message";
  }
}

/** The selected `context_edit` that applies to `entry` in Pi 1.x: the last selected one naming its id. */
function contextEditOf(a: SessionAnalysis, entry: Entry): Entry | undefined {
  if (a.byId.get(entry.key) !== entry) return undefined;
  const state = contextSelection(a).state;
  const refs = referencesTo(a, entry.key);
  for (let i = refs.length - 1; i >= 0; i--) {
    const ref = refs[i]!;
    if (ref.field === "targetId" && ref.entry.type === "context_edit" && state[ref.entry.index] === ContextState.Selected) return ref.entry;
  }
  return undefined;
}

/** The entry's label, as Pi's `labelsById` holds it: set or cleared by the last `label` entry naming its id. */
export function labelFacts(a: SessionAnalysis, entry: Entry): string | undefined {
  const { byTarget, lastChange } = labels(a);
  const last = lastChange.get(entry.key);
  if (!last || entry.key === undefined) return undefined;
  const label = byTarget.get(entry.key);
  return label ? `${code(shortValue(label.value))} (set on line ${last.line + 1})` : `none (cleared on line ${last.line + 1})`;
}

function usageOf(entry: Entry): Record<string, unknown> | undefined {
  const o = entry.parsed.object;
  if (!o) return undefined;
  if (entry.type === "message") return objectAt(objectAt(o, "message"), "usage");
  return objectAt(o, "usage");
}

function usageFacts(u: Record<string, unknown>): string[] {
  const names: [string, string][] = [
    ["input", "input"],
    ["output", "output"],
    ["cacheRead", "cache read"],
    ["cacheWrite", "cache write"],
    ["totalTokens", "total"],
  ];
  const parts = names.filter(([key]) => typeof u[key] === "number").map(([key, label]) => `${groupDigits(u[key] as number)} ${label}`);
  const out: string[] = [];
  if (parts.length > 0) out.push(`- **Tokens:** ${parts.join(" · ")}`);
  const total = objectAt(u, "cost")?.total;
  if (typeof total === "number") out.push(`- **Cost:** ${formatCost(total)}`);
  return out;
}

function formatCost(total: number): string {
  if (!Number.isFinite(total)) return String(total);
  return `$${total >= 1 ? total.toFixed(2) : total.toFixed(4)}`;
}

function idFacts(a: SessionAnalysis, entry: Entry): string | undefined {
  if (entry.id === undefined) return entry.key === undefined ? "none: nothing can refer to this entry" : "not a string: Pi files the entry under its raw value";
  const holders = a.duplicates.get(entry.id);
  if (!holders) return undefined;
  return duplicateNote(a, entry.id, holders, entry);
}

export function duplicateNote(a: SessionAnalysis, id: string, holders: readonly Entry[], self?: Entry): string {
  const used = a.byId.get(id)!;
  const note = `${code(id)} is held by ${holders.length} entries (${lineList(holders.map((e) => e.line))}); Pi uses the last, line ${used.line + 1}`;
  if (self && self !== used) return `${note}, and ignores this one`;
  return note;
}
