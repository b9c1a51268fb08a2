/**
 * `check` with no PATH checks the sessions of the project in the current folder (or `--cwd DIR`),
 * in the folder Pi itself would list them from, and says on stderr which folder that is and why;
 * `--all` checks every project's. A project without sessions is nothing wrong (exit status 0).
 * The real command is run in a fake Pi home (`PI_CODING_AGENT_DIR`), from the project's folder.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let agent: string;
let project: string;
let other: string;
let empty: string;

/** Pi's folder name for an absolute cwd (both versions), as test/sessions/fakeHome.mjs writes it. */
function encodeCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function header(id: string, cwd: string): string {
  return JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-02T10:00:00.000Z", cwd });
}

function user(id: string): string {
  return JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-03-02T10:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } });
}

function write(dir: string, name: string, lines: string[]): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function run(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, "check", "--format", "json", "--threads", "1", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), PI_CODING_AGENT_DIR: agent, ...env },
    encoding: "utf8",
  });
  const files = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { file: string; diagnostics: { severity: number }[] });
  return { status: r.status, files, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-check-project-")));
  agent = join(root, "agent");
  project = join(root, "project");
  other = join(root, "other");
  empty = join(root, "empty");
  for (const dir of [project, other, empty]) mkdirSync(dir, { recursive: true });
  const mine = join(agent, "sessions", encodeCwd(project));
  write(mine, "a.jsonl", [header("0197a0b0-0000-7000-8000-00000000000a", project), user("aaaa0001")]);
  // A line cut off mid-entry: an error.
  write(mine, "b.jsonl", [header("0197a0b0-0000-7000-8000-00000000000b", project), user("bbbb0001"), '{"type":"message","id":"bb']);
  write(mine, "notes.txt", ["not a session"]);
  write(join(agent, "sessions", encodeCwd(other)), "c.jsonl", [header("0197a0b0-0000-7000-8000-00000000000c", other), user("cccc0001")]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("check with no PATH", () => {
  it("checks the current project's sessions in Pi's default folder, and fails on the one with an error", () => {
    const r = run([], project);
    const dir = join(agent, "sessions", encodeCwd(project));
    expect(r.files.map((f) => f.file)).toEqual([join(dir, "a.jsonl"), join(dir, "b.jsonl")]);
    expect(r.files[0]!.diagnostics.filter((d) => d.severity === 1)).toEqual([]);
    expect(r.files[1]!.diagnostics.some((d) => d.severity === 1)).toBe(true);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`pi-session-lsp check: checking 2 sessions of ${project} in ${dir} (the project's default folder)\n`);
  });

  it("checks another project's sessions with --cwd, exit status 0 when none has an error", () => {
    const r = run(["--cwd", other], project);
    expect(r.files.map((f) => f.file)).toEqual([join(agent, "sessions", encodeCwd(other), "c.jsonl")]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`checking 1 session of ${other} in `);
  });

  it("checks every project's sessions with --all", () => {
    const r = run(["--all"], empty);
    expect(r.files.map((f) => f.file).sort()).toEqual(
      [
        join(agent, "sessions", encodeCwd(project), "a.jsonl"),
        join(agent, "sessions", encodeCwd(project), "b.jsonl"),
        join(agent, "sessions", encodeCwd(other), "c.jsonl"),
      ].sort(),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`pi-session-lsp check: checking 3 sessions of every project under ${join(agent, "sessions")}\n`);
  });

  it("reads the folder --session-dir names, leaving out the sessions of other projects that share it", () => {
    const shared = join(root, "shared");
    const mine = write(shared, "m.jsonl", [header("0197a0b0-0000-7000-8000-00000000000d", project), user("dddd0001")]);
    write(shared, "o.jsonl", [header("0197a0b0-0000-7000-8000-00000000000e", other), user("eeee0001")]);
    const r = run(["--session-dir", shared], project);
    expect(r.files.map((f) => f.file)).toEqual([mine]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `pi-session-lsp check: checking 1 session of ${project} in ${shared} (from --session-dir); 1 other session there belongs to other projects\n`,
    );
    // The environment variable names the folder the same way, and says so.
    const fromEnv = run([], project, { PI_CODING_AGENT_SESSION_DIR: shared });
    expect(fromEnv.files.map((f) => f.file)).toEqual([mine]);
    expect(fromEnv.stderr).toContain("(from $PI_CODING_AGENT_SESSION_DIR)");
  });

  it("says a project with no session folder has nothing to check, and exits 0", () => {
    const r = run([], empty);
    expect(r.files).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `pi-session-lsp check: no sessions to check: ${join(agent, "sessions", encodeCwd(empty))} does not exist (the project's default folder)\n`,
    );
  });

  it("says a project whose folder holds no session has nothing to check, and says nothing with --quiet", () => {
    const bare = join(root, "bare");
    mkdirSync(bare, { recursive: true });
    const dir = join(agent, "sessions", encodeCwd(bare));
    write(dir, "notes.txt", ["not a session"]);
    const r = run([], bare);
    expect(r.files).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`pi-session-lsp check: no sessions to check in ${dir} (the project's default folder)\n`);
    const quiet = run(["--quiet"], project);
    expect(quiet.stderr).toBe("");
    expect(quiet.files.length).toBe(2);
    expect(quiet.status).toBe(1);
  });

  it("refuses --all or --cwd with a PATH, and --all with --cwd", () => {
    const withPath = run(["--all", join(project, "x.jsonl")], project);
    expect(withPath.status).toBe(2);
    expect(withPath.stderr).toContain("--all checks a project's sessions and takes no PATH");
    const both = run(["--all", "--cwd", other], project);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--cwd and --all cannot be combined");
  });
});
