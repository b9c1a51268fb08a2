/**
 * `compaction-keeps-tool-result`: a compaction whose kept range starts on a tool result whose call
 * it summarises away, which Pi then sends without its call. Part of the provider request's
 * diagnostics (`requestDiagnostics.ts`), which add these to theirs.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { selectEntries } from "../core/pi/buildContext";
import { pathTo } from "../core/session/semantics/walk";
import { entriesWhere } from "../core/session/resplice";
import { type KeptForInputs, keptForSameInputs } from "../core/session/semantics/memo";
import { diagnostic } from "./diagnostics/report";

type Message = Record<string, unknown>;

/**
 * The compaction checks read compactions anywhere in the file, not only on the path Pi resumes,
 * and their ranges are on the compactions' own lines: kept for the structure and those lines' parses,
 * through the idle release too (the parses are the document's, and the diagnostics small).
 */
const compactionMemo: KeptForInputs<Diagnostic[]> = new WeakMap();

/** The compaction entries, found once per structure (an edit inside a line keeps the entry objects), and after a structural edit from the last structure's. */
const compactionsOf = entriesWhere((e) => e.type === "compaction");

/** The compaction findings, kept for the structure and the compactions' parses unless a lone "\r" splits a line (`plain` false). */
export function compactionDiagnostics(doc: SessionDocument, plain: boolean): Diagnostic[] {
  return plain
    ? keptForSameInputs(compactionMemo, doc.analysis.structure, compactionParses(doc.analysis), () => compactionKeepsToolResult(doc))
    : compactionKeepsToolResult(doc);
}

function compactionParses(a: SessionAnalysis): readonly unknown[] {
  return compactionsOf(a).map((e) => e.parsed);
}

/**
 * Compactions whose kept range starts on a tool result whose call lies before it: Pi's own cut
 * point never does that (`findCutPoint` skips tool results), an extension's or a hand edit can.
 * Every compaction is checked, not only the last, since each is where some branch resumes.
 */
export function compactionKeepsToolResult(doc: SessionDocument): Diagnostic[] {
  const a = doc.analysis;
  const out: Diagnostic[] = [];
  for (const c of compactionsOf(a)) {
    if (a.reachesCycle[c.index]) continue;
    const firstKept = c.parsed.object?.firstKeptEntryId;
    if (typeof firstKept !== "string" || firstKept === c.id) continue;
    const target = a.byId.get(firstKept);
    if (!target || !a.isAncestor(target, c)) continue;
    // Pi cuts at a user or assistant message almost always: only a kept range that starts on a
    // tool result or on metadata needs the path.
    if (target.type === "message" && target.parsed.toolResultId === undefined) continue;
    const { selected } = selectEntries(pathTo(a, c), "1.x");
    // The first entry of the kept range that gives the model a message.
    const first = selected.slice(1).find((e) => e !== c && producesMessage(e));
    const resultId = first?.parsed.toolResultId;
    if (!first || resultId === undefined || selected.some((e) => e.parsed.toolCallIds?.includes(resultId))) continue;
    const call = pathTo(a, target).find((e) => e.parsed.toolCallIds?.includes(resultId));
    const message =
      `This compaction keeps the entries from line ${target.line + 1} on, and the first message it keeps is a tool result (line ${first.line + 1}) whose call ${call ? `(line ${call.line + 1}) ` : ""}it summarises away. ` +
      "Pi sends the summary and then this result without its call, which providers reject (Anthropic: each tool_result must answer a tool_use in the message right before it); " +
      "Pi's own compaction never cuts there. Keep from the call instead.";
    out.push(diagnostic("compaction-keeps-tool-result", message, doc.valueRange(c.line, ["firstKeptEntryId"])));
  }
  return out;
}

function producesMessage(e: Entry): boolean {
  if (e.type === "custom_message" || e.type === "branch_summary") return true;
  if (e.type !== "message") return false;
  return (e.parsed.object?.message as Message | undefined)?.role !== "system";
}
