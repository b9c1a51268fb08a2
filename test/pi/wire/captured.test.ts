/**
 * The bodies the wire verdicts read for the wire cases (test/parity/expected/wire-captured, which
 * the wire harness does not record) are still what Pi 1.6 builds: capture.mjs runs Pi's own code
 * (PI16_DIR) on each case again, and every line it prints equals the committed record.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pi16 } from "../pi16";

const PARITY = join(__dirname, "..", "..", "parity");

describe("the captured bodies of the wire cases", () => {
  it("are what Pi 1.6's own code builds now", { timeout: 120_000 }, async () => {
    const { MODELS } = await import("./verdictRules.mjs");
    const { node, packageDir } = pi16();
    const cases = readdirSync(join(PARITY, "wire-cases")).filter((f) => f.endsWith(".jsonl"));
    expect(cases.length).toBeGreaterThan(3);
    const home = mkdtempSync(join(tmpdir(), "wire-captured-home-"));
    try {
      const run = spawnSync(node, [join(__dirname, "capture.mjs"), packageDir, JSON.stringify(MODELS), ...cases.map((f) => join(PARITY, "wire-cases", f))], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") },
      });
      expect(run.stderr).toBe("");
      const lines = run.stdout.trimEnd().split("\n");
      expect(lines.length).toBe(cases.length * Object.keys(MODELS).length);
      for (const line of lines) {
        const record = JSON.parse(line) as { fixture: string; api: string };
        const file = join(PARITY, "expected", "wire-captured", `${record.fixture.replace(/\.jsonl$/, "")}.${record.api}.json`);
        expect(existsSync(file), file).toBe(true);
        expect(`${line}\n`).toBe(readFileSync(file, "utf8"));
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
