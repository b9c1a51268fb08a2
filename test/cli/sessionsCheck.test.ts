/**
 * `sessions --check` (issue 29): each listed session gets `check`'s verdict, so that a session Pi
 * cannot use does not look ordinary: one whose leaf's walk loops, one whose next provider request
 * fails (a tool result whose call's turn was aborted, from the `orphaned-tool-result` fixture), one
 * with another error, and a clean one. The marks, the `--json` details, and that each verdict says
 * what `check FILE` says of the file. The built command on a folder of those sessions.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type DiagnosticCode, REQUEST_FAILS_CODES } from "../../server/src/core/base/codes";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = (id: string, hour: number, cwd: string) =>
  `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T${hour}:00:00.000Z","cwd":${JSON.stringify(cwd)}}`;
const user = (id: string, parent: string | null, hour: number, text: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T${hour}:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":${Date.UTC(2026, 2, 2, hour, 0, 1)}}}`;

const FINE = "0197a0b1-0000-7000-8000-00000000000a";
const LOOPED = "0197a0b2-0000-7000-8000-00000000000b";
const DANGLING = "0197a0b3-0000-7000-8000-00000000000c";
/** The id in the fixture's header. */
const ORPHAN = "019b0000-0000-7000-8000-0000000000aa";

let project: string;
let folder: string;
const files: Record<string, string> = {};

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: project });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Verdict {
  errors: number;
  warnings: number;
  requestFails?: string;
  refused?: string;
}

function listed(...extra: string[]) {
  return JSON.parse(run("sessions", "--cwd", project, "--session-dir", folder, "--json", ...extra).stdout) as {
    details: { path: string; check?: Verdict; cannotResume?: string }[];
  };
}

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), "pi-sessions-check-"));
  folder = join(project, "sessions");
  mkdirSync(folder);
  const file = (id: string, hour: number) => join(folder, `2026-03-02T${hour}-00-00-000Z_${id}.jsonl`);
  files.fine = file(FINE, 10);
  files.looped = file(LOOPED, 11);
  files.dangling = file(DANGLING, 12);
  files.orphan = file(ORPHAN, 13);
  writeFileSync(files.fine, `${header(FINE, 10, project)}\n${user("a1", null, 10, "fine")}\n`);
  // a1 ← b1 ← b2 ← b3, and b3 is b1's parent: the leaf b3 walks up b3, b2, b1, b3, …
  writeFileSync(
    files.looped,
    `${header(LOOPED, 11, project)}\n${user("c1", null, 11, "root")}\n${user("b1", "b3", 11, "looped")}\n${user("b2", "b1", 11, "again")}\n${user("b3", "b2", 11, "and again")}\n`,
  );
  writeFileSync(files.dangling, `${header(DANGLING, 12, project)}\n${user("d1", null, 12, "first")}\n${user("d2", "zz", 12, "dangling")}\n`);
  // The fixture's session, its annotations left out and its cwd made this project's.
  const fixture = readFileSync(join(__dirname, "../fixtures/diagnostics/orphaned-tool-result.txt"), "utf8");
  const lines = fixture.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  writeFileSync(files.orphan, `${lines.join("\n").replace('"cwd":"/home/dev/p"', `"cwd":${JSON.stringify(project)}`)}\n`);
});

