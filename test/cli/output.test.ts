/**
 * What `check` prints for a person and for a machine: arguments through `parseArgs`, the summary,
 * relative paths, colour only on a terminal, `--min-severity`, `--quiet`, the `[--fix]` mark, diff
 * headers, control characters from the session or the file names escaped, bounded output on
 * millions of diagnostics, and no language-server library loaded for a check.
 */

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../server/src/cli/check";
import { ensureBuilt } from "../helpers/lspClient";

const repo = join(__dirname, "../..");
const bin = join(repo, "bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null) =>
  `{"type":"message","id":${JSON.stringify(id)},"parentId":${JSON.stringify(parent)},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
}

function run(args: string[], options: RunOptions = {}) {
  // FORCE_COLOR and NO_COLOR from the test's own environment must not leak into the child.
  const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    cwd: options.cwd ?? repo,
    env: env as NodeJS.ProcessEnv,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `check` in this process with a terminal (or not) as its output. */
function runInProcess(args: string[], isTTY: boolean, env: NodeJS.ProcessEnv = {}, cwd = repo) {
  let stdout = "";
  let stderr = "";
  const status = runCheck(args, { out: (t) => (stdout += t), err: (t) => (stderr += t), isTTY, env, cwd });
  return { status, stdout, stderr };
}

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-output-"));
  mkdirSync(join(dir, "sessions/deeper"), { recursive: true });
  writeFileSync(join(dir, "sessions/good.jsonl"), `${header}\n${user("a1", null)}\n`);
  // An error with a safe fix (self-parent), one without (dangling-parent), and a warning with a fix.
  writeFileSync(join(dir, "sessions/deeper/bad.jsonl"), `${header}\n${user("a1", "a1")}\n${user("a2", "zz")}`);
  writeFileSync(join(dir, "sessions/hints.jsonl"), `${header}\n\n${user("a1", null)}\n`);
});

describe("check's arguments", () => {
  it("takes --opt=value, --opt value, short flags and -- before a path that starts with a dash", () => {
    writeFileSync(join(dir, "-dash.jsonl"), `${header}\n${user("a1", "zz")}\n`);
    const r = run(["check", "--format=json", "-q", "--", "-dash.jsonl"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect((JSON.parse(r.stdout) as { file: string }).file).toBe("-dash.jsonl");
    expect(r.status).toBe(1);
    expect(run(["check", "--format", "json", "--", "-dash.jsonl"], { cwd: dir }).stdout).toBe(r.stdout);
  });

  it("names the wrong word instead of printing the whole help", () => {
    for (const [args, said] of [
      [["check", "--nope", "x"], 'pi-session-lsp check: unknown option "--nope"\n'],
      [["check", "--quite", "x"], 'unknown option "--quite" (did you mean --quiet?)'],
      [["check", "-z", "x"], 'unknown option "-z"'],
      [["check", "--fix=yes", "x"], '--fix takes no value (given "--fix=yes")'],
      [["check", "--min-severity", "loud", "x"], '--min-severity must be error or warning or information or hint, not "loud"'],
      [["check", "--format", "--fix", "x"], '--format needs a value (text or json), but the next word is the option "--fix"'],
    ] as const) {
      const r = run([...args]);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(said);
      expect(r.stderr, args.join(" ")).not.toContain("Usage:");
    }
  });

  it("names an unknown command, with the one that was probably meant", () => {
    const r = run(["chekc", "x.jsonl"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('pi-session-lsp: unknown command "chekc" (did you mean check?)');
    expect(r.stderr).not.toContain("Usage:");
    expect(run(["--stdi"]).stderr).toContain('unknown option "--stdi" (did you mean --stdio?)');
  });
});

describe("check's text output", () => {
  it("prints paths relative to the current folder, [--fix] on what --fix mends, and a summary", () => {
    const r = run(["check", "sessions"], { cwd: dir });
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^sessions\/deeper\/bad\.jsonl:2:40: error self-parent \[--fix\]: /);
    expect(lines[1]).toMatch(/^sessions\/deeper\/bad\.jsonl:3:40: error dangling-parent: /);
    expect(lines[2]).toMatch(/^sessions\/deeper\/bad\.jsonl:3:\d+: warning no-final-newline \[--fix\]: /);
    expect(lines[3]).toMatch(/^sessions\/hints\.jsonl:2:1: hint blank-line: /);
    expect(lines.at(-1)).toBe("2 errors, 1 warning, 1 hint in 2 of 3 files; 2 fixable with --fix (1 more with --fix --unsafe-fixes)");
    expect(r.status).toBe(1);
    // An absolute path under the current folder is shown relative too; one outside it stays absolute.
    expect(run(["check", join(dir, "sessions/hints.jsonl")], { cwd: dir }).stdout).toMatch(/^sessions\/hints\.jsonl:2:1: /);
    expect(run(["check", join(dir, "sessions/hints.jsonl")], { cwd: repo }).stdout).toMatch(new RegExp(`^${join(dir, "sessions/hints.jsonl")}:2:1: `));
  });

  it("--min-severity hides what is less severe, without changing the exit status", () => {
    const r = run(["check", "--min-severity", "error", "sessions"], { cwd: dir });
    expect(r.stdout).not.toContain("warning");
    expect(r.stdout).not.toContain("hint");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("2 errors in 1 of 3 files; 1 fixable with --fix (1 more with --fix --unsafe-fixes)");
    expect(r.status).toBe(1);
    expect(run(["check", "--min-severity=warning", "sessions/hints.jsonl"], { cwd: dir }).stdout).toBe("No problems in 1 file\n");
  });

  it("--quiet prints the diagnostics only", () => {
    const r = run(["check", "--quiet", "sessions"], { cwd: dir });
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(4);
    expect(r.stdout).not.toContain("fixable with");
    expect(run(["check", "-q", "sessions/good.jsonl"], { cwd: dir }).stdout).toBe("");
  });

  it("colours severities on a terminal only, and never with NO_COLOR", () => {
    const onTerminal = runInProcess([join(dir, "sessions")], true, {}, dir).stdout;
    expect(onTerminal).toContain("\u001b[1m\u001b[31merror\u001b[39m\u001b[22m self-parent");
    expect(runInProcess([join(dir, "sessions")], true, {}, dir).stderr).toBe("");
    expect(onTerminal).toContain("\u001b[1m\u001b[33mwarning\u001b[39m\u001b[22m");
    // Without the colours it is the same text as into a pipe.
    expect(onTerminal.replace(/\u001b\[[0-9;]*m/g, "")).toBe(runInProcess([join(dir, "sessions")], false, {}, dir).stdout);
    expect(runInProcess([join(dir, "sessions")], true, { NO_COLOR: "1" }, dir).stdout).not.toContain("\u001b");
    expect(runInProcess([join(dir, "sessions")], true, { TERM: "dumb" }, dir).stdout).not.toContain("\u001b");
    // Into a pipe: no colour, unless forced.
    expect(run(["check", "sessions"], { cwd: dir }).stdout).not.toContain("\u001b");
    expect(run(["check", "sessions"], { cwd: dir, env: { FORCE_COLOR: "1" } }).stdout).toContain("\u001b[31m");
    expect(run(["check", "sessions"], { cwd: dir, env: { FORCE_COLOR: "1", NO_COLOR: "1" } }).stdout).not.toContain("\u001b");
    // JSON is never coloured.
    expect(runInProcess(["--format", "json", join(dir, "sessions")], true, {}, dir).stdout).not.toContain("\u001b");
  });

  it("--dry-run diff headers name the file once, with a/ and b/ but no double slash", () => {
    const outside = join(dir, "sessions/deeper/bad.jsonl");
    const r = run(["check", "--dry-run", outside], { cwd: repo });
    const name = outside.replace(/^\//, "");
    expect(r.stdout).toContain(`--- a/${name}\n+++ b/${name}\n`);
    expect(r.stdout).not.toContain("a//");
    const inside = run(["check", "--dry-run", "sessions/deeper/bad.jsonl"], { cwd: dir });
    expect(inside.stdout).toContain("--- a/sessions/deeper/bad.jsonl\n+++ b/sessions/deeper/bad.jsonl\n");
    expect(inside.stdout.trimEnd().split("\n").at(-1)).toBe("1 error in 1 file; 1 fixable with --fix --unsafe-fixes; --fix would change 1 file");
  });
});

describe("control characters from sessions and file names never reach the terminal", () => {
  const esc = "\u001b";
  const hostile = [
    `{"type":"session","version":3,"id":"s\\u001b]0;owned\\u0007","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p"}`,
    `{"type":"\\u001b[2Jgone","id":"t1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z"}`,
    `{"type":"message","id":"\\u001b[31mred","parentId":"\\u001b[1Aup","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"\\u001b]2;title\\u0007","content":"hi","timestamp":1}}`,
    `{"broken": "${esc}[2J${esc}[H all good \u009b31m\u202e`,
    `${user("a9", "\u001b[1Aup")}`,
  ].join("\n");

  /** The visible text: SGR colour codes removed, then any control left is a failure. */
  function assertNoControls(text: string, what: string) {
    const visible = text.replace(/\u001b\[[0-9;]*m/g, "");
    expect(visible, what).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  }

  it("in check's text and JSON output, context's messages and Markdown, and file names", () => {
    const folder = mkdtempSync(join(tmpdir(), "pi-hostile-"));
    const file = join(folder, `${esc}]0;x${"\u0007"}${esc}[2J.jsonl`);
    writeFileSync(file, `${hostile}\n`);
    const check = run(["check", folder], { env: { FORCE_COLOR: "1" } });
    expect(check.stdout).toContain("\\x1b[2J");
    expect(check.stdout).toContain("\\x1b]2;title\\x07");
    assertNoControls(check.stdout, "check text");
    assertNoControls(check.stderr, "check stderr");
    const json = run(["check", "--format", "json", folder]);
    assertNoControls(json.stdout.replace(/\n$/, ""), "check json");
    expect((JSON.parse(json.stdout) as { file: string }).file).toBe(file);
    const fix = run(["check", "--dry-run", file]);
    assertNoControls(fix.stdout.replaceAll("\n", ""), "dry-run diff");
    for (const args of [
      ["context", file],
      ["context", "--format", "markdown", file],
      ["context", "--leaf", `${esc}[2Jnone`, file],
      ["context", `${file}.missing`],
      ["tree", `${file}.missing`],
      ["info", `${file}.missing`],
      ["export", file],
      ["export", "--all", file],
      ["export", "--leaf", `${esc}[2Jnone`, file],
      ["export", `${file}.missing`],
      ["export", "--out", folder, file],
    ]) {
      const r = run(args);
      if (args[1] === `${file}.missing`) expect(r.stderr, args[0]).toContain("cannot read");
      assertNoControls(r.stderr.replaceAll("\n", ""), args.join(" "));
      if (args.includes("markdown") || (args[0] === "export" && !args.includes("--out"))) assertNoControls(r.stdout.replaceAll("\n", ""), args.join(" "));
    }
  });

  it("in argument errors", () => {
    const r = run(["check", `--${esc}[2J`, "x"]);
    expect(r.stderr).toContain('unknown option "--\\x1b[2J"');
    assertNoControls(r.stderr.replaceAll("\n", ""), "usage error");
  });

  it("in the argument errors of the session commands, which also stay short", () => {
    // Linux takes no single argument over 128 KiB.
    const long = `${esc}[2J${"x".repeat(100_000)}`;
    for (const args of [
      ["tree", `--${esc}[2J`, "x"],
      ["info", `--${esc}[2J`, "x"],
      ["find", `--${esc}[2J`],
      ["sessions", `--${esc}[2J`],
      ["resume-from", `--${esc}[2J`, "x", "y"],
      ["fork", `--${esc}[2J`, "x"],
      ["tree", "--pi", "\u009b2J", "x"],
      ["sessions", long],
      ["tree", `--${long}`, "x"],
      ["sessions", `--limit=${long}`],
    ]) {
      const r = run(args);
      expect(r.status, args[0]).toBe(2);
      const first = r.stderr.split("\n")[0]!;
      expect(first, args[0]).toMatch(/^pi-session-lsp [a-z-]+: /);
      assertNoControls(first, `${args[0]} usage error`);
      expect(first.length, args[0]).toBeLessThan(1000);
    }
  });
});

