/** `typeHierarchy/subtypes`: announced with `prepareTypeHierarchy.ts`. */

import { TypeHierarchySubtypesRequest } from "vscode-languageserver";
import { typeHierarchySubtypes } from "../../features/api";
import { hierarchyItem } from "../params";
import { itemRequest } from "./request";

export const subtypes = itemRequest({
  type: TypeHierarchySubtypesRequest.type,
  params: { item: hierarchyItem },
  answer: (d, p) => typeHierarchySubtypes(d, p.item),
});
