/**
 * The command line entry point: `--stdio` starts the language server, `check` runs the checker,
 * `context` prints the context Pi builds; `sessions`, `find`, `tree`, `info` and `usage` read Pi's sessions;
 * `resume-from`, `drop-from-context` and `fork` are the entry actions of the editor.
 *
 * The language server library is loaded only for `--stdio`: `check` and `context` never use it,
 * and loading it costs tens of milliseconds on every run (the type-only imports elsewhere are free).
 * Likewise each command's modules are loaded only when that command runs.
 */

import { closest, quote } from "./cli/commandLine";
import type { CliIo } from "./cli/io";
import { escapeControls } from "./cli/terminal";
import { VERSION } from "./version";

/** Each command in one line of the tool's help: its words and what it answers. */
const SUMMARIES: readonly (readonly [string, string])[] = [
  ["check PATH|ID...", "check sessions for what Pi would skip, hang on or overwrite"],
  ["context FILE|ID", "print the context Pi builds when it resumes a session, or the request it sends"],
  ["export FILE|ID", "a branch or the whole tree as Markdown or one HTML page"],
  ["sessions", "Pi's sessions for this folder, as /resume lists them"],
  ["find ID|PREFIX|TEXT", "which session pi --session opens; search names and messages"],
  ["tree FILE|ID", "the session tree as /tree draws it, with each entry's id"],
  ["info FILE|ID", "a one-screen summary of a session"],
  ["usage [FILE|ID...]", "tokens and cost as Pi's /session counts them, by day or model"],
  ["doctor FILE|ID", "what Pi did with a session, what its next request breaks, what to do"],
  ["resume-from FILE|ID ENTRY", "make Pi resume from an entry"],
  ["drop-from-context FILE|ID ENTRY", "leave a message out of Pi 1.x's context"],
  ["fork FILE|ID", "a new session from the root to an entry (--leaf ENTRY)"],
  ["restore FILE|ID", "put back FILE.bak, the file before the last change"],
  ["slim FILE|ID", "shrink a session without changing what Pi sends (proved)"],
  ["diff FILE|ID ENTRY [ENTRY]", "what the model saw on two branches"],
  ["redact FILE|ID", "a copy with every credential replaced, proved the same session otherwise"],
  ["help COMMAND", "the options of COMMAND (the same as COMMAND --help)"],
  ["--stdio", "start the language server on stdin/stdout"],
  ["--version", "print the version"],
];

/**
 * The tool's help: every command in one line, not any command's options, which `COMMAND --help`
 * gives; so it fits a screen and loads no command's module.
 */
function usage(): string {
  const width = Math.max(...SUMMARIES.map(([words]) => words.length)) + 2;
  const lines = SUMMARIES.map(([words, what]) => `  ${words.padEnd(width)}${what}`);
  return `pi-session-lsp ${VERSION}: a language server and checker for Pi session files (*.jsonl)

Usage: pi-session-lsp COMMAND [options] ...

${lines.join("\n")}

FILE|ID is a session file, or a session id or the start of one, found as pi --session finds it.
ENTRY is an entry id or the start of one, as tree prints it.
Run "pi-session-lsp help COMMAND" (or "pi-session-lsp COMMAND --help") for a command's options.`;
}

type Command = (args: readonly string[], io: CliIo) => number | Promise<number>;

/**
 * Each command's module is loaded when it runs, not before: a run of `check` compiles only what
 * checking needs (about 40 fewer modules than every command's, a few tens of milliseconds).
 */
const COMMANDS: Record<string, () => Command> = {
  check: () => (require("./cli/check") as typeof import("./cli/check")).runCheck,
  context: () => (require("./cli/contextCommand") as typeof import("./cli/contextCommand")).runContext,
  export: () => (require("./cli/export") as typeof import("./cli/export")).runExport,
  sessions: () => (require("./cli/sessions") as typeof import("./cli/sessions")).runSessions,
  tree: () => (require("./cli/tree") as typeof import("./cli/tree")).runTree,
  info: () => (require("./cli/info") as typeof import("./cli/info")).runInfo,
  usage: () => (require("./cli/usage") as typeof import("./cli/usage")).runUsage,
  doctor: () => (require("./cli/doctor") as typeof import("./cli/doctor")).runDoctor,
  find: () => (require("./cli/find") as typeof import("./cli/find")).runFind,
  "resume-from": () => (require("./cli/entryCommands") as typeof import("./cli/entryCommands")).runResumeFrom,
  "drop-from-context": () => (require("./cli/entryCommands") as typeof import("./cli/entryCommands")).runDropFromContext,
  fork: () => (require("./cli/entryCommands") as typeof import("./cli/entryCommands")).runFork,
  restore: () => (require("./cli/restore") as typeof import("./cli/restore")).runRestore,
  slim: () => (require("./cli/slim") as typeof import("./cli/slim")).runSlim,
  diff: () => (require("./cli/diff") as typeof import("./cli/diff")).runDiff,
  redact: () => (require("./cli/redact") as typeof import("./cli/redact")).runRedact,
};