describe("whole-number options", () => {
  // Number("") is 0 and Number(" 2") is 2: an empty --limit printed every session instead of being
  // refused, and an empty --depth folded the whole tree.
  it("--limit, --depth and --threads refuse an empty value, spaces, hex and exponents", () => {
    const folder = mkdtempSync(join(tmpdir(), "pi-numbers-"));
    const file = join(folder, "s.jsonl");
    writeFileSync(file, `${header}\n${user("u1", null)}\n`);
    for (const value of ["", " 2", "0x2", "1e3", "2 "]) {
      for (const args of [
        ["sessions", "--session-dir", folder, `--limit=${value}`],
        ["tree", `--depth=${value}`, file],
        ["check", `--threads=${value}`, file],
      ]) {
        const r = run(args);
        expect(r.status, `${args[0]} ${JSON.stringify(value)}`).toBe(2);
        expect(r.stderr, args[0]).toMatch(/whole number/);
      }
    }
    expect(run(["sessions", "--session-dir", folder, "--limit=0"]).status).toBe(0);
    expect(run(["tree", "--depth=0", file]).status).toBe(0);
    expect(run(["check", "--threads=2", file]).status).toBe(0);
  });
});

describe("output that cannot be written", () => {
  // A full disk (ENOSPC) failed the first write, and stdout's error handler threw it again: a stack
  // trace, where the reader should be told in one line, with the status of a failure.
  it("to a full disk ends with one line on stderr and status 2 in every command", () => {
    if (!existsSync("/dev/full")) throw new Error("this test needs /dev/full");
    const folder = mkdtempSync(join(tmpdir(), "pi-full-"));
    const file = join(folder, "s.jsonl");
    writeFileSync(file, `${header}\n${user("u1", null)}\n${user("u2", "u1")}\n`);
    for (const args of [
      ["check", file],
      ["context", file],
      ["context", "--format", "markdown", file],
      ["tree", file],
      ["info", file],
      ["resume-from", "--dry-run", file, "u1"],
    ]) {
      const full = openSync("/dev/full", "w");
      const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", stdio: ["ignore", full, "pipe"] });
      closeSync(full);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(/^pi-session-lsp [a-z-]+: cannot write the output: ENOSPC: no space left on device[^\n]*\n$/);
    }
  });
});

