/**
 * Context lenses: what the model would see if the session resumed from here.
 *
 * - On the header: the active context, built from the file's last entry as Pi resumes —
 *   `context: 37 messages · ~48k tokens · anthropic/claude-sonnet-4-5 · thinking high · after compaction`.
 * - On every other leaf (an entry without children: the tip of a branch): the context resuming
 *   there would give — `branch context: 12 messages · ~9.1k tokens · …`.
 * - Both end with where the provider's messages differ from that context, when they do
 *   (`providerView.ts`): `· the provider gets 41 messages: 2 dropped, 1 placeholder result`.
 * - On a compaction: what it summarised —
 *   `summarises 7 entries (lines 2–8) · 18,230 tokens before · keeps from line 9`.
 *
 * Listing is cheap and builds nothing: one pass over the entries that finds the leaves and
 * compactions, and lenses that carry only their position and `data` (`{uri, entryId, line, kind}`).
 * A lens's title is computed when the editor resolves it (only visible lenses are), from contexts
 * memoised per analysis (`contextSummary`).
 *
 * Stability while the user types: a lens is anchored at the start of its entry's line and names the
 * entry by id. A lens resolved against a newer version whose entry at that line no longer has that
 * id gets a neutral title instead of an error. A malformed line (one being typed) is taken to be a
 * child of the entry above it, so that entry does not gain and lose a branch lens with each
 * keystroke. The number of lenses is capped; past the cap a note on the header says how many more
 * there are.
 *
 * Clicking a lens runs `piSession.showContext` with `[uri, entryId | null]` (null: the active
 * context), which answers the same result as the `piSession/buildContext` request. A branch tip has
 * a second lens, "compare with the active branch", which runs `piSession.compareBranches
 * [uri, entryId]` (`branchCompare.ts`): `diff`'s text for that tip and the leaf Pi resumes.
 */

import type { CodeLens, Command } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { selectEntries } from "../core/pi/buildContext";
import { pathTo } from "../core/session/semantics/walk";
import type { SessionDocument } from "../core/session/document";
import { formatTokens } from "../core/pi/tokens";
import { contextSummary, lastBuild, SHOW_CONTEXT_COMMAND, type ContextSummary } from "./contextRequest";
import { groupDigits, singleLine } from "../core/base/text";
import { NAME_CODE_POINTS } from "./entryTitle";
import { type KeptAnswers, keptAnswer } from "./keptAnswers";
import { COMPARE_BRANCHES_COMMAND } from "./branchCompare";
import { contextDocument } from "./migratedView";
import { providerNote, providerSummary } from "./providerView";

/** The most branch-tip and compaction lenses listed for one document (the header's, and each listed tip's "compare" lens, are extra). */
export const DEFAULT_MAX_LENSES = 1000;

export type LensKind = "context" | "branch" | "compare" | "compaction" | "note";

/** What a listed lens carries until it is resolved. `entryId` is null for the header's active context. */
export interface LensData {
  uri: string;
  entryId: string | null;
  /** 0-based line of the entry (or of the header). */
  line: number;
  kind: LensKind;
}

/** The title of a branch tip's second lens, which runs `piSession.compareBranches [uri, entryId]`. */
export const COMPARE_TITLE = "compare with the active branch";

/** The title of a lens whose entry changed since it was listed. */
export const STALE_TITLE = "(out of date)";

export interface CodeLensOptions {
  maxLenses?: number;
}

/**
 * The lenses of a document, unresolved: positions and data only. Linear in the entries, and it
 * builds no context. Where they are is a matter of structure (entries, children, malformed lines,
 * line starts), so the list is kept for the structure and handed out as a copy.
 */
export function computeCodeLenses(doc: SessionDocument, options: CodeLensOptions = {}): CodeLens[] {
  const max = options.maxLenses ?? DEFAULT_MAX_LENSES;
  return keptAnswer(keptLenses, doc, max, () => listLenses(doc, max)).map((l) => ({ ...l }));
}

const keptLenses: KeptAnswers<CodeLens[]> = new WeakMap();

