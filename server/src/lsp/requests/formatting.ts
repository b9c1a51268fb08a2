/**
 * `textDocument/formatting`: reads every line of the file, so it runs as steps (`guard.steps`),
 * and a cancel or an edit stops it.
 */

import { DocumentFormattingRequest, type TextEdit } from "vscode-languageserver";
import { formattingSteps } from "../../features/api";
import { onDocument } from "../params";
import { request } from "./request";

export const formatting = request({
  type: DocumentFormattingRequest.type,
  capabilities: () => ({ documentFormattingProvider: true }),
  params: onDocument,
  handler: (p, state, token) =>
    state.guard.steps("textDocument/formatting", [] as TextEdit[], token, () => {
      const document = state.documents.get(p.textDocument.uri);
      if (!document) return undefined;
      // The revision, not the version: a change that keeps the version still makes the edits stale.
      const revision = document.revision;
      return {
        steps: formattingSteps(document),
        stillValid: () => state.documents.get(p.textDocument.uri) === document && document.revision === revision,
      };
    }),
});
