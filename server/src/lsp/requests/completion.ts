/** `textDocument/completion`: types, fields, ids and new entries at the cursor; snippets only for clients that take them. */

import { CompletionRequest } from "vscode-languageserver";
import { computeCompletion } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const completion = documentRequest({
  type: CompletionRequest.type,
  capabilities: () => ({ completionProvider: { triggerCharacters: ['"', ":", ","], resolveProvider: false } }),
  params: atPosition,
  fallback: { isIncomplete: false, items: [] },
  answer: (d, p, state) => computeCompletion(d, p.position, { snippets: state.client.snippets }),
});
