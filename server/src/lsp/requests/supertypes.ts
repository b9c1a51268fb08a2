/** `typeHierarchy/supertypes`: announced with `prepareTypeHierarchy.ts`. */

import { TypeHierarchySupertypesRequest } from "vscode-languageserver";
import { typeHierarchySupertypes } from "../../features/api";
import { hierarchyItem } from "../params";
import { itemRequest } from "./request";

export const supertypes = itemRequest({
  type: TypeHierarchySupertypesRequest.type,
  params: { item: hierarchyItem },
  answer: (d, p) => typeHierarchySupertypes(d, p.item),
});
