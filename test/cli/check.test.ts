/**
 * The `check` command as a user runs it: the built `bin/pi-session-lsp.js`, real files and folders,
 * its output formats and its exit status.
 */

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-check-"));
  writeFileSync(join(dir, "good.jsonl"), `${header}\n${user("a1", null)}\n`);
  mkdirSync(join(dir, "nested/deeper"), { recursive: true });
  writeFileSync(join(dir, "nested/deeper/bad.jsonl"), `${header}\n${user("a1", null)}\n${user("a2", "zz")}\n`);
  writeFileSync(join(dir, "nested/warn.jsonl"), `${header}\n${user("a1", null)}`);
  writeFileSync(join(dir, "nested/notes.txt"), "not a session, and not a .jsonl file");
});

describe("pi-session-lsp check", () => {
  it("prints only the summary and exits 0 for a valid session", () => {
    const r = run("check", join(dir, "good.jsonl"));
    expect(r.stdout).toBe("No problems in 1 file\n");
    expect(r.status).toBe(0);
  });

  it("prints file:line:col: severity code: message with 1-based positions, and exits 1 on an error", () => {
    const file = join(dir, "nested/deeper/bad.jsonl");
    const r = run("check", file);
    // The dangling parentId value "zz" starts at 0-based column 39 of line 2.
    expect(r.stdout).toBe(
      `${file}:3:40: error dangling-parent: parentId "zz" names no entry. Pi treats this entry as a root: a context built through it stops here and loses everything above.\n1 error in 1 file; 1 fixable with --fix --unsafe-fixes\n`,
    );
    expect(r.status).toBe(1);
  });

  it("exits 0 when the worst finding is a warning", () => {
    const r = run("check", join(dir, "nested/warn.jsonl"));
    expect(r.stdout).toContain("warning no-final-newline");
    expect(r.status).toBe(0);
  });

  it("searches folders recursively for *.jsonl files, in a stable order", () => {
    const r = run("check", "--format", "json", dir);
    const files = r.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { file: string }).file);
    expect(files).toEqual([join(dir, "good.jsonl"), join(dir, "nested/deeper/bad.jsonl"), join(dir, "nested/warn.jsonl")]);
    expect(r.status).toBe(1);
  });

  it("prints one JSON object per file with LSP diagnostics and 0-based ranges", () => {
    const file = join(dir, "nested/deeper/bad.jsonl");
    const r = run("check", "--format=json", file);
    const report = JSON.parse(r.stdout) as { file: string; diagnostics: { range: unknown; severity: number; code: string; source: string }[] };
    expect(report.file).toBe(file);
    expect(report.diagnostics).toHaveLength(1);
    expect(report.diagnostics[0]).toMatchObject({
      range: { start: { line: 2, character: 39 }, end: { line: 2, character: 43 } },
      severity: 1,
      code: "dangling-parent",
      source: "pi-session",
    });
  });

  it("exits 2 for a path that cannot be read, after checking the others", () => {
    const missing = join(dir, "missing.jsonl");
    const r = run("check", missing, join(dir, "nested/deeper/bad.jsonl"));
    expect(r.stderr).toContain(`cannot read ${missing}`);
    expect(r.stdout).toContain("dangling-parent");
    expect(r.status).toBe(2);
  });

  it("exits 2 for an unreadable file", () => {
    if (process.getuid?.() === 0) {
      // Root reads any file; a folder given as a file path is unreadable as a file for everyone.
      const r = run("check", join(dir, "nested"), "/dev/null/x.jsonl");
      expect(r.status).toBe(2);
      return;
    }
    const file = join(dir, "locked.jsonl");
    writeFileSync(file, header);
    chmodSync(file, 0);
    expect(run("check", file).status).toBe(2);
  });

  // With no path, `check` checks the current project's sessions (test/cli/checkProject.test.ts).
  it("exits 2 naming the wrong word for an unknown option or a bad format", () => {
    for (const [args, said] of [
      [["check", "--nope", "x"], 'unknown option "--nope"'],
      [["check", "--format", "xml", "x"], '--format must be text or json, not "xml"'],
      [["check", "--format"], "--format needs a value (text or json)"],
    ] as const) {
      const r = run(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(said);
    }
  });

  it("says the same as the server for the same text (same core)", () => {
    const r = run("check", "--format", "json", "client-samples/sessions/broken.jsonl");
    const diagnostics = (JSON.parse(r.stdout) as { diagnostics: { code: string; relatedInformation?: { location: { uri: string } }[] }[] }).diagnostics;
    expect(diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(["duplicate-id", "malformed-json", "dangling-parent", "parent-cycle", "truncated-line"]),
    );
    // Related locations name the file by an absolute file URI, even for a relative path argument.
    const uris = diagnostics.flatMap((d) => d.relatedInformation ?? []).map((i) => i.location.uri);
    expect(uris.length).toBeGreaterThan(0);
    expect(new Set(uris)).toEqual(new Set([pathToFileURL(join(__dirname, "../../client-samples/sessions/broken.jsonl")).href]));
  });

  it("exits 1 for a v1 file whose assistant message Pi's pipeline throws on after migrating it", () => {
    // Pi migrates the file and loads it, then every prompt throws (`assistantMsg.content.flatMap is
    // not a function`, recorded from Pi 1.6.0 and 0.74.2): an error, on the streamed check too.
    const file = join(dir, "v1-string-content.jsonl");
    const v1Header = '{"type":"session","id":"0197a0b0-0000-7000-8000-000000000002","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
    const assistant =
      '{"type":"message","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":"hello","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1772445602000}}';
    writeFileSync(file, `${v1Header}\n${assistant}\n`);
    const r = run("check", file);
    expect(r.stdout).toContain(`${file}:2:98: error request-throws: Pi 1.x's message pipeline`);
    expect(r.status).toBe(1);
  });
});
