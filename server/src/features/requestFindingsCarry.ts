/**
 * The request diagnostics carried over an edit of the tree off the resumed path that moved no line
 * (a line broken or mended, a parent changed, elsewhere): the contexts and the provider requests
 * were carried (`core/pi/contextCarry.ts`), so they hold the same messages from entries with the same
 * parses, and when each of those entries is on the same line as before, every finding, its message
 * and its range are those of the analysis the edit replaced. (Only a failure of the pipeline with no
 * entry to blame is said elsewhere, on the header: then they are computed afresh.)
 *
 * A range is the client's: it is the same only when no lone "\r" made the client count lines
 * otherwise, now or when the findings were made (`madePlain`).
 */

import { keptArray } from "../core/base/entryArrays";
import type { ContextBuild, ContextResult } from "../core/pi/buildContext";
import { contextCarry } from "../core/pi/contextCarry";
import { contextSplice } from "../core/pi/contextUpdate";
import { requestCarriedFrom } from "../core/pi/provider/request";
import type { ProviderResult } from "../core/pi/provider/types";
import type { SessionDocument } from "../core/session/document";
import { type KeptForInputs, predecessorOf } from "../core/session/semantics/memo";
import type { RequestFindings, RequestInputs } from "./diagnostics/requestFindings";

/** Whether the client counted lines as Pi does when the findings were made. */
const plain = new WeakMap<RequestFindings, boolean>();

/**
 * The line of each entry of a build's path when findings were made from it: a structural edit moves
 * the entries below it in place (`core/session/resplice.ts`), so the lines the findings quote are
 * known only from this record.
 */
const pathLines = new WeakMap<ContextBuild, number[]>();

/**
 * Records how the client counted `doc`'s lines when `findings` were made from it and `inputs`, and
 * the lines of the inputs' paths, and gives the findings back.
 */
export function madePlain(doc: SessionDocument, findings: RequestFindings, inputs: readonly unknown[]): RequestFindings {
  if (!plain.has(findings)) plain.set(findings, doc.lspLineCount === doc.lineCount);
  const [built, , older] = inputs as RequestInputs;
  for (const result of [built, older]) {
    if (!result?.ok || pathLines.has(result.build)) continue;
    const path = result.build.path;
    // A build updated after an edit inside lines has the path of the one it updated, on the same
    // lines (the structure is the same): its record is shared, not made again on every keystroke.
    const updated = contextSplice(result.build)?.from;
    const same = updated && pathLines.get(updated);
    if (same && same.length === path.length) {
      pathLines.set(result.build, same);
      continue;
    }
    // In V8's heap, not malloc's (`entryArrays.ts`): one is made after most structural edits.
    const lines = keptArray(path.length, 0);
    for (let i = 0; i < path.length; i++) lines[i] = path[i]!.line;
    pathLines.set(result.build, lines);
  }
  return findings;
}

/**
 * The findings kept in `memo` for the analysis `doc`'s replaced, when `inputs` were carried from
 * theirs onto entries on the same lines; else undefined, and the caller computes them.
 */
export function carriedFindings(doc: SessionDocument, memo: KeptForInputs<RequestFindings>, inputs: readonly unknown[]): RequestFindings | undefined {
  const previous = predecessorOf(doc.analysis);
  const last = previous && memo.get(previous.structure);
  // A failure of the pipeline may be said on the header's line, whose text the edit may have changed.
  if (!last || !plain.get(last.value) || doc.lspLineCount !== doc.lineCount || last.value.head.length > 0) return undefined;
  const [b0, r0, o0, q0] = last.inputs as RequestInputs;
  const [b1, r1, o1, q1] = inputs as RequestInputs;
  if (!sameLines(b0, b1) || (o0 !== o1 && (!o0 || !o1 || !sameLines(o0, o1)))) return undefined;
  if (!carriedResult(r0, r1) || !carriedResult(q0, q1)) return undefined;
  return last.value;
}

/** Whether `next` was carried from `before` onto a path whose every entry is on the line of the one it replaces. */
function sameLines(before: ContextResult, next: ContextResult): boolean {
  if (!before.ok || !next.ok) return false;
  const carry = contextCarry(next.build);
  if (!carry?.samePath || carry.from !== before.build) return false;
  const [x, y] = [pathLines.get(before.build), next.build.path];
  if (!x || x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]!.line) return false;
  return true;
}

function carriedResult(before: ProviderResult | undefined, next: ProviderResult | undefined): boolean {
  return before === next ? before === undefined : next !== undefined && requestCarriedFrom(next) === before;
}
