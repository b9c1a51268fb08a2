/**
 * The README's table of diagnostic codes is generated from server/src/core/base/codes.ts
 * (`npm run docs`); this test fails when the two drift apart. ARCHITECTURE.md is read before a
 * change: it stays short enough to read at once, and every file or folder it names exists.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CODES, codesTable } from "../server/src/core/base/codes";
import { REPO, repositoryFiles } from "./helpers/repositoryFiles";

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

describe("ARCHITECTURE.md", () => {
  const text = readFileSync(join(REPO, "ARCHITECTURE.md"), "utf8");

  it("is under 24,000 bytes", () => {
    expect(Buffer.byteLength(text)).toBeLessThan(24_000);
  });

  it("names only files and folders that exist", () => {
    // A path is written from the repository's root, from server/src, or from the folder its
    // paragraph is about (`requests/index.ts` under lsp/), so it is found as a suffix of a path.
    const files = repositoryFiles().map((file) => `/${file.split("\\").join("/")}`);
    const named = [...text.matchAll(/`([\w./-]*\w(?:\.(?:ts|mjs|js|md|json|jsonl)|\/))`/g)].map((m) => m[1] ?? "");
    expect(named.length).toBeGreaterThan(100);
    const exists = (path: string) =>
      existsSync(join(REPO, path)) || files.some((file) => (path.endsWith("/") ? file.includes(`/${path}`) : file.endsWith(`/${path}`)));
    expect([...new Set(named)].filter((path) => !exists(path))).toEqual([]);
  });
});
