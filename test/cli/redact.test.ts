/**
 * `redact` on real files: each planted secret replaced everywhere it occurs by one placeholder,
 * every line still JSON, ids and tool call pairs untouched, the proof said and held, `--dry-run`
 * writing nothing, an existing output never overwritten, and `--out FILE` keeping FILE.bak.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactFile } from "../../server/src/cli/redact";
import { proveRedaction } from "../../server/src/cli/redactProof";
import { redactText } from "../../server/src/core/edits/redact";
import { collectDiagnostics } from "../../server/src/features/api/diagnostics";
import { SessionDocument } from "../../server/src/core/session/document";

const KEY = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const PASSWORD = "S3cr3tPa55";
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const entry = (id: string, parentId: string | null, message: object) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-03-02T10:00:01.000Z", message: { timestamp: 1772445601000, ...message } });
const SESSION = `${[
  '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-0000000000aa","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}',
  entry("u1", null, { role: "user", content: `export ANTHROPIC_API_KEY=${KEY}` }),
  entry("a1", "u1", {
    role: "assistant",
    content: [
      {
        type: "toolCall",
        id: "toolu_01",
        name: "bash",
        arguments: { command: `curl -H "x-api-key: ${KEY}" && psql postgres://admin:${PASSWORD}@db:5432/app` },
      },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage,
    stopReason: "toolUse",
  }),
  entry("r1", "a1", { role: "toolResult", toolCallId: "toolu_01", toolName: "bash", content: [{ type: "text", text: `ok ${KEY}` }], isError: false }),
].join("\n")}\n`;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), isTTY: false, errIsTTY: false, env: {}, cwd: "/" }, out, err };
}

function setUp(text = SESSION) {
  const dir = mkdtempSync(join(tmpdir(), "pi-redact-"));
  const file = join(dir, "s.jsonl");
  writeFileSync(file, text);
  return { dir, file };
}

/** A session in Pi's sessions folder under a private HOME, and the environment that makes it Pi's. */
function inPiFolder() {
  const root = mkdtempSync(join(tmpdir(), "pi-redact-home-"));
  const folder = join(root, "agent", "sessions", "--home-dev-p--");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "s.jsonl");
  writeFileSync(file, SESSION);
  return { root, folder, file, env: { HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") } };
}

describe("redact", () => {
  it("replaces each secret everywhere with one placeholder, keeps every line JSON and every id, and says the proof held", () => {
    const { dir, file } = setUp();
    const { io, out, err } = capture();
    expect(redactFile(file, { out: undefined, dryRun: false }, io)).toBe(0);
    expect(err.join("")).toBe("");
    const copy = readFileSync(join(dir, "s.redacted.jsonl"), "utf8");
    expect(copy).not.toContain(KEY);
    expect(copy).not.toContain(PASSWORD);
    const placeholders = copy.match(/\[REDACTED:anthropic-api-key:[0-9a-f]{8}\]/g) ?? [];
    expect(placeholders).toHaveLength(3);
    expect(new Set(placeholders).size).toBe(1);
    expect(copy).toMatch(/postgres:\/\/admin:\[REDACTED:url-password:[0-9a-f]{8}\]@db/);
    const before = SESSION.trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const after = copy
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(after.map((e) => [e.id, e.parentId, e.message?.toolCallId])).toEqual(before.map((e) => [e.id, e.parentId, e.message?.toolCallId]));
    expect(after[2].message.content[0].id).toBe("toolu_01");
    expect(out.join("")).toMatch(
      /4 replacements of 2 secrets written to .*s\.redacted\.jsonl; proved: .*the same context \(3 messages\) and provider request \(3 messages\)/,
    );
    // The copy checks clean of secrets, and otherwise as the original.
    const diagnostics = collectDiagnostics(new SessionDocument("file:///c.jsonl", "jsonl", 0, copy)).diagnostics;
    expect(diagnostics.filter((d) => d.code === "secret")).toEqual([]);
  });

  it("lists what would change with --dry-run and writes nothing", () => {
    const { dir, file } = setUp();
    const { io, out } = capture();
    expect(redactFile(file, { out: undefined, dryRun: true }, io)).toBe(0);
    expect(existsSync(join(dir, "s.redacted.jsonl"))).toBe(false);
    const text = out.join("");
    expect(text).toContain("line 2: an Anthropic API key sk-ant-…");
    expect(text).toContain("line 3: a password in a URL …");
    expect(text).not.toContain(KEY);
    expect(text).toContain("Nothing written (--dry-run)");
  });

  it("never overwrites an existing output, and --out FILE replaces the session keeping FILE.bak", () => {
    const { dir, file } = setUp();
    writeFileSync(join(dir, "s.redacted.jsonl"), "mine");
    const first = capture();
    expect(redactFile(file, { out: undefined, dryRun: false }, first.io)).toBe(2);
    expect(first.err.join("")).toContain("exists");
    expect(readFileSync(join(dir, "s.redacted.jsonl"), "utf8")).toBe("mine");
    const second = capture();
    expect(redactFile(file, { out: file, dryRun: false }, second.io)).toBe(0);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(SESSION);
    expect(readFileSync(file, "utf8")).not.toContain(KEY);
  });

  it("writes nothing into Pi's sessions folder: a session there is copied to the current folder", () => {
    const { root, folder, file, env } = inPiFolder();
    const here = join(root, "here");
    mkdirSync(here);
    const { io, err } = capture();
    const status = redactFile(file, { out: undefined, dryRun: false }, { ...io, cwd: here, env });
    expect(status).toBe(0);
    expect(err.join("")).toContain("is in Pi's sessions folder, which is left alone");
    expect(existsSync(join(folder, "s.redacted.jsonl"))).toBe(false);
    expect(readFileSync(join(here, "s.redacted.jsonl"), "utf8")).not.toContain(KEY);
  });

  it("writes nothing into Pi's sessions folder when the current folder is in it too: it asks for --out", () => {
    const { folder, file, env } = inPiFolder();
    const { io, err } = capture();
    const status = redactFile(file, { out: undefined, dryRun: false }, { ...io, cwd: folder, env });
    expect(status).toBe(2);
    expect(err.join("")).toContain("and the current folder are in Pi's sessions folder, which is left alone: give --out");
    expect(readdirSync(folder)).toEqual(["s.jsonl"]);
  });

  it("says so and writes nothing when there is nothing to redact", () => {
    const { dir, file } = setUp(`${SESSION.split("\n")[0]}\n`);
    const { io, out } = capture();
    expect(redactFile(file, { out: undefined, dryRun: false }, io)).toBe(0);
    expect(out.join("")).toContain("no credentials found; nothing written");
    expect(existsSync(join(dir, "s.redacted.jsonl"))).toBe(false);
  });

  it("leaves a secret that is part of an id where it is, so the tree stays as it was", () => {
    const token = "ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123";
    const text = `${SESSION.split("\n")[0]}\n${entry(token, null, { role: "user", content: `token ${token}` })}\n`;
    const r = redactText(text, () => "[REDACTED:github-token:00000000]");
    expect(r.kept).toHaveLength(1);
    expect(r.text).toBe(text);
  });

  it("does not say no credentials were found when each one it found is part of an id and left in place", () => {
    const token = "ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123";
    const { dir, file } = setUp(`${SESSION.split("\n")[0]}\n${entry(token, null, { role: "user", content: `token ${token}` })}\n`);
    const { io, out } = capture();
    expect(redactFile(file, { out: undefined, dryRun: false }, io)).toBe(0);
    const said = out.join("");
    expect(said).toContain("left in place: it is part of an id or a link");
    expect(said).not.toContain("no credentials found");
    expect(said).toContain("1 credential found, each left in place; nothing written.");
    expect(existsSync(join(dir, "s.redacted.jsonl"))).toBe(false);
  });

  it("the proof finds a copy that is not the same session", () => {
    const r = redactText(SESSION, (kind) => `[REDACTED:${kind}:00000000]`);
    expect(proveRedaction(SESSION, r.text, r.secrets).differences).toEqual([]);
    const broken = r.text.replace('"parentId":"a1"', '"parentId":"u1"');
    expect(proveRedaction(SESSION, broken, r.secrets).differences.join("\n")).toMatch(/line 4's id, parent/);
    const changed = r.text.replace("psql", "pgcli");
    expect(proveRedaction(SESSION, changed, r.secrets).differences.join("\n")).toMatch(/the context differs at/);
  });
});
