/**
 * The index of every session in a real editor: headless Neovim with the sample configuration
 * (client-samples/neovim/pi-session.lua), HOME at a fake Pi home, opens a fork in Pi's sessions
 * folder; test/clients/neovim/workspace.lua asks for workspace symbols until closed sessions
 * appear, presses gd on `parentSession` (Neovim opens the parent) and asks for the parent's
 * references (its forks).
 */

import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import type { FakeHome } from "../sessions/fakeHome.mjs" with { "resolution-mode": "import" };
import { describeRun, requireEditor, runEditor, SAMPLES, STEP_MS } from "./harness";

const DRIVER = join(__dirname, "neovim", "workspace.lua");
let root: string;
let home: FakeHome;

beforeAll(async () => {
  requireEditor("nvim", "neovim");
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-nvim-index-")));
  const { buildFakeHome } = await import("../sessions/fakeHome.mjs");
  home = buildFakeHome(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("Neovim with the sessions index", () => {
  it("finds closed sessions by name, follows parentSession to the parent and lists its forks", async () => {
    const header = readFileSync(home.written.a2.path, "utf8").split("\n")[0]!;
    const at = header.indexOf('"parentSession":') + '"parentSession":'.length + 2;
    const run = await runEditor("nvim", ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${DRIVER}`], {
      env: {
        HOME: home.home,
        PI_NVIM_SAMPLE: join(SAMPLES, "neovim", "pi-session.lua"),
        PI_NVIM_FILE: home.written.a2.path,
        PI_NVIM_QUERY: "Beta deploy",
        PI_NVIM_DEFINITION: `0:${at}`,
        PI_NVIM_TIMEOUT_MS: String(STEP_MS),
      },
    });
    const result = run.result as
      | {
          errors: string[];
          symbols?: { name: string; location: { uri: string } }[];
          definition?: { file: string; line: number; character: number };
          references?: { uri: string }[];
        }
      | undefined;
    expect(result, describeRun(run)).toBeDefined();
    expect(result!.errors, describeRun(run)).toEqual([]);
    expect(result!.symbols).toContainEqual(
      expect.objectContaining({ name: "Beta deploy", location: expect.objectContaining({ uri: pathToFileURL(home.written.b1.path).href }) }),
    );
    const parentHeader = readFileSync(home.written.a1.path, "utf8").split("\n")[0]!;
    expect(result!.definition).toEqual({ file: home.written.a1.path, line: 0, character: parentHeader.indexOf('"019d1a00') });
    expect(result!.references?.map((r) => r.uri)).toEqual([pathToFileURL(home.written.a2.path).href]);
  });
});
