/**
 * client-samples/neovim/lsp/pi_session.lua, the config written for nvim-lspconfig, loaded the way
 * nvim-lspconfig's own `lsp/` files are: its folder on 'runtimepath' and `vim.lsp.enable('pi_session')`
 * as the whole setup (test/clients/neovim/lspconfig.lua), against `pi-session-lsp --stdio` from PATH.
 *
 * The sessions are copies laid out as Pi lays them out, in a HOME of the test's own:
 * `~/.pi/agent/sessions/--home-dev-project--/` (two sessions: one server, rooted at the sessions
 * folder), `$PI_CODING_AGENT_DIR/sessions/--x--/` (Pi's folder moved: rooted there), a session
 * copied to another folder (rooted at that folder) and a JSON Lines file that is no session (no
 * server).
 *
 * `vim.lsp.config` and `vim.lsp.enable` are Neovim 0.11+; the test runs on every such Neovim in
 * PI_NVIM (CI: 0.12), and fails when there is none.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../server/src/lsp/settings";
import { WAIT_MS } from "../helpers/limits";
import {
  changedLines,
  DEADLINE_MS,
  describeRun,
  fixedByCli,
  neovimsFrom,
  NVIMS,
  remainingProblems,
  runEditor,
  SAMPLES,
  SERVER_CLI,
  SESSIONS,
  STEP_MS,
  type EditorRun,
} from "./harness";

const DRIVER = join(__dirname, "neovim", "lspconfig.lua");
const GET_NVIM = 'PI_NVIM="nvim,$(test/clients/neovim/get-nvim.sh 0.12)" npx vitest run test/clients/neovimLspconfig.test.ts';

/** The Neovims in PI_NVIM that have vim.lsp.config (0.11+), with their versions. */
const MODERN = neovimsFrom(11);

interface Diagnostic {
  line: number;
  character: number;
  severity: number;
  code: string | null;
}

/** What the driver reports of one opened file. */
interface Opened {
  file: string;
  filetype: string;
  clientId?: number;
  clientName?: string;
  rootDir?: string;
  cmd?: string[];
  settings?: { piSession?: unknown };
  commands?: string[];
  diagnostics?: Diagnostic[];
}

interface DriverResult {
  client: string;
  errors: string[];
  configFile?: string[];
  files: Opened[];
  hover?: string;
  fixAll?: { lines: string[]; eol: boolean; modified: boolean };
}

function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return list
    .map(({ line, character, severity, code }) => ({ line, character, severity, code }))
    .sort((a, b) => a.line - b.line || a.character - b.character || String(a.code).localeCompare(String(b.code)));
}

/** `check --format json` on one file, as the editor should show it. */
function checkDiagnostics(file: string): Diagnostic[] {
  const run = spawnSync(process.execPath, [SERVER_CLI, "check", "--format", "json", file], { encoding: "utf8", timeout: WAIT_MS });
  const report = JSON.parse(run.stdout.trim().split("\n")[0]!) as {
    diagnostics: { range: { start: { line: number; character: number } }; severity: number; code: string }[];
  };
  return sortDiagnostics(report.diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, severity: d.severity, code: d.code })));
}

