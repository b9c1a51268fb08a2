/**
 * `textDocument/references`: on a header, the sessions forked from it (the workspace index); on
 * an id, the places that name it.
 */

import { ReferencesRequest } from "vscode-languageserver";
import { computeReferences } from "../../features/api";
import { atPosition, object } from "../params";
import { documentRequest } from "./request";

export const references = documentRequest({
  type: ReferencesRequest.type,
  capabilities: () => ({ referencesProvider: true }),
  params: { ...atPosition, context: object({ includeDeclaration: (v) => typeof v === "boolean" }) },
  fallback: [],
  answer: (d, p, state) =>
    state.workspace.references(d, p.position, p.context.includeDeclaration) ?? computeReferences(d, p.position, p.context.includeDeclaration),
});
