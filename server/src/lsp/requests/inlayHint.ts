/** `textDocument/inlayHint`: parent previews and context sizes, only for the range asked for. */

import { InlayHintRequest } from "vscode-languageserver";
import { computeInlayHints } from "../../features/api";
import { range, textDocument } from "../params";
import { documentRequest } from "./request";

export const inlayHint = documentRequest({
  type: InlayHintRequest.type,
  capabilities: () => ({ inlayHintProvider: { resolveProvider: false } }),
  params: { textDocument, range },
  fallback: [],
  answer: (d, p) => computeInlayHints(d, p.range),
});
