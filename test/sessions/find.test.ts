/**
 * `pi-session-lsp find` against the real `pi --session ARG`: for each case of oracle.mjs's
 * findCases (an exact id, ambiguous prefixes here and across projects, another project's id, a
 * path, an unknown id, a shared folder), the file our command says Pi opens is the file the real
 * Pi 1.6.0 / 0.74.2 opened (or forked, for another project's session) on the same fake home
 * (expected/find.*.json). Plus the other candidates and the text search.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import type { FakeHome } from "./fakeHome.mjs" with { "resolution-mode": "import" };

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: FakeHome;
let cases: { name: string; cwd: string; arg: string; sessionDir?: string }[];

interface Recorded {
  name: string;
  opens?: string;
  of?: string | null;
  exit?: number;
  stderr?: string;
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-test-")));
  const { buildFakeHome } = await import("./fakeHome.mjs");
  home = buildFakeHome(root);
  // The cases themselves come from the oracle script, so both sides ask the same questions.
  const { findCases } = await import("./oracle.mjs");
  cases = findCases(home);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function find(args: string[], cwd = home.projects.alpha) {
  const r = spawnSync(process.execPath, [BIN, "find", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: home.home, TZ: "UTC" }, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const placeholder = (path: string | undefined) => {
  const enc = root.replace(/^\//, "").replace(/[/\\:]/g, "-");
  return path?.split(root).join("<ROOT>").split(enc).join("<ENC>");
};

for (const [pi, short] of [
  ["1.x", "16"],
  ["0.74", "074"],
] as const) {
  describe(`find --pi ${pi} opens what the real pi --session opens`, () => {
    const recorded: Recorded[] = JSON.parse(readFileSync(join(__dirname, "expected", `find.${short}.json`), "utf8"));
    for (const want of recorded) {
      it(want.name, () => {
        const c = cases.find((x) => x.name === want.name)!;
        const r = find(["--pi", pi, "--ids", "--json", ...(c.sessionDir ? ["--session-dir", c.sessionDir] : []), c.arg], c.cwd);
        expect(r.stderr).toBe("");
        const doc = JSON.parse(r.stdout);
        if (want.opens === "fork") {
          expect(doc.opens.kind).toBe("global");
          expect(placeholder(doc.opens.path)).toBe(want.of);
        } else if (want.opens) {
          expect(["local", "path"]).toContain(doc.opens.kind);
          expect(placeholder(doc.opens.path)).toBe(want.opens);
        } else {
          expect(want.stderr).toContain("No session found matching");
          expect(doc.opens.kind).toBe("not-found");
          expect(r.status).toBe(1);
        }
      });
    }
  });
}

describe("find, for people", () => {
  it("names every session an ambiguous prefix matches and which one Pi takes", () => {
    const r = find(["019d1a00"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`opens ${home.written.a2.path.replace(home.home, "~")}`);
    expect(r.stdout).toContain("because it is the newest of 2 sessions of this project whose id starts with 019d1a00");
    expect(r.stdout).toMatch(/019d1a00-0000-7000-8000-00000000a001 .*\(this project, #\d+ newest\)/);
    expect(r.stdout).toMatch(/019d1a00-0000-7000-8000-00000000b001 .*\(another project; Pi looks there only when this project has no match\)/);
  });

  it("says that a session of another project is offered as a fork", () => {
    const r = find(["019d2b"], home.projects.beta);
    expect(r.stdout).toContain('Pi asks "Fork this session into current directory?" and opens a fork of it');
  });

  it("searches names and messages for text, best match first, as /resume ranks them", () => {
    const doc = JSON.parse(find(["--json", "cookie"]).stdout);
    expect(doc.opens.kind).toBe("not-found");
    // "cookie" is in A1's and A2's messages only (not in a name).
    expect(doc.text.map((s: { id: string }) => s.id.slice(-4)).sort()).toEqual(["a001", "a002"]);
    expect(doc.text[0].match.fields).toEqual(["messages"]);
    const named = JSON.parse(find(["--json", "--text", "beta"]).stdout);
    // A name match ranks before a cwd match.
    expect(named.text[0].id).toBe(home.written.b1.id);
    expect(named.text[0].match.tier).toBe("name");
  });

  it("reads only headers and the possible matches for an id", () => {
    const doc = JSON.parse(find(["--json", "019d3c"]).stdout);
    expect(doc.read.full).toBe(1);
    expect(doc.read.files).toBeGreaterThan(9);
  });
});

describe("find --text ranks as Pi 1.6's /resume search does", () => {
  const recorded: { query: string; paths: string[] }[] = JSON.parse(readFileSync(join(__dirname, "expected", "lists.16.json"), "utf8")).search;
  for (const { query, paths } of recorded) {
    it(query, () => {
      const doc = JSON.parse(find(["--json", "--text", query]).stdout);
      expect((doc.text ?? []).map((s: { path: string }) => placeholder(s.path))).toEqual(paths);
    });
  }
});