function listLenses(doc: SessionDocument, max: number): CodeLens[] {
  const a = doc.analysis;
  if (a.headerLine === undefined) return [];
  const uri = doc.uri;
  const lenses: CodeLens[] = [lens(doc, { uri, entryId: null, line: a.headerLine, kind: "context" })];
  const hasChild = childMarks(doc, a);
  let more = 0;
  let counted = 0;
  for (const entry of a.entries) {
    if (entry.id === undefined) continue;
    const kind: LensKind | undefined = entry.type === "compaction" ? "compaction" : !hasChild[entry.index] && entry !== a.leaf ? "branch" : undefined;
    if (kind === undefined) continue;
    if (counted >= max) {
      more++;
      continue;
    }
    counted++;
    lenses.push(lens(doc, { uri, entryId: entry.id, line: entry.line, kind }));
    // Beside a listed branch tip's context, its comparison with the branch Pi resumes
    // (`branchCompare.ts`); it rides on the tip's place under the cap, so the cap still bounds the list.
    if (kind === "branch") lenses.push(lens(doc, { uri, entryId: entry.id, line: entry.line, kind: "compare" }));
  }
  if (more > 0) {
    const note = lens(doc, { uri, entryId: null, line: a.headerLine, kind: "note" });
    note.command = { title: `${groupDigits(more)} more lenses not shown (limit ${groupDigits(max)})`, command: "" };
    lenses.push(note);
  }
  return lenses;
}

function lens(doc: SessionDocument, data: LensData): CodeLens {
  const position = doc.position(data.line, 0);
  return { range: { start: position, end: position }, data };
}

/**
 * For each entry, whether it has a child, or is followed by a malformed line (assumed to be a child
 * being typed).
 */
function childMarks(doc: SessionDocument, a: SessionAnalysis): Uint8Array {
  const marks = new Uint8Array(a.entries.length);
  for (let i = 0; i < a.entries.length; i++) {
    const parent = a.parent[i];
    if (parent) marks[parent.index] = 1;
  }
  for (const entry of a.entries) if (doc.parsed[entry.line + 1]?.kind === "malformed") marks[entry.index] = 1;
  return marks;
}

/**
 * Gives a listed lens its title and command. `doc` is the document named by `lens.data.uri` (undefined
 * when it is no longer open). Never throws: stale or foreign data gives a neutral title.
 */
export function resolveCodeLens(doc: SessionDocument | undefined, codeLens: CodeLens): CodeLens {
  const data = asLensData(codeLens.data);
  if (!data || !doc || data.uri !== doc.uri) return { ...codeLens, command: inert(STALE_TITLE) };
  if (data.kind === "note") return codeLens.command ? codeLens : { ...codeLens, command: inert("") };
  // A v1/v2 file: Pi builds from the entries it migrates in memory, on the same lines.
  const view = contextDocument(doc);
  const a = view.analysis;
  if (data.kind === "context") {
    if (a.headerLine !== data.line) return { ...codeLens, command: inert(STALE_TITLE) };
    const leaf = a.leaf ?? null;
    const prefix = view === doc ? "context" : "context once Pi migrates the file";
    return { ...codeLens, command: show(withProviderNote(contextTitle(prefix, contextSummary(a, leaf)), a, leaf), data, null) };
  }
  const entry = a.entryAtLine[data.line];
  if (!entry || entry.id !== data.entryId || (data.kind === "compaction" && entry.type !== "compaction")) return { ...codeLens, command: inert(STALE_TITLE) };
  if (data.kind === "compaction") return { ...codeLens, command: show(compactionTitle(a, entry), data, entry.id) };
  if (data.kind === "compare") return { ...codeLens, command: { title: COMPARE_TITLE, command: COMPARE_BRANCHES_COMMAND, arguments: [data.uri, entry.id!] } };
  // Resuming from an id resumes from Pi's `byId` entry for it, the last holder of a duplicated id.
  const leaf = a.byId.get(entry.id!) ?? entry;
  return { ...codeLens, command: show(withProviderNote(contextTitle("branch context", contextSummary(a, leaf)), a, leaf), data, entry.id!) };
}

