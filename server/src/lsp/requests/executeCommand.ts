/** `workspace/executeCommand`: the one command, `piSession.showContext`, the context Pi would send from an entry. */

import { ErrorCodes, ExecuteCommandRequest, ResponseError } from "vscode-languageserver";
import { computeShowContext, SHOW_CONTEXT_COMMAND } from "../../features/api";
import { optional, string } from "../params";
import { answerContext } from "./contextAnswer";
import { request } from "./request";

export const executeCommand = request({
  type: ExecuteCommandRequest.type,
  capabilities: () => ({ executeCommandProvider: { commands: [SHOW_CONTEXT_COMMAND] } }),
  params: { command: string, arguments: optional(Array.isArray) },
  handler: (p, state) => {
    if (p.command !== SHOW_CONTEXT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${p.command}`);
    return answerContext(state, "workspace/executeCommand", p.arguments?.[0], (d) => computeShowContext(d, p.arguments ?? []));
  },
});
