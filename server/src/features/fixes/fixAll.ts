/**
 * Fix all: the safe fixes applied at once, in rounds (`source.fixAll` and `check --fix`).
 */

import type { TextEdit } from "vscode-languageserver";
import type { SessionDocument } from "../../core/document";
import { computeDiagnostics } from "../diagnostics";
import { migrationFix } from "../migration";
import { type FixOptions, makeContext } from "./context";
import { cycleBreakPoint, fixesIn } from "./perCode";

const MIGRATION_CODES: ReadonlySet<string> = new Set(["old-version", "invalid-version"]);

/**
 * Fixes that depend on one another are applied in rounds, each on the result of the one before:
 * the text's shape first (a pretty-printed header must be joined before a missing header is
 * inserted), then the header, then the v1/v2 migration (which gives a v1 file its ids), then ids
 * (a fresh id can dissolve a cycle), then cycles.
 */
const TIERS: readonly (readonly string[])[] = [
  ["bom", "malformed-json", "not-an-object", "truncated-line", "no-final-newline"],
  ["empty-file", "missing-header", "invalid-header"],
  ["old-version", "invalid-version"],
  ["duplicate-id"],
  ["parent-cycle", "self-parent"],
];

const MAX_ROUNDS = 12;

export interface FixAllResult {
  /** The repaired copy (the input document is not changed); the same object when nothing changed. */
  doc: SessionDocument;
  /** The codes fixed, with how many times each. */
  fixed: Map<string, number>;
}

/** A copy of `doc` that shares its cached line parses. */
function copyOf(doc: SessionDocument): SessionDocument {
  return doc.clone();
}

function compare(x: { line: number; character: number }, y: { line: number; character: number }): number {
  return x.line - y.line || x.character - y.character;
}

/** One round: the safe edits of the first tier that has any, without overlaps. */
function safeRound(doc: SessionDocument, options: FixOptions): { edits: TextEdit[]; codes: string[] } {
  const diagnostics = computeDiagnostics(doc);
  const ctx = makeContext(doc, options);
  for (const tier of TIERS) {
    const picked = diagnostics.filter((d) => tier.includes(String(d.code)) && !options.ignoredCodes?.has(String(d.code)));
    if (picked.length === 0) continue;
    const candidates: { edit: TextEdit; code: string }[] = [];
    const cyclesDone = new Set<number>();
    for (const d of picked) {
      const code = String(d.code);
      if (code === "parent-cycle" || code === "self-parent") {
        const entry = ctx.a.entryAtLine[doc.toPi(d.range.start).line];
        if (!entry) continue;
        const cycle = ctx.a.cycleOf[entry.index]!;
        if (cycle < 0 || cyclesDone.has(cycle) || cycleBreakPoint(ctx.a, ctx.a.cycles[cycle]!) !== entry) continue;
        cyclesDone.add(cycle);
      }
      // The migration is one edit for the whole file, whichever diagnostic asks for it; its quick
      // fix is offered by codeActions.ts, so it is not among `fixesIn`'s.
      const fix = MIGRATION_CODES.has(code) ? migrationFix(doc) : fixesIn(ctx, d).find((f) => f.safe);
      if (!fix) continue;
      for (const edit of fix.edits) candidates.push({ edit, code });
    }
    // In document order, dropping an edit that overlaps or repeats one kept before it (a join
    // covers every line of its run, and the run's other lines offer the same edit); what is
    // dropped is offered again in the next round.
    candidates.sort((x, y) => compare(x.edit.range.start, y.edit.range.start) || compare(x.edit.range.end, y.edit.range.end));
    const edits: TextEdit[] = [];
    const codes: string[] = [];
    for (const { edit, code } of candidates) {
      const last = edits[edits.length - 1];
      if (
        last &&
        (compare(edit.range.start, last.range.end) < 0 || (compare(edit.range.start, last.range.start) === 0 && compare(edit.range.end, last.range.end) === 0))
      )
        continue;
      edits.push(edit);
      codes.push(code);
    }
    if (edits.length > 0) return { edits, codes };
  }
  return { edits: [], codes: [] };
}

/** Applies every safe fix to a copy of `doc`, round after round, until none is left. */
export function applySafeFixes(doc: SessionDocument, options: FixOptions = {}): FixAllResult {
  const fixed = new Map<string, number>();
  let current = doc;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { edits, codes } = safeRound(current, options);
    if (edits.length === 0) break;
    if (current === doc) current = copyOf(doc);
    // From the end backwards, so that every range still names the text it was computed on.
    const order = edits
      .map((_, i) => i)
      .sort((i, j) => compare(edits[j]!.range.start, edits[i]!.range.start) || compare(edits[j]!.range.end, edits[i]!.range.end));
    current.update(
      order.map((i) => ({ range: edits[i]!.range, text: edits[i]!.newText })),
      current.version,
    );
    for (const code of codes) fixed.set(code, (fixed.get(code) ?? 0) + 1);
  }
  return { doc: current, fixed };
}
