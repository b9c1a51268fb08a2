/**
 * The README's table of diagnostic codes is generated from server/src/core/base/codes.ts
 * (`npm run docs`); this test fails when the two drift apart.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CODES, codesTable } from "../server/src/core/base/codes";

describe("README", () => {
  const readme = readFileSync(join(__dirname, "../README.md"), "utf8");

  it("holds the table of codes generated from codes.ts", () => {
    const section = /<!-- codes:start -->\n([\s\S]*?)<!-- codes:end -->/.exec(readme)?.[1];
    expect(section).toBe(codesTable());
  });

  it("names every code", () => {
    for (const code of ALL_CODES) expect(readme).toContain(`\`${code}\``);
  });
});
