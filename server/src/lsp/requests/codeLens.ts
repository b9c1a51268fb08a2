/** `textDocument/codeLens`: what the model would see if the session resumed from here; resolved by `codeLensResolve.ts`. */

import { CodeLensRequest } from "vscode-languageserver";
import { computeCodeLenses } from "../../features/api";
import { onDocument } from "../params";
import { documentRequest } from "./request";

export const codeLens = documentRequest({
  type: CodeLensRequest.type,
  // The one announcement for this request and `codeLensResolve.ts`.
  capabilities: () => ({ codeLensProvider: { resolveProvider: true } }),
  params: onDocument,
  fallback: [],
  answer: (d) => computeCodeLenses(d),
});
