/**
 * The built context, byte for byte: for every fixture of the parity corpus and both Pi versions,
 * `JSON.stringify` of our `buildContext` equals `JSON.stringify` of what the real Pi's
 * `buildSessionContext()` returned (test/parity/expected, field `context`). Where Pi threw or hung,
 * our build reports the failure instead. Version 1 and 2 files are built after the same in-memory
 * migration the views use (`features/migratedView.ts`): Pi records the context of the file it
 * migrated, and the ids it invents appear in no message.
 *
 * Files with falsy JSON lines are compared for Pi 1.x only: Pi 0.74 keeps `0` and `false` lines as
 * entries (and throws on `null`), which our index, following 1.x, does not; the not-an-object
 * diagnostic says so.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { contextDocument } from "../../server/src/features/migratedView";

interface Outcome {
  pi: string;
  open: string;
  context: unknown;
  contextError: string | null;
  contextHung: boolean;
}

const root = __dirname;
const fixtures = readdirSync(join(root, "fixtures"))
  .filter((f) => f.endsWith(".jsonl"))
  .sort();
let compared = 0;

describe("built context parity with the real Pi", () => {
  for (const fixture of fixtures) {
    const text = readFileSync(join(root, "fixtures", fixture), "utf8");
    const doc = new SessionDocument(`file:///${fixture}`, "jsonl", 1, text);
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
      // A file Pi refused or rewrote as invalid is not the file Pi built from.
      // Pi 0.74 keeps a falsy line as an entry where our index drops it (as 1.x does): it is on no path, and the context is the same.
      if (a.headerState !== "ok") continue;
      if (o.context === null && o.contextError === null && !o.contextHung) continue;
      it(`${fixture} as Pi ${pi} builds it`, () => {
        const result = buildContext(a, { flavor });
        // Pi 0.74 hangs on a cycle; Pi 1.6 grows its path array until "RangeError: Invalid array length".
        if (o.contextHung || o.contextError?.startsWith("RangeError")) {
          expect(result.ok ? "built" : result.failure.kind).toBe("cycle");
        } else if (o.contextError) {
          expect(result.ok ? "built" : result.failure.kind, o.contextError).toBe("type-error");
        } else {
          expect(result.ok).toBe(true);
          if (result.ok) expect(JSON.stringify(result.build.context)).toBe(JSON.stringify(o.context));
        }
        compared++;
      });
    }
  }

  it("compared most of the corpus", () => {
    expect(compared).toBeGreaterThan(80);
  });
});
