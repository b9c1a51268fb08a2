/**
 * What the tests of random edits compare between a document kept across edits and a fresh one of
 * the same text: the tree as data, and the diagnostics but the provider request's; and every
 * answer compared at once, in the order the server asks for them after an edit.
 */

import { expect } from "vitest";
import type { Diagnostic } from "vscode-languageserver";
import { forgetValues } from "../../server/src/core/line/values";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import type { SessionDocument } from "../../server/src/core/session/document";
import type { Entry } from "../../server/src/core/session/entry";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, collectProvisionalDiagnostics, computeDiagnostics } from "../../server/src/features/diagnostics";
import { provisionalRequestDiagnostics, requestDiagnostics } from "../../server/src/features/requestDiagnostics";
import { editorAnswers } from "./editorAnswers";
import { expectKeptContextsFresh } from "./keptContexts";

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

/**
 * Every answer of `doc` compared with `fresh`'s (the same text), in the order the server asks after
 * an edit: the tree, the provisional list (all but the request's findings), then, after `between`
 * (a test's own questions, which may warm memos the rest then reads), the capped and complete
 * diagnostics, both Pi versions' contexts and the editor's answers.
 */
export function expectAnswersFresh(doc: SessionDocument, fresh: SessionDocument, where: string, between: () => void = () => {}): void {
  expect(treeData(doc.analysis), where).toEqual(treeData(fresh.analysis));
  const provisional = collectProvisionalDiagnostics(doc);
  if (provisional) {
    const request = provisionalRequestDiagnostics(doc) ?? [];
    expect(withoutRequest(provisional.diagnostics, request), where).toEqual(withoutRequest(collectDiagnostics(fresh).diagnostics, requestDiagnostics(fresh)));
  }
  between();
  expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
  expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
  expectKeptContextsFresh(doc, fresh, where);
  expect(editorAnswers(doc), where).toEqual(editorAnswers(fresh));
}
