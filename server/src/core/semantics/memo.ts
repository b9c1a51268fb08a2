/**
 * Queries memoised per analysis: the semantic layer's one mechanism.
 *
 * Each Pi rule that needs more than one line (the session name, labels, references, tool call
 * pairs, version rules, the context selection) is a query over a `SessionAnalysis`, computed the
 * first time a feature asks and kept until the analysis is replaced by the next edit. A `WeakMap`
 * keyed by the analysis holds the answer, so it vanishes with the version it describes.
 */

import type { SessionAnalysis } from "../analysis";

/**
 * `compute`, memoised per analysis structure: for queries that read only the tree and the structural
 * facts of lines (ids, parents, types, roles, references, tool call ids), which an edit inside a
 * line leaves as they were. The value must not hold entry objects' parses, which such an edit swaps.
 */
export function perStructure<T>(compute: (a: SessionAnalysis) => T): (a: SessionAnalysis) => T {
  const memo = new WeakMap<object, T>();
  return (a) => {
    if (memo.has(a.structure)) return memo.get(a.structure) as T;
    const value = compute(a);
    memo.set(a.structure, value);
    return value;
  };
}

/**
 * `compute`, memoised per analysis structure and per the objects `inputs` lists: for queries that
 * read the content of some lines (the parses of the active path's entries, say) besides structure.
 * An edit elsewhere keeps every listed parse the same object, so the last value is reused; an edit
 * of a listed line gives it a new parse, and the value is computed again.
 */
export function perStructureAndInputs<T>(inputs: (a: SessionAnalysis) => readonly unknown[], compute: (a: SessionAnalysis) => T): (a: SessionAnalysis) => T {
  const memo = new WeakMap<object, { inputs: readonly unknown[]; value: T }>();
  const byAnalysis = new WeakMap<SessionAnalysis, T>();
  return (a) => {
    if (byAnalysis.has(a)) return byAnalysis.get(a) as T;
    const now = inputs(a);
    const last = memo.get(a.structure);
    let value: T;
    if (last && sameItems(last.inputs, now)) value = last.value;
    else {
      value = compute(a);
      memo.set(a.structure, { inputs: now, value });
    }
    byAnalysis.set(a, value);
    return value;
  };
}

function sameItems(x: readonly unknown[], y: readonly unknown[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** `compute`, memoised per analysis. */
export function perAnalysis<T>(compute: (a: SessionAnalysis) => T): (a: SessionAnalysis) => T {
  const memo = new WeakMap<SessionAnalysis, T>();
  return (a) => {
    if (memo.has(a)) return memo.get(a) as T;
    const value = compute(a);
    memo.set(a, value);
    return value;
  };
}
