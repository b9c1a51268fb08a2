/**
 * Sessions and entries named by id (issue 29): every command that takes a FILE takes a session id
 * or the start of one, found as `pi --session` finds it, and says which file it took; an ambiguous
 * start is refused with the candidates and the one Pi would take; a path that exists stays a path.
 * `tree` prints each entry's short id and marks the leaf, and every entry argument takes that
 * short id. `find TEXT` shows the file and the first matching message, escaped.
 *
 * The commands run as the program, in a project folder of a home made here, as a user runs them.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");

let root: string;
let home: string;
let project: string;
let other: string;
let sessions: string;

/** Pi's folder for a project, as Pi 1.x names it. */
const folderOf = (cwd: string) => join(home, ".pi", "agent", "sessions", `--${cwd.replace(/^\//, "").replace(/[/\\:]/g, "-")}--`);

const ID_A = "019f0000-aaaa-7000-8000-000000000001";
const ID_B = "019f0000-aaab-7000-8000-000000000002";
const ID_OTHER = "019f0001-cccc-7000-8000-000000000003";

function message(id: string, parent: string | null, role: "user" | "assistant", text: string, minute: number): string {
  const timestamp = `2026-05-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
  const content = role === "user" ? text : [{ type: "text", text }];
  const extra = role === "assistant" ? { provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "stop" } : {};
  return JSON.stringify({ type: "message", id, parentId: parent, timestamp, message: { role, content, timestamp: Date.parse(timestamp), ...extra } });
}

function session(id: string, cwd: string, lines: string[]): string {
  return `${[JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd }), ...lines].join("\n")}\n`;
}

/** A session whose entry ids share their first eight characters in pairs, with two branches. */
function branched(id: string, cwd: string): string {
  return session(id, cwd, [
    message("e1000000", null, "user", "Plan the release.", 1),
    message("abcdef01a", "e1000000", "assistant", "First draft of the plan.", 2),
    message("abcdef01b", "e1000000", "assistant", "Second draft of the plan.", 3),
    message("f2000000", "abcdef01b", "user", `Find the needle \u001b[2J here, please: ${"x".repeat(200)}`, 4),
  ]);
}

function run(args: string[], cwd = project) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", COLUMNS: "200" },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-ids-")));
  home = join(root, "home");
  project = join(root, "proj");
  other = join(root, "other");
  for (const dir of [home, project, other]) mkdirSync(dir, { recursive: true });
  sessions = folderOf(project);
  mkdirSync(sessions, { recursive: true });
  mkdirSync(folderOf(other), { recursive: true });
  writeFileSync(join(sessions, `2026-05-01T10-00-00-000Z_${ID_A}.jsonl`), branched(ID_A, project));
  writeFileSync(join(sessions, `2026-05-01T10-00-00-000Z_${ID_B}.jsonl`), session(ID_B, project, [message("b1000000", null, "user", "Hello.", 5)]));
  writeFileSync(
    join(folderOf(other), `2026-05-01T10-00-00-000Z_${ID_OTHER}.jsonl`),
    session(ID_OTHER, other, [message("c1000000", null, "user", "Elsewhere.", 6)]),
  );
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const fileA = () => join(sessions, `2026-05-01T10-00-00-000Z_${ID_A}.jsonl`);

describe("a session id where a FILE is asked for", () => {
  it("takes a full id and a unique prefix, and says on stderr which file it took", () => {
    for (const arg of [ID_A, "019f0000-aaaa"]) {
      const r = run(["tree", arg]);
      expect(r.status, arg).toBe(0);
      expect(r.stdout, arg).toContain(`Session ${ID_A}: 4 entries`);
      expect(r.stderr, arg).toBe(
        `pi-session-lsp tree: ${arg} is session ${ID_A} of this project: ~/.pi/agent/sessions/${sessions.split("/").at(-1)}/2026-05-01T10-00-00-000Z_${ID_A}.jsonl\n`,
      );
    }
  });

  it("finds another project's session as Pi does, after this project's, and says so", () => {
    const r = run(["info", "019f0001"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`019f0001 is session ${ID_OTHER} of another project (${other})`);
  });

  it("refuses an ambiguous prefix, with the candidates and the session Pi would open without a word", () => {
    const r = run(["tree", "019f0000"]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("pi-session-lsp tree: 2 session ids start with 019f0000; give more of the id, or the file:");
    expect(lines.filter((line) => line.includes(ID_A) || line.includes(ID_B))).toHaveLength(3);
    expect(lines.at(-1)).toMatch(
      /^pi --session 019f0000 would open ~\/\.pi\/agent\/sessions\/.*_019f0000-aaa[ab]-.*\.jsonl without a word \(the first of this project's list, newest first\)\.$/,
    );
    // The command that writes refuses alike, and nothing is written.
    const before = readFileSync(fileA(), "utf8");
    expect(run(["resume-from", "019f0000", "e1000000"]).status).toBe(2);
    expect(readFileSync(fileA(), "utf8")).toBe(before);
  });

  it("refuses a full id two files share, and says Pi takes the first file of the folder", () => {
    const copy = join(sessions, "copy-of-b.jsonl");
    writeFileSync(copy, session(ID_B, project, [message("b2000000", null, "user", "A copy.", 9)]));
    try {
      const r = run(["info", ID_B]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`pi-session-lsp info: 2 sessions have the id ${ID_B}; give more of the id, or the file:`);
      expect(r.stderr).toMatch(/would open ~\/\.pi\/agent\/sessions\/.*\.jsonl without a word \(the first file of this project's folder with that id\)\.\n$/);
    } finally {
      rmSync(copy);
    }
  });

  it("says that an id matches no session", () => {
    const r = run(["context", "0123abcd"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("pi-session-lsp context: no file 0123abcd, and no session id starts with it");
  });

  it("reads a path that exists as a path, even when it looks like an id", () => {
    writeFileSync(join(project, "019f0000"), session("local-file", project, [message("d1000000", null, "user", "A file named like an id.", 7)]));
    try {
      const r = run(["tree", "019f0000"]);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain("Session local-file: 1 entries");
      expect(r.stderr).toBe("");
    } finally {
      rmSync(join(project, "019f0000"));
    }
  });

  it("is taken by info, context, export, fork, resume-from, drop-from-context, check, restore and redact", () => {
    const prefix = "019f0000-aaaa";
    expect(run(["info", "--json", prefix]).stdout).toContain(`"id":"${ID_A}"`);
    expect(JSON.parse(run(["context", prefix]).stdout).messages).toHaveLength(3);
    const exported = run(["export", prefix]);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toContain("# Session");
    expect(exported.stderr).toContain(`export: ${prefix} is session ${ID_A}`);
    expect(run(["resume-from", "--dry-run", prefix, "abcdef01a"]).stdout).toContain('"parentId":"abcdef01a"');
    expect(run(["drop-from-context", "--dry-run", prefix, "abcdef01b"]).stdout).toContain('"type":"context_edit"');
    const check = run(["check", prefix]);
    expect(check.stdout).toContain("in 1 file");
    expect(check.stderr).toContain(`check: ${prefix} is session ${ID_A}`);
    // restore finds the session by id too; it has no backup yet, and says so.
    const restore = run(["restore", "--dry-run", prefix]);
    expect(restore.stderr).toContain(`restore: ${prefix} is session ${ID_A}`);
    expect(restore.stderr).toContain("no backup to restore beside");
    const redact = run(["redact", "--dry-run", prefix]);
    expect(redact.stderr).toContain(`redact: ${prefix} is session ${ID_A}`);
    expect(redact.stdout).toContain("no credentials found; nothing written");
    const out = join(root, "forks");
    mkdirSync(out, { recursive: true });
    const fork = run(["fork", "--out", out, prefix]);
    expect(fork.status).toBe(0);
    expect(fork.stdout).toContain(`of ${fileA()}`);
  });

  it("looks in the folder --session-dir and PI_CODING_AGENT_DIR name, as Pi does", () => {
    const custom = join(root, "custom");
    mkdirSync(custom, { recursive: true });
    writeFileSync(join(custom, "s.jsonl"), session("019e7777-0000-7000-8000-000000000009", project, [message("g1000000", null, "user", "Custom.", 8)]));
    expect(run(["tree", "019e7777"]).status).toBe(2);
    const r = run(["tree", "--session-dir", custom, "019e7777"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`${join(custom, "s.jsonl")}`);
    const agent = join(root, "agent");
    mkdirSync(join(agent, "sessions", folderOf(project).split("/").at(-1)!), { recursive: true });
    writeFileSync(join(agent, "sessions", folderOf(project).split("/").at(-1)!, "t.jsonl"), session("019e8888-0000", project, []));
    const env = spawnSync(process.execPath, [BIN, "info", "019e8888"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: agent },
      encoding: "utf8",
    });
    expect(env.status).toBe(0);
    expect(env.stderr).toContain("019e8888 is session 019e8888-0000 of this project");
  });
});

describe("entry ids in tree's answer, and taken back", () => {
  it("prints each row's short id, unique and at least 8 characters, and marks the leaf", () => {
    const r = run(["tree", "--filter", "all", fileA()]);
    expect(r.status).toBe(0);
    const rows = r.stdout.split("\n").filter((line) => /^[a-z0-9]{8,} /.test(line));
    expect(rows.map((line) => line.split(" ")[0])).toEqual(["e1000000", "abcdef01b", "f2000000", "abcdef01a"]);
    expect(rows.filter((line) => line.endsWith("  ← leaf"))).toEqual([expect.stringMatching(/^f2000000 +› /)]);
    expect(r.stdout).toMatch(/\n {2}\(3\/4\) \[all\] {2}\(Pi's status: › is row 3 of the 4 rows filter all shows, of 4 entries\)\n$/);
    // The snippet of the row is escaped: no terminal control reaches the terminal.
    expect(r.stdout).not.toContain("\u001b");
    const json = JSON.parse(run(["tree", "--json", "--filter", "all", fileA()]).stdout);
    expect(json.rows.map((row: { id: string; short: string; leaf: boolean }) => [row.id, row.short, row.leaf])).toEqual([
      ["e1000000", "e1000000", false],
      ["abcdef01b", "abcdef01b", false],
      ["f2000000", "f2000000", true],
      ["abcdef01a", "abcdef01a", false],
    ]);
  });

  it("takes the short id printed in every entry argument, and refuses an ambiguous start", () => {
    const fork = run(["fork", "--leaf", "abcdef01a", "--out", join(root, "forks", "a.jsonl"), fileA()]);
    expect(fork.status).toBe(0);
    expect(fork.stdout).toContain("with the 2 entries from the root to line 3 (abcdef01a)");
    const context = JSON.parse(run(["context", "--leaf", "abcdef01a", fileA()]).stdout);
    expect(context.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(run(["context", "--leaf", "f200", "--format", "markdown", fileA()]).status).toBe(0);
    for (const args of [
      ["context", "--leaf", "abcdef01", fileA()],
      ["resume-from", "--dry-run", fileA(), "abcdef01"],
      ["fork", "--leaf", "abcdef01", fileA()],
    ]) {
      const r = run(args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain('2 entries have ids starting with "abcdef01" ("abcdef01a" (line 3), "abcdef01b" (line 4)); give more of it');
    }
  });
});

describe("find TEXT", () => {
  it("shows the file and the first matching message, with the match in an escaped, clipped snippet", () => {
    const r = run(["find", "needle"]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    const at = lines.findIndex((line) => line.includes(ID_A));
    expect(lines[at + 1]).toBe(`      ~/.pi/agent/sessions/${sessions.split("/").at(-1)}/2026-05-01T10-00-00-000Z_${ID_A}.jsonl`);
    expect(lines[at + 2]).toMatch(/^ {6}line 5, entry f2000000, user: Find the needle \\x1b\[2J here, please: x+…$/);
    expect(r.stdout).not.toContain("\u001b");
    const json = JSON.parse(run(["find", "--json", "needle"]).stdout);
    expect(json.text[0].match.entry).toEqual({
      line: 5,
      id: "f2000000",
      role: "user",
      snippet: expect.stringMatching(/^Find the needle \u001b\[2J here, please: x+…$/),
    });
    expect(existsSync(json.text[0].path)).toBe(true);
  });
});
