/**
 * Answers kept for an analysis structure and brought up to date after edits inside lines: while an
 * answer is built, each part of it that reads a line's text (a name, a range that ends on the line)
 * registers how to compute that part again (`LinePatches.on`); after edits that kept the structure,
 * only the parts on the lines edited since (the structure's edit log, `core/session/reanalyze.ts`) are
 * computed again. The kept answer is the memo's own: callers hand out copies of it, so that no
 * answer given before changes.
 */

import type { SessionDocument } from "../core/session/document";
import { editStep, linesEditedSince } from "../core/session/reanalyze";

export class LinePatches {
  private readonly byLine = new Map<number, (() => void)[]>();

  /** Registers `patch` to run when `line` was edited. */
  on(line: number, patch: () => void): void {
    const list = this.byLine.get(line);
    if (list) list.push(patch);
    else this.byLine.set(line, [patch]);
  }

  apply(lines: readonly number[]): void {
    for (const line of lines) for (const patch of this.byLine.get(line) ?? []) patch();
  }
}

interface Kept<T> {
  step: number;
  value: T;
  patches: LinePatches;
}

/** Kept answers per structure, per key (a cap, say). */
export type KeptAnswers<T> = WeakMap<object, Map<unknown, Kept<T>>>;

/**
 * The answer for `key`, kept for `doc`'s structure: built by `build` the first time or when the edit
 * log cannot tell what changed, else patched; `refresh` recomputes what depends on more than one
 * line's text each time. A lone "\r" can move every later line for the client: nothing is kept then.
 */
export function keptAnswer<T>(
  memo: KeptAnswers<T>,
  doc: SessionDocument,
  key: unknown,
  build: (patches: LinePatches) => T,
  refresh: (value: T) => void = () => {},
): T {
  if (doc.lspLineCount !== doc.lineCount) return build(new LinePatches());
  const a = doc.analysis;
  let byKey = memo.get(a.structure);
  if (!byKey) memo.set(a.structure, (byKey = new Map()));
  const kept = byKey.get(key);
  const edited = kept ? linesEditedSince(a, kept.step) : undefined;
  if (!kept || !edited) {
    const patches = new LinePatches();
    const value = build(patches);
    byKey.set(key, { step: editStep(a), value, patches });
    return value;
  }
  kept.patches.apply(edited);
  kept.step = editStep(a);
  refresh(kept.value);
  return kept.value;
}
