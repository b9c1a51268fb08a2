/**
 * `textDocument/rename`: an id and every use of it. A refused rename is an InvalidParams error
 * with the reason, as the protocol asks.
 */

import { ErrorCodes, RenameRequest, ResponseError } from "vscode-languageserver";
import { computeRename, isRenameRefusal } from "../../features/api";
import { atPosition, string } from "../params";
import { documentRequest } from "./request";

export const rename = documentRequest({
  type: RenameRequest.type,
  // The one announcement for this request and `prepareRename.ts`.
  capabilities: () => ({ renameProvider: { prepareProvider: true } }),
  params: { ...atPosition, newName: string },
  fallback: null,
  answer: (d, p) => {
    const result = computeRename(d, p.position, p.newName);
    if (isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
    return result;
  },
});
