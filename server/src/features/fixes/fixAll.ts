/**
 * Fix all: every safe fix applied at once, in rounds (`source.fixAll` and `check --fix`), and with
 * `unsafe` the unsafe ones too (`check --fix --unsafe-fixes`, the "including unsafe fixes" action).
 */

import type { TextEdit } from "vscode-languageserver";
import { type Hunk, lineDiff, unitsOf } from "../../core/edits/diff";
import type { SessionDocument } from "../../core/session/document";
import { computeDiagnostics } from "../diagnostics";
import { migrationFix } from "../migration";
import { type Fix, type FixOptions, makeContext } from "./fixContext";
import { cycleBreakPoint, fixesIn } from "./perCode";

const MIGRATION_CODES: ReadonlySet<string> = new Set(["old-version", "invalid-version"]);

/**
 * Fixes that depend on one another are applied in rounds, each on the result of the one before:
 * the text's shape first (a pretty-printed header must be joined before a missing header is
 * inserted; a cut-off entry recovered, or a line that cannot be, deleted), then the header, then
 * the v1/v2 migration (which gives a v1 file its ids), then ids (a fresh id can dissolve a cycle),
 * then cycles, and last the dangling parents that are left once recovered entries are back (an
 * unsafe fix only).
 */
const TIERS: readonly (readonly string[])[] = [
  ["bom", "malformed-json", "not-an-object", "truncated-line", "no-final-newline"],
  ["empty-file", "missing-header", "invalid-header"],
  ["old-version", "invalid-version"],
  ["duplicate-id"],
  ["parent-cycle", "self-parent"],
  ["dangling-parent"],
];

const MAX_ROUNDS = 12;

/** An unsafe fix that was applied, for the list `check --unsafe-fixes` prints. */
export interface UnsafeFixApplied {
  code: string;
  /** What it did (`Fix.summary`, else its title). */
  summary: string;
  /** The 0-based line of the input document it was made on, or -1 for a line a fix before it added. */
  line: number;
}

export interface FixAllResult {
  /** The repaired copy (the input document is not changed); the same object when nothing changed. */
  doc: SessionDocument;
  /** The codes fixed, with how many times each. */
  fixed: Map<string, number>;
  /** The unsafe fixes applied, in the order they were made (only with `unsafe`). */
  unsafe: UnsafeFixApplied[];
}

export interface FixAllOptions extends FixOptions {
  /** Whether the unsafe fixes are applied too, where a diagnostic has no safe one. */
  unsafe?: boolean;
}

/** A copy of `doc` that shares its cached line parses. */
function copyOf(doc: SessionDocument): SessionDocument {
  return doc.clone();
}

function compare(x: { line: number; character: number }, y: { line: number; character: number }): number {
  return x.line - y.line || x.character - y.character;
}

interface Candidate {
  fix: Fix;
  code: string;
  start: TextEdit["range"]["start"];
  end: TextEdit["range"]["end"];
}

/** One round: the fixes of the first tier that has any, without overlaps. */
function fixRound(doc: SessionDocument, options: FixAllOptions): { fixes: Candidate[] } {
  const diagnostics = computeDiagnostics(doc);
  const ctx = makeContext(doc, options);
  for (const tier of TIERS) {
    const picked = diagnostics.filter((d) => tier.includes(String(d.code)) && !options.ignoredCodes?.has(String(d.code)));
    if (picked.length === 0) continue;
    const candidates: Candidate[] = [];
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
      // fix is offered by codeActions.ts, so it is not among `fixesIn`'s. A diagnostic's fixes
      // come safe first, then the unsafe ones in the order they are best tried.
      const fix = MIGRATION_CODES.has(code) ? migrationFix(doc) : fixesIn(ctx, d).find((f) => f.safe || options.unsafe === true);
      if (!fix || fix.edits.length === 0) continue;
      let start = fix.edits[0]!.range.start;
      let end = fix.edits[0]!.range.end;
      for (const edit of fix.edits) {
        if (compare(edit.range.start, start) < 0) start = edit.range.start;
        if (compare(edit.range.end, end) > 0) end = edit.range.end;
      }
      candidates.push({ fix, code, start, end });
    }
    // In document order, dropping a fix that overlaps or repeats one kept before it (a join
    // covers every line of its run, and the run's other lines offer the same edit); a fix is kept
    // or dropped whole, and what is dropped is offered again in the next round.
    candidates.sort((x, y) => compare(x.start, y.start) || compare(x.end, y.end));
    const fixes: Candidate[] = [];
    for (const candidate of candidates) {
      const last = fixes[fixes.length - 1];
      if (last && (compare(candidate.start, last.end) < 0 || (compare(candidate.start, last.start) === 0 && compare(candidate.end, last.end) === 0))) continue;
      fixes.push(candidate);
    }
    if (fixes.length > 0) return { fixes };
  }
  return { fixes: [] };
}

/**
 * The line of the original that line `line` of the current copy comes from (`hunks` lead from one to the other), or -1 when a fix added it. The
 * lines a line was split into (or a run joined into) all come from the lines it replaced: each
 * is given the one at its place in the run, or the run's last.
 */
function originalLine(hunks: readonly Hunk[], line: number): number {
  let shift = 0;
  for (const h of hunks) {
    if (line < h.bStart) break;
    if (line < h.bEnd) return h.aEnd === h.aStart ? -1 : Math.min(h.aStart + (line - h.bStart), h.aEnd - 1);
    shift = h.aEnd - h.bEnd;
  }
  return line + shift;
}

/** Applies every safe fix to a copy of `doc`, round after round, until none is left. */
export function applySafeFixes(doc: SessionDocument, options: FixOptions = {}): FixAllResult {
  return applyFixes(doc, { ...options, unsafe: false });
}

/** Applies every safe fix, and with `unsafe` every unsafe one, to a copy of `doc`, round after round, until none is left. */
export function applyFixes(doc: SessionDocument, options: FixAllOptions = {}): FixAllResult {
  const fixed = new Map<string, number>();
  const unsafe: UnsafeFixApplied[] = [];
  let current = doc;
  let originalUnits: string[] | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { fixes } = fixRound(current, options);
    if (fixes.length === 0) break;
    if (current === doc) current = copyOf(doc);
    const risky = fixes.filter((f) => !f.fix.safe);
    if (risky.length > 0) {
      originalUnits ??= unitsOf(doc);
      // One diff per round, not one per fix: a round can hold thousands of them.
      const hunks = lineDiff(originalUnits, unitsOf(current));
      for (const { fix, code, start } of risky) unsafe.push({ code, summary: fix.summary ?? fix.title, line: originalLine(hunks, current.toPi(start).line) });
    }
    const edits = fixes.flatMap((f) => f.fix.edits);
    // From the end backwards, so that every range still names the text it was computed on.
    const order = edits
      .map((_, i) => i)
      .sort((i, j) => compare(edits[j]!.range.start, edits[i]!.range.start) || compare(edits[j]!.range.end, edits[i]!.range.end));
    current.update(
      order.map((i) => ({ range: edits[i]!.range, text: edits[i]!.newText })),
      current.version,
    );
    for (const { code } of fixes) fixed.set(code, (fixed.get(code) ?? 0) + 1);
  }
  // One numbering, in order: the lines of the file as it was read, whichever round fixed them
  // (a dangling parent re-linked in the last round may sit above a line mended in the first).
  // Lines a fix added (-1) come first, as a header inserted at the top does; the sort is stable.
  unsafe.sort((x, y) => x.line - y.line);
  return { doc: current, fixed, unsafe };
}
