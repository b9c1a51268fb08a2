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
