/**
 * `codeAction/resolve`: the edit of a fork or migration action, computed when the client applies
 * it; an action that names no open document comes back as it was sent.
 */

import { CodeActionResolveRequest } from "vscode-languageserver";
import { isForkActionData, isMigrationActionData, resolveForkAction, resolveMigrationAction } from "../../features/api";
import { string } from "../params";
import { request } from "./request";

export const codeActionResolve = request({
  type: CodeActionResolveRequest.type,
  params: { title: string },
  handler: (action, state) =>
    state.guard.safe("codeAction/resolve", action, () => {
      if (isForkActionData(action.data)) {
        const forked = state.documents.get(action.data.uri);
        return forked ? resolveForkAction(forked, action, state.client.entryActions) : action;
      }
      const uri = isMigrationActionData(action.data) ? action.data.uri : undefined;
      const document = uri === undefined ? undefined : state.documents.get(uri);
      return document ? resolveMigrationAction(document, action) : action;
    }),
});
