/**
 * The benchmark's table has every row issues 12 and 32 ask for, each with a finite number, a goal
 * where the issue sets one and a verdict against it. It runs `bench/run.mjs --quick` on tiny generated
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
    "server,cli,scale,folder,sessions",
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
    "--sessions-files",
    "4",
    "--sessions-mb",
    "0.2",
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
const STRUCTURAL = ["break", "insert", "parent"].flatMap((kind) => [`structural.${kind}.pull`, `structural.${kind}.push`]);
/** Every keystroke row: the first after idle and the structural edits included, pulled and pushed. */
const KEYSTROKES = ["idleEdit.pull", "idleEdit.push", "contextEdit.pull", "contextEdit.push", "contextIdleEdit.pull", "contextIdleEdit.push", ...STRUCTURAL];
const SERVER = [
  "open.pull",
  "open.scan",
  "open.bytesFirst",
  "edit.pull",
  ...KEYSTROKES,
  "memory.open",
  "memory.steady",
  "memory.edits",
  "memory.peak",
  "memory.close",
];
const CLI = ["floor", "scan", "check.time", "check.memory"];
const FOLDER = ["one", "floor", "threads"];
const SESSIONS = ["listAll", "listAllOneThread", "project", "findPrefix", "findPhrase", "findNothing", "index"];
const EXPECTED = [
  ...SERVER.map((id) => `server.${id}`),
  "server.open.push",
  "server.complete.pull",
  "server.complete.push",
  "server.edit.push",
  ...REQUESTS.map((name) => `server.request.${name}`),
  ...CLI.map((id) => `cli.${id}`),
  "cli.context",
  "cli.context.provider",
  ...SERVER.map((id) => `scale.server.${id}`),
  ...CLI.map((id) => `scale.cli.${id}`),
  "scale.cli.check.perMb",
  ...FOLDER.map((id) => `folder.${id}`),
  "folder.single",
  ...FOLDER.map((id) => `folder.busy.${id}`),
  ...SESSIONS.map((id) => `sessions.${id}`),
];

describe("bench/run.mjs --quick", () => {
  it("prints every row of issues 12 and 32, once each, with a finite number", () => {
    const ids = result.rows.map((r) => r.id);
    expect([...ids].sort()).toEqual([...EXPECTED].sort());
    for (const r of result.rows) expect(Number.isFinite(r.n), `${r.id}: ${r.n}`).toBe(true);
  });

  it("gives the issue's goals and a verdict on each; those that need the peers say so", () => {
    const row = (id: string) => result.rows.find((r) => r.id === id) as Row;
    // Issue 32: every keystroke, the first after idle and the structural edits included, pulled and pushed.
    for (const id of ["edit.pull", "edit.push", ...KEYSTROKES]) expect(row(`server.${id}`).goal, id).toBe("≤ 20 ms, p90 ≤ 40 ms");
    expect(row("scale.server.edit.pull").goal).toBe("≤ 40 ms");
    expect(row("scale.server.structural.break.push").goal).toBe("≤ 40 ms");
    expect(row("scale.server.contextEdit.pull").goal).toBe("≤ 40 ms");
    expect(row("scale.server.contextEdit.push").goal).toBe("≤ 40 ms");
    expect(row("server.request.hover").goal).toBe("≤ 10 ms");
    expect(row("server.request.outline").goal).toBe("≤ 20 ms");
    expect(row("server.request.contextProvider").goal).toBe("≤ 50 ms");
    expect(row("cli.context.provider").goal).toBe("");
    expect(row("cli.check.time").goal).toBe("≤ 1.0×");
    expect(row("cli.check.memory").goal).toBe("≤ 1.0×");
    expect(row("scale.cli.check.time").goal).toBe("≤ 1.0×");
    expect(row("scale.cli.check.perMb").goal).toBe("flat: ≤ 1.1×");
    expect(row("cli.context").goal).toBe("≤ 0.7× Pi 1.6's open + buildSessionContext");
    expect(row("server.open.pull").goal).toBe("≤ 1.0× the JSON server");
    expect(row("server.open.push").goal).toBe("≤ 1.0× the JSON server");
    expect(row("server.complete.pull").goal).toBe("≤ 1.5× the JSON server");
    expect(row("server.complete.push").goal).toBe("≤ 1.5× the JSON server");
    expect(row("folder.threads").goal).toBe("≥ 1.0× and ≥ 0.8× the floor's speed-up");
    expect(row("folder.busy.threads").goal).toBe("never slower than 1 thread (≥ 1.0×, or fell back to it: no worker started and ≥ 0.91×)");
    // Each run of the threads rows says how many workers it started, which the busy row's verdict reads;
    // the row without V8's background threads says it too, since a run that started none split nothing.
    for (const id of ["folder.threads", "folder.single", "folder.busy.threads"]) expect(row(id).value, id).toMatch(/workers started per run: \d+(, \d+)*$/);
    expect(row("sessions.listAll").goal).toBe("ahead of Pi 1.6 (< 1×)");
    expect(row("sessions.findPhrase").goal).toBe("≤ 2× `rg -l -F`");
    expect(row("sessions.findNothing").goal).toBe("≤ 2× `rg -l -F`");
    // The floors are reported without a verdict of their own.
    for (const id of ["server.open.scan", "server.open.bytesFirst", "cli.floor", "cli.scan", "folder.floor", "folder.single", "folder.busy.floor"])
      expect(row(id).goal, id).toBe("");
    // The memory goal is judged on the steady memory; the immediate and peak figures are reported as they are.
    expect(row("server.memory.steady").goal).toBe("≤ 3× the file");
    expect(row("server.memory.open").goal).toBe("");
    expect(row("server.memory.peak").goal).toBe("");
    for (const r of result.rows) expect(r.verdict).toEqual(r.goal ? expect.stringMatching(/^(PASS|FAIL|n\/a)$/) : "");
    // Without --vs-peers, the rows compared with a peer cannot be judged.
    for (const id of [
      "server.open.pull",
      "server.open.push",
      "server.complete.pull",
      "cli.context",
      "sessions.listAll",
      "sessions.findPhrase",
      "sessions.findNothing",
    ])
      expect(row(id).verdict, id).toBe("n/a");
    expect(row("folder.threads").verdict).toMatch(/^(PASS|FAIL)$/);
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
