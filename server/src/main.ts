/**
 * The command line entry point: `--stdio` starts the language server, `check` runs the checker,
 * `context` prints the context Pi builds.
 */

import { CHECK_USAGE, runCheck, type CliIo } from "./cli/check";
import { CONTEXT_USAGE, runContext } from "./cli/context";
import { VERSION } from "./version";

const USAGE = `pi-session-lsp ${VERSION}: a language server for Pi session files (*.jsonl)

Usage:
  pi-session-lsp --stdio                       start the language server on stdin/stdout
  pi-session-lsp check [--format text|json] [--fix [--dry-run]] PATH...
  pi-session-lsp context [--leaf ID] [--format json|markdown] [--pi 1.x|0.74] FILE
  pi-session-lsp --version

${CHECK_USAGE}

${CONTEXT_USAGE}`;

const COMMANDS: Record<string, (args: readonly string[], io: CliIo) => number> = { check: runCheck, context: runContext };

export function main(args: readonly string[]): void {
  const [command, ...rest] = args;
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run) {
    // A reader that stops early (`check … | head`) closes the pipe; that ends the output, not the
    // program with a stack trace.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
    const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
    const status = run(rest, io);
    // Let stdout drain before exiting: output to a pipe is written asynchronously.
    process.exitCode = status;
    return;
  }
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.includes("--stdio")) {
    // Handlers already catch their own errors; this is the last line of defence, so that a failed
    // promise somewhere in the protocol library is logged instead of ending the server.
    process.on("unhandledRejection", (reason) => process.stderr.write(`pi-session-lsp: unhandled rejection: ${String(reason)}\n`));
    process.on("uncaughtException", (error) => process.stderr.write(`pi-session-lsp: uncaught exception: ${error.stack ?? String(error)}\n`));
    // Loaded only here, so that `check` and `context` do not pay for the protocol library.
    (require("./lsp/stdio") as typeof import("./lsp/stdio")).startStdioServer();
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}
