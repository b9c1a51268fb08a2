/**
 * A working directory whose default session folder Pi cannot create. Pi's `getDefaultSessionDir`
 * (`core/session-manager.js` of Pi 1.6, lines 297-301) `mkdirSync`s `<agent>/sessions/--<cwd>--`
 * unguarded, and the whole cwd is one folder name there, so a cwd of more than about 250 bytes
 * makes the real Pi stop at startup with ENAMETOOLONG (checked by hand against Pi 1.6.0). The
 * commands must say so rather than report an empty, ordinary folder.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: string;
let longCwd: string;
let shortCwd: string;

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", ...env }, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-default-folder-")));
  home = join(root, "home");
  // Six folders of 50 letters: each name is allowed, the encoded whole (over 300 bytes) is not.
  longCwd = join(root, ...Array.from({ length: 6 }, (_, i) => `${String(i)}${"d".repeat(49)}`));
  shortCwd = join(root, "short");
  mkdirSync(longCwd, { recursive: true });
  mkdirSync(shortCwd, { recursive: true });
  mkdirSync(home, { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a cwd too long for Pi's default session folder", () => {
  it("sessions says Pi stops at startup, in text and JSON", () => {
    const text = run(["sessions", "--cwd", longCwd]);
    expect(text.status).toBe(0);
    expect(text.stderr).toContain("Pi stops at startup: it cannot create its session folder");
    expect(text.stderr).toContain("ENAMETOOLONG");
    const json = run(["sessions", "--cwd", longCwd, "--json"]);
    expect(JSON.parse(json.stdout).location.problem).toMatch(/longer than the file system allows/);
  });

  it("find says so too", () => {
    const r = run(["find", "--cwd", longCwd, "--ids", "019d"]);
    expect(r.stderr).toContain("Pi stops at startup");
  });

  it("a folder of Pi's own (PI_CODING_AGENT_SESSION_DIR) avoids the default folder, so there is no problem", () => {
    const r = run(["sessions", "--cwd", longCwd, "--json"], { PI_CODING_AGENT_SESSION_DIR: join(root, "custom") });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).location.problem).toBeUndefined();
  });

  it("an ordinary cwd whose folder does not exist yet is no problem (Pi creates it)", () => {
    const r = run(["sessions", "--cwd", shortCwd, "--json"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).location.problem).toBeUndefined();
  });
});
