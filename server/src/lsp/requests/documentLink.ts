/** `textDocument/documentLink`: the header's `parentSession`, as a link to that file. */

import { DocumentLinkRequest } from "vscode-languageserver";
import { computeDocumentLinks } from "../../features/api";
import { onDocument } from "../params";
import { documentRequest } from "./request";

export const documentLink = documentRequest({
  type: DocumentLinkRequest.type,
  capabilities: () => ({ documentLinkProvider: { resolveProvider: false } }),
  params: onDocument,
  fallback: [],
  answer: (d) => computeDocumentLinks(d),
});