/** A context title, and where what the provider receives differs from that context. */
function withProviderNote(title: string, a: SessionAnalysis, leaf: Entry | null): string {
  const build = () => {
    const result = lastBuild(a, leaf, "1.x");
    return result.ok ? result.build : undefined;
  };
  const note = providerNote(providerSummary(a, leaf, "1.x", build));
  return note ? `${title} · ${note}` : title;
}

function asLensData(value: unknown): LensData | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const d = value as Record<string, unknown>;
  // Some clients drop members whose value is null on the way back (Neovim 0.7 turns JSON null into
  // a missing Lua key), so a missing entryId reads as null.
  const entryId = d.entryId ?? null;
  if (typeof d.uri !== "string" || typeof d.line !== "number" || (entryId !== null && typeof entryId !== "string")) return undefined;
  if (d.kind !== "context" && d.kind !== "branch" && d.kind !== "compare" && d.kind !== "compaction" && d.kind !== "note") return undefined;
  return { uri: d.uri, entryId, line: d.line, kind: d.kind };
}

function show(title: string, data: LensData, entryId: string | null): Command {
  return { title, command: SHOW_CONTEXT_COMMAND, arguments: [data.uri, entryId] };
}

/** A command that does nothing when clicked: only its title shows. */
function inert(title: string): Command {
  return { title, command: "" };
}

/** `context: 37 messages · ~48k tokens · anthropic/claude-sonnet-4-5 · thinking high · after compaction`. */
export function contextTitle(prefix: string, summary: ContextSummary): string {
  const { stats, failure } = summary;
  if (failure?.kind === "cycle") return `${prefix}: Pi cannot build it (parent cycle)`;
  if (failure) return `${prefix}: Pi fails here (TypeError: ${failure.reason}, line ${failure.entry.line + 1})`;
  const parts = [`${groupDigits(stats.messages)} message${stats.messages === 1 ? "" : "s"}`, `~${formatTokens(stats.estimatedTokens)} tokens`];
  parts.push(stats.model === null ? "no model" : singleLine(stats.model, NAME_CODE_POINTS));
  if (typeof stats.thinkingLevel === "string" && stats.thinkingLevel !== "off" && stats.thinkingLevel.trim())
    parts.push(`thinking ${singleLine(stats.thinkingLevel, NAME_CODE_POINTS)}`);
  if (stats.compaction) parts.push("after compaction");
  return `${prefix}: ${parts.join(" · ")}`;
}

/**
 * `summarises 7 entries (lines 2–8) · 18,230 tokens before · keeps from line 9`.
 *
 * The summarised entries are those of the context Pi built just before the compaction (from its
 * parent) that come before the kept entry, in Pi's order: an earlier compaction's summary, then its
 * kept entries, then the rest. Lines are 1-based, as editors show them.
 */
export function compactionTitle(a: SessionAnalysis, compaction: Entry): string {
  if (a.reachesCycle[compaction.index]) return "compaction: Pi cannot build it (parent cycle)";
  const path = pathTo(a, compaction);
  const before = selectEntries(path.slice(0, -1), "1.x").selected;
  const { keptFrom } = selectEntries(path, "1.x");
  let summarised: Entry[];
  if (keptFrom === undefined) summarised = before;
  else {
    const at = before.indexOf(keptFrom);
    // The kept entry was not in the previous context (it lies before an earlier compaction's kept
    // range): nothing of that context precedes it.
    summarised = at >= 0 ? before.slice(0, at) : [];
  }
  const parts: string[] = [];
  if (summarised.length === 0) parts.push("summarises no entries");
  else {
    let first = Infinity;
    let last = -Infinity;
    for (const e of summarised) {
      first = Math.min(first, e.line);
      last = Math.max(last, e.line);
    }
    const lines = first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
    parts.push(`summarises ${groupDigits(summarised.length)} entr${summarised.length === 1 ? "y" : "ies"} (${lines})`);
  }
  const tokensBefore = compaction.parsed.object?.tokensBefore;
  if (typeof tokensBefore === "number" && Number.isFinite(tokensBefore)) parts.push(`${groupDigits(tokensBefore)} tokens before`);
  parts.push(keptFrom ? `keeps from line ${keptFrom.line + 1}` : "keeps no earlier entry");
  return parts.join(" · ");
}
