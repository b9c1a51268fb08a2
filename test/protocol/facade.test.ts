/**
 * The server and the command line call the features through one folder, `features/api/`, so that a
 * feature can be split or moved by changing a line there instead of their files. The facade is
 * split by job so that a command loads only its part: a run of `check` pays for no editor feature.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import { REPO } from "../helpers/repositoryFiles";

type Checker = typeof import("../../scripts/imports.mjs", { with: { "resolution-mode": "import" }});

const SOURCE = join(REPO, "server/src");

let checker: Checker;
beforeAll(async () => {
  checker = await import("../../scripts/imports.mjs");
  // Building out/ can take a while on a busy machine; the runs below need it current.
  await ensureBuilt();
}, 120_000);

/** The files of `features/` other than the facade that a file of `layer` imports, by file. */
function bypassing(layer: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const [file, targets] of checker.importGraph(SOURCE)) {
    if (!file.startsWith(layer)) continue;
    const features = targets.filter((target: string) => target.startsWith("features/") && !target.startsWith("features/api/"));
    if (features.length > 0) found[file] = features;
  }
  return found;
}

/** The compiled modules of `features/` that one run of the command line loads, relative to out/features/. */
function featuresLoaded(args: readonly string[]): string[] {
  const out = join(REPO, "out");
  const program = `
    process.on("exit", () => {
      const loaded = Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(join(out, "features"))}));
      process.stderr.write("LOADED " + JSON.stringify(loaded.map((f) => f.slice(${join(out, "features").length + 1}).split(require("node:path").sep).join("/"))) + "\\n");
    });
    require(${JSON.stringify(join(out, "main.js"))}).main(${JSON.stringify(args)});`;
  const run = spawnSync(process.execPath, ["-e", program], { cwd: REPO, encoding: "utf8" });
  const line = run.stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (line === undefined) throw new Error(`no module list: ${run.stderr}`);
  return (JSON.parse(line.slice("LOADED ".length)) as string[]).sort();
}

/** The feature modules `features/api/editor.ts` re-exports: what only the editor shows. */
function editorFeatures(): string[] {
  const text = readFileSync(join(SOURCE, "features/api/editor.ts"), "utf8");
  return [...text.matchAll(/from "\.\.\/([^"]+)"/g)].map((m) => `${m[1]}.js`);
}

describe("the features' facade", () => {
  it("is the only way lsp/ and cli/ reach the features", () => {
    expect(bypassing("lsp/")).toEqual({});
    expect(bypassing("cli/")).toEqual({});
    // Both do reach the features, through the facade: the check above is not vacuous.
    const graph = checker.importGraph(SOURCE);
    expect(graph.get("cli/check.ts")).toContain("features/api/diagnostics.ts");
    expect(graph.get("lsp/server.ts")).toContain("features/api/index.ts");
  });

  it("is enforced by the import check, which names the facade", () => {
    const graph = new Map([
      ["cli/report.ts", ["features/diagnosticCap.ts"]],
      ["features/diagnosticCap.ts", []],
    ]);
    expect(checker.layerViolations(graph)).toEqual([
      { file: "cli/report.ts", target: "features/diagnosticCap.ts", message: "cli/ may import features/ only through features/api/" },
    ]);
  });

  it("lets check load the checks and the fixes, and none of the editor's features", () => {
    const file = join(REPO, "client-samples/sessions/broken.jsonl");
    const loaded = featuresLoaded(["check", "--fix", "--dry-run", file]);
    expect(loaded).toContain("api/diagnostics.js");
    expect(loaded).toContain("api/fixes.js");
    expect(loaded).toContain("diagnostics.js");
    expect(loaded).not.toContain("api/index.js");
    expect(loaded).not.toContain("api/editor.js");
    const editor = editorFeatures();
    expect(editor).toContain("hover.js");
    expect(loaded.filter((module) => editor.includes(module))).toEqual([]);
  });

  it("lets context load the context's part alone", () => {
    const file = join(REPO, "client-samples/sessions/broken.jsonl");
    const loaded = featuresLoaded(["context", "--stage", "provider", file]);
    expect(loaded).toContain("api/context.js");
    expect(loaded.filter((module) => module.startsWith("api/"))).toEqual(["api/context.js"]);
    expect(loaded.filter((module) => editorFeatures().includes(module))).toEqual([]);
  });
});
