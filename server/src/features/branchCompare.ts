/**
 * "Compare with the active branch", the editor's `diff`: the text `diff FILE LEAF` prints, for a
 * branch tip against the leaf Pi resumes (or another entry), answered by the command
 * `piSession.compareBranches [uri, entryId, otherId?]`, which the client shows as a read-only
 * document. A v1/v2 file is compared as Pi migrates it in memory, as `diff` compares it.
 */

import { escapeForTerminal } from "../core/base/text";
import type { SessionDocument } from "../core/session/document";
import type { Entry } from "../core/session/entry";
import { branchDiff, type ContextSummary, summarizeContext } from "./branchDiff";
import { renderDiff } from "./branchDiffText";
import { contextDocument } from "./migratedView";

export const COMPARE_BRANCHES_COMMAND = "piSession.compareBranches";

export interface BranchComparison {
  /** The comparison as `diff` prints it, every session value escaped. */
  text: string;
  /** A short name for the document that shows it: `compare <A> with <B>`. */
  title: string;
}

export type ComparisonAnswer = { ok: true; result: BranchComparison } | { ok: false; message: string };

const shortId = (id: string | undefined) => escapeForTerminal((id ?? "(no id)").slice(0, 40));

/** The comparison of the entry `args[1]` with `args[2]` (an id), or with the leaf Pi resumes when it is absent or null. */
export function computeBranchComparison(doc: SessionDocument, args: readonly unknown[]): ComparisonAnswer {
  const [, idA, idB] = args;
  if (typeof idA !== "string") return { ok: false, message: "the second argument must be an entry id" };
  if (idB !== undefined && idB !== null && typeof idB !== "string") return { ok: false, message: "the third argument must be an entry id or null" };
  const a = contextDocument(doc).analysis;
  const sides: { leaf: Entry; summary: ContextSummary }[] = [];
  for (const id of [idA, idB ?? null]) {
    // Pi resumes from an id's `byId` entry: the last holder of a duplicated id.
    const leaf = id === null ? a.leaf : a.byId.get(id);
    if (!leaf)
      return { ok: false, message: id === null ? "the session has no entry where Pi resumes" : `no entry has the id ${JSON.stringify(id.slice(0, 200))}` };
    const built = summarizeContext(a, leaf, "1.x");
    if (!built.ok) {
      const why = built.failure.kind === "cycle" ? "its path runs into a parent cycle" : built.failure.reason;
      return { ok: false, message: `Pi cannot build a context from line ${leaf.line + 1}: ${why}` };
    }
    sides.push({ leaf, summary: built.summary });
  }
  const [sa, sb] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const diff = branchDiff(sa.leaf, sa.summary, sb.leaf, sb.summary);
  const text = escapeForTerminal(
    renderDiff(diff, idB === undefined || idB === null, (t) => escapeForTerminal(t)),
    true,
  );
  return { ok: true, result: { text, title: `compare ${shortId(sa.leaf.id)} with ${shortId(sb.leaf.id)}` } };
}
