/**
 * `check --fix --unsafe-fixes` and `--dry-run --unsafe-fixes` as a user runs them: the built
 * command on copies of the parity corpus's cut-off and malformed entries.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const FIXTURES = join(__dirname, "../parity/fixtures");

function run(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-unsafe-"));
});

/** A copy of a parity fixture in a folder of its own; returns the folder. */
function copy(...names: string[]): string {
  const folder = mkdtempSync(join(dir, "case-"));
  for (const name of names) copyFileSync(join(FIXTURES, name), join(folder, name));
  return folder;
}

describe("check --unsafe-fixes", () => {
  it("--fix alone leaves the cut-off entry and says the unsafe fixes are there", () => {
    const folder = copy("fault-cut-entry-middle.jsonl");
    const r = run(folder, "check", "--fix", "fault-cut-entry-middle.jsonl");
    expect(readdirSync(folder)).toEqual(["fault-cut-entry-middle.jsonl"]);
    expect(r.stdout).toContain("fault-cut-entry-middle.jsonl:5:1: error malformed-json");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("2 errors in 1 file; 2 fixable with --fix --unsafe-fixes");
    expect(r.status).toBe(1);
  });

  it("--fix --unsafe-fixes recovers the cut entry, keeps every byte of the original in FILE.bak and lists the fix", () => {
    const folder = copy("fault-cut-entry-middle.jsonl");
    const original = readFileSync(join(folder, "fault-cut-entry-middle.jsonl"), "utf8");
    const r = run(folder, "check", "--fix", "--unsafe-fixes", "fault-cut-entry-middle.jsonl");
    expect(readFileSync(join(folder, "fault-cut-entry-middle.jsonl.bak"), "utf8")).toBe(original);
    const fixed = readFileSync(join(folder, "fault-cut-entry-middle.jsonl"), "utf8");
    const [cut, recovered] = [original.split("\n")[4]!, fixed.split("\n")[4]!];
    expect(recovered.startsWith(cut)).toBe(true);
    expect(fixed.replace(recovered, "")).toBe(original.replace(cut, ""));
    expect(r.stdout).toContain(
      'fault-cut-entry-middle.jsonl:5: applied an unsafe fix (malformed-json): recovered the cut-off entry "a0000004" (guessed how it ended)\n',
    );
    expect(r.stdout).not.toContain("error");
    expect(r.status).toBe(0);
  });

  it("deletes what cannot be recovered and re-links its child, each listed, in text and in JSON", () => {
    const folder = copy("fault-malformed-middle.jsonl", "fault-array-line.jsonl");
    const r = run(folder, "check", "--fix", "--unsafe-fixes", "--format", "json", ".");
    const reports = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; fixed: Record<string, number>; unsafeFixes: unknown[] });
    expect(reports.map((x) => [x.file, x.fixed, x.unsafeFixes])).toEqual([
      [
        "fault-array-line.jsonl",
        { "not-an-object": 1 },
        [{ line: 5, code: "not-an-object", summary: 'deleted the line (its text is lost: 20 characters, [{"type":"message"}])' }],
      ],
      [
        "fault-malformed-middle.jsonl",
        { "malformed-json": 1, "dangling-parent": 1 },
        [
          {
            line: 5,
            code: "malformed-json",
            summary: 'deleted the line (its text is lost: 275 characters, {"type":"message","id":"a0000004","parentId":"a0…)',
          },
          { line: 6, code: "dangling-parent", summary: "re-linked parentId a0000004 to a0000003" },
        ],
      ],
    ]);
    expect(readdirSync(folder).sort()).toEqual([
      "fault-array-line.jsonl",
      "fault-array-line.jsonl.bak",
      "fault-malformed-middle.jsonl",
      "fault-malformed-middle.jsonl.bak",
    ]);
    expect(r.status).toBe(0);
  });

  it("--dry-run --unsafe-fixes shows the safe and the unsafe fixes as one diff and lists the unsafe ones, writing nothing", () => {
    const folder = copy("fault-truncated-last-line.jsonl", "fault-cut-entry-middle.jsonl");
    const before = readFileSync(join(folder, "fault-truncated-last-line.jsonl"), "utf8");
    const r = run(folder, "check", "--dry-run", "--unsafe-fixes", ".");
    expect(readdirSync(folder).sort()).toEqual(["fault-cut-entry-middle.jsonl", "fault-truncated-last-line.jsonl"]);
    expect(readFileSync(join(folder, "fault-truncated-last-line.jsonl"), "utf8")).toBe(before);
    expect(r.stdout).toContain("--- a/fault-cut-entry-middle.jsonl\n+++ b/fault-cut-entry-middle.jsonl\n");
    expect(r.stdout).toContain("fault-cut-entry-middle.jsonl:5: would apply an unsafe fix (malformed-json): recovered the cut-off entry");
    // The cut-off last line is a message cut before its message: it cannot be recovered, so it is deleted.
    expect(r.stdout).toContain(`-${before.split("\n")[8]!}\n\\ No newline at end of file\n`);
    expect(r.stdout).toContain(
      'fault-truncated-last-line.jsonl:9: would apply an unsafe fix (malformed-json): deleted the line (its text is lost: 70 characters, {"type":"message","id":"a0000008","parentId":"a0…)',
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(/; --fix would change 2 files$/);
    // Without --unsafe-fixes the dry run shows only the safe fix, the final newline.
    const safe = run(folder, "check", "--dry-run", "fault-truncated-last-line.jsonl");
    expect(safe.stdout).not.toContain("unsafe fix (");
    expect(safe.stdout).toContain(`+${before.split("\n")[8]!}\n`);
  });

  it("goes with --fix or --dry-run only", () => {
    const r = run(dir, "check", "--unsafe-fixes", "x.jsonl");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--unsafe-fixes goes with --fix or --dry-run");
  });
});
