/**
 * Runs every annotated fixture in test/fixtures/diagnostics: the diagnostics must be exactly the
 * annotated ones (same lines, ranges, severities and codes), and each message must contain the
 * annotated text. See test/helpers/fixture.ts for the format.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actualOf, describeDiagnostic, diagnose, parseFixture } from "../helpers/fixture";

const dir = join(__dirname, "../fixtures/diagnostics");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

describe("diagnostic fixtures", () => {
  it("exist", () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(file, () => {
      const fixture = parseFixture(readFileSync(join(dir, file), "utf8"));
      const actual = actualOf(diagnose(fixture.text, fixture.facts));
      expect(actual.map(describeDiagnostic).sort()).toEqual(fixture.expected.map(describeDiagnostic).sort());
      for (const e of fixture.expected) {
        if (!e.message) continue;
        const match = actual.find((a) => describeDiagnostic(a) === describeDiagnostic(e));
        expect(match?.message, `message of ${describeDiagnostic(e)}`).toContain(e.message);
      }
    });
  }
});
