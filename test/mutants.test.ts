/**
 * scripts/mutantList.mjs, the mutants that .ci/run's mutation pass applies: without running the
 * pass (minutes), every mutant must still apply to server/src (a stale one tests nothing), the ids
 * must be unique (words choose mutants by id), there must be enough of them across the core, and
 * each must name the tests that kill it, so that the pass runs the few files that matter.
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

type List = typeof import("../scripts/mutantList.mjs", { with: { "resolution-mode": "import" }});

const ROOT = join(__dirname, "..");
const SCRIPT = join(ROOT, "scripts/mutants.mjs");

let MUTANTS: List["MUTANTS"];
beforeAll(async () => {
  ({ MUTANTS } = await import("../scripts/mutantList.mjs"));
});

describe("the mutants of scripts/mutants.mjs", () => {
  it("are at least 50, with unique ids", () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(50);
    const ids = MUTANTS.map((m) => m.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it("reach every layer that holds Pi's rules: the line, the session, Pi's context, the features and the disk", () => {
    const layers = new Set(
      MUTANTS.map((m) =>
        m.file
          .split("/")
          .slice(0, m.file.startsWith("core/") ? 2 : 1)
          .join("/"),
      ),
    );
    for (const layer of ["core/line", "core/session", "core/pi", "features", "io"]) expect(layers).toContain(layer);
  });

  it("each apply: the text is in its file exactly once, and the replacement differs", () => {
    const stale = MUTANTS.filter((m) => {
      const path = join(ROOT, "server/src", m.file);
      return m.from === m.to || !existsSync(path) || readFileSync(path, "utf8").split(m.from).length !== 2;
    });
    expect(stale.map((m) => m.id)).toEqual([]);
  });

  it("each name the in-process test files that kill them", () => {
    const wrong = MUTANTS.filter(
      (m) =>
        !Array.isArray(m.tests) ||
        m.tests.length === 0 ||
        m.tests.some((t) => !/^test\/(?!clients\/).+\.test\.ts$/.test(t) || !existsSync(join(ROOT, t)) || !statSync(join(ROOT, t)).isFile()),
    );
    expect(wrong.map((m) => `${m.id}: ${JSON.stringify(m.tests)}`)).toEqual([]);
  });
});

describe("scripts/mutants.mjs's command line", () => {
  it("prints its usage for --help and for an unknown option, without running a mutant", () => {
    const help = spawnSync(process.execPath, [SCRIPT, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage:\n/);
    expect(help.stdout).toContain("--full");
    const typo = spawnSync(process.execPath, [SCRIPT, "--ful"], { encoding: "utf8" });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("unknown option --ful");
    expect(typo.stdout).toBe("");
  });

  it("lists every mutant with its tests", () => {
    const list = spawnSync(process.execPath, [SCRIPT, "--list"], { encoding: "utf8" });
    expect(list.status).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines.map((l) => l.split("\t")[0])).toEqual(MUTANTS.map((m) => m.id));
    expect(lines.every((l) => /\ttest\/\S+\.test\.ts/.test(l))).toBe(true);
  });
});
