/**
 * `piSession/buildContext`, the server's own request: the context Pi builds for an entry. It has
 * no shape here: it checks its params itself, refusing an unknown document or entry.
 */

import { BUILD_CONTEXT_REQUEST, type BuildContextParams, computeContextRequest } from "../../features/api";
import type { EncodedAnswer } from "../encodedAnswer";
import { answerContext } from "./contextAnswer";
import { request } from "./request";

export const buildContext = request<Partial<BuildContextParams> | undefined, EncodedAnswer | null>({
  type: BUILD_CONTEXT_REQUEST,
  handler: (p, state) => answerContext(state, BUILD_CONTEXT_REQUEST, p?.uri, (d) => computeContextRequest(d, p ?? {})),
});
