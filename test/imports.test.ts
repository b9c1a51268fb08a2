/**
 * scripts/imports.mjs, the import-graph check: on the real tree it finds no cycle, no import
 * against the layering and no re-export outside the features' facade; on a small tree made for the
 * purpose it finds the cycle, the upward import and the re-exports planted there, so that a pass on
 * the real tree means something.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Checker = typeof import("../scripts/imports.mjs", { with: { "resolution-mode": "import" }});

const SCRIPT = join(__dirname, "../scripts/imports.mjs");
const SOURCE = join(__dirname, "../server/src");

let checker: Checker;
beforeAll(async () => {
  checker = await import("../scripts/imports.mjs");
});

describe("the import check on server/src", () => {
  it("finds no import cycle, type-only imports counted", () => {
    const graph = checker.importGraph(SOURCE);
    // cycles.ts imports Entry as a type only: the graph must hold that edge for the check to count it.
    expect(graph.get("core/session/cycles.ts")).toContain("core/session/entry.ts");
    const cycles = checker.findCycles(graph).map((cycle) => cycle.files);
    expect(cycles).toEqual([]);
  });

  it("finds no import against the layering, and every file in a layer", () => {
    expect(checker.layerViolations(checker.importGraph(SOURCE))).toEqual([]);
  });

  it("finds no re-export outside the features' facade", () => {
    expect(checker.reexportViolations(SOURCE)).toEqual([]);
  });

  it("leaves generated data out of the size report", () => {
    const report = checker.sizeReport(SOURCE);
    expect(report.files.map((entry) => entry.file)).not.toContain("core/pi/provider/catalog.generated.ts");
  });
});

describe("the import check on a tree made to fail", () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  const lines = (count: number) => `${Array.from({ length: count }, (_, i) => `  const v${i} = ${i};`).join("\n")}\n`;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "imports-check-"));
    // A cycle of three files through each kind of import the check must read.
    write("core/session/a.ts", 'import type { B } from "./b";\nexport type A = B;\n');
    write("core/session/b.ts", 'export { c } from "./c";\nexport type B = number;\n');
    write("core/session/c.ts", 'export const c = () => require("./a") as typeof import("./a");\n');
    // The core's base reaching up to features/.
    write("core/base/up.ts", 'import { feature } from "../../features/feature";\nexport const up = feature;\n');
    write("features/feature.ts", 'import { c } from "../core/session/c";\nexport const feature = c;\n');
    // A file over 400 lines holding a function over 100.
    write("features/big.ts", `export function long(): void {\n${lines(120)}}\n${"// filler\n".repeat(300)}`);
    write("core/pi/provider/catalog.generated.ts", "// data\n".repeat(500));
    // Two shims left by a move, each kind of re-export once (b.ts above is a third), and a facade,
    // which may re-export.
    write("features/shim.ts", 'export { feature } from "./feature";\n');
    write("core/session/alias.ts", 'import { c as moved } from "./c";\nexport { moved };\nexport const own = 1;\n');
    write("features/api/index.ts", 'export * from "../feature";\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds the cycle, with a loop through it", () => {
    const cycles = checker.findCycles(checker.importGraph(root));
    expect(cycles).toEqual([
      {
        files: ["core/session/a.ts", "core/session/b.ts", "core/session/c.ts"],
        loop: ["core/session/a.ts", "core/session/b.ts", "core/session/c.ts", "core/session/a.ts"],
      },
    ]);
  });

  it("finds the upward import and only it", () => {
    expect(checker.layerViolations(checker.importGraph(root))).toEqual([
      { file: "core/base/up.ts", target: "features/feature.ts", message: "core/base/ may not import features/" },
    ]);
  });

  it("finds the re-exports outside the facade, and not the facade's", () => {
    expect(checker.reexportViolations(root)).toEqual([
      { file: "core/session/alias.ts", line: 2, message: "re-exports what another module declares" },
      { file: "core/session/b.ts", line: 1, message: "re-exports what another module declares" },
      { file: "features/shim.ts", line: 1, message: "re-exports what another module declares" },
    ]);
  });

  it("reports the long file and the long function, and not the generated one", () => {
    expect(checker.sizeReport(root)).toEqual({
      files: [{ file: "features/big.ts", lines: 422 }],
      functions: [{ file: "features/big.ts", line: 1, name: "long", lines: 122 }],
    });
  });

  it("exits 1 on the cycle and the upward import, and fails on size only with --strict-size", () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
    const failing = run(root);
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain("import cycle among 3 files, one loop: core/session/a.ts -> core/session/b.ts -> core/session/c.ts -> core/session/a.ts");
    expect(failing.stdout).toContain("layering: core/base/up.ts imports features/feature.ts: core/base/ may not import features/");
    expect(failing.stdout).toContain("re-export: features/shim.ts:1 re-exports what another module declares");

    rmSync(join(root, "core/base/up.ts"));
    rmSync(join(root, "core/session/c.ts"));
    write("core/session/c.ts", "export const c = 3;\n");
    rmSync(join(root, "features/shim.ts"));
    rmSync(join(root, "core/session/alias.ts"));
    write("core/session/b.ts", "export type B = number;\n");
    const sizeOnly = run(root);
    expect(sizeOnly.stdout).toContain("size: features/big.ts has 422 lines (over 400)");
    expect(sizeOnly.status).toBe(0);
    expect(run("--strict-size", root).status).toBe(1);
  });
});
