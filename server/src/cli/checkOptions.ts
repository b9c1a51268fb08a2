/**
 * `check`'s command line: its help, its options, and the options of a run read from them (what
 * is shown, what is fixed, on how many threads).
 */

import { defaultThreads } from "../io/poolThreads";
import type { ProjectScope } from "./checkProject";
import { type OptionSpecs, readCommandLine } from "./commandLine";
import { MAX_FILE_BYTES } from "./files";
import type { CliIo } from "./io";
import { SEVERITY_NAMES } from "./report";
import { wantsColor } from "./terminal";

export const CHECK_USAGE = `Usage: pi-session-lsp check [options] PATH...
       pi-session-lsp check [options] [--cwd DIR | --all]

Checks Pi session files (*.jsonl) and prints their diagnostics. Folders are searched recursively
for *.jsonl files (links to folders are not followed; FIFOs, devices and sockets are skipped).
With no PATH, checks the sessions of the project in the current folder (or DIR), in the folder Pi
itself lists them from, as \`pi-session-lsp sessions\` finds it (--session-dir, else
$PI_CODING_AGENT_SESSION_DIR, else sessionDir in Pi's settings, else <agent>/sessions/--<DIR>--/),
and says on stderr which folder and why; with --all, every project's sessions. A project with no
sessions is not an error (exit status 0).

Options:
  --format text|json     text (default): one line per diagnostic and a summary;
                         json: one object per file and line, LSP diagnostics with 0-based ranges
  --min-severity LEVEL   show only error, warning, information or hint (default) and above
  -q, --quiet            print the diagnostics only: no summary, no notes, no "fixed" lines
  --fix                  apply the safe fixes (marked [--fix]) and print what is left
  --unsafe-fixes         with --fix or --dry-run: apply the unsafe fixes too, and list each
  --dry-run              with or without --fix: print the fixes as a unified diff, write nothing
  --cwd DIR              with no PATH: check the sessions of the project in DIR
  --all                  with no PATH: check the sessions of every project
  --threads N            check the files of a folder on N threads (default: one per core), a
                         worker only for a core found free; the output is the same, in the
                         same order, whatever N
  --session-dir DIR      the folder Pi keeps sessions in, as Pi's own --session-dir (default:
                         $PI_CODING_AGENT_SESSION_DIR, else sessionDir in Pi's settings, else
                         Pi's sessions folder): sessions in Pi's folders are also checked for a
                         missing project folder (cwd-missing) and a folder Pi keeps for another
                         project (folder-mismatch), as the editor checks them
  -h, --help             print this help
A PATH that names no file and looks like a session id is the session \`pi --session ID\` opens
(an ambiguous start of an id is refused, with the sessions it could mean).

--fix applies the fixes that keep every entry and its content (byte order mark, final newline,
pretty-printed entries joined, missing or invalid header, bare null lines, duplicate ids, parent
cycles, v1/v2 migration). --unsafe-fixes also applies the fixes that guess, where a problem has no
safe fix: it recovers a cut-off entry (closing what was cut, keeping every character), deletes a
line that cannot be recovered, and re-links a dangling parentId to the entry above; each is listed
with its line. --fix keeps the original as FILE.bak (FILE.bak.1, ... if that exists), and
replaces FILE atomically, with its mode and owner; a link is fixed at the file it names. If the
file changes while it is being fixed (Pi appending to it), it is left as it is and the command says
so. Files that are not UTF-8, have several hard links, or are links found inside a folder are not
rewritten. At most 200 diagnostics per code and 1,000 per file are listed, the last with how many
more there are. Files are read line by line, whatever their size (a line over 256 MiB is not read);
--fix reads a file whole, up to ${MAX_FILE_BYTES / 1024 / 1024} MiB.

Exit status: 0 no errors, 1 errors found, 2 usage error, unreadable path, a file that could not be
fixed, or an internal failure (the other paths are still checked).`;

const OPTIONS: OptionSpecs = {
  format: { type: "string", choices: ["text", "json"] },
  "min-severity": { type: "string", choices: ["error", "warning", "information", "hint"] },
  quiet: { type: "boolean", short: "q" },
  fix: { type: "boolean" },
  "unsafe-fixes": { type: "boolean" },
  "dry-run": { type: "boolean" },
  threads: { type: "string", whole: { min: 1, unit: "threads" } },
  "session-dir": { type: "string" },
  cwd: { type: "string" },
  all: { type: "boolean" },
};

export interface CheckOptions {
  json: boolean;
  /** Whether the text output is coloured (decided once, from the terminal the command writes to). */
  color: boolean;
  fix: boolean;
  dryRun: boolean;
  /** `--unsafe-fixes`: the fixes that guess are applied too. */
  unsafe: boolean;
  quiet: boolean;
  /** The least severe severity shown (1 error … 4 hint). */
  minSeverity: number;
  /** `--session-dir`: the folder Pi keeps sessions in, for the folder checks. */
  sessionDir?: string | undefined;
  /** `--cwd DIR`: the project whose folders the folder checks compare with, instead of the current folder. */
  projectCwd?: string | undefined;
  /** `sessions --check`: each file's verdict is kept in its report (`checkVerdict.ts`) and nothing is printed. */
  verdict?: boolean;
}

/** What a run of `check` is given: its options, the paths to check, the threads to check them on. */
export interface CheckLine {
  options: CheckOptions;
  paths: string[];
  /** With no PATH: the project whose sessions are checked (or every project's). */
  project?: ProjectScope;
  threads: number;
}

/** Reads `check`'s command line; a number is the exit status to return at once (the help or a usage error, printed). */
export function readCheckLine(args: readonly string[], io: CliIo): CheckLine | number {
  const line = readCommandLine(args, io, {
    name: "check",
    usage: CHECK_USAGE,
    options: OPTIONS,
    check: (values, paths) =>
      paths.length > 0 && (values.all || values.cwd !== undefined)
        ? `${values.all ? "--all" : "--cwd"} checks a project's sessions and takes no PATH`
        : values.all && values.cwd !== undefined
          ? "--cwd and --all cannot be combined"
          : values["unsafe-fixes"] && !values["dry-run"] && !values.fix
            ? "--unsafe-fixes goes with --fix or --dry-run"
            : undefined,
  });
  if (typeof line === "number") return line;
  const { values, positionals } = line;
  const json = values.format === "json";
  const dryRun = values["dry-run"] === true;
  const options: CheckOptions = {
    json,
    color: !json && wantsColor(io.isTTY ?? false, io.env ?? {}),
    fix: dryRun || values.fix === true,
    dryRun,
    unsafe: values["unsafe-fixes"] === true,
    quiet: values.quiet === true,
    minSeverity: SEVERITY_NAMES.indexOf((values["min-severity"] as (typeof SEVERITY_NAMES)[number] | undefined) ?? "hint"),
    sessionDir: values["session-dir"] as string | undefined,
    projectCwd: values.cwd as string | undefined,
  };
  const threads = values.threads === undefined ? defaultThreads() : Number(values.threads);
  if (positionals.length > 0) return { options, paths: positionals, threads };
  return { options, paths: [], project: { scope: values.all ? "all" : "current", cwd: options.projectCwd }, threads };
}
