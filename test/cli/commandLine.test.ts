/**
 * Every command reads its line through `cli/commandLine.ts`: the same help, the same messages for
 * the same mistakes, whatever the command. The commands run in this process (a usage error or the
 * help never touches a file), and `help COMMAND` through the program.
 */

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../server/src/cli/check";
import { type CommandSpec, readCommandLine } from "../../server/src/cli/commandLine";
import { runContext } from "../../server/src/cli/contextCommand";
import { runDropFromContext, runFork, runResumeFrom } from "../../server/src/cli/entryCommands";
import { runExport } from "../../server/src/cli/export";
import { runFind } from "../../server/src/cli/find";
import { runInfo } from "../../server/src/cli/info";
import { runDoctor } from "../../server/src/cli/doctor";
import { runRedact } from "../../server/src/cli/redact";
import { runRestore } from "../../server/src/cli/restore";
import type { CliIo } from "../../server/src/cli/io";
import { runSessions } from "../../server/src/cli/sessions";
import { runTree } from "../../server/src/cli/tree";
import { ensureBuilt } from "../helpers/lspClient";
import { WAIT_MS } from "../helpers/limits";

type Run = (args: readonly string[], io: CliIo) => number | Promise<number>;

const COMMANDS: Record<string, Run> = {
  check: runCheck,
  context: runContext,
  export: runExport,
  sessions: runSessions,
  find: runFind,
  tree: runTree,
  info: runInfo,
  doctor: runDoctor,
  "resume-from": runResumeFrom,
  "drop-from-context": runDropFromContext,
  fork: runFork,
  restore: (args, io) => runRestore(args, io),
  redact: runRedact,
};

async function run(name: string, args: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const status = await COMMANDS[name]!(args, { out: (t) => (stdout += t), err: (t) => (stderr += t), isTTY: false, errIsTTY: false, env: {} });
  return { status, stdout, stderr };
}

