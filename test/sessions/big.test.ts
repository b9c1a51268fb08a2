/**
 * A 1 GiB session, made by the test: more than Node can hold in one string, and more than a
 * checker should hold in memory. `sessions`, `tree`, `info`, `usage`, `find`, `diff` and `redact` read it streaming, with a
 * bounded peak memory (measured in the command's own process, worker threads included), and say
 * what Pi 0.74 does with a file that size (it cannot read it into one string).
 */

import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
const GIB = 1024 * 1024 * 1024;
let root: string;
let dir: string;
let file: string;
let entries: number;

/** Runs the command and reports its peak resident memory (the process and its worker threads). */
function run(...args: string[]) {
  const script = `process.on("exit", () => require("fs").writeSync(2, "\\nmaxRSS=" + process.resourceUsage().maxRSS + "\\n")); require(${JSON.stringify(BIN)});`;
  const r = spawnSync(process.execPath, ["-e", script, "pi-session-lsp", ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: root, TZ: "UTC" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const match = /maxRSS=(\d+)/.exec(r.stderr);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.replace(/\nmaxRSS=\d+\n/, ""), rssMiB: match ? Number(match[1]) / 1024 : Number.NaN };
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-big-test-")));
  dir = join(root, "sessions");
  mkdirSync(dir);
  file = join(dir, "2026-03-02T10-00-00-000Z_019e0000-0000-7000-8000-00000000e001.jsonl");
  const { writeLargeSession } = await import("./fakeHome.mjs");
  entries = writeLargeSession(file, GIB, { cwd: join(root, "big") }).entries;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a 1 GiB session", () => {
  it("is bigger than a V8 string", () => {
    expect(statSync(file).size).toBeGreaterThan(GIB);
  });

  it("is listed with Pi 1.x's count of its messages, in bounded memory", () => {
    const r = run("sessions", "--json", "--all", "--session-dir", dir);
    expect(r.stderr).toBe("");
    const doc = JSON.parse(r.stdout);
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0].messageCount).toBe(entries);
    expect(doc.sessions[0].firstMessage).toBe("Run the next batch.");
    expect(doc.details[0].size).toBe(statSync(file).size);
    expect(r.rssMiB).toBeLessThan(400);
  });

  it("is left out by Pi 0.74, which reads a session into one string", () => {
    const r = run("sessions", "--pi", "0.74", "--json", "--all", "--session-dir", dir);
    const doc = JSON.parse(r.stdout);
    // 0.74's listAll ignores the folder flag and looks under the agent folder; list() reads this one.
    const here = run("sessions", "--pi", "0.74", "--json", "--session-dir", dir);
    expect(doc.sessions).toHaveLength(0);
    expect(JSON.parse(here.stdout).omitted[0].reason).toMatch(/^Pi 0\.74 reads the whole file into one string, and at \d+ bytes it is longer than V8 allows/);
  });

  it("has a tree whose output stays a screenful", () => {
    const r = run("tree", file);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThan(40);
    expect(lines[0]).toBe(
      `Session 019e0000-0000-7000-8000-00000000e001: ${entries} entries, leaf e${String(entries - 1).padStart(7, "0")}; /tree filter default, ${(entries / 24) * 12 + 1} rows`,
    );
    expect(r.stdout).toMatch(/⋮ \d+ more/);
    expect(lines[lines.length - 1]).toMatch(/^ {2}\(\d+\/\d+\) {2}\(Pi's status: › is row \d+ of the \d+ rows filter default shows, of \d+ entries\)$/);
    expect(r.rssMiB).toBeLessThan(400);
  });

  it("is summarised with Pi's totals", () => {
    const r = run("info", "--json", file);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    // Each block of 24: a user turn, 12 assistant turns that call bash, 11 results.
    const blocks = entries / 24;
    const assistants = blocks * 12;
    expect(doc.piStats).toMatchObject({
      totalMessages: entries,
      userMessages: blocks,
      assistantMessages: assistants,
      toolCalls: assistants,
      toolResults: blocks * 11,
    });
    expect(doc.piStats.tokens.input).toBe(assistants * 1000);
    expect(doc.tree).toMatchObject({ leaves: 1, branchPoints: 0, activePath: entries });
    expect(r.rssMiB).toBeLessThan(400);
  });

  it("has its usage summed in bounded memory, equal to info's Pi totals", () => {
    const info = JSON.parse(run("info", "--json", file).stdout);
    const r = run("usage", "--json", file);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    const t = info.piStats.tokens;
    expect(doc.total).toEqual({
      input: t.input,
      output: t.output,
      cacheRead: t.cacheRead,
      cacheWrite: t.cacheWrite,
      totalTokens: t.total,
      cost: info.piStats.cost,
    });
    expect(doc.total.input).toBe((entries / 24) * 12 * 1000);
    expect(r.rssMiB).toBeLessThan(400);
  });

  it("has a branch compared with the whole chain in bounded memory", () => {
    const early = 100;
    const id = (n: number) => `e${String(n).padStart(7, "0")}`;
    const r = run("diff", "--json", file, id(early));
    expect(r.status, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    // One chain: the early entry is on the last entry's path, so the paths part after it, and the
    // context Pi resumes holds every entry's message (no compaction).
    expect(d.ancestor).toEqual({ id: id(early), line: early + 1, type: "message" });
    expect(d.a.leaf).toEqual({ id: id(early), line: early + 1 });
    expect(d.b.leaf).toEqual({ id: id(entries - 1), line: entries });
    expect(d.shared).toBe(early + 1);
    expect(d.a).toMatchObject({ contextMessages: early + 1, onlyCount: 0, branchEntries: 0, assistantMessages: 0, cost: 0 });
    // Each block of 24 entries holds 12 assistant turns (the odd places) that call bash once.
    let assistants = 0;
    for (let n = early + 1; n < entries; n++) if ((n % 24) % 2 === 1) assistants++;
    expect(d.b).toMatchObject({ contextMessages: entries, onlyCount: entries - early - 1, branchEntries: entries - early - 1, assistantMessages: assistants });
    expect(d.b.only).toHaveLength(200);
    expect(d.b.only[0]).toMatchObject({ line: early + 2, id: id(early + 1), role: "assistant" });
    expect(d.b.cost).toBeCloseTo(assistants * 0.001, 6);
    expect(d.b.tools).toEqual([{ name: "bash", calls: assistants }]);
    expect(r.rssMiB).toBeLessThan(400);
  });

  it("is found by its id without reading it when the prefix rules it out", () => {
    const r = run("find", "--json", "--session-dir", dir, "019e");
    const doc = JSON.parse(r.stdout);
    // The folder is shared (given with --session-dir) and the header's cwd is not this folder:
    // Pi 1.x finds it only in the list of every session, as another project's.
    expect(doc.opens.kind).toBe("global");
    expect(doc.opens.path).toBe(file);
    expect(doc.read.full).toBe(1);
    const none = JSON.parse(run("find", "--json", "--ids", "--session-dir", dir, "019f").stdout);
    expect(none.read.full).toBe(0);
  });

  it("has its credentials redacted in bounded memory, the copy proved before it is named", async () => {
    // A second session that size, with a key in every block's user turn, then a compaction and a last turn with more.
    const key = `sk-ant-api03-${"q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
    const secretFile = join(root, "secrets.jsonl");
    const { writeLargeSession } = await import("./fakeHome.mjs");
    const written = writeLargeSession(secretFile, GIB, { cwd: join(root, "big"), firstMessage: `Run the next batch with ANTHROPIC_API_KEY=${key}` });
    const last = `e${String(written.entries - 1).padStart(7, "0")}`;
    const tail = [
      {
        type: "compaction",
        id: "c0000001",
        parentId: last,
        timestamp: "2026-03-02T11:00:00.000Z",
        summary: `Ran with ${key}`,
        firstKeptEntryId: last,
        tokensBefore: 50000,
      },
      {
        type: "message",
        id: "u0000001",
        parentId: "c0000001",
        timestamp: "2026-03-02T11:00:01.000Z",
        message: { role: "user", content: `Now psql postgres://admin:S3cr3tPa55@db:5432/app with ${key}`, timestamp: 1772449201000 },
      },
    ];
    appendFileSync(secretFile, `${tail.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const out = join(root, "secrets.redacted.jsonl");
    try {
      const r = run("redact", "--out", out, secretFile);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const blocks = written.entries / 24;
      expect(r.stdout).toMatch(
        new RegExp(
          `^${(blocks + 3).toLocaleString("en-US")} replacements of 2 secrets written to .*secrets\\.redacted\\.jsonl; proved: .*the same context \\(3 messages\\)`,
          "m",
        ),
      );
      expect(r.stdout).toContain(`… and ${(blocks + 3 - 200).toLocaleString("en-US")} more`);
      // The key, in every block, the summary and the last turn, and the password once: the copy is shorter by what their placeholders save, and holds no key.
      const placeholder = /\[REDACTED:anthropic-api-key:[0-9a-f]{8}\]/.exec(r.stdout)![0];
      // The password is on the last line, past the 200 listed: its placeholder is as long as any of its kind.
      const passwordPlaceholder = "[REDACTED:url-password:12345678]";
      const saved = (blocks + 2) * (key.length - placeholder.length) + ("S3cr3tPa55".length - passwordPlaceholder.length);
      expect(statSync(out).size).toBe(statSync(secretFile).size - saved);
      expect(containsBytes(out, key)).toBe(false);
      expect(r.rssMiB).toBeLessThan(640);
    } finally {
      rmSync(secretFile, { force: true });
      rmSync(out, { force: true });
    }
  });
});

/** Whether the file holds `text`, read in chunks (it is larger than a string). */
function containsBytes(path: string, text: string): boolean {
  const needle = Buffer.from(text);
  const buffer = Buffer.allocUnsafe(16 * 1024 * 1024);
  const fd = openSync(path, "r");
  try {
    let carry = Buffer.alloc(0);
    for (let pos = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, pos);
      if (n === 0) return false;
      const window = Buffer.concat([carry, buffer.subarray(0, n)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}
