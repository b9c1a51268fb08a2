/**
 * What the tests of random edits compare between a document kept across edits and a fresh one of
 * the same text: the tree as data, and the diagnostics but the provider request's.
 */

import type { Diagnostic } from "vscode-languageserver";
import { forgetValues } from "../../server/src/core/line/values";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import type { Entry } from "../../server/src/core/session/entry";
import { releaseKept } from "../../server/src/core/session/semantics/memo";

const line = (e: Entry | undefined) => (e ? e.line : null);

/** The tree as data, by line: what an analysis made from the previous one must hold as a fresh one does. */
export function treeData(a: SessionAnalysis) {
  return {
    entries: a.entries.map((e, k) => [k, e.index, e.line, e.key]),
    parent: a.parent.map(line),
    children: a.entries.map((e) => a.childrenOf(e).map(line)),
    roots: a.roots.map(line),
    leaf: [line(a.leaf), line(a.nullLeaf)],
    cycles: [a.cycles.map((c) => c.map(line)), [...a.cycleOf], [...a.reachesCycle]],
    path: [a.activePath.map(line), [...a.onActivePath]],
  };
}

/**
 * The diagnostics but the provider request's, as comparable strings: the provisional list after an
 * edit holds the request's findings kept from before it, which the complete list replaces.
 */
export function withoutRequest(all: readonly Diagnostic[], request: readonly Diagnostic[]): string[] {
  const key = (d: Diagnostic) => JSON.stringify([d.code, d.message, d.range, d.relatedInformation ?? []]);
  const left = all.map(key).sort();
  for (const k of request.map(key)) {
    const i = left.indexOf(k);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

/** What an idle server lets go (`lsp/memory.ts`'s follow-up), in process: the kept values and the parsed lines' values. */
export function releaseInProcess(log: string[]): void {
  releaseKept();
  forgetValues();
  log.push("release");
}
