/** `textDocument/foldingRange`: turns, off-path runs and compacted history, at most as many as the client takes. */

import { FoldingRangeRequest } from "vscode-languageserver";
import { computeFoldingRanges } from "../../features/api";
import { onDocument } from "../params";
import { documentRequest } from "./request";

export const foldingRange = documentRequest({
  type: FoldingRangeRequest.type,
  capabilities: () => ({ foldingRangeProvider: true }),
  params: onDocument,
  fallback: [],
  answer: (d, _p, state) => computeFoldingRanges(d, { maxRanges: state.client.foldingRangeLimit }),
});
