/**
 * `find PATH` for a path that is not a session Pi can open. Pi 1.6's `SessionManager.open` and
 * `_setSessionFile` (core/session-manager.js:1347-1369, 675-700) start a new session when the file
 * does not exist or is empty, and throw "Session file is not a valid pi session: PATH" when it has
 * bytes but no header first; `openSessionOrExit` (main.js:304-312) then exits 1. Checked by hand:
 * `pi --session FILE --mode rpc` printed that error and exited 1 for a file of "garbage" and for a
 * file whose first entry is "str", printed "Error: EISDIR: illegal operation on a directory, read"
 * for a folder named x.jsonl, and started a new session for a file that does not exist.
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

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" }, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-path-")));
  home = join(root, "home");
  project = join(root, "p");
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(root, "garbage.jsonl"), "garbage\n");
  writeFileSync(
    join(root, "str-first.jsonl"),
    `"str"\n${JSON.stringify({ type: "session", version: 3, id: "x1", timestamp: "2026-01-01T00:00:00.000Z", cwd: project })}\n`,
  );
  writeFileSync(join(root, "blank.jsonl"), "\n\n");
  writeFileSync(join(root, "empty.jsonl"), "");
  writeFileSync(join(root, "ok.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "x2", timestamp: "2026-01-01T00:00:00.000Z", cwd: project })}\n`);
  mkdirSync(join(root, "folder.jsonl"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("find PATH and what Pi 1.6 does with the file", () => {
  it.each(["garbage.jsonl", "str-first.jsonl", "blank.jsonl"])("%s: Pi stops, it is not a valid session", (name) => {
    const r = run(["find", join(root, name)]);
    expect(r.stdout).toContain(`opens nothing: Pi stops with "Error: Session file is not a valid pi session: ${join(root, name)}" and exits 1`);
    expect(r.status).toBe(1);
  });

  it("a folder: Pi stops with EISDIR", () => {
    const r = run(["find", "--json", join(root, "folder.jsonl")]);
    expect(JSON.parse(r.stdout).pathState).toEqual({ kind: "stops", error: "EISDIR: illegal operation on a directory, read" });
    expect(r.status).toBe(1);
  });

  it("no such file, or an empty one: Pi starts a new session there", () => {
    const missing = run(["find", join(root, "nope.jsonl")]);
    expect(missing.stdout).toContain(`opens a new session, to be written to ${join(root, "nope.jsonl")}: there is no such file`);
    expect(missing.status).toBe(0);
    expect(JSON.parse(run(["find", "--json", join(root, "empty.jsonl")]).stdout).pathState).toEqual({ kind: "empty" });
  });

  it("a session file opens as before", () => {
    const r = run(["find", "--json", join(root, "ok.jsonl")]);
    expect(JSON.parse(r.stdout).pathState).toBeUndefined();
    expect(r.status).toBe(0);
  });
});
