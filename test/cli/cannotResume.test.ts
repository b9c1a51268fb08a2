/**
 * A session Pi cannot resume (the walk up from its leaf runs into a parent cycle) does not look
 * ordinary: `sessions` marks it and says why and what to do, and `tree` and `info` warn and exit 1,
 * as `check` does with its error. The built command on a folder of two sessions.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = (id: string, hour: number, cwd: string) =>
  `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T${hour}:00:00.000Z","cwd":${JSON.stringify(cwd)}}`;
const user = (id: string, parent: string | null, hour: number, text: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T${hour}:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":${Date.UTC(2026, 2, 2, hour, 0, 1)}}}`;

const FINE = "0197a0b0-0000-7000-8000-00000000000a";
const LOOPED = "0197a0b0-0000-7000-8000-00000000000b";
let project: string;
let folder: string;
let loopedFile: string;
let fineFile: string;

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: project });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), "pi-cannot-resume-"));
  folder = join(project, "sessions");
  mkdirSync(folder);
  fineFile = join(folder, `2026-03-02T10-00-00-000Z_${FINE}.jsonl`);
  loopedFile = join(folder, `2026-03-02T11-00-00-000Z_${LOOPED}.jsonl`);
  writeFileSync(fineFile, `${header(FINE, 10, project)}\n${user("a1", null, 10, "fine")}\n`);
  // a1 ← b1 ← b2 ← b3, and b3 is b1's parent: the leaf b3 walks up b3, b2, b1, b3, …
  writeFileSync(
    loopedFile,
    `${header(LOOPED, 11, project)}\n${user("c1", null, 11, "root")}\n${user("b1", "b3", 11, "looped")}\n${user("b2", "b1", 11, "again")}\n${user("b3", "b2", 11, "and again")}\n`,
  );
});

describe("a session whose leaf's walk loops", () => {
  it("is marked by sessions, with the reason and the next step, and only it", () => {
    const r = run("sessions", "--cwd", project, "--session-dir", folder);
    expect(r.status).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => l.startsWith("0197a0b0"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/ {2}✗ root$/);
    expect(rows[1]).toMatch(/ {2}fine$/);
    expect(r.stdout).toContain(
      '✗ 1 session Pi cannot resume: the walk up from the leaf runs into a parent cycle (Pi 1.x fails with "RangeError: Invalid array length", 0.73/0.74 hangs). `pi-session-lsp check ID` shows the cycle; `pi-session-lsp resume-from ID ENTRY` with an entry above it makes the session resumable again.',
    );
    const json = JSON.parse(run("sessions", "--cwd", project, "--session-dir", folder, "--json").stdout) as {
      details: { path: string; cannotResume?: string }[];
    };
    expect(json.details.map((d) => [d.path, d.cannotResume ?? null])).toEqual([
      [loopedFile, "the walk up from the leaf runs into a parent cycle"],
      [fineFile, null],
    ]);
  });

  it("makes tree and info warn and exit 1, as check exits", () => {
    const warning =
      'warning: the walk up from the leaf runs into a parent cycle, so Pi cannot resume this session (Pi 1.x fails with "RangeError: Invalid array length", 0.73/0.74 hangs)';
    for (const command of ["tree", "info"]) {
      const r = run(command, loopedFile);
      expect(r.status, `${command}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toContain(warning);
      const fine = run(command, fineFile);
      expect(fine.status, `${command} on the fine session`).toBe(0);
      expect(fine.stdout).not.toContain("cannot resume");
    }
    expect(run("check", loopedFile).status).toBe(1);
    const info = JSON.parse(run("info", "--json", loopedFile).stdout) as { cannotResume?: string };
    expect(info.cannotResume).toMatch(/^the walk up from the leaf runs into a parent cycle/);
  });

  it("is no longer marked once resume-from appends a line under an entry above the cycle", () => {
    const other = join(project, "other");
    mkdirSync(other);
    const copy = join(other, `2026-03-02T12-00-00-000Z_${LOOPED.replace("b", "c")}.jsonl`);
    writeFileSync(
      copy,
      `${header(LOOPED.replace("b", "c"), 12, project)}\n${user("c1", null, 12, "root")}\n${user("b1", "b2", 12, "x")}\n${user("b2", "b1", 12, "y")}\n`,
    );
    expect(run("info", copy).status).toBe(1);
    expect(run("resume-from", copy, "c1").status).toBe(0);
    expect(run("info", copy).status).toBe(0);
    expect(run("tree", copy).stdout).not.toContain("cannot resume");
  });
});
