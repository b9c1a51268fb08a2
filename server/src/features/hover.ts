/**
 * Hover: what the token under the cursor means to Pi, as bounded Markdown.
 *
 * `targetAt` classifies the token; each kind has a renderer here:
 * - an entry `type` or a message `role`: the schema table's row (what it is, its fields, how it
 *   reaches the model, since when);
 * - anywhere else on an entry: a one-line summary with a text preview, its place in the tree
 *   (depth, children, label, active path, context) and, where present, tokens and cost;
 * - an id, a reference (`parentId`, `targetId`, `fromId`, `firstKeptEntryId`) or a tool call id:
 *   a preview of the entry it names, or why it names none;
 * - a timestamp: the time in words and the gap since the parent entry;
 * - the header: the session's name, directory, version and tree counts.
 *
 * Bounds: every piece of text taken from the session is clipped before it is escaped or joined, so
 * a hover on a 400 KB line reads only the first few hundred characters of any string, and the
 * result never exceeds `MAX_HOVER_CHARS`. Cost: the token is located on its line only; facts that
 * need the whole session (labels, tool calls, the session name, the context selection) come from
 * structures built once per analysis and memoised, never from a walk per hover.
 */

import type { Hover, Position } from "vscode-languageserver";
import type { Entry, SessionAnalysis } from "../core/analysis";
import { contextSelection, ContextState } from "../core/context";
import type { SessionDocument } from "../core/document";
import { CURRENT_VERSION, ENTRY_TYPE_BY_NAME, ENTRY_TYPES, ROLE_BY_NAME, ROLES, SESSION_HEADER_TYPE, isoTime, type FieldSpec } from "../core/schema";
import { targetAt, toolCallFor, type ReferenceField, type Target } from "./target";
import { groupDigits } from "./entryTitle";

/** No hover is longer than this, whatever the line. */
export const MAX_HOVER_CHARS = 3000;

/** How many characters of a text a preview shows. */
const PREVIEW_CHARS = 160;

/** How many lines a list of duplicates or cycle members names at most. */
const MAX_LISTED = 5;

export function computeHover(doc: SessionDocument, position: Position): Hover | null {
  const target = targetAt(doc, position);
  if (!target) return null;
  const a = doc.analysis;
  const markdown = render(doc, a, target);
  if (markdown === undefined) return null;
  return { contents: { kind: "markdown", value: bound(markdown) }, range: target.range };
}

function render(doc: SessionDocument, a: SessionAnalysis, target: Target): string | undefined {
  switch (target.kind) {
    case "type":
      return typeHover(a, target.type, target.entry, target.line);
    case "role":
      return roleHover(target.entry, target.role);
    case "entry":
      return entryHover(a, target.entry);
    case "entry-id":
      return idHover(a, target.entry, target.id);
    case "reference":
      return referenceHover(a, target.entry, target.field, target.id);
    case "tool-result":
      return toolResultHover(a, target.entry, target.id);
    case "tool-call":
      return toolCallHover(a, target.entry, target.id);
    case "timestamp":
      return timestampHover(doc, a, target.entry, target.line, target.value);
    case "header":
    case "parent-session": {
      const line = target.line;
      const entry = a.entryAtLine[line];
      // The first parseable line is where Pi expects the header; when it is an entry, show the entry.
      if (entry) return `${entryHover(a, entry)}\n\n${headerProblem(a) ?? ""}`.trimEnd();
      return headerHover(a, line);
    }
  }
}

// ---- Entry types and roles ----------------------------------------------------------------------

function typeHover(a: SessionAnalysis, type: string, entry: Entry | undefined, line: number): string {
  const spec = type === "session" ? SESSION_HEADER_TYPE : ENTRY_TYPE_BY_NAME.get(type);
  if (!spec) {
    return [
      `**${code(type)}**: not an entry type Pi knows`,
      "Pi keeps the entry in the tree (it can be the leaf and sit on the active path), but it adds nothing to the model's context.",
      `Known types: ${ENTRY_TYPES.map((t) => code(t.type)).join(", ")}.`,
    ].join("\n\n");
  }
  const out = [`**${code(spec.type)}** ${type === "session" ? "header" : "entry"}`, spec.summary];
  const facts = [
    `- **In the model's context:** ${spec.context}`,
    `- **Since:** ${since(spec.since)}`,
    `- **Fields:** ${fieldList(spec.fields)}${type === "session" ? "" : "; and on every entry `id`, `parentId` (string or null), `timestamp`"}`,
  ];
  if (type === "message") facts.push(`- **Roles:** ${ROLES.map((r) => code(r.role)).join(", ")}`);
  out.push(facts.join("\n"));
  if (type === "session") {
    const note =
      line !== a.headerLine
        ? `Pi ignores this line: ${a.headerLine === undefined ? "the file has no header" : `the header is line ${a.headerLine + 1}`}.`
        : headerProblem(a);
    if (note) out.push(note);
  } else if (entry && entry.line === a.headerLine) {
    out.push(headerProblem(a) ?? "");
  }
  return out.join("\n\n").trimEnd();
}

