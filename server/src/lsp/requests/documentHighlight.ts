/** `textDocument/documentHighlight`: the id under the cursor and its other uses in the document. */

import { DocumentHighlightRequest } from "vscode-languageserver";
import { computeDocumentHighlights } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const documentHighlight = documentRequest({
  type: DocumentHighlightRequest.type,
  capabilities: () => ({ documentHighlightProvider: true }),
  params: atPosition,
  fallback: [],
  answer: (d, p) => computeDocumentHighlights(d, p.position),
});
