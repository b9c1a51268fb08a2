/**
 * `textDocument/prepareRename`: announced with `rename.ts`. A refused rename is an InvalidParams
 * error with the reason, as the protocol asks.
 */

import { ErrorCodes, PrepareRenameRequest, ResponseError } from "vscode-languageserver";
import { isRenameRefusal, prepareRename as prepare } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const prepareRename = documentRequest({
  type: PrepareRenameRequest.type,
  params: atPosition,
  fallback: null,
  answer: (d, p) => {
    const result = prepare(d, p.position);
    if (isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
    return result;
  },
});