function since(text: string): string {
  return /^v\d/.test(text) ? `session format ${text}` : text;
}

function fieldList(fields: readonly FieldSpec[]): string {
  return fields.map((f) => `${code(f.required ? f.name : `${f.name}?`)} ${f.kinds.join(" or ")}`).join(", ");
}

function roleHover(entry: Entry, role: string): string {
  const spec = ROLE_BY_NAME.get(role);
  const message = objectAt(entry.parsed.object, "message");
  if (!spec) {
    return [
      `**${code(role)}**: not a message role Pi knows`,
      "Pi keeps the message in the context, but converting it to model input drops it (an extension may define this role).",
      `Known roles: ${ROLES.map((r) => code(r.role)).join(", ")}.`,
    ].join("\n\n");
  }
  const out = [`**${code(spec.role)}** message`, spec.summary, `- **To the model:** ${spec.toModel}\n- **Fields:** ${fieldList(spec.fields)}`];
  if (role === "bashExecution" && message?.excludeFromContext) out.push("This message has `excludeFromContext`: Pi leaves it out of the model input.");
  return out.join("\n\n");
}

// ---- Entries ------------------------------------------------------------------------------------

function entryHover(a: SessionAnalysis, entry: Entry): string {
  const out = [headline(entry)];
  const text = previewOf(entry);
  // An empty text (a branch summary with "" for instance) has nothing to quote.
  if (text !== undefined && text.trim() !== "") out.push(quote(text));
  const facts: string[] = [];
  facts.push(`- **Tree:** ${treeFacts(a, entry)}`);
  const label = labelOf(a, entry);
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

/** `**message · assistant** · `anthropic/claude-sonnet-4-5` · line 5` */
function headline(entry: Entry): string {
  const o = entry.parsed.object ?? {};
  const type = entry.type;
  let title: string;
  const details: string[] = [];
  if (type === undefined) {
    title = "entry without a type";
  } else if (type === "message") {
    const m = objectAt(o, "message");
    const role = m?.role;
    title = typeof role === "string" ? `message · ${clip(role, 40)}` : m ? "message without a role" : "message without a message";
    if (m && role === "assistant") {
      if (typeof m.model === "string") details.push(code(typeof m.provider === "string" ? `${m.provider}/${m.model}` : m.model));
      if (typeof m.stopReason === "string" && m.stopReason !== "stop" && m.stopReason !== "toolUse") details.push(`stopped: ${code(m.stopReason)}`);
    } else if (m && role === "toolResult") {
      if (typeof m.toolName === "string") details.push(code(m.toolName));
      if (m.isError === true) details.push("error");
    } else if (m && role === "bashExecution") {
      if (typeof m.exitCode === "number") details.push(`exit code ${m.exitCode}`);
      if (m.excludeFromContext) details.push("excluded from context");
    } else if (m && (role === "custom" || role === "hookMessage")) {
      if (typeof m.customType === "string") details.push(code(m.customType));
    }
  } else {
    title = clip(type, 40);
    switch (type) {
      case "compaction":
        if (typeof o.tokensBefore === "number") details.push(`${groupDigits(o.tokensBefore)} tokens before`);
        if (typeof o.firstKeptEntryId === "string") details.push(`keeps from ${code(o.firstKeptEntryId)}`);
        break;
      case "branch_summary":
        if (typeof o.fromId === "string") details.push(`from ${code(o.fromId)}`);
        break;
      case "model_change":
        details.push(code(`${str(o.provider)}/${str(o.modelId)}`));
        break;
      case "thinking_level_change":
        details.push(code(str(o.thinkingLevel)));
        break;
      case "label":
        details.push(o.label ? `${code(str(o.label))} on ${code(str(o.targetId))}` : `clears the label of ${code(str(o.targetId))}`);
        break;
      case "session_info":
        details.push(typeof o.name === "string" && o.name.trim() !== "" ? code(o.name.trim()) : "clears the session name");
        break;
      case "custom":
      case "custom_message":
        if (typeof o.customType === "string") details.push(code(o.customType));
        break;
      case "usage":
        if (typeof o.kind === "string") details.push(code(o.kind));
        if (typeof o.model === "string") details.push(code(typeof o.provider === "string" ? `${o.provider}/${o.model}` : o.model));
        break;
      case "context_edit":
        details.push(`${o.replacement === null ? "removes" : "replaces the content of"} ${code(str(o.targetId))}`);
        break;
      default:
        if (!ENTRY_TYPE_BY_NAME.has(type)) details.push("unknown type");
    }
  }
  return [`**${escapeMarkdown(title)}**`, ...details, `line ${entry.line + 1}`].join(" · ");
}

/** The text an entry shows, unclipped but found without reading more than a few blocks. */
function previewOf(entry: Entry): string | undefined {
  const o = entry.parsed.object;
  if (!o) return undefined;
  switch (entry.type) {
    case "message": {
      const m = objectAt(o, "message");
      if (!m) return undefined;
      if (m.role === "bashExecution") return typeof m.command === "string" ? `$ ${m.command}` : undefined;
      if (m.role === "system" && m.content === "" && m.sections && typeof m.sections === "object")
        return `sections: ${Object.keys(m.sections).slice(0, 10).join(", ")}`;
      return contentText(m.content);
    }
    case "compaction":
    case "branch_summary":
      return typeof o.summary === "string" ? o.summary : undefined;
    case "custom_message":
      return contentText(o.content);
    case "context_edit":
      return contentText(objectAt(o, "replacement")?.content);
    default:
      return undefined;
  }
}

/** The first text of a message content: a string, or the first text block (else thinking, tool calls, images). */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let thinking: string | undefined;
  const calls: string[] = [];
  let images = 0;
  const n = Math.min(content.length, 50);
  for (let i = 0; i < n; i++) {
    const b = content[i];
    if (b === null || typeof b !== "object") continue;
    const block = b as Record<string, unknown>;
    if (block.type === "text" && typeof block.text === "string" && block.text.length > 0) return block.text;
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0) thinking ??= block.thinking;
    else if (block.type === "toolCall" && calls.length < 3) calls.push(`${clip(str(block.name), 40)}(${argumentsPreview(block.arguments)})`);
    else if (block.type === "image") images++;
  }
  if (calls.length > 0) return `→ ${calls.join(", ")}`;
  if (thinking !== undefined) return `(thinking) ${thinking}`;
  if (images > 0) return `[${images} image${images === 1 ? "" : "s"}]`;
  return undefined;
}

