/**
 * `textDocument/definition`: a header's `parentSession` leads to the parent's header (the
 * workspace index), any other id to the entry or tool call Pi resolves it to.
 */

import { DefinitionRequest } from "vscode-languageserver";
import { computeDefinition } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const definition = documentRequest({
  type: DefinitionRequest.type,
  capabilities: () => ({ definitionProvider: true }),
  params: atPosition,
  fallback: [],
  answer: (d, p, state) => state.workspace.definition(d, p.position) ?? computeDefinition(d, p.position),
});
