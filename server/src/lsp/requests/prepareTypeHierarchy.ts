/**
 * `textDocument/prepareTypeHierarchy`: the entry under the cursor, whose supertypes and subtypes
 * (`supertypes.ts`, `subtypes.ts`) are its ancestors and descendants.
 */

import { TypeHierarchyPrepareRequest } from "vscode-languageserver";
import { prepareHierarchy } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const prepareTypeHierarchy = documentRequest({
  type: TypeHierarchyPrepareRequest.type,
  // The one announcement for the three type hierarchy requests.
  capabilities: () => ({ typeHierarchyProvider: true }),
  params: atPosition,
  fallback: [],
  answer: (d, p) => prepareHierarchy(d, p.position),
});