export function main(args: readonly string[]): void {
  const [command, ...rest] = args;
  if (command === "help") {
    // `help COMMAND` is `COMMAND --help`. An option after `help` is not run (`help --stdio` would start the server).
    const topic = rest[0];
    if (topic === undefined || topic.startsWith("-")) main(["--help"]);
    else if (Object.hasOwn(COMMANDS, topic)) main([topic, "--help"]);
    else unknownCommand(topic);
    return;
  }
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command]!() : undefined;
  if (run) {
    // A reader that stops early (`check … | head`) closes the pipe; that ends the output, not the
    // program with a stack trace. Any other failure to write (a full disk, an I/O error) loses
    // output the reader expected, so it is said in one line, with the status of a failure.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      process.stderr.write(`pi-session-lsp ${command}: cannot write the output: ${escapeControls(error.message)}\n`);
      process.exit(2);
    });
    // A message that cannot be written (stderr on a full disk) cannot be reported either; the
    // command goes on, and its exit status still says what it found.
    process.stderr.on("error", () => {});
    const io: CliIo = {
      out: (t: string) => process.stdout.write(t),
      err: (t: string) => process.stderr.write(t),
      isTTY: process.stdout.isTTY === true,
      errIsTTY: process.stderr.isTTY === true,
      env: process.env,
      cwd: process.cwd(),
    };
    // Commands catch failures per file; this is the last line of defence, and says what failed
    // without a stack trace, with the status of an internal failure (1 would read "errors found").
    const internal = (error: unknown) => {
      process.stderr.write(
        `pi-session-lsp ${command}: internal error: ${escapeControls(error instanceof Error ? `${error.name}: ${error.message}` : String(error))}\n`,
      );
      return 2;
    };
    let status: number | Promise<number>;
    try {
      status = run(rest, io);
    } catch (error) {
      status = internal(error);
    }
    // Let stdout drain before exiting: output to a pipe is written asynchronously. The session
    // commands read files on worker threads and answer later.
    if (typeof status === "number") process.exitCode = status;
    else
      status.then(
        (code) => (process.exitCode = code),
        (error: unknown) => (process.exitCode = internal(error)),
      );
    return;
  }
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (command === "--help" || command === "-h") {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  if (args.includes("--stdio")) {
    startLanguageServer();
    return;
  }
  if (command === undefined) {
    process.stderr.write(`${usage()}\n`);
    process.exitCode = 2;
  } else {
    unknownCommand(command);
  }
}

/** Says that `command` names no command, with the one that was probably meant; exit status 2. */
function unknownCommand(command: string): void {
  const near = closest(command.replace(/^-+/, ""), [...Object.keys(COMMANDS), "stdio", "version", "help"]);
  const hint = near === undefined ? "" : ` (did you mean ${Object.hasOwn(COMMANDS, near) ? near : `--${near}`}?)`;
  const what = command.startsWith("-") ? "option" : "command";
  process.stderr.write(
    `pi-session-lsp: unknown ${what} ${quote(command)}${hint}\nCommands: check, context, export, sessions, find, tree, info, usage, doctor, slim, diff, resume-from, drop-from-context, fork, restore, redact, help, --stdio, --version. Run "pi-session-lsp --help" for usage.\n`,
  );
  process.exitCode = 2;
}

function startLanguageServer(): void {
  // Handlers already catch their own errors; this is the last line of defence, so that a failed
  // promise somewhere in the protocol library is logged instead of ending the server.
  process.on("unhandledRejection", (reason) => process.stderr.write(`pi-session-lsp: unhandled rejection: ${String(reason)}\n`));
  process.on("uncaughtException", (error) => process.stderr.write(`pi-session-lsp: uncaught exception: ${error.stack ?? String(error)}\n`));
  // Loaded only here, so that `check` and `context` do not pay for the protocol library.
  (require("./lsp/stdio") as typeof import("./lsp/stdio")).startStdioServer();
}
