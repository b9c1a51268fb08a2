/**
 * The benchmark's table has every row issue 12 asks for, each with a finite number, a goal where
 * the issue sets one and a verdict against it. It runs `bench/run.mjs --quick` on tiny generated
 * files in a temporary folder; the times it prints are not asserted (this is not a timed test:
 * the numbers of a run this small say nothing, and the machine is shared).
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const RUN = join(__dirname, "../../bench/run.mjs");

interface Row {
  id: string;
  section: string;
  what: string;
  n: number;
  value: string;
  goal: string;
  verdict: string;
}

let out: string;
let printed: string;
let result: { rows: Row[]; load: { before: number[]; after: number[] }; files: { base: { bytes: number }; scale: { bytes: number } } };

/** Runs the benchmark and resolves with its standard output. */
function bench(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`bench/run.mjs exited with ${code}: ${stderr}`))));
  });
}

beforeAll(async () => {
  await ensureBuilt();
  out = mkdtempSync(join(tmpdir(), "pi-bench-test-"));
  printed = await bench([
    "--quick",
    "--out",
    out,
    "--only",
    "server,cli,scale,folder",
    "--entries",
    "300",
    "--scale-entries",
    "600",
    "--big-line-chars",
    "4000",
    "--edits",
    "2",
    "--request-rounds",
    "1",
    "--close-wait",
    "50",
    "--steady-wait",
    "50",
    "--folder-files",
    "3",
    "--folder-mb",
    "0.1",
  ]);
  result = JSON.parse(printed.trim().split("\n").at(-1) ?? "");
});

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

const REQUESTS = [
  "hover",
  "definition",
  "references",
  "outline",
  "folding",
  "lenses",
  "inlay",
  "completion",
  "lensResolve",
  "context",
  "contextProvider",
  "contextMarkdown",
  "contextTail",
];
const SERVER = [
  "open.pull",
  "edit.pull",
  "contextEdit.pull",
  "contextEdit.push",
  "memory.open",
  "memory.steady",
  "memory.edits",
  "memory.peak",
  "memory.close",
];
const CLI = ["floor", "check.time", "check.memory"];
const EXPECTED = [
  ...SERVER.map((id) => `server.${id}`),
  "server.open.push",
  "server.edit.push",
  ...REQUESTS.map((name) => `server.request.${name}`),
  ...CLI.map((id) => `cli.${id}`),
  "cli.context",
  "cli.context.provider",
  ...SERVER.map((id) => `scale.server.${id}`),
  ...CLI.map((id) => `scale.cli.${id}`),
  "scale.cli.check.perMb",
  "folder.one",
  "folder.all",
];

describe("bench/run.mjs --quick", () => {
  it("prints every row of issue 12, once each, with a finite number", () => {
    const ids = result.rows.map((r) => r.id);
    expect([...ids].sort()).toEqual([...EXPECTED].sort());
    for (const r of result.rows) expect(Number.isFinite(r.n), `${r.id}: ${r.n}`).toBe(true);
  });

  it("gives the issue's goals and a verdict on each; those that need the peers say so", () => {
    const row = (id: string) => result.rows.find((r) => r.id === id) as Row;
    expect(row("server.edit.pull").goal).toBe("≤ 20 ms");
    expect(row("scale.server.edit.pull").goal).toBe("≤ 40 ms");
    expect(row("server.edit.push").goal).toBe("≤ 30 ms");
    expect(row("server.contextEdit.pull").goal).toBe("≤ 20 ms");
    expect(row("server.contextEdit.push").goal).toBe("≤ 30 ms");
    expect(row("scale.server.contextEdit.pull").goal).toBe("≤ 40 ms");
    expect(row("scale.server.contextEdit.push").goal).toBe("≤ 40 ms");
    expect(row("server.request.hover").goal).toBe("≤ 10 ms");
    expect(row("server.request.outline").goal).toBe("≤ 20 ms");
    expect(row("server.request.contextProvider").goal).toBe("≤ 50 ms");
    expect(row("cli.context.provider").goal).toBe("");
    expect(row("cli.check.time").goal).toBe("≤ 1.2×");
    expect(row("cli.check.memory").goal).toBe("≤ 1.5×");
    // The memory goal is judged on the steady memory; the immediate and peak figures are reported as they are.
    expect(row("server.memory.steady").goal).toBe("≤ 3× the file");
    expect(row("server.memory.open").goal).toBe("");
    expect(row("server.memory.peak").goal).toBe("");
    for (const r of result.rows) expect(r.verdict).toEqual(r.goal ? expect.stringMatching(/^(PASS|FAIL|n\/a)$/) : "");
    // Without --vs-peers, the rows compared with a peer cannot be judged.
    expect(row("server.open.pull").verdict).toBe("n/a");
    expect(row("cli.context").verdict).toBe("n/a");
    expect(row("cli.check.time").verdict).toMatch(/^(PASS|FAIL)$/);
  });

  it("prints the table with the machine's load, and the sizes it ran on", () => {
    expect(printed).toMatch(/^pi-session-lsp benchmark: Node v\d+/);
    expect(printed).toMatch(/load average \(1, 5, 15 min\) before: [\d.]+ [\d.]+ [\d.]+, after: [\d.]+ [\d.]+ [\d.]+/);
    expect(result.load.before).toHaveLength(3);
    for (const r of result.rows) expect(printed).toContain(r.what);
    expect(result.files.scale.bytes).toBeGreaterThan(result.files.base.bytes);
  });
});
