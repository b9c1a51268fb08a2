/**
 * `find` shows the argument as Pi got it. Pi 1.6 neither trims `--session ARG` nor an id it
 * compares with it (`s.id.startsWith(sessionArg)`, main.js:243), and its message quotes ARG as
 * given (`No session found matching '${resolved.arg}'`, main.js:363), so " 019d" matches nothing
 * and says so with its space; our heading and that message keep the space.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), TZ: "UTC" },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-arg-")));
  mkdirSync(join(root, "home"), { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("find keeps the argument as typed", () => {
  it("a leading space stays visible, quoted for the shell", () => {
    const r = run(["find", "--ids", " 019d"]);
    expect(r.stdout).toContain("pi --session ' 019d' (Pi 1.x");
    expect(r.stdout).toContain(`opens nothing: "No session found matching ' 019d'"`);
    expect(r.status).toBe(1);
  });

  it("a quote is escaped as the shell wants it, a plain id is left bare", () => {
    expect(run(["find", "--ids", "it's"]).stdout).toContain(`pi --session 'it'\\''s' (Pi 1.x`);
    expect(run(["find", "--ids", "019d-x"]).stdout).toContain("pi --session 019d-x (Pi 1.x");
  });
});
