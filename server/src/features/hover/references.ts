/**
 * Hovers on ids: an entry's own id (what names it), a reference (`parentId`, `targetId`, `fromId`,
 * `firstKeptEntryId`: the entry it names, or why it names none), a tool result's `toolCallId` (the
 * call it answers) and a tool call's id (the result that answers it).
 */

import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import type { ReferenceField } from "../../core/session/semantics/references";
import { referencesTo } from "../../core/session/semantics/references";
import { callFor, resultsFor, toolCallName, toolCallsById, toolResultsById } from "../../core/session/semantics/toolPairs";
import { groupDigits } from "../../core/base/text";
import { inlineCode as code } from "../markdown";
import { headline, previewLine } from "./common";
import { duplicateNote, labelFacts } from "./entry";

export function idHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const out = [`**Entry id** ${code(id)}`, `${headline(entry)}${previewLine(entry)}`];
  const facts: string[] = [];
  // Children are those of the entry Pi resolves the id to: the last holder.
  const holder = a.byId.get(id) ?? entry;
  const counts = { child: a.childrenOf(holder).length, label: 0, edit: 0, summary: 0, compaction: 0 };
  for (const ref of referencesTo(a, id)) {
    if (ref.field === "targetId") counts[ref.entry.type === "label" ? "label" : "edit"]++;
    else if (ref.field === "fromId") counts.summary++;
    else if (ref.field === "firstKeptEntryId") counts.compaction++;
  }
  const named: [number, string, string][] = [
    [counts.child, "child", "children"],
    [counts.label, "label", "labels"],
    [counts.edit, "context edit", "context edits"],
    [counts.summary, "branch summary", "branch summaries"],
    [counts.compaction, "compaction", "compactions"],
  ];
  const parts = named.filter(([n]) => n > 0).map(([n, one, many]) => `${groupDigits(n)} ${n === 1 ? one : many}`);
  facts.push(`- **Named by:** ${parts.length > 0 ? parts.join(", ") : "nothing"}`);
  const label = labelFacts(a, entry);
  if (label) facts.push(`- **Label:** ${label}`);
  const holders = a.duplicates.get(id);
  if (holders) facts.push(`- **Duplicate:** ${duplicateNote(a, id, holders, entry)}`);
  out.push(facts.join("\n"));
  return out.join("\n\n");
}

/** What a dangling reference means to Pi, by field. */
const DANGLING: Record<ReferenceField, string> = {
  parentId: "Pi treats this entry as a root: a path through it stops here, and what is above drops out of the context.",
  targetId: "",
  fromId: "The summary names no branch; Pi does not use `fromId` to build the context.",
  firstKeptEntryId: "Pi keeps nothing from before this compaction: the model sees only the summary and what follows it.",
};

export function referenceHover(a: SessionAnalysis, entry: Entry, field: ReferenceField, id: string): string {
  const title = `**${field}** ${code(id)}`;
  if (field === "fromId" && id === "root") return `${title}\n\nThe sentinel \`"root"\`: the branch was left from the root of the tree, not from an entry.`;
  if (field === "firstKeptEntryId" && id === entry.id)
    return `${title}\n\nThe compaction's own id: Pi 1.x's way of keeping nothing from before this compaction. The model sees only the summary and what follows it.`;
  if (field === "parentId" && id === "") return `${title}\n\nAn empty parentId: Pi reads it as no parent, so this entry is a root.`;
  const target = a.byId.get(id);
  if (!target) {
    const effect = field === "targetId" ? (entry.type === "label" ? "The label marks no entry." : "Pi 1.x applies the edit to no message.") : DANGLING[field];
    return `${title}\n\nNames no entry. ${effect}`;
  }
  const out = [`${title} → ${headline(target)}${previewLine(target)}`];
  const notes: string[] = [];
  if (target === entry)
    notes.push("This is the entry's own id: a parent cycle of one entry. Walking up from here, Pi 0.74 hangs and Pi 1.x fails with a RangeError.");
  const holders = a.duplicates.get(id);
  if (holders) notes.push(`${duplicateNote(a, id, holders)}.`);
  if (field === "firstKeptEntryId" && !a.reachesCycle[entry.index] && !a.isAncestor(target, entry)) {
    notes.push("It is not on the path above this compaction: Pi keeps nothing from before the compaction.");
  }
  if (notes.length > 0) out.push(notes.join("\n\n"));
  return out.join("\n\n");
}

export function toolResultHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const title = `**toolCallId** ${code(id)}`;
  const call = callFor(a, entry, id);
  if (call) return `${title} answers ${toolName(call, id)} in ${headline(call)}${previewLine(call)}`;
  const elsewhere = toolCallsById(a).get(id)?.[0];
  const note = elsewhere ? ` A tool call with this id is on line ${elsewhere.line + 1}, on another branch.` : "";
  return `${title}\n\nNo tool call with this id is on the path above this result: providers reject a tool result that answers no call.${note}`;
}

export function toolCallHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const title = `**Tool call** ${toolName(entry, id)} ${code(id)}`;
  const answer = resultsFor(a, entry, id)[0];
  if (answer) return `${title}\n\nAnswered by ${headline(answer)}${previewLine(answer)}`;
  const elsewhere = toolResultsById(a).get(id)?.[0];
  const note = elsewhere ? ` A result with this id is on line ${elsewhere.line + 1}, but not below this call.` : "";
  return `${title}\n\nNo tool result below this message answers it.${note}`;
}

/** `read` (the tool call's name) as inline code, or "a tool call". */
function toolName(entry: Entry, id: string): string {
  const name = toolCallName(entry, id);
  return name === undefined ? "a tool call" : code(name);
}
