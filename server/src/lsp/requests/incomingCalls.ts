/** `callHierarchy/incomingCalls`: announced with `prepareCallHierarchy.ts`. */

import { CallHierarchyIncomingCallsRequest } from "vscode-languageserver";
import { callHierarchyIncomingCalls } from "../../features/api";
import { hierarchyItem } from "../params";
import { itemRequest } from "./request";

export const incomingCalls = itemRequest({
  type: CallHierarchyIncomingCallsRequest.type,
  params: { item: hierarchyItem },
  answer: (d, p) => callHierarchyIncomingCalls(d, p.item),
});
