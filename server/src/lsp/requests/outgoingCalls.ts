/** `callHierarchy/outgoingCalls`: announced with `prepareCallHierarchy.ts`. */

import { CallHierarchyOutgoingCallsRequest } from "vscode-languageserver";
import { callHierarchyOutgoingCalls } from "../../features/api";
import { hierarchyItem } from "../params";
import { itemRequest } from "./request";

export const outgoingCalls = itemRequest({
  type: CallHierarchyOutgoingCallsRequest.type,
  params: { item: hierarchyItem },
  answer: (d, p) => callHierarchyOutgoingCalls(d, p.item),
});
