/**
 * `--cwd DIR` stands for `cd DIR && pi`, so a relative `--session-dir` is the folder Pi would find
 * from DIR: Pi's `SessionManager` reads the folder as given, against its own process cwd, which is
 * DIR. The flag was resolved against this process's cwd instead, unlike a relative
 * `$PI_CODING_AGENT_SESSION_DIR`, which was already resolved against DIR.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt } from "../helpers/lspClient";

let root: string;
let project: string;
let elsewhere: string;
const ID = "019cae1a-4f00-7000-8000-000000000001";

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-relative-session-dir-")));
  project = join(root, "project");
  elsewhere = join(root, "elsewhere");
  mkdirSync(join(project, "rel"), { recursive: true });
  mkdirSync(join(elsewhere, "rel"), { recursive: true });
  mkdirSync(join(root, "home"));
  const header = JSON.stringify({ type: "session", version: 3, id: ID, timestamp: "2026-03-02T10:00:00.000Z", cwd: project });
  const user = JSON.stringify({
    type: "message",
    id: "a0000002",
    parentId: null,
    timestamp: "2026-03-02T10:00:02.000Z",
    message: { role: "user", content: "hi", timestamp: 1772445602000 },
  });
  writeFileSync(join(project, "rel", `2026-03-02T10-00-00-000Z_${ID}.jsonl`), `${header}\n${user}\n`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: elsewhere,
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), ...env },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("a relative --session-dir with --cwd", () => {
  for (const pi of ["1.x", "0.74"]) {
    it(`is the folder under --cwd, as from the environment variable (Pi ${pi})`, () => {
      const flag = run(["sessions", "--pi", pi, "--json", "--cwd", project, "--session-dir", "rel"]);
      expect(flag.location.currentDir).toBe(join(project, "rel"));
      expect(flag.sessions.map((s: { id: string }) => s.id)).toEqual([ID]);
      const variable = run(["sessions", "--pi", pi, "--json", "--cwd", project], { PI_CODING_AGENT_SESSION_DIR: "rel" });
      expect(variable.location.currentDir).toBe(join(project, "rel"));
      const found = run(["find", "--pi", pi, "--json", "--ids", "--cwd", project, "--session-dir", "rel", ID.slice(0, 8)]);
      expect(JSON.stringify(found)).toContain(join(project, "rel"));
    });
  }

  it("is the folder under this process's cwd without --cwd", () => {
    const here = run(["sessions", "--json", "--session-dir", "rel"]);
    expect(here.location.currentDir).toBe(join(elsewhere, "rel"));
  });
});