describe("every command's line", () => {
  it("answers --help and -h with its usage on stdout", async () => {
    for (const name of Object.keys(COMMANDS)) {
      for (const flag of ["--help", "-h"]) {
        const r = await run(name, [flag]);
        expect(r.status, `${name} ${flag}`).toBe(0);
        expect(r.stdout, `${name} ${flag}`).toMatch(new RegExp(`^Usage: pi-session-lsp ${name} `));
        expect(r.stderr, `${name} ${flag}`).toBe("");
      }
    }
  });

  it("names an unknown option, with the one that was probably meant, and where the options are", async () => {
    const typos: Record<string, [string, string]> = {
      check: ["--quite", "--quiet"],
      context: ["--lef", "--leaf"],
      sessions: ["--limt", "--limit"],
      find: ["--idz", "--ids"],
      tree: ["--dpth", "--depth"],
      info: ["--jsn", "--json"],
      doctor: ["--frok", "--fork"],
      "resume-from": ["--dry-rn", "--dry-run"],
      "drop-from-context": ["--dryrun", "--dry-run"],
      fork: ["--otu", "--out"],
      redact: ["--dry", "--dry-run"],
    };
    for (const [name, [typo, meant]] of Object.entries(typos)) {
      const r = await run(name, [typo, "x", "y"]);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toBe(
        `pi-session-lsp ${name}: unknown option "${typo}" (did you mean ${meant}?)\nRun "pi-session-lsp ${name} --help" for the options.\n`,
      );
      expect(r.stdout, name).toBe("");
    }
  });

  it("says the same of a forgotten value, a value that takes none, a wrong choice and a number that is not one", async () => {
    for (const [name, args, said] of [
      ["fork", ["--leaf", "--out", "x"], 'pi-session-lsp fork: --leaf needs a value, but the next word is the option "--out"'],
      ["fork", ["x", "--out"], "pi-session-lsp fork: --out needs a value\n"],
      ["info", ["--json=yes", "x"], 'pi-session-lsp info: --json takes no value (given "--json=yes")'],
      ["tree", ["--filter", "some", "x"], 'pi-session-lsp tree: --filter must be default or no-tools or user-only or labeled-only or all, not "some"'],
      ["tree", ["--depth=-1", "x"], 'pi-session-lsp tree: --depth takes a whole number, not "-1"'],
      ["sessions", ["--limit", "ten"], 'pi-session-lsp sessions: --limit takes a whole number, not "ten"'],
      ["find", ["--pi", "2", "x"], 'pi-session-lsp find: --pi must be 1.x or 0.74, not "2"'],
      ["sessions", ["stray"], 'pi-session-lsp sessions: unexpected argument "stray"'],
    ] as const) {
      const r = await run(name, args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(said);
      expect(r.stderr, args.join(" ")).toContain(`Run "pi-session-lsp ${name} --help" for the options.`);
      expect(r.stderr, args.join(" ")).not.toContain("Usage:");
    }
  });

  it("shows the usage to a command given no words", async () => {
    for (const [name, said] of [
      ["context", "no file given"],
      ["find", "nothing to find"],
      ["tree", "no file given"],
      ["info", "no file given"],
      ["resume-from", "give the session FILE and the entry ID"],
      ["drop-from-context", "give the session FILE and the entry ID"],
      ["fork", "no file given"],
    ] as const) {
      const r = await run(name, []);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(new RegExp(`^pi-session-lsp ${name}: ${said}\nUsage: pi-session-lsp ${name} `));
    }
  });
});

describe("readCommandLine", () => {
  const capture = () => {
    const said: string[] = [];
    return { said, io: { out: (t: string) => said.push(t), err: (t: string) => said.push(t) } satisfies CliIo };
  };
  const command: CommandSpec = { name: "demo", usage: "Usage: demo", options: { n: { type: "string", whole: { min: 2 } }, b: { type: "boolean" } }, pi: true };

  it("reads --pi as Pi's versions, 1.x unless told", () => {
    expect(readCommandLine(["a"], capture().io, command)).toMatchObject({ version: "1.x", positionals: ["a"] });
    expect(readCommandLine(["--pi", "0.73"], capture().io, command)).toMatchObject({ version: "0.74" });
    expect(readCommandLine(["--pi=1"], capture().io, command)).toMatchObject({ version: "1.x" });
    const { io, said } = capture();
    expect(readCommandLine(["--pi", "0.74"], io, { ...command, pi: false })).toBe(2);
    expect(said.join("")).toContain('unknown option "--pi"');
  });

  it("returns the last value of each option, with no inherited ones, and takes -- before a word that starts with a dash", () => {
    const line = readCommandLine(["--n", "2", "-b", "--n=30", "--", "-x"], capture().io, command);
    expect(line).toMatchObject({ values: { n: "30", b: true }, positionals: ["-x"] });
    const values = (line as { values: object }).values;
    expect(Object.getPrototypeOf(values)).toBe(null);
    const { io, said } = capture();
    expect(readCommandLine(["--constructor"], io, command)).toBe(2);
    expect(said.join("")).toContain('unknown option "--constructor"');
  });

  it("checks a whole number's least value, and runs the command's check after --help", () => {
    const { io, said } = capture();
    expect(readCommandLine(["--n", "1"], io, command)).toBe(2);
    expect(said.join("")).toBe('pi-session-lsp demo: --n takes a whole number, 2 or more, not "1"\nRun "pi-session-lsp demo --help" for the options.\n');
    const check = () => "never reached";
    const help = capture();
    expect(readCommandLine(["-h"], help.io, { ...command, check })).toBe(0);
    expect(help.said).toEqual(["Usage: demo\n"]);
  });
});

describe("help COMMAND", () => {
  const bin = join(__dirname, "../../bin/pi-session-lsp.js");
  const program = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: WAIT_MS });

  it("prints what COMMAND --help prints, and names a command that does not exist", async () => {
    await ensureBuilt();
    const help = program("help", "tree");
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(program("tree", "--help").stdout);
    expect(help.stdout).toMatch(/^Usage: pi-session-lsp tree /);
    expect(program("help").stdout).toContain("pi-session-lsp help COMMAND");
    // An option after help is not run: --stdio would start the language server.
    expect(program("help", "--stdio").stdout).toContain("pi-session-lsp help COMMAND");
    const typo = program("help", "chekc");
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('pi-session-lsp: unknown command "chekc" (did you mean check?)');
  });
});

describe("the tool's --help", () => {
  const bin = join(__dirname, "../../bin/pi-session-lsp.js");
  const program = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 20_000 });

  it("lists every command in one line each, and no command's options; help COMMAND gives each one's", () => {
    ensureBuilt();
    const help = program("--help");
    expect(help.status).toBe(0);
    const lines = help.stdout.split("\n");
    for (const name of Object.keys(COMMANDS)) {
      const listed = lines.filter((line) => line.startsWith(`  ${name} `));
      expect(listed, name).toHaveLength(1);
      const own = program("help", name);
      expect(own.status, name).toBe(0);
      expect(own.stdout, name).toMatch(new RegExp(`^Usage: pi-session-lsp ${name} `));
      expect(own.stdout, name).toBe(program(name, "--help").stdout);
    }
    // The options are each command's own help: the tool's help names none of check's or context's.
    expect(help.stdout).not.toContain("--min-severity");
    expect(help.stdout).not.toContain("--stage");
    expect(lines.length).toBeLessThan(30);
    expect(program("-h").stdout).toBe(help.stdout);
  });
});
