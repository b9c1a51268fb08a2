/**
 * The session commands on values nested too deep for JavaScript's own coercions (issue 10, item
 * 5): a header whose id is an array 100,000 deep, a parentSession and an entry id 6,000 deep, a
 * label 6,000 deep. Before, `sessions --json` (0.74, or --all) and `find --json TEXT` died with
 * "internal error: RangeError" (JSON.stringify, String() in the search), and the text listing died
 * on the fork note; now that session costs its own odd fields only, and the others are listed.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import { WAIT_MS } from "../helpers/limits";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const OK_ID = "0197a0b0-0000-7000-8000-000000000001";

let dir: string;
let home: string;

beforeAll(async () => {
  await ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), "pi-deep-sessions-"));
  dir = join(root, "sessions");
  home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(home);
  const entry = (id: string, parent: string, content: string) =>
    `{"type":"message","id":${id},"parentId":${parent},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${content}","timestamp":1}}`;
  writeFileSync(
    join(dir, "2026-03-02T10-00-00-000Z_deep.jsonl"),
    [
      `{"type":"session","version":3,"id":${nested(100_000)},"timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p","parentSession":${nested(6000)}}`,
      entry(nested(6000), "null", "hello from deep"),
      `{"type":"label","id":"l1","parentId":null,"timestamp":"2026-03-02T10:00:02.000Z","targetId":"x","label":${nested(6000)}}`,
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "2026-03-02T11-00-00-000Z_ok.jsonl"),
    `{"type":"session","version":3,"id":"${OK_ID}","timestamp":"2026-03-02T11:00:00.002Z","cwd":"/p"}\n${entry('"a1"', "null", "hello")}\n`,
  );
});

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    timeout: WAIT_MS,
    env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("session commands on deeply nested ids", () => {
  it("sessions --json lists both sessions, for Pi 1.x and 0.74, and with --all (1.x reads --session-dir for it)", () => {
    for (const args of [["--cwd", "/p"], ["--cwd", "/p", "--pi", "0.74"], ["--all"]]) {
      const r = run("sessions", "--session-dir", dir, "--json", ...args);
      expect(r.stderr, args.join(" ")).not.toMatch(/internal error/);
      expect(r.status, args.join(" ")).toBe(0);
      const json = JSON.parse(r.stdout) as { sessions: { id: unknown; firstMessage: string }[] };
      expect(json.sessions.map((s) => s.firstMessage).sort()).toEqual(["hello", "hello from deep"]);
      // The id that JSON.stringify cannot write is written as deep as it can be, then says so.
      const deep = json.sessions.find((s) => s.firstMessage === "hello from deep")!;
      const written = JSON.stringify(deep.id);
      expect(written).toMatch(/^\[+"\(nested more than 1000 levels deep: not written\)"\]+$/);
      expect(written.length).toBeGreaterThan(1900);
    }
  });

  it("the text listing names the fork it cannot read as a path instead of failing", () => {
    const r = run("sessions", "--session-dir", dir, "--cwd", "/p");
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("(parentSession is not a path: […])");
    expect(r.stdout).toContain("hello from deep");
  });

  it("find --json by id prefix, by text and by regular expression answers from the other sessions", () => {
    const byId = run("find", "--session-dir", dir, "--cwd", "/p", "--json", "0197a0b0");
    expect(byId.status).toBe(0);
    expect(JSON.stringify(JSON.parse(byId.stdout))).toContain(OK_ID);
    for (const query of ["hello", "re:hel+o", '"from deep"', "[[["]) {
      const r = run("find", "--session-dir", dir, "--cwd", "/p", "--json", query);
      expect(r.stderr, query).not.toMatch(/internal error/);
      expect([0, 1], query).toContain(r.status);
      expect(() => JSON.parse(r.stdout), query).not.toThrow();
    }
    // Pi's search calls session.id.toLowerCase(), which throws for an id that is not a string, so
    // the deep session matches nothing; the other one still does.
    const text = JSON.parse(run("find", "--session-dir", dir, "--cwd", "/p", "--json", "hello").stdout) as unknown;
    expect(JSON.stringify(text)).toContain(OK_ID);
    expect(run("find", "--session-dir", dir, "--cwd", "/p", "--json", "from deep").status).toBe(1);
  });
});
