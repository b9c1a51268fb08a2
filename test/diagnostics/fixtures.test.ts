/**
 * Runs every annotated fixture in test/fixtures/diagnostics: the diagnostics must be exactly the
 * annotated ones (same lines, ranges, severities and codes), and each message must equal the
 * annotated one, whole. See test/helpers/fixture.ts for the format;
 * `UPDATE_EXPECT=1 npx vitest run test/diagnostics/fixtures.test.ts` fills in or rewrites the
 * messages (read them before committing: a false sentence is what this comparison catches).
 */

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actualOf, describeDiagnostic, diagnose, parseFixture, updateFixtureMessages } from "../helpers/fixture";
import { UPDATE } from "../helpers/snapshot";

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
      let source = readFileSync(join(dir, file), "utf8");
      let fixture = parseFixture(source);
      const actual = actualOf(diagnose(fixture.text, fixture.facts));
      // Annotations and diagnostics that describe alike are paired in order.
      const unpaired = [...actual];
      const messageOf = fixture.expected.map((e) => {
        const at = unpaired.findIndex((a) => describeDiagnostic(a) === describeDiagnostic(e));
        return at < 0 ? undefined : unpaired.splice(at, 1)[0]!.message;
      });
      if (UPDATE) {
        const before = fixture;
        source = updateFixtureMessages(source, before.expected, (e) => messageOf[before.expected.indexOf(e)]);
        writeFileSync(join(dir, file), source);
        fixture = parseFixture(source);
      }
      expect(actual.map(describeDiagnostic).sort()).toEqual(fixture.expected.map(describeDiagnostic).sort());
      for (const [i, e] of fixture.expected.entries()) {
        expect(e.message, `${describeDiagnostic(e)} has no message in the fixture (UPDATE_EXPECT=1 fills it in)`).toBeDefined();
        expect(messageOf[i], `message of ${describeDiagnostic(e)}`).toBe(e.message);
      }
    });
  }
});
