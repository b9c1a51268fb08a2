/**
 * `textDocument/prepareCallHierarchy`: the entry under the cursor, whose incoming and outgoing
 * calls (`incomingCalls.ts`, `outgoingCalls.ts`) are its parent and children.
 */

import { CallHierarchyPrepareRequest } from "vscode-languageserver";
import { prepareHierarchy } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const prepareCallHierarchy = documentRequest({
  type: CallHierarchyPrepareRequest.type,
  // The one announcement for the three call hierarchy requests.
  capabilities: () => ({ callHierarchyProvider: true }),
  params: atPosition,
  fallback: [],
  answer: (d, p) => prepareHierarchy(d, p.position),
});