describe("messages that cannot be written", () => {
  // A write to a full stderr threw from its error event, so every command ended with 1 ("errors
  // found", "Pi would not show this tree") whatever it had found.
  it("to a full disk leave the exit status the command's own", () => {
    if (!existsSync("/dev/full")) throw new Error("this test needs /dev/full");
    const folder = mkdtempSync(join(tmpdir(), "pi-full-err-"));
    const file = join(folder, "s.jsonl");
    writeFileSync(file, `${header}\n${user("u1", null)}\n`);
    for (const [args, status] of [
      [["tree", join(folder, "missing.jsonl")], 2],
      [["context", "--leaf", "nope", file], 2],
      [["check", join(folder, "missing.jsonl")], 2],
      [["tree", file], 0],
    ] as const) {
      const full = openSync("/dev/full", "w");
      const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", full] });
      closeSync(full);
      expect(r.status, args.join(" ")).toBe(status);
    }
  });
});

describe("millions of diagnostics", () => {
  // Blank lines are what the core parses fastest; every one is a diagnostic (blank-line).
  const lines = 3_000_000;
  let file: string;
  beforeAll(() => {
    file = join(dir, "huge.jsonl");
    writeFileSync(file, `${header}\n${"\n".repeat(lines)}${user("a1", "zz")}\n`);
  });

  it("text: 200 per code, the last with how many more, and the true totals in the summary", () => {
    const r = run(["check", file]);
    expect(r.stdout.length).toBeLessThan(100_000);
    const out = r.stdout.trimEnd().split("\n");
    expect(out.filter((l) => l.includes(" hint blank-line: "))).toHaveLength(200);
    expect(out.find((l) => l.includes("more like this"))).toContain("(… and 2,999,800 more like this in this file");
    expect(out.some((l) => l.includes("error dangling-parent"))).toBe(true);
    expect(out.at(-1)).toBe(
      "1 error, 3,000,000 hints in 1 file (2,999,800 not shown: at most 200 per code and 1,000 per file are listed); 1 fixable with --fix --unsafe-fixes",
    );
    expect(r.status).toBe(1);
  });

  it("JSON: a valid object with the cap's counts, and the files after it still checked", () => {
    const r = run(["check", "--format", "json", file, join(dir, "sessions/good.jsonl")]);
    expect(r.stderr).toBe("");
    const [huge, good] = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; diagnostics: unknown[]; omitted?: Record<string, number> });
    expect(huge!.diagnostics).toHaveLength(201);
    expect(huge!.omitted).toEqual({ "blank-line": 2_999_800 });
    expect(good!.file).toBe(join(dir, "sessions/good.jsonl"));
  });
});

