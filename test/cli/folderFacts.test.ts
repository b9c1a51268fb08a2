/**
 * `check` gathers the folder facts as the editor does: a session in Pi's folders (`--session-dir`,
 * the environment or the settings, as Pi finds them) whose project folder is gone gets
 * `cwd-missing`; the same file elsewhere gets nothing about its folder.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCheck } from "../../server/src/cli/check";

const work = mkdtempSync(join(tmpdir(), "pi-check-folders-"));
const gone = join(work, "gone", "project");
const text = `{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":${JSON.stringify(gone)}}\n`;

function codesOf(args: string[]): { codes: string[]; messages: string[] } {
  let out = "";
  runCheck(["--format", "json", "--threads", "1", ...args], { out: (t) => (out += t), err: () => undefined });
  const diagnostics = (JSON.parse(out) as { diagnostics: { code: string; message: string }[] }).diagnostics;
  return { codes: diagnostics.map((d) => d.code), messages: diagnostics.map((d) => d.message) };
}

describe("check's folder facts", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("reports cwd-missing for a session in the folder --session-dir names", () => {
    const sessions = join(work, "sessions");
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, "s.jsonl");
    writeFileSync(file, text);
    const found = codesOf(["--session-dir", sessions, file]);
    expect(found.codes).toEqual(["cwd-missing"]);
    expect(found.messages[0]).toBe(
      `The project folder ${gone} no longer exists (moved or deleted?). Pi stops with "Stored session working directory does not exist" in print and RPC mode; interactive Pi asks whether to continue in the current folder (1.x: or to fork the session there).`,
    );
  });

  it("reports nothing about the folder of a session outside Pi's folders", () => {
    const elsewhere = join(work, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const file = join(elsewhere, "s.jsonl");
    writeFileSync(file, text);
    expect(codesOf(["--session-dir", join(work, "sessions"), file]).codes).toEqual([]);
  });
});
