/**
 * `check --fix --unsafe-fixes` mending broken lines as a user runs it: the built command on copies
 * of `test/fixtures/mend/` (the real Pi 1.6.0 session `written-16-compaction.jsonl` with one line
 * broken each). Afterwards each file checks clean, and `context` gives what the real Pi 1.6.0
 * built from the unbroken session (its record in `test/parity/expected/`).
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const FIXTURES = join(__dirname, "../fixtures/mend");
const parity = join(__dirname, "../parity");
const ORIGINAL = readFileSync(join(parity, "fixtures/written-16-compaction.jsonl"), "utf8");
const PI_CONTEXT = JSON.parse(readFileSync(join(parity, "expected/written-16-compaction.1.6.0.json"), "utf8")).context as unknown;

function run(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Each mended fixture, the line it breaks, and the ids of the entries on that line. */
const MENDED: [string, number, string[]][] = [
  ["missing-comma", 5, ["27a32afe"]],
  ["missing-quote", 11, ["fba37a0b"]],
  ["missing-bracket", 8, ["0d80b07e"]],
  ["trailing-garbage", 9, ["dac1788a"]],
  ["joined-assistant-compaction", 12, ["0bc69f73", "99725907"]],
  ["joined-assistant-user", 10, ["ca121002", "fba37a0b"]],
];

/** The entry with `id` in the unbroken session. */
function originalEntry(id: string): Record<string, unknown> {
  const line = ORIGINAL.split("\n").find((l) => l.includes(`"id":"${id}"`))!;
  return JSON.parse(line) as Record<string, unknown>;
}

let folder: string;
let fixRun: ReturnType<typeof run>;
beforeAll(async () => {
  await ensureBuilt();
  folder = mkdtempSync(join(tmpdir(), "pi-mend-"));
  for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"))) copyFileSync(join(FIXTURES, name), join(folder, name));
  fixRun = run(folder, "check", "--fix", "--unsafe-fixes", ".");
  // A bound for a stuck build or run, far above what it takes on a machine busy with other work.
}, 300_000);

describe("check --fix --unsafe-fixes on broken lines", () => {
  it("mends each line, says so on the line of the file as read, and deletes only the line it cannot mend", () => {
    expect(fixRun.status).toBe(0);
    const notes = fixRun.stdout.split("\n").filter((l) => l.includes("applied an unsafe fix"));
    expect(notes).toEqual([
      'joined-assistant-compaction.jsonl:12: applied an unsafe fix (malformed-json): split the line into 2 lines (assistant message "0bc69f73", compaction "99725907"), every byte kept',
      'joined-assistant-user.jsonl:10: applied an unsafe fix (malformed-json): split the line into 2 lines (assistant message "ca121002", user message "fba37a0b"), every byte kept',
      'lossy-repair.jsonl:14: applied an unsafe fix (malformed-json): deleted the line (its text is lost: 193 characters, {"type":"message","id":"c4cc12c9","parentId":"99…)',
      "lossy-repair.jsonl:15: applied an unsafe fix (dangling-parent): re-linked parentId c4cc12c9 to 99725907",
      'missing-bracket.jsonl:8: applied an unsafe fix (malformed-json): mended the line into the assistant message "0d80b07e": inserted "}" at column 180',
      'missing-comma.jsonl:5: applied an unsafe fix (malformed-json): mended the line into the user message "27a32afe": inserted "," at column 172',
      'missing-quote.jsonl:11: applied an unsafe fix (malformed-json): mended the line into the user message "fba37a0b": inserted "\\"" at column 119',
      'trailing-garbage.jsonl:9: applied an unsafe fix (malformed-json): mended the line into the user message "dac1788a": dropped the 4 characters after the entry ("\\u0000\\u0000\\u0000\\u0000")',
    ]);
  });

  it.each(MENDED)("%s: the file is Pi's session again, checks clean, and its context is what Pi 1.6.0 built", (name, _line, ids) => {
    const file = `${name}.jsonl`;
    expect(readFileSync(join(folder, file), "utf8")).toBe(ORIGINAL);
    expect(readFileSync(join(folder, `${file}.bak`), "utf8")).toBe(readFileSync(join(FIXTURES, file), "utf8"));
    const check = run(folder, "check", file);
    expect(check.stdout).toBe("No problems in 1 file\n");
    expect(check.status).toBe(0);
    const context = run(folder, "context", file);
    expect(context.status).toBe(0);
    expect(context.stdout).toBe(`${JSON.stringify(PI_CONTEXT)}\n`);
    // Resumed from the mended entry, the context ends with its message; a compaction's summary opens it.
    for (const id of ids) {
      const at = run(folder, "context", "--leaf", id, file);
      expect(at.status).toBe(0);
      const messages = (JSON.parse(at.stdout) as { messages: Record<string, unknown>[] }).messages;
      const entry = originalEntry(id);
      const last = messages.at(-1)!;
      if (entry.type === "compaction") expect(messages.find((m) => m.role === "compactionSummary")).toMatchObject({ summary: entry.summary });
      else expect(last).toEqual(entry.message);
    }
  });

  it("the line it could not mend is gone, and the file checks clean", () => {
    const check = run(folder, "check", "lossy-repair.jsonl");
    expect(check.status).toBe(0);
    expect(readFileSync(join(folder, "lossy-repair.jsonl"), "utf8")).not.toContain("c4cc12c9");
  });

  it("--format json lists the same notes, with the lines of the file as read", () => {
    const copy = mkdtempSync(join(tmpdir(), "pi-mend-json-"));
    copyFileSync(join(FIXTURES, "joined-assistant-user.jsonl"), join(copy, "s.jsonl"));
    const r = run(copy, "check", "--dry-run", "--unsafe-fixes", "--format", "json", "s.jsonl");
    const report = JSON.parse(r.stdout.split("\n")[0]!) as { unsafeFixes: unknown[] };
    expect(report.unsafeFixes).toEqual([
      {
        line: 10,
        code: "malformed-json",
        summary: 'split the line into 2 lines (assistant message "ca121002", user message "fba37a0b"), every byte kept',
      },
    ]);
    expect(readdirSync(copy)).toEqual(["s.jsonl"]);
  });
});
