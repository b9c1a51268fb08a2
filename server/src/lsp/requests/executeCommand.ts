/**
 * `workspace/executeCommand`: `piSession.showContext`, the context Pi would send from an entry,
 * `piSession.compareBranches`, `diff`'s text for an entry and the leaf Pi resumes, and
 * `piSession.exportMarkdown`, `export`'s Markdown of a branch or the tree. Each answers with text
 * the client shows as a read-only document; none changes anything.
 */

import { ErrorCodes, ExecuteCommandRequest, ResponseError } from "vscode-languageserver";
import { computeShowContext, SHOW_CONTEXT_COMMAND } from "../../features/api";
import type { SessionDocument } from "../../core/session/document";
import { COMPARE_BRANCHES_COMMAND, computeBranchComparison } from "../../features/api/diff";
import { computeMarkdownExport, EXPORT_MARKDOWN_COMMAND } from "../../features/api/export";
import { optional, string } from "../params";
import type { ServerState } from "../state";
import { answerContext } from "./contextAnswer";
import { request } from "./request";

export const executeCommand = request({
  type: ExecuteCommandRequest.type,
  capabilities: () => ({ executeCommandProvider: { commands: [SHOW_CONTEXT_COMMAND, COMPARE_BRANCHES_COMMAND, EXPORT_MARKDOWN_COMMAND] } }),
  params: { command: string, arguments: optional(Array.isArray) },
  handler: (p, state) => {
    const args = p.arguments ?? [];
    if (p.command === COMPARE_BRANCHES_COMMAND) return answerText(state, COMPARE_BRANCHES_COMMAND, args, computeBranchComparison);
    if (p.command === EXPORT_MARKDOWN_COMMAND) return answerText(state, EXPORT_MARKDOWN_COMMAND, args, computeMarkdownExport);
    if (p.command !== SHOW_CONTEXT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${p.command}`);
    return answerContext(state, "workspace/executeCommand", p.arguments?.[0], (d) => computeShowContext(d, p.arguments ?? []));
  },
});

/** A command's answer for an open document; an unknown document or entry is refused, a failure inside is logged and answered with null. */
function answerText<R>(
  state: ServerState,
  what: string,
  args: readonly unknown[],
  work: (document: SessionDocument, args: readonly unknown[]) => { ok: true; result: R } | { ok: false; message: string },
): R | null {
  const uri = args[0];
  const document = typeof uri === "string" ? state.documents.get(uri) : undefined;
  if (!document)
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `${what}: ${typeof uri === "string" ? JSON.stringify(uri.slice(0, 200)) : "no uri"} is not an open session`,
    );
  const answer = state.guard.safe(what, null, () => work(document, args));
  if (answer && !answer.ok) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: ${answer.message}`);
  return answer ? answer.result : null;
}
