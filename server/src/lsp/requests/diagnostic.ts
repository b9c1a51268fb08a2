/**
 * `textDocument/diagnostic`: a pull client asks for a document's diagnostics; a push client is
 * not told of this request, and gets them published (`diagnostics.ts`). A pull client is told of
 * `workspace/diagnostic` too (`workspaceDiagnostic.ts`), which answers for the sessions not open.
 */

import { type DocumentDiagnosticReport, DocumentDiagnosticRequest } from "vscode-languageserver";
import { optional, string, textDocument } from "../params";
import { request } from "./request";

const EMPTY: DocumentDiagnosticReport = { kind: "full", items: [] };

export const diagnostic = request({
  type: DocumentDiagnosticRequest.type,
  capabilities: (client) =>
    client.textDocument?.diagnostic !== undefined ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: true } } : {},
  params: { textDocument, previousResultId: optional(string) },
  handler: (p, state) =>
    state.guard.safe("textDocument/diagnostic", EMPTY, () =>
      state.diagnostics ? state.diagnostics.report(p.textDocument.uri, p.previousResultId) : { kind: "full" as const, items: [] },
    ),
});
