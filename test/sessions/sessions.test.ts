/**
 * `pi-session-lsp sessions` as a user runs it (the built command, with HOME pointing at a fake Pi
 * home built here): its `--json` list equals what the real Pi's SessionManager.list / listAll
 * returned on the same home (test/sessions/expected/lists.*.json, recorded by oracle.mjs), for Pi
 * 1.6.0 and 0.74.2; and its text output is /resume's threaded view, escaped and bounded.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import type { FakeHome } from "./fakeHome.mjs" with { "resolution-mode": "import" };

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: FakeHome;

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: home.home, TZ: "UTC", ...options.env };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd ?? home.projects.alpha, env, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function placeholders<T>(value: T): T {
  const enc = root.replace(/^\//, "").replace(/[/\\:]/g, "-");
  return JSON.parse(JSON.stringify(value).split(root).join("<ROOT>").split(enc).join("<ENC>"));
}

function json(args: string[], options?: Parameters<typeof run>[1]) {
  const r = run([...args, "--json"], options);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-sessions-test-")));
  const { buildFakeHome } = await import("./fakeHome.mjs");
  home = buildFakeHome(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const [pi, short] of [
  ["1.x", "16"],
  ["0.74", "074"],
] as const) {
  describe(`sessions --json --pi ${pi} equals Pi's own list`, () => {
    const recorded = JSON.parse(readFileSync(join(__dirname, "expected", `lists.${short}.json`), "utf8"));
    const scenarios: Record<string, { cwd: () => string; dir?: () => string }> = {
      alpha: { cwd: () => home.projects.alpha },
      beta: { cwd: () => home.projects.beta },
      "gamma (moved)": { cwd: () => home.projects.gamma },
      "gamma's old cwd": { cwd: () => home.projects.gammaOld },
      "empty project": { cwd: () => home.projects.empty },
      "alpha in the shared folder": { cwd: () => home.projects.alpha, dir: () => home.shared },
      "beta in the shared folder": { cwd: () => home.projects.beta, dir: () => home.shared },
      "alpha in alpha's own folder given explicitly": { cwd: () => home.projects.alpha, dir: () => home.dirs.alpha },
    };
    for (const want of recorded.list as { name: string; sessions: unknown[] }[]) {
      it(`list: ${want.name}`, () => {
        const s = scenarios[want.name]!;
        const args = ["sessions", "--pi", pi, "--cwd", s.cwd(), ...(s.dir ? ["--session-dir", s.dir()] : [])];
        // The cwd of a moved project does not exist; the command then runs from the root.
        expect(placeholders(json(args, { cwd: root }).sessions)).toEqual(want.sessions);
      });
    }
    for (const want of recorded.listAll as { name: string; sessions: unknown[] }[]) {
      it(`listAll: ${want.name}`, () => {
        const args = ["sessions", "--pi", pi, "--all", ...(want.name === "the shared folder" ? ["--session-dir", home.shared] : [])];
        expect(placeholders(json(args).sessions)).toEqual(want.sessions);
      });
    }
  });
}

describe("sessions, for people", () => {
  it("lists the project's sessions newest first, forks under their origin, with id, size, branches and origin", () => {
    const r = run(["sessions"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(`Pi 1.x lists 4 sessions for ${home.projects.alpha}`);
    expect(lines[1]).toMatch(/^from ~\/\.pi\/agent\/sessions\/--.*-work-alpha-- \(the project's default folder\)$/);
    const rows = lines.filter((l) => /^019d/.test(l));
    expect(rows.map((l) => l.slice(0, 8))).toEqual(["019d1a00", "019d1a00", "019d3c00", "019d2b00"]);
    // A1 (named, two branches) heads its thread; its fork A2 sits under it and says where it came from.
    expect(rows[0]).toMatch(/^019d1a00 {2}2026-03-02 10:00 .* {5}12 {9}2 .*Fix the flaky login test$/);
    expect(rows[1]).toMatch(/└─ Fix the flaky login test {2}forked from 019d1a00$/);
    expect(rows[2]).toContain("(no messages)");
    expect(r.stdout).toContain("3 files Pi leaves out of its list:");
    expect(r.stdout).toMatch(/a006\.jsonl: Pi's list throws on line 3 \(entry\.name\?\.trim is not a function\)/);
    expect(r.stdout).toMatch(/a005\.jsonl: its first entry is not a session header/);
  });

  it("lists every project with --all, each cwd cut at its start so that the project's name shows", () => {
    const r = run(["sessions", "--all"]);
    expect(r.status).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => /^019d/.test(l));
    expect(rows.length).toBe(7);
    // The fake home's root makes every cwd longer than the column: the end of the path is kept.
    expect(home.projects.alpha.length).toBeGreaterThan(24);
    expect(rows.filter((l) => l.includes(" …") && l.includes("/work/alpha  ")).length).toBe(4);
    expect(rows.filter((l) => l.includes("/work/beta  ")).length).toBe(2);
    expect(rows.filter((l) => l.includes("/old/gamma  ")).length).toBe(1);
  });

  it("says where a moved project's sessions probably are", () => {
    const r = run(["sessions", "--cwd", home.projects.gamma]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No sessions in this folder.");
    expect(r.stdout).toContain("If the project was moved or renamed, its sessions may be in:");
    expect(r.stdout).toMatch(/~\/\.pi\/agent\/sessions\/--.*-old-gamma--\n/);
  });

  it("follows a symbolic link to the project as Pi's cwd does", () => {
    const viaLink = json(["sessions", "--cwd", home.alphaLink]);
    expect(viaLink.cwd).toBe(home.projects.alpha);
    expect(viaLink.sessions).toEqual(json(["sessions"]).sessions);
  });

  it("reads the session folder from PI_CODING_AGENT_SESSION_DIR and filters a shared folder by cwd (1.x) or not (0.74)", () => {
    const env = { PI_CODING_AGENT_SESSION_DIR: home.shared };
    expect(json(["sessions"], { env }).sessions.map((s: { id: string }) => s.id.slice(-4))).toEqual(["d001"]);
    const r = json(["sessions"], { env });
    expect(r.location.source).toBe("PI_CODING_AGENT_SESSION_DIR");
    expect(r.otherProjects).toBe(1);
    expect(json(["sessions", "--pi", "0.74"], { env }).sessions.map((s: { id: string }) => s.id.slice(-4))).toEqual(["d002", "d001"]);
  });

  it("escapes control characters from session content and keeps every row on one line", () => {
    const file = join(home.dirs.alpha, "2026-03-04T00-00-00-000Z_019dffff-0000-7000-8000-00000000ffff.jsonl");
    const header = { type: "session", version: 3, id: "019dffff-0000-7000-8000-00000000ffff", timestamp: "2026-03-04T00:00:00.000Z", cwd: home.projects.alpha };
    const message = {
      type: "message",
      id: "x1",
      parentId: null,
      timestamp: "2026-03-04T00:00:01.000Z",
      message: { role: "user", content: "\u001b]0;pwned\u0007\u001b[2Jhello\r\nworld\u202e", timestamp: 1 },
    };
    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
    try {
      const r = run(["sessions"]);
      const row = r.stdout.split("\n").find((l) => l.startsWith("019dffff"))!;
      expect(row).toContain("\\x1b]0;pwned\\x07\\x1b[2Jhello world\\u202e");
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      // JSON escapes them too (JSON.stringify leaves the bidirectional ones raw), and parses back to Pi's text.
      const json = run(["sessions", "--json"]).stdout;
      expect(json).not.toMatch(/[\u007f-\u009f\u202e]/);
      expect(JSON.parse(json).sessions.find((s: { id: string }) => s.id.endsWith("ffff")).firstMessage).toBe(message.message.content);
    } finally {
      rmSync(file);
    }
  });

  it("refuses bad arguments with a usage error", () => {
    expect(run(["sessions", "--cwd", ".", "--all"]).status).toBe(2);
    expect(run(["sessions", "--pi", "2.0"]).stderr).toContain("--pi must be 1.x or 0.74");
    expect(run(["sessions", "--bogus"]).status).toBe(2);
  });
});