describe("check without the language server", () => {
  it("never loads vscode-languageserver", () => {
    const probe = `require(${JSON.stringify(join(repo, "out/main.js"))}).main(["check", ${JSON.stringify(join(dir, "sessions/good.jsonl"))}]);
process.on("exit", () => process.stderr.write(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes("vscode-languageserver")))));`;
    const r = spawnSync(process.execPath, ["-e", probe], { encoding: "utf8" });
    expect(r.stdout).toBe("No problems in 1 file\n");
    expect(JSON.parse(r.stderr)).toEqual([]);
  });

  it("loads none of the other commands", () => {
    const probe = `require(${JSON.stringify(join(repo, "out/main.js"))}).main(["check", ${JSON.stringify(join(dir, "sessions/good.jsonl"))}]);
process.on("exit", () => process.stderr.write(JSON.stringify(Object.keys(require.cache).map((k) => k.replaceAll("\\\\", "/")))));`;
    const r = spawnSync(process.execPath, ["-e", probe], { encoding: "utf8" });
    expect(r.stdout).toBe("No problems in 1 file\n");
    const loaded = JSON.parse(r.stderr) as string[];
    expect(loaded.some((k) => k.endsWith("/out/cli/check.js"))).toBe(true);
    for (const module of ["cli/contextCommand", "cli/sessions", "cli/tree", "cli/info", "cli/find", "cli/entryCommands"])
      expect(loaded.filter((k) => k.endsWith(`/out/${module}.js`))).toEqual([]);
  });
});
