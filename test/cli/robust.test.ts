/**
 * Deeply nested JSON and other values the core may throw on: a failure costs one answer (one
 * file's diagnostics, one fix, one context), never the other files, never with a stack trace, and
 * with the exit status that means it (2 for an internal failure, never 1, which reads "errors").
 *
 * What Pi itself does with odd header versions was observed with Pi 1.6.0 and 0.74.2 (`open` on
 * each file): `[[3]]` and `[{"a":1}]` open without a change to any entry (the first compares as
 * 3, the second as NaN, which is neither current nor below 2 or 3); an array 6,000 deep throws
 * "Maximum call stack size exceeded"; `[2]` migrates as a v2 file.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const headerWith = (version: string) =>
  `{"type":"session","version":${version},"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}`;
const user = (id: string, parent: string | null, content = '"hi"') =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":${content},"timestamp":1772445601000}}`;
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-robust-"));
});

describe("a file the core throws on", () => {
  it("costs that file's answer only: the other files are checked, no stack trace, status 2", () => {
    const deep = file("deep-version.jsonl", `${headerWith(nested(6000))}\n${user("a1", null)}\n`);
    const bad = file("bad.jsonl", `${headerWith("3")}\n${user("a1", "zz")}\n`);
    const r = run("check", deep, bad);
    expect(r.stderr).toContain(`internal error while checking ${deep}: Maximum call stack size exceeded`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toContain(`${bad}:2:40: error dangling-parent`);
    expect(r.status).toBe(2);
    const json = run("check", "--format", "json", deep, bad);
    const reports = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; error?: string; diagnostics: { code: string }[] });
    expect(reports.map((x) => x.file)).toEqual([deep, bad]);
    expect(reports[0]!.error).toContain("Maximum call stack size exceeded");
    expect(reports[1]!.diagnostics.map((d) => d.code)).toEqual(["dangling-parent"]);
  });

  it("--fix on it leaves the file as it is and says why", () => {
    const text = `${headerWith(nested(6000))}\n${user("a1", "a1")}`;
    const deep = file("deep-fix.jsonl", text);
    const r = run("check", "--fix", deep);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot fix ${deep}: internal error while fixing it`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(readFileSync(deep, "utf8")).toBe(text);
  });

  it("context: a context too deep for JSON.stringify is said so, with status 1, not a stack trace", () => {
    const deep = file("deep-content.jsonl", `${headerWith("3")}\n${user("a1", null, nested(100_000))}\n`);
    const r = run("context", deep);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("the context holds a value nested too deep for JSON.stringify");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.status).toBe(1);
    expect(run("context", "--format", "markdown", deep).status).toBe(0);
  });
});

describe("context follows Pi's loose comparison of the header version", () => {
  const plain = () => run("context", file("v3.jsonl", `${headerWith("3")}\n${user("a1", null)}\n`)).stdout;

  it("builds the context where Pi opens the file without changing an entry", () => {
    for (const version of ["[[3]]", '[{"a":1}]', `${nested(2000, "3")}`, '" 3 "']) {
      const r = run("context", file("odd-version.jsonl", `${headerWith(version)}\n${user("a1", null)}\n`));
      expect(r.stderr, version.slice(0, 20)).toBe("");
      expect(r.stdout, version.slice(0, 20)).toBe(plain());
      expect(r.status).toBe(0);
    }
  });

  it("says what Pi throws where its comparison throws, without throwing itself", () => {
    const r = run("context", file("throwing-version.jsonl", `${headerWith(nested(6000))}\n${user("a1", null)}\n`));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Pi compares it with 3 by converting it to a string, which throws a RangeError");
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("still says a file is migrated where Pi migrates it", () => {
    for (const version of ["[2]", "true", "[null]"]) {
      const r = run("context", file("old-version.jsonl", `${headerWith(version)}\n${user("a1", null)}\n`));
      expect(r.status, version).toBe(1);
      expect(r.stderr).toContain("Pi migrates the file to version 3");
    }
  });
});
