/**
 * `find` on a session whose header cwd no longer exists. Pi 1.6 opens a session in its header's
 * cwd, and when that folder is gone `getMissingSessionCwdIssue` (core/session-cwd.js, called at
 * main.js:598) makes it ask "Session cwd does not exist" before opening it, or exit 1 without a
 * terminal: `pi --session ID --mode rpc` printed "Stored session working directory does not
 * exist: /elsewhere" and exited 1 on this very layout (checked by hand against Pi 1.6.0).
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: string;
let project: string;
let gone: string;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" }, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function session(folder: string, id: string, cwd: string) {
  const header = { type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd };
  const message = {
    type: "message",
    id: "m1",
    parentId: null,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1767225601000 },
  };
  writeFileSync(join(folder, `2026-01-01T00-00-00-000Z_${id}.jsonl`), `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-missing-cwd-")));
  home = join(root, "home");
  project = join(root, "p");
  gone = join(root, "gone");
  mkdirSync(project, { recursive: true });
  const folder = join(home, ".pi", "agent", "sessions", `--${project.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(folder, { recursive: true });
  session(folder, "cccc0001-0000-7000-8000-000000000001", gone);
  session(folder, "cccc0002-0000-7000-8000-000000000002", project);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("find and a header cwd that does not exist", () => {
  it("says Pi asks first, and stops without a terminal", () => {
    const r = run(["find", "cccc0001-0000-7000-8000-000000000001"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`its header's cwd ${gone} does not exist, so Pi first asks "Session cwd does not exist"`);
    expect(r.stdout).toContain('"Stored session working directory does not exist"');
    expect(JSON.parse(run(["find", "--json", "cccc0001"]).stdout).missingCwd).toBe(gone);
  });

  it("says nothing of the kind when the cwd exists", () => {
    const r = run(["find", "cccc0002"]);
    expect(r.stdout).not.toContain("does not exist");
    expect(JSON.parse(run(["find", "--json", "cccc0002"]).stdout).missingCwd).toBeUndefined();
  });
});
