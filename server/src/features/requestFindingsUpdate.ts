/**
 * The request diagnostics brought up to date after an edit inside the resumed context's lines, in
 * proportion to the edit: when the context and the provider request were updated by replacing
 * messages in place (`core/pi/contextUpdate.ts`, `core/pi/provider/requestUpdate.ts`), which keeps every
 * role, tool call id and name, stop reason and index, the findings are the last ones with
 *
 * - the tool pairing findings as they were (they read only what the update keeps), placed again
 *   when their line was edited (a value's range moves with the text before it);
 * - the empty user messages checked again for the replaced messages, or every one when the API
 *   or what Pi 0.73/0.74 builds changed;
 * - the window checked again (Pi's estimate reads the text; it stops at the last usage);
 * - the image findings as they were when no replaced message, old or new, holds an image;
 * - the request's size from its last count and the replaced messages' bytes.
 *
 * Anything else (a failure, the API's conversion throwing, another model, an image edited, a file whose lone "\r" makes the
 * client count lines otherwise) and they are computed afresh. test/diagnostics/lineMemo.test.ts
 * compares both after random edits.
 */

import { contextSplice } from "../core/pi/contextUpdate";
import type { SessionDocument } from "../core/session/document";
import { conversionFailure, reasoningRefusal } from "../core/pi/provider/apiConversion";
import { requestSplice } from "../core/pi/provider/requestUpdate";
import { messageBytes, updatedSize } from "./imageDiagnostics";
import { apiOf, emptyUsers, type Located, overWindow, type RequestFindings, type RequestInputs, withAll } from "./diagnostics/requestFindings";

export function updateRequestFindings(
  doc: SessionDocument,
  lastInputs: readonly unknown[],
  last: RequestFindings,
  inputs: readonly unknown[],
): RequestFindings | undefined {
  if (doc.lspLineCount !== doc.lineCount) return undefined;
  const [b0, r0, , q0] = lastInputs as RequestInputs;
  const [b1, r1, o1, q1] = inputs as RequestInputs;
  if (!b0.ok || !b1.ok || !r0?.ok || !r1?.ok || (o1?.ok && q1 && !q1.ok)) return undefined;
  const splice = contextSplice(b1.build);
  if (!splice || splice.from !== b0.build) return undefined;
  const before = r0.request;
  const request = r1.request;
  let changed: number[] = [];
  if (request !== before) {
    const step = requestSplice(request);
    if (!step || step.from !== before) return undefined;
    changed = step.changed;
  }
  for (const c of splice.changed) if (hasImage(splice.from.context.messages[c]) || hasImage(b1.build.context.messages[c])) return undefined;
  for (const k of changed) if (hasImage(before.messages[k]) || hasImage(request.messages[k])) return undefined;
  // What the API's conversion refuses is said in the head, computed afresh (each message's conversion is remembered).
  if (conversionFailure(request.messages, apiOf(request)) || reasoningRefusal(request.messages, apiOf(request))) return undefined;
  const size = updatedSize(doc, request, last.size, () =>
    changed.reduce((sum, k) => sum + messageBytes(request.messages[k]) - messageBytes(before.messages[k]), 0),
  );
  if (!size) return undefined;
  const lines = new Set(splice.changed.map((c) => b1.build.sources[c]!.line));
  const place = (x: Located): Located =>
    lines.has(x.line) ? { ...x, diagnostic: { ...x.diagnostic, range: x.path ? doc.valueRange(x.line, x.path) : doc.lineRange(x.line) } } : x;
  // An empty user message's finding reads its own message (a context edit's replacement included:
  // editing one replaces the message), the API Pi resumes with, and what Pi 0.73/0.74 does (whether
  // its request was built, its API, its content for the same entry, which a text edit elsewhere
  // leaves). While those stay, only the replaced messages are checked again; else every one.
  const sameOlder =
    q0 === q1 || (q0 !== undefined && q1 !== undefined && q0.ok === q1.ok && (!q0.ok || apiOf(q0.request) === apiOf((q1 as typeof q0).request)));
  let empty: { at: number; found: Located }[];
  if (sameOlder && apiOf(before) === apiOf(request)) {
    const redone = new Set(changed);
    empty = last.empty.filter((x) => !redone.has(x.at)).map((x) => ({ at: x.at, found: place(x.found) }));
    empty.push(...emptyUsers(doc, b1.build, request, q1, changed));
    empty.sort((x, y) => x.at - y.at);
  } else {
    empty = emptyUsers(doc, b1.build, request, q1);
  }
  return withAll({ head: [], pairing: last.pairing.map(place), empty, window: overWindow(doc, b1.build, request), images: last.images, size });
}

/** Whether a message's content holds an image block. */
function hasImage(message: unknown): boolean {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) && content.some((b) => b !== null && typeof b === "object" && (b as { type?: unknown }).type === "image");
}
