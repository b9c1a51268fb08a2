/** `codeLens/resolve`: a lens's title and command, from the document its `data.uri` names. */

import { CodeLensResolveRequest } from "vscode-languageserver";
import { resolveCodeLens } from "../../features/api";
import { range } from "../params";
import { request } from "./request";

export const codeLensResolve = request({
  type: CodeLensResolveRequest.type,
  params: { range },
  handler: (lens, state) =>
    state.guard.safe("codeLens/resolve", lens, () => resolveCodeLens(state.documents.get((lens.data as { uri?: string } | undefined)?.uri ?? ""), lens)),
});
