/**
 * `usage`: the rows of each grouping (day, model as Pi's breakdown keys it, project, session), the
 * `--since`/`--until` window, the `--json` shape, hostile usage values (left out, counted in a note,
 * never NaN, every text escaped), files Pi does not open and paths that are not files, a project's
 * sessions found as `check` finds them, and a file read in many chunks and on several threads
 * giving the same numbers. (The numbers themselves are compared with the real Pi's in
 * test/pi/usage/.)
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSessions } from "../../server/src/cli/sessions";
import { runUsage } from "../../server/src/cli/usage";
import type { UsageReport } from "../../server/src/cli/usageReport";
import { scanUsage } from "../../server/src/io/usageScan";
import { ensureBuilt } from "../helpers/lspClient";

let root: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-usage-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Obj = Record<string, unknown>;
const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number): Obj => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});

let n = 0;
const entry = (type: string, day: string, fields: Obj): Obj => ({ type, id: `e${++n}`, parentId: null, timestamp: `${day}T10:00:00.000Z`, ...fields });
const assistant = (day: string, u: unknown, model = "claude-sonnet-4-5", extra: Obj = {}): Obj =>
  entry("message", day, { message: { role: "assistant", content: [], provider: "anthropic", model, usage: u, stopReason: "stop", timestamp: 1, ...extra } });

function session(name: string, entries: Obj[], { cwd = "/home/dev/p", id = `0197a0b0-0000-7000-8000-${name.padStart(12, "0").slice(-12)}` } = {}): string {
  const path = join(root, `${name}.jsonl`);
  const header = { type: "session", version: 3, id, timestamp: "2026-03-01T09:00:00.000Z", cwd };
  writeFileSync(path, `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`);
  return path;
}

async function run(...args: string[]): Promise<{ status: number; out: string; err: string; report: UsageReport }> {
  let out = "";
  let err = "";
  const status = await runUsage(["--json", ...args], { out: (t) => (out += t), err: (t) => (err += t), env: {}, isTTY: false, cwd: root });
  return { status, out, err, report: JSON.parse(out) as UsageReport };
}

async function text(...args: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const status = await runUsage(args, { out: (t) => (out += t), err: (t) => (err += t), env: {}, isTTY: false, cwd: root });
  return { status, out, err };
}

const pick = (r: UsageReport) => r.rows.map((row) => [row.key, row.input, row.output, row.cacheRead, row.cacheWrite, row.totalTokens, row.cost]);

describe("grouping", () => {
  let a: string;
  let b: string;
  beforeAll(() => {
    a = session("a", [
      assistant("2026-03-01", usage(100, 10, 1000, 5, 0.5)),
      assistant("2026-03-02", usage(200, 20, 0, 0, 0.25), "claude-sonnet-4-5", { responseModel: "claude-sonnet-4-5-20250929" }),
      entry("usage", "2026-03-02", { provider: "openai", model: "gpt-5.1", usage: usage(7, 3, 0, 0, 0.125) }),
      entry("message", "2026-03-03", {
        message: { role: "toolResult", toolCallId: "c", toolName: "bash", content: [], isError: false, usage: usage(1, 1, 0, 0, 0.0625), timestamp: 1 },
      }),
      entry("compaction", "2026-03-03", { summary: "s", firstKeptEntryId: "e1", tokensBefore: 5, usage: usage(50, 5, 0, 0, 1) }),
      // A tool result or summary without usage adds nothing (Pi adds theirs only when truthy).
      entry("branch_summary", "2026-03-03", { fromId: "e1", summary: "b" }),
      entry("session_info", "2026-03-03", { name: "The session" }),
    ]);
    b = session("b", [assistant("2026-03-02", usage(1, 2, 3, 4, 2))], { cwd: "/home/dev/q" });
  });

  it("by day (the default): each usage under the UTC day of its entry's timestamp, days in order", async () => {
    const { report, status } = await run(a, b);
    expect(status).toBe(0);
    expect(pick(report)).toEqual([
      ["2026-03-01", 100, 10, 1000, 5, 1115, 0.5],
      ["2026-03-02", 208, 25, 3, 4, 240, 2.375],
      ["2026-03-03", 51, 6, 0, 0, 57, 1.0625],
    ]);
    expect(report.total).toEqual({ input: 359, output: 41, cacheRead: 1003, cacheWrite: 9, totalTokens: 1412, cost: 3.9375 });
    expect(report.files).toBe(2);
  });

  it("by model: Pi's breakdown keys, the response model first, tool results and summaries apart, most expensive first", async () => {
    const { report } = await run("--by", "model", a, b);
    expect(report.rows.map((r) => [r.key, r.cost])).toEqual([
      ["anthropic/claude-sonnet-4-5", 2.5],
      ["Tools/summaries", 1.0625],
      ["anthropic/claude-sonnet-4-5-20250929", 0.25],
      ["openai/gpt-5.1", 0.125],
    ]);
  });

  it("by project and by session: the header's cwd; the file with its id and name", async () => {
    const projects = (await run("--by", "project", a, b)).report;
    expect(projects.rows.map((r) => [r.key, r.cost])).toEqual([
      ["/home/dev/q", 2],
      ["/home/dev/p", 1.9375],
    ]);
    const sessions = (await run("--by", "session", a, b)).report;
    expect(sessions.rows.map((r) => [r.key, r.id, r.name ?? null])).toEqual([
      [b, "0197a0b0-0000-7000-8000-00000000000b", null],
      [a, "0197a0b0-0000-7000-8000-00000000000a", "The session"],
    ]);
  });

  it("--since and --until keep the usages of the UTC days between, both included", async () => {
    const { report } = await run("--since", "2026-03-02", "--until", "2026-03-02", a, b);
    expect(report.rows.map((r) => r.key)).toEqual(["2026-03-02"]);
    expect(report.total.cost).toBe(2.375);
    expect(report.since).toBe("2026-03-02");
    expect(report.notes.map((x) => x.note)).toEqual(["3 usages outside --since/--until left out"]);
    const after = (await run("--since", "2026-03-03", a)).report;
    expect(after.total.input).toBe(51);
  });

  it("refuses a day that is not one, and a window that is empty", async () => {
    for (const [args, message] of [
      [["--since", "2026-02-30"], '--since takes a day written YYYY-MM-DD, not "2026-02-30"'],
      [["--until", "yesterday"], '--until takes a day written YYYY-MM-DD, not "yesterday"'],
      [["--since", "2026-03-02", "--until", "2026-03-01"], "--since 2026-03-02 is after --until 2026-03-01: no day is left"],
      [["--all", "x.jsonl"], "--all reads a project's sessions and takes no FILE"],
    ] as const) {
      const r = await text(...args, a);
      expect(r.status).toBe(2);
      expect(r.err).toContain(message);
    }
  });

  it("prints a table with a total row", async () => {
    const r = await text(a, b);
    expect(r.out).toBe(
      [
        "INPUT  OUTPUT  CACHE READ  CACHE WRITE  TOTAL TOKENS    COST  DAY (UTC)",
        "  100      10       1,000            5         1,115  $0.500  2026-03-01",
        "  208      25           3            4           240  $2.375  2026-03-02",
        "   51       6           0            0            57  $1.063  2026-03-03",
        "  359      41       1,003            9         1,412  $3.938  TOTAL of 2 sessions",
        "",
      ].join("\n"),
    );
  });
});

describe("--json", () => {
  it("has the rows, the total, the files counted, what was skipped and the notes", async () => {
    const path = session("json", [assistant("2026-03-01", usage(1, 2, 3, 4, 0.5))]);
    const r = await run(path);
    expect(Object.keys(r.report)).toEqual(["by", "rows", "total", "files", "skipped", "notes"]);
    expect(r.report.rows).toEqual([{ key: "2026-03-01", input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10, cost: 0.5 }]);
    expect(Object.keys(r.report.total)).toEqual(["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"]);
  });
});

describe("hostile usage values", () => {
  it("leaves out every usage whose numbers are not all finite numbers, says what Pi does, and prints no NaN", async () => {
    const good = usage(10, 1, 0, 0, 0.5);
    const odd = [
      { ...good, input: "5" },
      { ...good, output: null },
      { ...good, cost: { total: "1" } },
      { ...good, cacheRead: [1] },
      { ...good, cacheWrite: { valueOf: 1 } },
    ];
    const path = session("hostile", [assistant("2026-03-01", good), ...odd.map((u) => assistant("2026-03-01", u)), assistant("2026-03-01", good)]);
    const { report, status } = await run(path);
    expect(status).toBe(0);
    expect(report.total).toEqual({ input: 20, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 22, cost: 1 });
    // Pi adds "5" to a number: its input total becomes the text "105...".
    expect(report.notes).toEqual([
      { path, note: "Pi's /session shows text instead of numbers for this session: 5 usages whose numbers are not all numbers left out here" },
    ]);
    expect((await text(path)).out.replace(/^note: .*$/gm, "")).not.toMatch(/NaN/);
    // A usage that is text, an array, or a usage entry's null: Pi's /session throws on the first.
    const worse = session("hostile-throws", [
      assistant("2026-03-01", good),
      assistant("2026-03-01", "usage"),
      assistant("2026-03-01", [good]),
      entry("usage", "2026-03-01", { provider: "x", model: "y", usage: null }),
      assistant("2026-03-01", good),
    ]);
    const r = (await run(worse)).report;
    expect(r.total.input).toBe(20);
    // `"usage".cost` is undefined, and Pi reads its `total`.
    expect(r.notes[0]!.note).toBe(
      "Pi's /session throws on this session (TypeError: Cannot read properties of undefined (reading 'total')); 3 usages whose numbers are not all numbers left out here",
    );
  });

  it("says where Pi's /session throws: an assistant message without usage, a message entry without message", async () => {
    const path = session("throws", [assistant("2026-03-01", usage(1, 1, 1, 1, 1)), assistant("2026-03-01", undefined)]);
    expect((await run(path)).report.notes[0]!.note).toBe(
      "Pi's /session throws on this session (TypeError: Cannot read properties of undefined (reading 'input')); 1 usage whose numbers are not all numbers left out here",
    );
    const missing = session("no-message", [entry("message", "2026-03-01", {}), assistant("2026-03-01", usage(1, 1, 1, 1, 1))]);
    const r = (await run(missing)).report;
    expect(r.total.totalTokens).toBe(4);
    expect(r.notes[0]!.note).toBe(
      "Pi's /session throws on this session (TypeError: Cannot read properties of undefined (reading 'role')); its usages are counted here",
    );
  });

  it("keeps sums of huge numbers from becoming NaN in the table (they overflow, and say so)", async () => {
    const path = session("huge", [assistant("2026-03-01", usage(1e308, 0, 0, 0, 1e308)), assistant("2026-03-01", usage(1e308, 0, 0, 0, 1e308))]);
    const r = await text(path);
    expect(r.out).toContain("(overflow)");
    // Only the note says what Pi's /session shows (Infinity); no cell of the table does.
    expect(r.out.replace(/^note: .*$/gm, "")).not.toMatch(/NaN|Infinity/);
    expect((await run(path)).report.notes.at(-1)!.note).toMatch(/too large for a number/);
  });

  it("escapes model names, projects, names and paths, and cuts what is long", async () => {
    const path = session(
      "evil\u001b[2J",
      [assistant("2026-03-01", usage(1, 1, 1, 1, 1), "m\u001b]0;title\u0007\u202e"), entry("session_info", "2026-03-01", { name: "\u001b[31mred" })],
      { cwd: "/p\u001b[2J" },
    );
    for (const by of ["model", "project", "session", "day"]) {
      const r = await text("--by", by, path);
      expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    }
    expect((await text("--by", "model", path)).out).toContain("anthropic/m\\x1b]0;title\\x07\\u202e");
    const long = session("long", [assistant("2026-03-01", usage(1, 1, 1, 1, 1), "m".repeat(1_000_000))]);
    const r = await run("--by", "model", long);
    expect(r.report.rows[0]!.key.length).toBeLessThanOrEqual(200);
    expect((await text("--by", "model", long)).out.length).toBeLessThan(2000);
  });

  it("folds the groups of a file with more models than it keeps into one row", async () => {
    const many = Array.from({ length: 1200 }, (_, i) => assistant("2026-03-01", usage(1, 0, 0, 0, 0), `m${i}`));
    const { report } = await run("--by", "model", session("many", many));
    expect(report.rows).toHaveLength(1001);
    expect(report.rows.find((r) => r.key === "(other)")!.input).toBe(200);
    expect(report.total.input).toBe(1200);
  });
});

describe("files", () => {
  it("skips what Pi does not open (status 1), refuses what is not a file (status 2), and counts the rest", async () => {
    const bad = join(root, "files", "bad.jsonl");
    mkdirSync(join(root, "files"), { recursive: true });
    writeFileSync(bad, '{"type":"message","id":"x"}\n');
    writeFileSync(join(root, "files", "empty.jsonl"), "");
    execFileSync("mkfifo", [join(root, "files", "fifo.jsonl")]);
    session("files/good", [assistant("2026-03-01", usage(1, 1, 1, 1, 1))]);
    const r = await run(join(root, "files"));
    expect(r.status).toBe(1);
    expect(r.report.files).toBe(2);
    expect(r.report.skipped).toEqual([
      { path: bad, reason: "Pi does not open it: the first entry Pi reads (line 1) is not a session header with a string id" },
    ]);
    expect(r.err).toContain(`skipped ${join(root, "files", "fifo.jsonl")}: it is a FIFO, not a regular file`);
    const fifo = await text(join(root, "files", "fifo.jsonl"));
    expect(fifo.status).toBe(2);
    expect(fifo.err).toContain("it is a FIFO, not a regular file");
  });

  it("reads a file in many chunks, and a line too long to read is counted in a note", () => {
    const entries = Array.from({ length: 3000 }, (_, i) =>
      assistant("2026-03-01", usage(i, 1, 2, 3, 0.001), "m", { content: [{ type: "text", text: "y".repeat(500) }] }),
    );
    const path = session("chunks", entries);
    const whole = scanUsage({ path, by: "day" });
    const small = scanUsage({ path, by: "day", maxLineBytes: 600 });
    expect(whole.total.input).toBe((2999 * 3000) / 2);
    expect(whole.counted).toBe(3000);
    expect(small.unreadLines).toBe(3000);
    expect(small.counted).toBe(0);
  });
});

describe("with no FILE: the project's sessions, as check finds them", () => {
  let agent: string;
  beforeAll(() => {
    agent = join(root, "agent");
    const folder = join(agent, "sessions", "--home-dev-proj--");
    mkdirSync(folder, { recursive: true });
    const header = (id: string, cwd: string) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-01T09:00:00.000Z", cwd });
    const line = JSON.stringify(assistant("2026-03-01", usage(5, 0, 0, 0, 0.5)));
    writeFileSync(join(folder, "one.jsonl"), `${header("0197a0b0-0000-7000-8000-0000000000f1", "/home/dev/proj")}\n${line}\n`);
    const other = join(agent, "sessions", "--home-dev-other--");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "two.jsonl"), `${header("0197a0b0-0000-7000-8000-0000000000f2", "/home/dev/other")}\n${line}\n${line}\n`);
  });

  it("reads the current project's folder, or every project's with --all", async () => {
    const env = { PI_CODING_AGENT_DIR: agent, HOME: root };
    let err = "";
    let out = "";
    const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), env, isTTY: false, cwd: root };
    expect(await runUsage(["--json", "--cwd", "/home/dev/proj"], io)).toBe(0);
    expect(err).toContain("reading 1 session of /home/dev/proj in ");
    expect((JSON.parse(out) as UsageReport).total.input).toBe(5);
    out = "";
    expect(await runUsage(["--json", "--all"], io)).toBe(0);
    expect((JSON.parse(out) as UsageReport).total.input).toBe(15);
  });
});

describe("threads", () => {
  it("gives the same output on 1 and 3 threads (the built command, on a folder worth threads)", async () => {
    await ensureBuilt();
    const dir = join(root, "threads");
    mkdirSync(dir);
    for (let f = 0; f < 6; f++) {
      const entries = Array.from({ length: 40 }, (_, i) =>
        assistant(`2026-03-0${1 + (i % 5)}`, usage(i + f, 3, 7, 1, 0.1 * (i + 1)), `m${i % 3}`, { content: [{ type: "text", text: "z".repeat(100_000) }] }),
      );
      session(`threads/s${f}`, entries);
    }
    // The built command, in a process that counts the worker threads it starts (on stderr).
    const script = `
      const wt = require("node:worker_threads");
      const Base = wt.Worker;
      let started = 0;
      wt.Worker = class extends Base { constructor(...a) { super(...a); started++; } };
      process.on("exit", () => process.stderr.write("workers " + started));
      require(${JSON.stringify(join(__dirname, "../../out/main.js"))}).main(process.argv.slice(1));`;
    const go = (threads: string) => spawnSync(process.execPath, ["-e", script, "usage", "--by", "model", "--threads", threads, dir], { encoding: "utf8" });
    const one = go("1");
    const three = go("3");
    expect(one.status).toBe(0);
    expect([one.stderr, three.stderr]).toEqual(["workers 0", "workers 2"]);
    expect(three.stdout).toBe(one.stdout);
    expect(one.stdout).toContain("TOTAL of 6 sessions");
  });
});

describe("sessions --largest", () => {
  it("lists the largest sessions first, with the bytes of their inline images and tool output", async () => {
    const dir = join(root, "largest");
    mkdirSync(dir);
    // Entry ids of a known length, whatever ran before: the sizes printed depend on them.
    n = 1000;
    const header = (id: string) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-01T09:00:00.000Z", cwd: "/home/dev/p" });
    const image = { type: "image", data: "A".repeat(300_000), mimeType: "image/png" };
    const user = JSON.stringify(entry("message", "2026-03-01", { message: { role: "user", content: [{ type: "text", text: "look" }, image], timestamp: 1 } }));
    const result = JSON.stringify(
      entry("message", "2026-03-01", {
        message: {
          role: "toolResult",
          toolCallId: "c",
          toolName: "read",
          content: [{ type: "text", text: "t".repeat(50_000) }, image],
          isError: false,
          timestamp: 1,
        },
      }),
    );
    writeFileSync(join(dir, "images.jsonl"), `${header("0197a0b0-0000-7000-8000-0000000000a1")}\n${user}\n${result}\n`);
    const small = JSON.stringify(entry("message", "2026-03-01", { message: { role: "user", content: "hi", timestamp: 1 } }));
    writeFileSync(join(dir, "small.jsonl"), `${header("0197a0b0-0000-7000-8000-0000000000a2")}\n${small}\n`);
    let out = "";
    const io = { out: (t: string) => (out += t), err: () => {}, env: {}, isTTY: false, cwd: root };
    expect(await runSessions(["--largest", "--json", "--all", "--session-dir", dir], io)).toBe(0);
    const rows = (JSON.parse(out) as { largest: { path: string; size: number; images: number; toolResults: number; other: number }[] }).largest;
    expect(rows.map((r) => r.path)).toEqual([join(dir, "images.jsonl"), join(dir, "small.jsonl")]);
    const big = rows[0]!;
    expect(big.images).toBe(600_000);
    // The tool result's line and its newline, less the image inside it.
    expect(big.toolResults).toBe(Buffer.byteLength(result) + 1 - 300_000);
    expect(big.images + big.toolResults + big.other).toBe(big.size);
    out = "";
    expect(await runSessions(["--largest", "--limit", "1", "--all", "--session-dir", dir], io)).toBe(0);
    expect(out).toContain("  635 KB    586 KB   49.1 KB     353 B  0197a0b0");
    expect(out).toContain("… 1 smaller (--limit 0 lists all)");
    expect(await runSessions(["--largest", "--check"], { ...io, err: () => {} })).toBe(2);
  });
});
