/**
 * `textDocument/codeAction`: the quick fixes, fix-all and entry actions. Codes the user turned off
 * (`piSession.severity`) get no fix; clients that resolve edits get them later (`codeActionResolve.ts`).
 */

import { CodeActionRequest } from "vscode-languageserver";
import { CODE_ACTION_KINDS, computeCodeActions } from "../../features/api";
import { object, range, textDocument } from "../params";
import type { Settings } from "../settings";
import { documentRequest } from "./request";

export const codeAction = documentRequest({
  type: CodeActionRequest.type,
  // The one announcement for this request and `codeActionResolve.ts`.
  capabilities: () => ({ codeActionProvider: { codeActionKinds: CODE_ACTION_KINDS, resolveProvider: true } }),
  params: { textDocument, range, context: object({ diagnostics: Array.isArray }) },
  fallback: [],
  answer: (d, p, state) =>
    computeCodeActions(d, p.range, p.context, { lazyEdits: state.client.resolveEdit, ignoredCodes: offCodes(state.settings) }, state.client.entryActions),
});

/** The codes the user turned off with `piSession.severity`. */
function offCodes(current: Settings): Set<string> {
  return new Set(
    Object.entries(current.severity)
      .filter(([, level]) => level === "off")
      .map(([code]) => code),
  );
}
