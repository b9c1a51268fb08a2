/** `textDocument/hover`: what the value under the cursor means to Pi. */

import { HoverRequest } from "vscode-languageserver";
import { computeHover } from "../../features/api";
import { atPosition } from "../params";
import { documentRequest } from "./request";

export const hover = documentRequest({
  type: HoverRequest.type,
  capabilities: () => ({ hoverProvider: true }),
  params: atPosition,
  fallback: null,
  answer: (d, p) => computeHover(d, p.position),
});
