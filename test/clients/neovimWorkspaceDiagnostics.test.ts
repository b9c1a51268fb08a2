/**
 * Workspace diagnostics in a real editor that pulls them: headless Neovim 0.12+ with
 * client-samples/neovim/lsp/pi_session.lua opens one session in Pi's sessions folder and pulls
 * `workspace/diagnostic` with its own `vim.lsp.buf.workspace_diagnostics()`
 * (test/clients/neovim/workspaceDiagnostics.lua); a session it never opened (no buffer loaded)
 * gets the diagnostics `check --format json` prints for it.
 *
 * `vim.lsp.buf.workspace_diagnostics` is Neovim 0.12+; the test runs on every such Neovim in
 * PI_NVIM (CI: 0.12), and fails when there is none.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WAIT_MS } from "../helpers/limits";
import { DEADLINE_MS, describeRun, neovimsFrom, NVIMS, runEditor, SAMPLES, SERVER_CLI, SESSIONS, STEP_MS } from "./harness";

const DRIVER = join(__dirname, "neovim", "workspaceDiagnostics.lua");
const GET_NVIM = 'PI_NVIM="nvim,$(test/clients/neovim/get-nvim.sh 0.12)" npx vitest run test/clients/neovimWorkspaceDiagnostics.test.ts';

/** The Neovims in PI_NVIM that pull workspace diagnostics (0.12+). */
const PULLING = neovimsFrom(12);

interface Diagnostic {
  line: number;
  character: number;
  severity: number;
  code: string | null;
}

function sorted(list: Diagnostic[]): Diagnostic[] {
  return list
    .map(({ line, character, severity, code }) => ({ line, character, severity, code }))
    .sort((a, b) => a.line - b.line || a.character - b.character || String(a.code).localeCompare(String(b.code)));
}

/** `check --format json` on one file, as the editor should show it. */
function checkDiagnostics(file: string, home: string): Diagnostic[] {
  const run = spawnSync(process.execPath, [SERVER_CLI, "check", "--format", "json", file], {
    encoding: "utf8",
    timeout: WAIT_MS,
    env: { ...process.env, HOME: home },
  });
  const report = JSON.parse(run.stdout.trim().split("\n")[0]!) as {
    diagnostics: { range: { start: { line: number; character: number } }; severity: number; code: string }[];
  };
  return sorted(report.diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, severity: d.severity, code: d.code })));
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe("Neovim 0.12+ pulls the problems of sessions it never opened (workspace/diagnostic)", () => {
  it("has a Neovim 0.12 or later to run on", () => {
    expect(
      PULLING.map((m) => m.nvim),
      `no Neovim 0.12+ in PI_NVIM=${NVIMS.join(",")}: vim.lsp.buf.workspace_diagnostics needs one. Run:\n  ${GET_NVIM}`,
    ).not.toEqual([]);
  });

  it.each(PULLING)("$nvim: a session never opened has check's diagnostics", async ({ nvim }) => {
    const root = mkdtempSync(join(tmpdir(), "pi-session-nvim-wsdiag-"));
    roots.push(root);
    const home = join(root, "home");
    const folder = join(home, ".pi", "agent", "sessions", "--home-dev-project--");
    mkdirSync(folder, { recursive: true });
    const open = join(folder, "valid-branches.jsonl");
    const unopened = join(folder, "unopened.jsonl");
    copyFileSync(join(SESSIONS, "valid-branches.jsonl"), open);
    // Cut short, as a session Pi was killed while writing ends.
    writeFileSync(unopened, `${readFileSync(join(SESSIONS, "broken.jsonl"), "utf8")}{"type":"message","id":"cut`);
    const run = await runEditor(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${DRIVER}`], {
      env: {
        HOME: home,
        PI_NVIM_RTP: join(SAMPLES, "neovim"),
        PI_NVIM_OPEN: open,
        PI_NVIM_UNOPENED: unopened,
        PI_NVIM_TIMEOUT_MS: String(STEP_MS),
        PI_NVIM_WATCHDOG_MS: String(DEADLINE_MS),
      },
    });
    const result = run.result as
      | { errors: string[]; workspaceDiagnostics?: boolean; loaded?: boolean; diagnostics?: Diagnostic[]; quickfix?: number; loadedAfterList?: boolean }
      | undefined;
    expect(result, describeRun(run)).toBeDefined();
    expect(result!.errors, describeRun(run)).toEqual([]);
    expect(result!.workspaceDiagnostics).toBe(true);
    expect(result!.loaded, "the unopened session's buffer was loaded").toBe(false);
    expect(result!.diagnostics!.length).toBeGreaterThan(0);
    expect(sorted(result!.diagnostics!)).toEqual(checkDiagnostics(unopened, home));
    // `vim.diagnostic.setqflist()`, as the sample's README says, lists them without loading the file.
    expect(result!.quickfix).toBe(result!.diagnostics!.length);
    expect(result!.loadedAfterList).toBe(false);
  });
});
