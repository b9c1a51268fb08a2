/**
 * `check DIR` on several threads (issue 12): the built command, on a folder large enough for the
 * worker pool (16 MiB and more), prints the same bytes on stdout and stderr, in the same order, and
 * exits with the same status on 2 and 3 threads as on 1, in both formats; it does start the threads
 * (the command's own thread is one of them: N threads start N - 1 workers), only for the cores it
 * finds free, printing the same when it starts fewer; and a piped stderr never gets a progress line.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const root = join(__dirname, "../..");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null, content: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${content}","timestamp":1772445601000}}`;

/**
 * Runs the built command in a process that counts the worker threads it starts (on stderr's last
 * line). The cores the command finds free are stated (`$PI_SESSION_LSP_FREE_CORES`), so that what
 * it starts does not depend on how busy the machine is: every core free unless told.
 */
function run(...args: string[]) {
  return runWithFreeCores("8", ...args);
}

function runWithFreeCores(freeCores: string, ...args: string[]) {
  return runIn("", freeCores, ...args);
}

/** `runWithFreeCores` after `preamble`, code run in the command's process before the command loads. */
function runIn(preamble: string, freeCores: string, ...args: string[]) {
  const script = `${preamble}
    const wt = require("node:worker_threads");
    const Base = wt.Worker;
    let started = 0;
    wt.Worker = class extends Base { constructor(...a) { super(...a); started++; } };
    process.on("exit", () => process.stderr.write("workers " + started + "\\n"));
    require(${JSON.stringify(join(root, "out/main.js"))}).main(process.argv.slice(1));`;
  const env = { ...process.env, PI_SESSION_LSP_FREE_CORES: freeCores };
  const r = spawnSync(process.execPath, ["-e", script, ...args], { encoding: "utf8", maxBuffer: 1 << 28, env });
  const lines = r.stderr.split("\n");
  const workers = Number(lines[lines.length - 2]!.split(" ")[1]);
  return { status: r.status, stdout: r.stdout, stderr: lines.slice(0, -2).join("\n"), workers };
}

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-check-threads-"));
  // Five sessions of 3.5 MB (one long message each), some with a fault, and the parity corpus.
  mkdirSync(join(dir, "big"));
  for (let i = 0; i < 5; i++) {
    const parent = i % 2 === 0 ? null : "zz";
    writeFileSync(join(dir, "big", `s${i}.jsonl`), `${header}\n${user("a1", parent, "x".repeat(3_500_000))}\n${i === 3 ? "{broken" : ""}`);
  }
  const corpus = join(root, "test/parity/fixtures");
  mkdirSync(join(dir, "corpus"));
  for (const name of readdirSync(corpus)) if (name.endsWith(".jsonl")) copyFileSync(join(corpus, name), join(dir, "corpus", name));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("check DIR --threads", () => {
  it.each([[[]], [["--format", "json"]], [["--min-severity", "error"]]])("prints the same on 2 and 3 threads as on 1 (%j)", (extra: string[]) => {
    const one = run("check", ...extra, "--threads", "1", dir);
    const two = run("check", ...extra, "--threads", "2", dir);
    const three = run("check", ...extra, "--threads", "3", dir);
    expect(one.workers).toBe(0);
    expect(two.workers).toBe(1);
    expect(three.workers).toBe(2);
    for (const many of [two, three]) {
      expect(many.stdout).toBe(one.stdout);
      expect(many.stderr).toBe(one.stderr);
      expect(many.status).toBe(one.status);
    }
    expect(one.status).toBe(1);
    // Every file is there, in the walk's order.
    expect(one.stdout).toContain("big/s1.jsonl");
    expect(one.stdout.indexOf("big/s3.jsonl")).toBeLessThan(one.stdout.indexOf("corpus/"));
  });

  it("starts a worker only for a core found free, and prints the same either way", () => {
    const one = run("check", "--threads", "1", dir);
    // No core free: the files are checked on this thread alone.
    const busy = runWithFreeCores("0.4", "check", "--threads", "3", dir);
    expect(busy.workers).toBe(0);
    // One core free of the three asked for: one worker.
    const half = runWithFreeCores("1.2", "check", "--threads", "3", dir);
    expect(half.workers).toBe(1);
    for (const r of [busy, half]) {
      expect(r.stdout).toBe(one.stdout);
      expect(r.stderr).toBe(one.stderr);
      expect(r.status).toBe(one.status);
    }
  });

  it("starts the workers the stated free cores ask for on a machine of one core too, and prints the same", () => {
    // The machine's cores as `os.availableParallelism()` answers them (a runner of one core, or an
    // affinity or a CPU quota of one: `io/cpuQuota.ts`): the stated free cores are the answer still.
    const oneCore = 'require("node:os").availableParallelism = () => 1;';
    const one = run("check", "--threads", "1", dir);
    const two = runIn(oneCore, "8", "check", "--threads", "2", dir);
    expect(two.workers).toBe(1);
    expect({ stdout: two.stdout, stderr: two.stderr, status: two.status }).toEqual({ stdout: one.stdout, stderr: one.stderr, status: one.status });
    // Stated as too few, no worker starts, as on a machine of any size.
    expect(runIn(oneCore, "0.4", "check", "--threads", "2", dir).workers).toBe(0);
  });

  it("prints the same when the workers stop claiming files after this thread's first (other work took their cores)", () => {
    // Every stretch measured while the workers run finds no core free (`cli/checkPool.ts`'s
    // coresStayFree): the workers finish the file each holds and this thread checks the rest.
    const side = mkdtempSync(join(tmpdir(), "pi-check-stop-"));
    const asked = join(side, "stretches-asked");
    const busyLater = `const fc = require(${JSON.stringify(join(root, "out/io/freeCores.js"))});
      fc.measureFreeCores = () => ({ elapsed: () => 1e9, freeCores: () => (require("node:fs").appendFileSync(${JSON.stringify(asked)}, "x"), 0) });`;
    const one = run("check", "--threads", "1", dir);
    for (const threads of ["2", "3"]) {
      rmSync(asked, { force: true });
      const many = runIn(busyLater, "8", "check", "--threads", threads, dir);
      expect(many.workers).toBe(Number(threads) - 1);
      // Asked once: the answer stops the workers for good.
      expect(readFileSync(asked, "utf8")).toBe("x");
      expect({ stdout: many.stdout, stderr: many.stderr, status: many.status }).toEqual({ stdout: one.stdout, stderr: one.stderr, status: one.status });
    }
    rmSync(side, { recursive: true, force: true });
  });

  it("draws no progress line on a piped stderr", () => {
    const r = run("check", "--threads", "2", dir);
    expect(r.stderr).not.toContain("checking");
    expect(r.stderr).not.toContain("\r");
  });

  it("refuses a thread count that is not a whole number of 1 or more", () => {
    for (const bad of ["0", "-1", "1.5", "many"]) {
      const r = run("check", `--threads=${bad}`, dir);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`--threads takes a whole number of threads, 1 or more, not "${bad}"`);
    }
  });
});
