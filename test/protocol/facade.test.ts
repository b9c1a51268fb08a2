/**
 * The server calls the features through one file, `features/api.ts`, so that a feature can be
 * split or moved by changing a line there instead of the server's files.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, repositoryFiles } from "../helpers/repositoryFiles";

/** The features' files a source file imports, other than the facade. */
function featureImports(file: string): string[] {
  const text = readFileSync(join(REPO, file), "utf8");
  return [...text.matchAll(/from "((?:\.\.\/)+features\/[^"]+)"/g)].map((m) => m[1] ?? "").filter((path) => !path.endsWith("features/api"));
}

describe("the features' facade", () => {
  it("is the only way lsp/ reaches the features", () => {
    const lsp = repositoryFiles().filter((f) => f.startsWith("server/src/lsp/") && f.endsWith(".ts"));
    expect(lsp.length).toBeGreaterThan(10);
    const bypassing = lsp.filter((f) => featureImports(f).length > 0);
    expect(bypassing).toEqual([]);
  });
});
