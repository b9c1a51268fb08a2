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
import { beforeAll, describe, expect, it, vi } from "vitest";
import { runCheck } from "../../server/src/cli/check";
import { ensureBuilt } from "../helpers/lspClient";
import { WAIT_MS } from "../helpers/limits";

// In this process, checking a file named boom.jsonl throws as a stack overflow in the core would.
// Fixing a file named boom-fix.jsonl throws the same way.
vi.mock("../../server/src/features/fixes/fixAll", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../server/src/features/fixes/fixAll")>();
  return {
    ...original,
    applyFixes: (doc: { uri: string }, options?: Parameters<typeof original.applyFixes>[1]) => {
      if (doc.uri.endsWith("/boom-fix.jsonl")) throw new RangeError("Maximum call stack size exceeded");
      return original.applyFixes(doc as Parameters<typeof original.applyFixes>[0], options);
    },
  };
});
vi.mock("../../server/src/features/diagnostics", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../server/src/features/diagnostics")>();
  return {
    ...original,
    collectDiagnostics: (doc: { uri: string }, limit?: number) => {
      if (doc.uri.endsWith("/boom.jsonl")) throw new RangeError("Maximum call stack size exceeded");
      return original.collectDiagnostics(doc as Parameters<typeof original.collectDiagnostics>[0], limit);
    },
  };
});

function runInProcess(args: string[]) {
  let stdout = "";
  let stderr = "";
  const status = runCheck(args, { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const headerWith = (version: string) =>
  `{"type":"session","version":${version},"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}`;
const user = (id: string, parent: string | null, content = '"hi"') =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":${content},"timestamp":1772445601000}}`;
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: WAIT_MS });
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
    // The core no longer throws on any input known; a check that throws is made here.
    const boom = file("boom.jsonl", `${headerWith("3")}\n${user("a1", null)}\n`);
    const bad = file("bad.jsonl", `${headerWith("3")}\n${user("a1", "zz")}\n`);
    const text = runInProcess([boom, bad]);
    expect(text.stderr).toContain(`internal error while checking ${boom}: Maximum call stack size exceeded`);
    expect(text.stderr).not.toMatch(/^\s+at /m);
    expect(text.stdout).toContain(`${bad}:2:40: error dangling-parent`);
    expect(text.stdout.trimEnd().split("\n").at(-1), text.stderr).toBe(
      "1 error in 1 file; 1 fixable with --fix --unsafe-fixes; 1 path could not be read, checked or fixed (see above)",
    );
    expect(text.status).toBe(2);
    const json = runInProcess(["--format", "json", boom, bad]);
    const reports = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; error?: string; diagnostics: { code: string }[] });
    expect(reports.map((x) => x.file)).toEqual([boom, bad]);
    expect(reports[0]!.error).toBe("internal error: Maximum call stack size exceeded");
    expect(reports[1]!.diagnostics.map((d) => d.code)).toEqual(["dangling-parent"]);
  });

  it("--fix where the fixes throw leaves the file and says why", () => {
    const text = `${headerWith("3")}\n{"type":"message","id":"a1",\n"parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n`;
    const deep = file("boom-fix.jsonl", text);
    const r = runInProcess(["--fix", deep]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot fix ${deep}: internal error while fixing it: Maximum call stack size exceeded; the file is unchanged`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(readFileSync(deep, "utf8")).toBe(text);
    // The file's diagnostics are still all reported.
    expect(r.stdout).toContain(`${deep}:2:1: error malformed-json`);
    expect(r.stdout).toContain(`${deep}:3:1: error malformed-json`);
  });

  it("--fix joins a pretty-printed entry holding a 100,000-deep array, keeping its bytes (it once threw in JSON.stringify)", () => {
    const value = `"parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","x":${nested(100_000)},"message":{"role":"user","content":"hi","timestamp":1}}`;
    const deep = file("deep-fix.jsonl", `${headerWith("3")}\n{"type":"message","id":"a1",\n${value}\n`);
    const r = run("check", "--fix", deep);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(readFileSync(deep, "utf8")).toBe(`${headerWith("3")}\n{"type":"message","id":"a1",${value}\n`);
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

  it("still says a file is migrated where Pi migrates it, and builds from the migrated entries", () => {
    for (const version of ["[2]", "true", "[null]"]) {
      const r = run("context", file("old-version.jsonl", `${headerWith(version)}\n${user("a1", null)}\n`));
      expect(r.status, version).toBe(0);
      expect(r.stderr).toContain("Pi migrates it to version 3 when it opens it and rewrites the file");
      expect((JSON.parse(r.stdout) as { messages: unknown[] }).messages, version).toHaveLength(1);
    }
  });
});