describe("Neovim 0.11+ with lsp/pi_session.lua (nvim-lspconfig's shape) and vim.lsp.enable alone", () => {
  it("has a Neovim 0.11 or later to run on", () => {
    expect(
      MODERN.map((m) => m.nvim),
      `no Neovim 0.11+ in PI_NVIM=${NVIMS.join(",")}: vim.lsp.config needs one. Run:\n  ${GET_NVIM}`,
    ).not.toEqual([]);
  });

  describe.each(MODERN)("$nvim", ({ nvim }) => {
    const root = mkdtempSync(join(tmpdir(), "pi-session-nvim-lspconfig-"));
    const home = join(root, "home");
    const sessionsFolder = join(home, ".pi", "agent", "sessions");
    const movedAgent = join(root, "moved-pi");
    const elsewhere = join(root, "elsewhere");
    const broken = join(sessionsFolder, "--home-dev-project--", "broken.jsonl");
    const branches = join(sessionsFolder, "--home-dev-project--", "valid-branches.jsonl");
    const moved = join(movedAgent, "sessions", "--x--", "valid-compaction.jsonl");
    const fixture = join(elsewhere, "fixture.jsonl");
    const data = join(elsewhere, "data.jsonl");
    const files = [broken, branches, moved, fixture, data];
    const original = readFileSync(join(SESSIONS, "broken.jsonl"), "utf8");
    // Line 14 of broken.jsonl names its parent, a message on line 6.
    const hoverLine = 13;
    const hoverColumn = original.split("\n")[hoverLine]!.indexOf('"parentId":"fea926d3"') + '"parentId":"'.length + 2;

    let run: EditorRun;
    let result: DriverResult;
    const opened = (file: string) => result.files.find((f) => f.file === file);

    beforeAll(async () => {
      for (const [from, to] of [
        ["broken.jsonl", broken],
        ["valid-branches.jsonl", branches],
        ["valid-compaction.jsonl", moved],
        ["valid-branches.jsonl", fixture],
      ] as const) {
        mkdirSync(join(to, ".."), { recursive: true });
        copyFileSync(join(SESSIONS, from), to);
      }
      writeFileSync(data, '{"a":1}\n{"b":2}\n');
      run = await runEditor(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${DRIVER}`], {
        env: {
          HOME: home,
          PI_CODING_AGENT_DIR: movedAgent,
          PI_NVIM_RTP: join(SAMPLES, "neovim"),
          PI_NVIM_FILES: JSON.stringify(files),
          PI_NVIM_HOVER: `${hoverLine}:${hoverColumn}`,
          PI_NVIM_FIX: "1",
          PI_NVIM_TIMEOUT_MS: String(STEP_MS),
          PI_NVIM_WATCHDOG_MS: String(DEADLINE_MS),
          // The one file that must get no server: its wait is short, since a slow machine can only make it pass.
          PI_NVIM_UNATTACHED: JSON.stringify([data]),
        },
      });
      result = (run.result ?? { errors: ["the driver printed no JSON result"], files: [] }) as unknown as DriverResult;
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("finds lsp/pi_session.lua on 'runtimepath' and attaches the client `pi_session`", () => {
      expect(result.errors, describeRun(run)).toEqual([]);
      expect(run.code, describeRun(run)).toBe(0);
      expect(result.configFile).toEqual([join(SAMPLES, "neovim", "lsp", "pi_session.lua")]);
      const first = opened(broken);
      expect(first?.filetype, "Neovim's own filetype for *.jsonl").toBe("jsonl");
      expect(first?.clientName).toBe("pi_session");
      expect(first?.cmd).toEqual(["pi-session-lsp", "--stdio"]);
      expect(first?.settings?.piSession, "the config's settings are the server's defaults").toEqual(DEFAULT_SETTINGS);
      expect(first?.commands).toEqual(["LspPiSessionFixAll"]);
    });

    it("roots a session in Pi's sessions folder, one server for all of it", () => {
      expect(opened(broken)?.rootDir).toBe(sessionsFolder);
      expect(opened(branches)?.rootDir).toBe(sessionsFolder);
      expect(opened(branches)?.clientId, "the second session shares the first one's server").toBe(opened(broken)?.clientId);
    });

    it("roots a session in $PI_CODING_AGENT_DIR/sessions when Pi's folder is moved", () => {
      expect(opened(moved)?.rootDir, describeRun(run)).toBe(join(movedAgent, "sessions"));
      // The server agrees that this is Pi's folder: it checks the header's cwd (/home/dev/project), which Pi keeps in another folder.
      expect(opened(moved)?.diagnostics?.map((d) => d.code)).toContain("folder-mismatch");
    });

    it("roots a session copied elsewhere in its own folder, and leaves other JSON Lines alone", () => {
      expect(opened(fixture)?.clientName).toBe("pi_session");
      expect(opened(fixture)?.rootDir).toBe(elsewhere);
      expect(opened(data)?.filetype).toBe("jsonl");
      expect(opened(data)?.clientId, "a JSON Lines file that is no Pi session gets no server").toBeUndefined();
    });

    it("shows the diagnostics of `check`, on the same lines, with the same codes", () => {
      for (const file of [broken, branches, fixture]) {
        const shown = sortDiagnostics(opened(file)?.diagnostics ?? []).filter((d) => d.code !== "not-in-context");
        expect(shown, `${file} in ${result.client}`).toEqual(checkDiagnostics(file));
      }
      // The default settings fade what is not in the context.
      expect(opened(branches)?.diagnostics?.some((d) => d.code === "not-in-context" && d.severity === 4)).toBe(true);
    });

    it("hovers a parentId with a preview of its parent (K)", () => {
      expect(result.hover, describeRun(run)).toContain("parentId");
      expect(result.hover).toContain("fea926d3");
      expect(result.hover).toContain("line 6");
    });

    it(":LspPiSessionFixAll fixes the buffer as `check --fix` fixes the file, and writes nothing", () => {
      const fixed = result.fixAll;
      expect(fixed, describeRun(run)).toBeDefined();
      expect(fixed!.modified).toBe(true);
      expect(readFileSync(broken, "utf8"), "Neovim must not write the file").toBe(original);
      const scratch = mkdtempSync(join(root, "cli-"));
      const cliFixed = fixedByCli(original, scratch);
      const bufferText = fixed!.lines.join("\n") + (fixed!.eol ? "\n" : "");
      // Fix all picks fresh ids at random: compare which lines changed, and what is left to fix.
      expect(changedLines(original, bufferText)).toEqual(changedLines(original, cliFixed));
      expect(remainingProblems(bufferText, scratch)).toEqual(remainingProblems(cliFixed, scratch));
    });
  });
});
