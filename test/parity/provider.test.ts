/**
 * What the provider receives, byte for byte: for every fixture of the parity corpus and both Pi
 * versions, `JSON.stringify({model, messages})` of our provider request equals what the real Pi's
 * pipeline gave (test/parity/expected, field `provider`): pi-coding-agent's `convertToLlm`, then
 * pi-ai's `transformMessages` for the model Pi resumes with, looked up in pi-ai's own catalogue.
 * Where Pi's pipeline threw, ours reports the failure instead.
 *
 * The synthetic "No result provided" results carry `Date.now()`; the generator seeds Pi's clock at
 * FAKE_EPOCH and advances it by 1 ms per read, and so does the clock passed here.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { contextDocument } from "../../server/src/features/migratedView";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";

interface Outcome {
  provider: { model: unknown; messages?: unknown[]; error?: string } | null;
}

/** The generator's clock for probes: 2026-04-01T12:00:00.000Z. */
const FAKE_EPOCH = Date.UTC(2026, 3, 1, 12, 0, 0);

const root = __dirname;
const fixtures = readdirSync(join(root, "fixtures"))
  .filter((f) => f.endsWith(".jsonl"))
  .sort();
const compared: Record<string, number> = {};

describe("provider request parity with the real Pi", () => {
  for (const fixture of fixtures) {
    const doc = new SessionDocument(`file:///${fixture}`, "jsonl", 1, readFileSync(join(root, "fixtures", fixture), "utf8"));
    // A v1/v2 file is compared as Pi reads it: migrated in memory (Pi records the context of the migrated file).
    const a = contextDocument(doc).analysis;
    for (const [pi, flavor] of [
      ["0.74.2", "0.74"],
      ["1.6.0", "1.x"],
    ] as [string, PiFlavor][]) {
      let o: Outcome;
      try {
        o = JSON.parse(readFileSync(join(root, "expected", `${fixture.replace(/\.jsonl$/, "")}.${pi}.json`), "utf8")) as Outcome;
      } catch {
        continue;
      }
      if (o.provider === null || o.provider === undefined) continue;
      // The same files the built-context parity compares: those Pi opened as they are. (Pi 0.74
      // keeps a falsy line as an entry where our index follows 1.x and drops it: no message
      // comes from one, and those files are compared too.)
      if (a.headerState !== "ok") continue;
      const expected = o.provider;
      it(`${fixture} as Pi ${pi} sends it`, () => {
        const built = buildContext(a, { flavor });
        expect(built.ok).toBe(true);
        if (!built.ok) return;
        let clock = FAKE_EPOCH;
        const result = buildProviderRequest(built.build, { flavor, now: () => clock++ });
        if (expected.error !== undefined) {
          expect(result.ok, expected.error).toBe(false);
          if (!result.ok) expect(JSON.stringify(result.model)).toBe(JSON.stringify(expected.model));
        } else {
          expect(result.ok, result.ok ? "" : result.reason).toBe(true);
          if (result.ok) {
            expect(JSON.stringify({ model: result.request.model, messages: result.request.messages })).toBe(
              JSON.stringify({ model: expected.model, messages: expected.messages }),
            );
          }
        }
        compared[pi] = (compared[pi] ?? 0) + 1;
      });
    }
  }

  it("compared most of the corpus, for both versions", () => {
    // 76 committed fixtures: those Pi opens as they are and builds a context from (the generated
    // 22 MB fixture is compared by digest in requestFaults.test.ts).
    expect(compared["0.74.2"] ?? 0).toBeGreaterThanOrEqual(61);
    expect(compared["1.6.0"] ?? 0).toBeGreaterThanOrEqual(62);
  });
});
