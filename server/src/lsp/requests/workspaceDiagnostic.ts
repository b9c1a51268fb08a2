/**
 * `workspace/diagnostic`: a pull client asks for the problems of the sessions that are not open
 * (`workspaceDiagnostics.ts`). It is announced with `textDocument/diagnostic`'s capability
 * (`diagnostic.ts`), as the specification puts both in `diagnosticProvider`.
 */

import { WorkspaceDiagnosticRequest } from "vscode-languageserver";
import { arrayOf, object, string } from "../params";
import { request } from "./request";

export const workspaceDiagnostic = request({
  type: WorkspaceDiagnosticRequest.type,
  params: { previousResultIds: arrayOf(object({ uri: string, value: string })) },
  handler: (p, state, token) => state.workspaceDiagnostics.pull(p, token),
});