describe("sessions --check", () => {
  it("marks each session with check's verdict, and says what the marks mean", () => {
    const r = run("sessions", "--cwd", project, "--session-dir", folder, "--check");
    expect(r.status, r.stderr).toBe(0);
    const row = (id: string) => r.stdout.split("\n").find((l) => l.startsWith(id.slice(0, 8))) ?? "";
    expect(row(ORPHAN)).toMatch(/ {2}! next request fails: orphaned-tool-result {2}run ls$/);
    expect(row(LOOPED)).toMatch(/ {2}✗ cannot resume {2}root$/);
    expect(row(DANGLING)).toMatch(/ {2}1 error {2}first$/);
    expect(row(FINE)).toMatch(/ \d+ B {2}fine$/);
    expect(r.stdout).toContain(
      "! 1 session Pi resumes, but whose next provider request fails (the provider refuses it, or Pi throws before sending it), so every prompt fails.",
    );
    expect(r.stdout).toContain("1 session with other errors: `pi-session-lsp check ID` lists them.");
    expect(r.stdout).toContain("✗ 1 session Pi cannot resume: the walk up from the leaf runs into a parent cycle");
    expect(r.stdout).not.toContain("`pi-session-lsp sessions --check` checks each session too");
  });

  it("gives each session's check in --json, and only with --check", () => {
    const json = listed("--check");
    const byPath = new Map(json.details.map((d) => [d.path, d] as const));
    expect(byPath.get(files.fine!)?.check).toEqual({ errors: 0, warnings: 0 });
    expect(byPath.get(files.orphan!)?.check).toEqual({ errors: 1, warnings: 0, requestFails: "orphaned-tool-result" });
    expect(byPath.get(files.dangling!)?.check).toEqual({ errors: 1, warnings: 0 });
    expect(byPath.get(files.looped!)?.check?.errors).toBeGreaterThan(0);
    expect(byPath.get(files.looped!)?.cannotResume).toBe("the walk up from the leaf runs into a parent cycle");
    expect(listed().details.every((d) => d.check === undefined)).toBe(true);
  });

  it("agrees with check FILE on every session", () => {
    const json = listed("--check");
    expect(json.details).toHaveLength(4);
    for (const d of json.details) {
      const checked = run("check", "--format", "json", "--session-dir", folder, d.path);
      const diagnostics = (JSON.parse(checked.stdout) as { diagnostics: { severity: number; code: string }[] }).diagnostics;
      const errors = diagnostics.filter((x) => x.severity === 1);
      expect(d.check?.errors, d.path).toBe(errors.length);
      expect(d.check?.warnings, d.path).toBe(diagnostics.filter((x) => x.severity === 2).length);
      expect(d.check?.requestFails, d.path).toBe(errors.find((x) => REQUEST_FAILS_CODES.has(x.code as DiagnosticCode))?.code);
      expect(checked.status, d.path).toBe(errors.length > 0 ? 1 : 0);
    }
  });

  it("checks only the rows the text shows", () => {
    // The newest session (its last message at 12:00) is the only row of --limit 1.
    const r = run("sessions", "--cwd", project, "--session-dir", folder, "--check", "--limit", "1");
    const rows = r.stdout.split("\n").filter((l) => /^0197a0b|^019b0000/.test(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^0197a0b3 .* {2}1 error {2}first$/);
    expect(r.stdout).toContain("1 session with other errors");
    expect(r.stdout).not.toContain("next provider request fails");
  });

  it("without --check, hints that it exists, only when sessions are listed", () => {
    const hint = "`pi-session-lsp sessions --check` checks each session too, and marks those Pi cannot resume or whose next request fails.";
    expect(run("sessions", "--cwd", project, "--session-dir", folder).stdout).toContain(hint);
    const empty = join(project, "empty");
    mkdirSync(empty);
    expect(run("sessions", "--cwd", project, "--session-dir", empty).stdout).not.toContain("--check");
  });

  it("marks a session Pi 1.x refuses to open (a byte order mark) that Pi 0.74 lists", () => {
    const other = join(project, "bom");
    mkdirSync(other);
    const id = "0197a0b4-0000-7000-8000-00000000000d";
    writeFileSync(join(other, `2026-03-02T14-00-00-000Z_${id}.jsonl`), `\uFEFF${header(id, 14, project)}\n${user("e1", null, 14, "hello")}\n`);
    const r = run("sessions", "--cwd", project, "--session-dir", other, "--pi", "0.74", "--check");
    expect(r.stdout).toMatch(/ {2}✗ Pi 1\.x refuses it {2}hello\n/);
    expect(r.stdout).toContain("✗ 1 session Pi 1.x refuses to open (bom). `pi-session-lsp check ID` says why, and whether --fix mends it.");
  });
});
