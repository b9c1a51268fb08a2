/**
 * `workspace/executeCommand`: `piSession.showContext`, the context Pi would send from an entry, and
 * `piSession.compareBranches`, `diff`'s text for an entry and the leaf Pi resumes. Both answer
 * with text the client shows as a read-only document; neither changes anything.
 */

import { ErrorCodes, ExecuteCommandRequest, ResponseError } from "vscode-languageserver";
import { computeShowContext, SHOW_CONTEXT_COMMAND } from "../../features/api";
import { type BranchComparison, COMPARE_BRANCHES_COMMAND, computeBranchComparison } from "../../features/api/diff";
import { optional, string } from "../params";
import type { ServerState } from "../state";
import { answerContext } from "./contextAnswer";
import { request } from "./request";

export const executeCommand = request({
  type: ExecuteCommandRequest.type,
  capabilities: () => ({ executeCommandProvider: { commands: [SHOW_CONTEXT_COMMAND, COMPARE_BRANCHES_COMMAND] } }),
  params: { command: string, arguments: optional(Array.isArray) },
  handler: (p, state) => {
    if (p.command === COMPARE_BRANCHES_COMMAND) return answerComparison(state, p.arguments ?? []);
    if (p.command !== SHOW_CONTEXT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${p.command}`);
    return answerContext(state, "workspace/executeCommand", p.arguments?.[0], (d) => computeShowContext(d, p.arguments ?? []));
  },
});

/** The comparison for an open document; an unknown document or entry is refused, a failure inside is logged and answered with null. */
function answerComparison(state: ServerState, args: readonly unknown[]): BranchComparison | null {
  const uri = args[0];
  const document = typeof uri === "string" ? state.documents.get(uri) : undefined;
  const what = COMPARE_BRANCHES_COMMAND;
  if (!document)
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `${what}: ${typeof uri === "string" ? JSON.stringify(uri.slice(0, 200)) : "no uri"} is not an open session`,
    );
  const answer = state.guard.safe(what, null, () => computeBranchComparison(document, args));
  if (answer && !answer.ok) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: ${answer.message}`);
  return answer ? answer.result : null;
}
