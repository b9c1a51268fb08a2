/**
 * The VS Code sample extension (client-samples/vscode) compiles: `tsc --noEmit` against the
 * `@types/vscode` and `vscode-languageclient` pinned by its own lockfile, installed in its own
 * node_modules (`npm ci --prefix client-samples/vscode`, which .ci/run does). VS Code itself cannot
 * run here; what else can break unnoticed in its package.json is checked by
 * test/samples/vscode.test.ts, which needs no install and runs in `npm test`.
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, SAMPLES } from "./harness";

const SAMPLE = join(SAMPLES, "vscode");
const INSTALL = "npm ci --prefix client-samples/vscode";
/** tsc over vscode.d.ts and the language client takes 2–5 s; a cold, busy machine gets room. */
const COMPILE_TIMEOUT_MS = 60_000;

const lockfile = JSON.parse(readFileSync(join(SAMPLE, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string }>;
};

describe("VS Code sample: compiling", () => {
  it(
    "compiles with tsc --noEmit against its own installed dependencies",
    () => {
      // A missing or stale install would make the compiler check the wrong thing: say how to fix it.
      const problems: string[] = [];
      for (const name of ["typescript", "@types/vscode", "@types/node", "vscode-languageclient"]) {
        const installed = join(SAMPLE, "node_modules", name, "package.json");
        const locked = lockfile.packages[`node_modules/${name}`]?.version;
        if (!existsSync(installed)) problems.push(`${name} is not installed`);
        else {
          const version = (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version;
          if (version !== locked) problems.push(`${name} ${version} is installed, the lockfile pins ${String(locked)}`);
        }
      }
      if (problems.length > 0) {
        throw new Error(`client-samples/vscode: ${problems.join("; ")}. Run \`${INSTALL}\` from the repository root (.ci/run does this on CI).`);
      }

      const tsc = join(SAMPLE, "node_modules", "typescript", "bin", "tsc");
      const run = spawnSync(process.execPath, [tsc, "--noEmit", "-p", SAMPLE], { cwd: REPO, encoding: "utf8", timeout: COMPILE_TIMEOUT_MS });
      const what = run.error
        ? `could not run: ${run.error.message}`
        : run.signal
          ? `was killed (${run.signal}) after ${COMPILE_TIMEOUT_MS} ms`
          : `exited with ${String(run.status)}`;
      expect(run.status, `tsc --noEmit -p client-samples/vscode ${what}:\n${run.stdout}${run.stderr}`).toBe(0);
    },
    COMPILE_TIMEOUT_MS + 10_000,
  );
});
