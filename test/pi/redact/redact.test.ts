/**
 * The real Pi 1.6 opens `redact`'s copy as the same session: the sessions Pi itself wrote (the
 * parity fixtures `written-16-*`), with credentials planted in a user message and a tool result,
 * redacted, then opened by Pi's own SessionManager: the same entries, ids and parents, the same
 * leaf, and the same context once each secret is replaced by its placeholder, with no secret left.
 */

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactFile } from "../../../server/src/cli/redact";
import { pi16 } from "../pi16";

const FIXTURES = join(__dirname, "../../parity/fixtures");
const KEY = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const PASSWORD = "S3cr3tPa55";
const GITHUB = "ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123";

/** The fixture's text with credentials added to its message texts (every user text, every tool result text). */
function planted(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      const entry = JSON.parse(line);
      const m = entry.message;
      if (entry.type !== "message" || !m) return line;
      if (m.role === "user" && typeof m.content === "string") m.content += ` (export ANTHROPIC_API_KEY=${KEY})`;
      else if (m.role === "user" && Array.isArray(m.content)) m.content.push({ type: "text", text: `my key: ${KEY}` });
      else if (m.role === "toolResult" && Array.isArray(m.content))
        m.content.push({ type: "text", text: `GITHUB_TOKEN=${GITHUB}\npostgres://admin:${PASSWORD}@db/app` });
      else return line;
      return JSON.stringify(entry);
    })
    .join("\n");
}

function openWithPi(file: string, home: string): { entryCount: number; ids: unknown[]; leafId: string | null; context: unknown } {
  const pi = pi16();
  const out = execFileSync(pi.node, [join(__dirname, "open.mjs"), pi.packageDir, file], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") },
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out);
}

const quiet = { out: () => {}, err: () => {}, isTTY: false, errIsTTY: false, env: {}, cwd: "/" };

describe("Pi 1.6 opens redact's copy as the same session", () => {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.startsWith("written-16-"));

  it("has Pi-written sessions to redact", () => {
    expect(fixtures.length).toBeGreaterThan(5);
  });

  it.each(fixtures)("%s", (name) => {
    const dir = mkdtempSync(join(tmpdir(), "pi-redact-pi-"));
    const original = join(dir, "original.jsonl");
    writeFileSync(original, planted(readFileSync(join(FIXTURES, name), "utf8")));
    const copy = join(dir, "copy.jsonl");
    expect(redactFile(original, { out: copy, dryRun: false }, quiet)).toBe(0);
    const copyText = readFileSync(copy, "utf8");
    for (const secret of [KEY, PASSWORD, GITHUB]) expect(copyText).not.toContain(secret);
    // Pi may write to a file it opens (a newline, a migration): each opens a copy of its own.
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    copyFileSync(original, a);
    copyFileSync(copy, b);
    const before = openWithPi(a, dir);
    const after = openWithPi(b, dir);
    expect(after.entryCount).toBe(before.entryCount);
    expect(after.ids).toEqual(before.ids);
    expect(after.leafId).toBe(before.leafId);
    // The placeholders, one per secret, are the only difference in the context Pi resumes with.
    const placeholders = [...new Set(copyText.match(/\[REDACTED:[a-z-]+:[0-9a-f]{8}\]/g) ?? [])];
    const secretOf = (p: string) => (p.includes("anthropic") ? KEY : p.includes("github") ? GITHUB : PASSWORD);
    let expected = JSON.stringify(before.context);
    for (const p of placeholders) expected = expected.split(secretOf(p)).join(p);
    expect(JSON.stringify(after.context)).toBe(expected);
  });
});
