/**
 * Every diagnostic code has a fixture: a code no fixture annotates could change its range, its
 * severity or its message, or stop being reported, and no fixture would fail.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CODES } from "../../server/src/core/base/codes";
import { parseFixture } from "../helpers/fixture";

const dir = join(__dirname, "../fixtures/diagnostics");

/**
 * The codes no fixture can hold, each with why and where it is tested instead: a fixture is a
 * readable text, and these need one of tens of megabytes or a bug in a check.
 */
const WITHOUT_FIXTURE: Record<string, string> = {
  "request-too-large": "the smallest limit is 20 MiB of request; test/features/requestDiagnostics.test.ts builds such a session",
  "check-failed": "made only when one of the checks throws, which no input is known to make",
};

describe("diagnostic fixtures", () => {
  const annotated = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".txt"))) {
    for (const e of parseFixture(readFileSync(join(dir, file), "utf8")).expected) annotated.add(e.code);
  }

  it("annotate every code in codes.ts", () => {
    const missing = ALL_CODES.filter((code) => !annotated.has(code) && !Object.hasOwn(WITHOUT_FIXTURE, code));
    expect(missing, "codes no fixture in test/fixtures/diagnostics annotates").toEqual([]);
  });

  it("name only codes that exist among those without a fixture, and none that has one", () => {
    for (const code of Object.keys(WITHOUT_FIXTURE)) {
      expect(ALL_CODES as string[]).toContain(code);
      expect(annotated.has(code), `${code} has a fixture now: remove it from WITHOUT_FIXTURE`).toBe(false);
    }
  });
});
