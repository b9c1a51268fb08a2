/**
 * A `re:` search whose pattern backtracks without end is given up, not followed into a hang. Pi
 * compiles the query with `new RegExp(pattern, "i")` and tests it on every session's messages, so
 * `re:(a+)+$` on a message of forty `a`s and a "!" hangs Pi's `/resume`; `find` tests each with a
 * time limit (`io/boundedRegex.ts`), says which session it gave up on and how many were not
 * searched, and still answers the sessions it did search. A pattern that does not backtrack is
 * searched as before, with no such note.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import { WAIT_MS } from "../helpers/limits";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let dir: string;

function session(id: string, minute: number, text: string): string {
  const at = `2026-03-02T10:${String(minute).padStart(2, "0")}:00.000Z`;
  return [
    JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: join(root, "project") }),
    JSON.stringify({ type: "message", id: "a1", parentId: null, timestamp: at, message: { role: "user", content: text, timestamp: 1 } }),
    "",
  ].join("\n");
}

function find(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "find", "--session-dir", dir, "--cwd", join(root, "project"), ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), TZ: "UTC", PI_SESSION_LSP_THREADS: "1" },
    encoding: "utf8",
    timeout: WAIT_MS,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-regex-")));
  dir = join(root, "sessions");
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, "project"), { recursive: true });
  mkdirSync(join(root, "home"), { recursive: true });
  writeFileSync(join(dir, "2026-03-02T10-01-00-000Z_s-one.jsonl"), session("s-one", 1, "hello aaa"));
  writeFileSync(join(dir, "2026-03-02T10-02-00-000Z_s-two.jsonl"), session("s-two", 2, `${"a".repeat(40)}!`));
  writeFileSync(join(dir, "2026-03-02T10-03-00-000Z_s-three.jsonl"), session("s-three", 3, "hello again"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("find re:PATTERN", () => {
  it("gives up a pattern that backtracks without end, and says so", () => {
    const r = find(["--json", "re:(a+)+$"]);
    // Given up after one timeout, not followed for the hours the backtracking takes: the process
    // ended by itself (spawnSync's WAIT_MS, which only stops a hang, leaves a null status).
    expect(r.status).not.toBeNull();
    expect(r.stderr).toContain("the regular expression ran for more than 1 s on");
    expect(r.stderr).toContain("it backtracks without end: Pi's /resume search hangs on it");
    const json = JSON.parse(r.stdout) as { searchGaveUp: { timedOut: string[]; skipped: string[] }; text: { id: string }[] };
    // The session the test ran out on is named; the others, searched after it on this one thread, are counted.
    expect(json.searchGaveUp.timedOut).toEqual([join(dir, "2026-03-02T10-02-00-000Z_s-two.jsonl")]);
    expect(r.stderr).toContain(`ran for more than 1 s on ${join(dir, "2026-03-02T10-02-00-000Z_s-two.jsonl")} and was given up`);
    expect(json.searchGaveUp.skipped.length + json.text.length).toBeLessThanOrEqual(2);
    // A session it gave up on is not reported as a match.
    expect(json.text.map((s) => s.id)).not.toContain("s-two");
    // The text output does not pass the sessions it could not search off as not matching.
    const text = find(["re:(a+)+$"]);
    expect(text.stdout).toMatch(/could not be searched/);
  });

  it("searches a pattern that does not backtrack as before, without a note", () => {
    const r = find(["--json", "re:hel+o a"]);
    expect(r.stderr).toBe("");
    const json = JSON.parse(r.stdout) as { searchGaveUp?: unknown; text: { id: string }[] };
    expect(json.searchGaveUp).toBeUndefined();
    expect(json.text.map((s) => s.id).sort()).toEqual(["s-one", "s-three"]);
    expect(r.status).toBe(0);
  });
});
