/** `textDocument/documentSymbol`: the session's outline, cut at `piSession.maxSymbols` (and the user told so once). */

import { DocumentSymbolRequest } from "vscode-languageserver";
import { computeDocumentSymbols } from "../../features/api";
import { onDocument } from "../params";
import { documentRequest } from "./request";

export const documentSymbol = documentRequest({
  type: DocumentSymbolRequest.type,
  capabilities: () => ({ documentSymbolProvider: { label: "Pi session" } }),
  params: onDocument,
  fallback: [],
  answer: (d, _p, state) => {
    const { maxSymbols } = state.settings;
    const result = computeDocumentSymbols(d, { maxSymbols });
    if (result.truncated) state.reportTruncated(d.uri, "documentSymbols", maxSymbols);
    return result.symbols;
  },
});
