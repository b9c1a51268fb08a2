/** What `executeCommand.ts` and `buildContext.ts` share: both answer with a built context. */

import { ErrorCodes, ResponseError } from "vscode-languageserver";
import type { SessionDocument } from "../../core/session/document";
import type { ContextAnswer } from "../../features/api";
import { type EncodedAnswer, encodeContextAnswer } from "../encodedAnswer";
import type { ServerState } from "../state";
import { LARGE_ANSWER_CHARS } from "../memory";

/**
 * The built context for an open document, with its JSON made ahead (`encodedAnswer.ts`); an unknown
 * document or entry is refused with InvalidParams, a failure inside is logged and answered with null.
 */
export function answerContext(state: ServerState, what: string, uri: unknown, work: (document: SessionDocument) => ContextAnswer): EncodedAnswer | null {
  const document = typeof uri === "string" ? state.documents.get(uri) : undefined;
  if (!document)
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `${what}: ${typeof uri === "string" ? JSON.stringify(uri.slice(0, 200)) : "no uri"} is not an open session`,
    );
  const answer = state.guard.safe(what, null, () => work(document));
  if (answer && !answer.ok) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: ${answer.message}`);
  const encoded = answer ? state.guard.safe(what, null, () => encodeContextAnswer(answer.result)) : null;
  if (encoded && encoded.chars >= LARGE_ANSWER_CHARS) state.memory.answeredLarge();
  return encoded;
}
