/** `workspace/symbol`: every indexed session, not only the open ones, answered from the workspace index. */

import { WorkspaceSymbolRequest } from "vscode-languageserver";
import { string } from "../params";
import { request } from "./request";

export const workspaceSymbol = request({
  type: WorkspaceSymbolRequest.type,
  capabilities: () => ({ workspaceSymbolProvider: true }),
  params: { query: string },
  handler: (p, state) => state.guard.safe("workspace/symbol", [], () => state.workspace.symbols(p.query)),
});