function argumentsPreview(args: unknown): string {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "";
  const parts: string[] = [];
  let count = 0;
  for (const key in args) {
    if (count++ >= 3) {
      parts.push("…");
      break;
    }
    const value = (args as Record<string, unknown>)[key];
    parts.push(
      `${clip(key, 20)}: ${typeof value === "string" ? `"${clip(value, 40)}"` : value === null || typeof value !== "object" ? String(value) : Array.isArray(value) ? "[…]" : "{…}"}`,
    );
  }
  return parts.join(", ");
}

function treeFacts(a: SessionAnalysis, entry: Entry): string {
  const parts: string[] = [];
  const depth = a.depth[entry.index]!;
  const cycle = a.cycleOf[entry.index]!;
  if (cycle >= 0) {
    const members = a.cycles[cycle]!;
    parts.push(`in a parent cycle of ${members.length} ${members.length === 1 ? "entry" : "entries"} (${lineList(members)}): Pi hangs walking up from here`);
  } else if (depth < 0) {
    parts.push("below a parent cycle: Pi hangs walking up from here");
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
  if (a.leaf && a.activePath.length === 0) return `none: the last entry (line ${a.leaf.line + 1}) leads into a parent cycle, so Pi hangs resuming this session`;
  return "not on it (another branch)";
}

function contextFacts(a: SessionAnalysis, entry: Entry): string {
  const selection = contextSelection(a);
  const state = selection.state[entry.index];
  const compactionLine = selection.compaction ? selection.compaction.line + 1 : 0;
  if (state === ContextState.Compacted) return `not in it: summarised by the compaction on line ${compactionLine}`;
  if (state === ContextState.DroppedSystem) return `kept by Pi 0.73/0.74; Pi 1.x drops system messages before the compaction on line ${compactionLine}`;
  if (state !== ContextState.Selected) return a.onActivePath[entry.index] ? "not in it" : "not in it (not on the active path)";
  const o = entry.parsed.object ?? {};
  let text: string;
  switch (entry.type) {
    case "message": {
      const m = objectAt(o, "message");
      const role = m?.role;
      if (!m) text = "in it, but without a `message` Pi throws a TypeError building the context";
      else if (typeof role !== "string" || !ROLE_BY_NAME.has(role)) text = "selected, but its role is unknown: dropped on the way to the model";
      else if (role === "bashExecution" && m.excludeFromContext) text = "selected, but `excludeFromContext` leaves it out of the model input";
      else text = "in the built context";
      break;
    }
    case "custom_message":
      text = "in the built context (as user input)";
      break;
    case "branch_summary":
      text = o.summary ? "in the built context, as a branch summary" : "selected, but an empty summary adds nothing";
      break;
    case "compaction":
      text =
        entry === selection.compaction
          ? "in the built context, as the compaction summary"
          : "selected, but only the last compaction on the path adds a summary";
      break;
    case "context_edit":
      text = "selected: Pi 1.x applies this edit to its target";
      break;
    default:
      text = "selected, but this entry adds no message";
  }
  const edit = contextEditOf(a, entry);
  if (edit) text += `; Pi 1.x ${edit.parsed.object?.replacement === null ? "removes it" : "replaces its content"} (context_edit on line ${edit.line + 1})`;
  return text;
}

/** The selected `context_edit` that applies to `entry` in Pi 1.x: the last selected one naming its id. */
function contextEditOf(a: SessionAnalysis, entry: Entry): Entry | undefined {
  if (entry.id === undefined || a.byId.get(entry.id) !== entry) return undefined;
  const edits = sessionIndex(a).namedBy.get(entry.id)?.edits;
  if (!edits) return undefined;
  const state = contextSelection(a).state;
  for (let i = edits.length - 1; i >= 0; i--) if (state[edits[i]!.index] === ContextState.Selected) return edits[i];
  return undefined;
}

/** The entry's label, as Pi's `labelsById`: the last `label` entry naming its id sets (truthy) or clears (falsy) it. */
function labelOf(a: SessionAnalysis, entry: Entry): string | undefined {
  if (entry.id === undefined) return undefined;
  const labels = sessionIndex(a).namedBy.get(entry.id)?.labels;
  const last = labels?.[labels.length - 1];
  if (!last) return undefined;
  const label = last.parsed.object?.label;
  return label ? `${code(String(label))} (set on line ${last.line + 1})` : `none (cleared on line ${last.line + 1})`;
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

function idFacts(a: SessionAnalysis, entry: Entry): string | undefined {
  if (entry.id === undefined) return "none: nothing can refer to this entry";
  const holders = a.duplicates.get(entry.id);
  if (!holders) return undefined;
  return duplicateNote(a, entry.id, holders, entry);
}

function duplicateNote(a: SessionAnalysis, id: string, holders: readonly Entry[], self?: Entry): string {
  const used = a.byId.get(id)!;
  const note = `${code(id)} is held by ${holders.length} entries (${lineList(holders)}); Pi uses the last, line ${used.line + 1}`;
  if (self && self !== used) return `${note}, and ignores this one`;
  return note;
}

// ---- Ids and references -----------------------------------------------------------------------

function idHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const out = [`**Entry id** ${code(id)}`, `${headline(entry)}${previewLine(entry)}`];
  const facts: string[] = [];
  // Children are those of the entry Pi resolves the id to: the last holder.
  const holder = a.byId.get(id) ?? entry;
  const named = sessionIndex(a).namedBy.get(id);
  const counts: [number, string, string][] = [
    [a.childrenOf(holder).length, "child", "children"],
    [named?.labels.length ?? 0, "label", "labels"],
    [named?.edits.length ?? 0, "context edit", "context edits"],
    [named?.summaries.length ?? 0, "branch summary", "branch summaries"],
    [named?.compactions.length ?? 0, "compaction", "compactions"],
  ];
  const parts = counts.filter(([n]) => n > 0).map(([n, one, many]) => `${groupDigits(n)} ${n === 1 ? one : many}`);
  facts.push(`- **Named by:** ${parts.length > 0 ? parts.join(", ") : "nothing"}`);
  const label = labelOf(a, entry);
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

function referenceHover(a: SessionAnalysis, entry: Entry, field: ReferenceField, id: string): string {
  const title = `**${field}** ${code(id)}`;
  if (field === "fromId" && id === "root") return `${title}\n\nThe sentinel \`"root"\`: the branch was left from the root of the tree, not from an entry.`;
  if (field === "firstKeptEntryId" && id === entry.id)
    return `${title}\n\nThe compaction's own id: Pi 1.x's way of keeping nothing from before this compaction. The model sees only the summary and what follows it.`;
  const target = a.byId.get(id);
  if (!target) {
    const effect = field === "targetId" ? (entry.type === "label" ? "The label marks no entry." : "Pi 1.x applies the edit to no message.") : DANGLING[field];
    return `${title}\n\nNames no entry. ${effect}`;
  }
  const out = [`${title} → ${headline(target)}${previewLine(target)}`];
  const notes: string[] = [];
  if (target === entry) notes.push("This is the entry's own id: a parent cycle of one entry. Pi hangs walking up from here.");
  const holders = a.duplicates.get(id);
  if (holders) notes.push(`${duplicateNote(a, id, holders)}.`);
  if (field === "firstKeptEntryId" && !a.reachesCycle[entry.index] && !a.isAncestor(target, entry)) {
    notes.push("It is not on the path above this compaction: Pi keeps nothing from before the compaction.");
  }
  if (notes.length > 0) out.push(notes.join("\n\n"));
  return out.join("\n\n");
}

/** How many entries around a tool call or result are searched before the whole-session index is built. */
const NEAR = 64;

interface ToolIndex {
  /** Assistant entries by the ids of their `toolCall` blocks. */
  calls: Map<string, Entry[]>;
  /** Tool result entries by `toolCallId`. */
  results: Map<string, Entry[]>;
}

const toolIndexes = new WeakMap<SessionAnalysis, ToolIndex>();

/** Every tool call and result by id: built once per analysis, and only when a near search fails. */
function toolIndex(a: SessionAnalysis): ToolIndex {
  let index = toolIndexes.get(a);
  if (index) return index;
  const calls = new Map<string, Entry[]>();
  const results = new Map<string, Entry[]>();
  const add = (map: Map<string, Entry[]>, id: string, entry: Entry) => {
    const list = map.get(id);
    if (list) list.push(entry);
    else map.set(id, [entry]);
  };
  for (const entry of a.entries) {
    const p = entry.parsed;
    if (p.toolCallIds) for (const id of p.toolCallIds) add(calls, id, entry);
    if (p.toolResultId !== undefined) add(results, p.toolResultId, entry);
  }
  index = { calls, results };
  toolIndexes.set(a, index);
  return index;
}

/** The assistant entry whose tool call `id` a result answers: the nearest ancestor holding it. */
function callFor(a: SessionAnalysis, entry: Entry, id: string): Entry | undefined {
  // The call is almost always the parent; the walk is bounded, so it also ends on a cycle.
  let current = a.parent[entry.index];
  for (let steps = 0; current && steps < NEAR; steps++) {
    if (current.parsed.toolCallIds?.includes(id)) return current;
    current = a.parent[current.index];
  }
  if (!current) return undefined; // The whole path was searched.
  if (a.reachesCycle[entry.index]) return toolCallFor(a, entry, id)?.entry;
  let best: Entry | undefined;
  for (const c of toolIndex(a).calls.get(id) ?? []) if (a.isAncestor(c, entry) && (!best || a.depth[c.index]! > a.depth[best.index]!)) best = c;
  return best;
}

/** The tool result answering a call in `entry`: the nearest descendant with that `toolCallId`. */
function resultFor(a: SessionAnalysis, entry: Entry, id: string): Entry | undefined {
  // Breadth first over the nearest descendants (the result is almost always a child), then the index.
  const queue: Entry[] = a.childrenOf(entry);
  let truncated = false;
  for (let k = 0; k < queue.length; k++) {
    if (k >= NEAR) {
      truncated = true;
      break;
    }
    const e = queue[k]!;
    if (e.parsed.toolResultId === id) return e;
    if (a.reachesCycle[e.index]) continue;
    const children = a.childrenOf(e);
    if (queue.length + children.length > NEAR) truncated = true;
    else for (const c of children) queue.push(c);
  }
  if (!truncated) return undefined; // Every descendant was searched.
  let best: Entry | undefined;
  for (const r of toolIndex(a).results.get(id) ?? []) if (a.isAncestor(entry, r) && (!best || a.depth[r.index]! < a.depth[best.index]!)) best = r;
  return best;
}

function toolResultHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const title = `**toolCallId** ${code(id)}`;
  const call = callFor(a, entry, id);
  if (call) return `${title} answers ${toolCallName(call, id)} in ${headline(call)}${previewLine(call)}`;
  const elsewhere = toolIndex(a).calls.get(id)?.[0];
  const note = elsewhere ? ` A tool call with this id is on line ${elsewhere.line + 1}, on another branch.` : "";
  return `${title}\n\nNo tool call with this id is on the path above this result: providers reject a tool result that answers no call.${note}`;
}

function toolCallHover(a: SessionAnalysis, entry: Entry, id: string): string {
  const title = `**Tool call** ${toolCallName(entry, id)} ${code(id)}`;
  const answer = resultFor(a, entry, id);
  if (answer) return `${title}\n\nAnswered by ${headline(answer)}${previewLine(answer)}`;
  const elsewhere = toolIndex(a).results.get(id)?.[0];
  const note = elsewhere ? ` A result with this id is on line ${elsewhere.line + 1}, but not below this call.` : "";
  return `${title}\n\nNo tool result below this message answers it.${note}`;
}

/** `read` (the tool call's name) in an assistant entry, found among its first content blocks. */
function toolCallName(entry: Entry, id: string): string {
  const content = objectAt(entry.parsed.object, "message")?.content;
  if (Array.isArray(content)) {
    for (let i = 0; i < content.length && i < 1000; i++) {
      const b = content[i] as Record<string, unknown> | null;
      if (b && typeof b === "object" && b.type === "toolCall" && b.id === id) return typeof b.name === "string" ? code(b.name) : "a tool call";
    }
  }
  return "a tool call";
}

function previewLine(entry: Entry): string {
  const text = previewOf(entry);
  return text === undefined || text.trim() === "" ? "" : `\n\n${quote(text)}`;
}

// ---- Timestamps ---------------------------------------------------------------------------------

function timestampHover(doc: SessionDocument, a: SessionAnalysis, entry: Entry | undefined, line: number, value: string): string {
  const p = doc.parsed[line];
  const time = p?.kind === "value" ? p.time : isoTime(value);
  const out: string[] = [];
  if (time === undefined) {
    const loose = Date.parse(value);
    if (Number.isNaN(loose))
      return `**Timestamp** ${code(value)}\n\nNot a valid time: Pi reads it as an invalid date, so it cannot order this entry among sibling branches.`;
    out.push(
      `**Timestamp** ${code(value)}`,
      `Not in the form Pi writes (2026-03-02T10:00:00.000Z). Pi still reads it with \`new Date()\`, as local time unless it names a zone (here: ${timeInWords(loose)}).`,
    );
    return out.join("\n\n");
  }
  out.push(`**${timeInWords(time)}**`);
  if (!entry) {
    out.push(line === a.headerLine ? "When the session was created." : "A header timestamp.");
    return out.join("\n\n");
  }
  const parent = a.parent[entry.index];
  if (!parent) {
    out.push(
      typeof entry.parentId === "string" && entry.parentId !== ""
        ? "A root (its parent names no entry): no parent to compare with."
        : "A root: no parent to compare with.",
    );
  } else if (parent.parsed.time === undefined) {
    out.push(`Its parent's timestamp (line ${parent.line + 1}) is not a valid time.`);
  } else {
    const gap = time - parent.parsed.time;
    out.push(
      gap >= 0
        ? `+${duration(gap)} after its parent (line ${parent.line + 1})`
        : `${duration(-gap)} *before* its parent (line ${parent.line + 1}): out of order`,
    );
  }
  return out.join("\n\n");
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "Monday 2 March 2026, 10:00:05 UTC" (with milliseconds when there are any). */
export function timeInWords(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "an invalid date";
  const pad = (n: number) => String(n).padStart(2, "0");
  const millis = d.getUTCMilliseconds();
  const clock = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${millis ? `.${String(millis).padStart(3, "0")}` : ""}`;
  return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${clock} UTC`;
}

/** A duration in the largest fitting units: "850 ms", "2.3 s", "4 min 12 s", "1 h 5 min", "2 d 3 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
  return `${groupDigits(Math.floor(ms / 86_400_000))} d ${Math.floor((ms % 86_400_000) / 3_600_000)} h`;
}

// ---- Header -------------------------------------------------------------------------------------

/** The entries of the rarer types that name an id. */
interface NamedBy {
  labels: Entry[];
  edits: Entry[];
  summaries: Entry[];
  compactions: Entry[];
}

/**
 * Whole-session facts for hovers, from one pass over the entries that touches a map only for the
 * rare entry types (labels, context edits, summaries, compactions, session names): cheap enough to
 * rebuild after every edit, unlike an index of every `parentId`.
 */
interface SessionIndex {
  /** The `session_info` entry that decides the name: the last in file order. */
  nameEntry: Entry | undefined;
  /** The session name Pi shows: that entry's trimmed name; undefined when cleared or absent. */
  name: string | undefined;
  /** Entries with no children. */
  leaves: number;
  /** For each id, the labels, context edits, branch summaries and compactions naming it, in file order. */
  namedBy: Map<string, NamedBy>;
}

const sessionIndexes = new WeakMap<SessionAnalysis, SessionIndex>();

function sessionIndex(a: SessionAnalysis): SessionIndex {
  let index = sessionIndexes.get(a);
  if (index) return index;
  const n = a.entries.length;
  const hasChild = new Uint8Array(n);
  const namedBy = new Map<string, NamedBy>();
  const add = (id: unknown, kind: keyof NamedBy, entry: Entry) => {
    if (typeof id !== "string") return;
    let named = namedBy.get(id);
    if (!named) namedBy.set(id, (named = { labels: [], edits: [], summaries: [], compactions: [] }));
    named[kind].push(entry);
  };
  let nameEntry: Entry | undefined;
  for (let i = 0; i < n; i++) {
    const p = a.parent[i];
    if (p) hasChild[p.index] = 1;
    const entry = a.entries[i]!;
    switch (entry.type) {
      case "message":
        break;
      case "session_info":
        nameEntry = entry;
        break;
      case "label":
        add(entry.parsed.object?.targetId, "labels", entry);
        break;
      case "context_edit":
        add(entry.parsed.object?.targetId, "edits", entry);
        break;
      case "branch_summary":
        add(entry.parsed.object?.fromId, "summaries", entry);
        break;
      case "compaction":
        add(entry.parsed.object?.firstKeptEntryId, "compactions", entry);
        break;
    }
  }
  let leaves = 0;
  for (let i = 0; i < n; i++) if (!hasChild[i]) leaves++;
  const raw = nameEntry?.parsed.object?.name;
  const name = typeof raw === "string" && raw.trim() !== "" ? raw.trim() : undefined;
  index = { nameEntry, name, leaves, namedBy };
  sessionIndexes.set(a, index);
  return index;
}

function headerHover(a: SessionAnalysis, line: number): string {
  const out: string[] = [];
  if (line !== a.headerLine)
    out.push(`Pi ignores this line: ${a.headerLine === undefined ? "the file has no header" : `the header is line ${a.headerLine + 1}`}.`);
  const h = a.header;
  const s = sessionIndex(a);
  const title = s.name !== undefined ? `**Session** ${code(s.name)}` : "**Session**";
  out.unshift(h && typeof h.id === "string" ? `${title} · id ${code(h.id)}` : title);
  const problem = headerProblem(a);
  if (problem) out.push(problem);
  const facts: string[] = [];
  const rawName = s.nameEntry?.parsed.object?.name;
  if (s.nameEntry) {
    facts.push(
      s.name !== undefined
        ? `- **Name:** ${code(s.name)} (\`session_info\` on line ${s.nameEntry.line + 1})`
        : rawName !== undefined && typeof rawName !== "string"
          ? `- **Name:** the \`session_info\` on line ${s.nameEntry.line + 1} has a name that is not a string: Pi's session list throws reading it`
          : `- **Name:** none (cleared by the \`session_info\` on line ${s.nameEntry.line + 1})`,
    );
  } else {
    facts.push("- **Name:** none (no `session_info` entry)");
  }
  if (h) {
    facts.push(`- **Working directory:** ${typeof h.cwd === "string" ? code(h.cwd) : "not a string: Pi uses its own working directory"}`);
    facts.push(`- **Version:** ${versionFacts(h.version)}`);
    if (typeof h.timestamp === "string") {
      const t = isoTime(h.timestamp);
      facts.push(`- **Created:** ${t === undefined ? `${code(h.timestamp)} (not a valid time)` : timeInWords(t)}`);
    }
  }
  const entries = a.entries.length;
  facts.push(
    `- **Entries:** ${groupDigits(entries)} · ${groupDigits(s.leaves)} ${s.leaves === 1 ? "branch" : "branches"} (leaves) · ${groupDigits(a.roots.length)} ${a.roots.length === 1 ? "root" : "roots"}`,
  );
  if (a.leaf)
    facts.push(
      `- **Resumes at:** line ${a.leaf.line + 1}${a.activePath.length > 0 ? `, depth ${groupDigits(a.depth[a.leaf.index]!)}` : " (its path runs into a parent cycle: Pi hangs)"}`,
    );
  if (h && h.parentSession !== undefined)
    facts.push(`- **Parent session:** ${typeof h.parentSession === "string" ? code(h.parentSession, 120) : "not a string"}`);
  out.push(facts.join("\n"));
  return out.join("\n\n");
}

function versionFacts(version: unknown): string {
  if (version === undefined) return "none, so v1: Pi migrates the file on open and rewrites it with new random ids";
  if (typeof version === "number" && version < CURRENT_VERSION)
    return `${version}: Pi migrates the file on open and rewrites it${version < 2 ? " with new random ids" : ""}`;
  if (version === CURRENT_VERSION) return `${CURRENT_VERSION} (current)`;
  // Pi compares with `>=` only, so "3" and 4 count as current.
  return (version as number) >= CURRENT_VERSION
    ? `${code(JSON.stringify(version) ?? "")}: Pi compares it with \`>= ${CURRENT_VERSION}\` and treats the file as current`
    : `${code(JSON.stringify(version) ?? "")}: not a version Pi recognises`;
}

/** What Pi does with a file whose header is missing or invalid, or undefined when it is fine. */
function headerProblem(a: SessionAnalysis): string | undefined {
  const where = a.headerLine === undefined ? "" : ` (line ${a.headerLine + 1})`;
  if (a.headerState === "missing")
    return `The first parseable line${where} is not a session header: Pi 0.73/0.74 overwrites the file with a fresh header, and Pi 1.x refuses to open it.`;
  if (a.headerState === "invalid")
    return `The header${where} has no string \`id\`: Pi 0.73/0.74 overwrites the file with a fresh header, and Pi 1.x refuses to open it.`;
  return undefined;
}

// ---- Markdown helpers ---------------------------------------------------------------------------

function objectAt(o: unknown, key: string): Record<string, unknown> | undefined {
  if (o === null || typeof o !== "object") return undefined;
  const v = (o as Record<string, unknown>)[key];
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "?" : (JSON.stringify(value) ?? "?").slice(0, 40);
}

/** The first `max` characters of `text`, never splitting a surrogate pair, with "…" when cut. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${safeSlice(text, max)}…`;
}

/** `text.slice(0, max)`, one shorter when that would split a surrogate pair. */
function safeSlice(text: string, max: number): string {
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** A preview of a text on one line: whitespace collapsed, clipped, as a Markdown block quote. */
function quote(text: string): string {
  // Only the head of the text is read, so a 400 KB string costs as much as a short one.
  const head = text.length > PREVIEW_CHARS * 4 ? safeSlice(text, PREVIEW_CHARS * 4) : text;
  let flat = head.replace(/\s+/g, " ").trim();
  if (head.length < text.length && flat.length <= PREVIEW_CHARS) flat += "…";
  // A leading "-", "+", "=" or "1." would start a list or a heading inside the quote.
  const escaped = escapeMarkdown(clip(flat, PREVIEW_CHARS))
    .replace(/^[-+=]/, "\\$&")
    .replace(/^(\d+)([.)])/, "$1\\$2");
  return `> ${escaped}`;
}

/** Escapes the characters that would turn text into Markdown or HTML. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|~&!]/g, "\\$&");
}

/** Text as inline code: clipped, control characters shown as spaces, fenced against its own backticks. */
function code(text: string, max = 60): string {
  const clean = clip(text, max).replace(/[\u0000-\u001f\u2028\u2029]/g, " ");
  let longest = 0;
  let run = 0;
  for (let i = 0; i < clean.length; i++) {
    run = clean.charCodeAt(i) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = "`".repeat(longest + 1);
  const pad = clean.startsWith("`") || clean.endsWith("`") || clean === "" ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

function lineList(entries: readonly Entry[]): string {
  const shown = entries.slice(0, MAX_LISTED).map((e) => e.line + 1);
  const more = entries.length > MAX_LISTED ? `, … ${groupDigits(entries.length - MAX_LISTED)} more` : "";
  return `line${entries.length === 1 ? "" : "s"} ${shown.join(", ")}${more}`;
}

function formatCost(total: number): string {
  if (!Number.isFinite(total)) return String(total);
  return `$${total >= 1 ? total.toFixed(2) : total.toFixed(4)}`;
}

/** The last line of defence: no hover exceeds `MAX_HOVER_CHARS`. */
function bound(markdown: string): string {
  return markdown.length <= MAX_HOVER_CHARS ? markdown : clip(markdown, MAX_HOVER_CHARS - 1);
}
