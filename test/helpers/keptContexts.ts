/**
 * The resumed contexts a document keeps across edits (`activeContext`, `activeContext074`: kept,
 * updated and carried over structural edits) compared with those built afresh from another
 * document of the same text, with their provider requests, for the tests of random edits.
 */

import { expect } from "vitest";
import { activeContext, activeContext074 } from "../../server/src/core/pi/activeContext";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";
import type { ProviderResult } from "../../server/src/core/pi/provider/types";
import type { SessionDocument } from "../../server/src/core/session/document";
import { providerRequestOf } from "../../server/src/features/providerView";

/** A request as data: its messages (the synthetic results undated) and the lines of their entries. */
function requestData(result: ProviderResult) {
  if (!result.ok) return [result.reason, result.entry?.line];
  const { messages, contextIndex, sources } = result.request;
  return [JSON.stringify(messages.map((m, k) => (contextIndex[k]! < 0 ? { ...(m as object), timestamp: 0 } : m))), sources.map((e) => e?.line)];
}

/** Both Pi versions' contexts and requests of `doc`, as kept, equal those `fresh` builds from scratch. */
export function expectKeptContextsFresh(doc: SessionDocument, fresh: SessionDocument, where: string): void {
  for (const [kept, flavor] of [
    [activeContext, "1.x"],
    [activeContext074, "0.74"],
  ] as const) {
    const built = kept(doc.analysis);
    const scratch = buildContext(fresh.analysis, { flavor });
    expect(built.ok && [JSON.stringify(built.build.context), built.build.sources.map((e) => e.line)], where).toEqual(
      scratch.ok && [JSON.stringify(scratch.build.context), scratch.build.sources.map((e) => e.line)],
    );
    if (built.ok && scratch.ok) {
      expect(requestData(providerRequestOf(built.build, flavor)), where).toEqual(requestData(buildProviderRequest(scratch.build, { flavor, now: () => 0 })));
    }
  }
}
