/**
 * A session whose header `parentSession` is not a path empties Pi 1.6's `/resume`. Its threaded
 * view keys each truthy `parentSessionPath` with `getPathComparisonKey(canonicalizePath(value))`
 * (modes/interactive/components/session-selector.js:166), which throws a TypeError on a number, an
 * object, `true` or an array that names no existing path; the throw happens in the progress
 * callback of `SessionManager.list`/`listAll`, whose `catch` returns [] (session-manager.js:604-627).
 * Checked by hand: Pi 1.6.0's SessionSelectorComponent, rendered headless on three sessions of which
 * one has `"parentSession": 5`, shows "No sessions in current folder" and, on Tab, "No sessions found";
 * the values below were each passed through Pi's own `canonicalizePath` and `getPathComparisonKey`.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeKeyThrows } from "../../server/src/core/disk/list";
import { ensureBuilt } from "../helpers/lspClient";

describe("resumeKeyThrows follows Pi 1.6's getSessionPathKey", () => {
  const exists = (path: string) => path === "" || path === "/tmp";
  it.each([
    [5, true],
    [-1, true],
    [0.5, true],
    [true, true],
    [{}, true],
    [{ href: "file:///x", protocol: "file:" }, true],
    [[1], true],
    [["/x"], true],
    [[], false],
    [[""], false],
    [["/tmp"], false],
    ["/a/b.jsonl", false],
    ["rel.jsonl", false],
    ["", false],
    [0, false],
    [false, false],
    [null, false],
    [undefined, false],
  ])("%j throws: %s", (value, throws) => {
    expect(resumeKeyThrows(value, exists)).toBe(throws);
  });
});

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: string;
let project: string;
let folder: string;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" }, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function session(i: number, extra: Record<string, unknown> = {}) {
  const header = { type: "session", version: 3, id: `eeee000${i}`, timestamp: `2026-01-0${i}T00:00:00.000Z`, ...extra, cwd: project };
  const message = { type: "message", id: "m1", parentId: null, timestamp: `2026-01-0${i}T00:00:00.000Z`, message: { role: "user", content: `session ${i}` } };
  writeFileSync(join(folder, `2026-01-0${i}_eeee000${i}.jsonl`), `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-resume-throws-")));
  home = join(root, "home");
  project = join(root, "p");
  mkdirSync(project, { recursive: true });
  folder = join(home, ".pi", "agent", "sessions", `--${project.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(folder, { recursive: true });
  session(1);
  session(3);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sessions warns when /resume would show nothing", () => {
  it("says nothing while every parentSession is a path", () => {
    session(2, { parentSession: join(folder, "2026-01-01_eeee0001.jsonl") });
    const r = run(["sessions"]);
    expect(r.stdout).not.toContain("warning:");
    expect(JSON.parse(run(["sessions", "--json"]).stdout).resumeThrows).toBeUndefined();
  });

  it("names the file whose parentSession is a number", () => {
    session(2, { parentSession: 5 });
    const r = run(["sessions"]);
    expect(r.stdout).toContain(`warning: Pi 1.6's /resume shows no sessions here ("No sessions in current folder"): the header of`);
    expect(r.stdout).toContain("2026-01-02_eeee0002.jsonl has a parentSession that is not a path (5)");
    expect(run(["sessions", "--all"]).stdout).toContain('its All tab says "No sessions found"');
    const json = JSON.parse(run(["sessions", "--json"]).stdout);
    expect(json.resumeThrows).toBe(join(folder, "2026-01-02_eeee0002.jsonl"));
    // `sessions` stays what SessionManager.list returns: all three.
    expect(json.sessions).toHaveLength(3);
  });

  it("Pi 0.74's rules are not claimed", () => {
    session(2, { parentSession: 5 });
    expect(run(["sessions", "--pi", "0.74"]).stdout).not.toContain("warning:");
  });
});
