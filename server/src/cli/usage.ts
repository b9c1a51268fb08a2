/**
 * `pi-session-lsp usage`: the tokens and cost sessions record, as Pi 1.x counts them (its `/session`
 * totals, summed across sessions), by day, model, project or session.
 *
 * With FILE|ID... it reads those files (folders searched as `check` searches them); with none, the
 * sessions of the current project (or `--cwd DIR`'s, or with `--all` every project's), found in the
 * folder Pi itself lists them from, as `check` with no PATH finds them. Each file is streamed in
 * bounded memory (`io/usageScan.ts`), on worker threads for a folder worth it (`io/scanPool.ts`),
 * and the results are added in the files' order, so that the sums do not depend on the threads.
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import { defaultThreads } from "../io/poolThreads";
import { runPool } from "../io/scanPool";
import { type FileUsage, scanUsage, type UsageGrouping, type UsageTask } from "../io/usageScan";
import { isoTime } from "../core/line/isoTime";
import { projectSessions } from "./checkProject";
import { type OptionSpecs, type OptionValues, quote, readCommandLine } from "./commandLine";
import { type CliIo, Progress } from "./io";
import { withSessionFiles } from "./sessionArg";
import { escapeControls, jsonLine } from "./terminal";
import { usageReport, renderUsage } from "./usageReport";
import { expandPaths } from "./walk";

export const USAGE_USAGE = `Usage: pi-session-lsp usage [options] [FILE|ID...]
       pi-session-lsp usage [options] [--cwd DIR | --all]

The tokens and cost Pi's sessions record, as Pi 1.x's /session counts them: every entry of the
file, on every branch and behind every compaction (assistant messages, usage entries, and the
tool results, compactions and branch summaries that carry a usage), summed across sessions and
grouped by day, model, project or session. With no FILE, the sessions of the project in the
current folder (or DIR), in the folder Pi itself lists them from (as \`check\` with no PATH finds
it), or with --all every project's; folders given are searched for *.jsonl files as \`check\`
searches them.

Options:
  --by day|model|project|session
                     the rows (default day): the UTC day of each entry's ISO "timestamp"
                     field (the entry's, not its message's); the model as Pi's /session
                     breaks cost down ("provider/model", the response model if the provider
                     named one; "Tools/summaries" for tool results, compactions and summaries);
                     the project, the header's cwd; or each session file
  --since DATE       only usage from the UTC day DATE (YYYY-MM-DD) on
  --until DATE       only usage up to the UTC day DATE included
  --json             {by, rows, total, files, skipped, notes}: each row and the total hold
                     input, output, cacheRead, cacheWrite, totalTokens and cost
  --cwd DIR          with no FILE: the sessions of the project in DIR
  --all              with no FILE: the sessions of every project
  --session-dir DIR  the folder Pi keeps sessions in, as Pi's own --session-dir
  --threads N        read the files on N threads (default: one per core); the numbers are the
                     same whatever N
  -h, --help         print this help
A FILE that names no file and looks like a session id is the session \`pi --session ID\` opens.

Without --since or --until, a session's numbers are exactly what Pi's /session shows for it. A
usage whose numbers are not all numbers (Pi's /session would throw on it, or show NaN) is left
out of the sums and counted in a note that names the file and what Pi does; files Pi does not
open (no session header) are listed as skipped, and FIFOs, devices and links to folders are
skipped as \`check\` skips them.

Exit status: 0 printed, 1 a file was skipped (Pi does not open it), 2 usage error or a path that
cannot be read.`;

const BY = ["day", "model", "project", "session"] as const;

const OPTIONS: OptionSpecs = {
  by: { type: "string", choices: BY },
  since: { type: "string" },
  until: { type: "string" },
  json: { type: "boolean" },
  cwd: { type: "string" },
  all: { type: "boolean" },
  "session-dir": { type: "string" },
  threads: { type: "string", whole: { min: 1, unit: "threads" } },
};

/** Whether `text` is a day of the calendar written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && isoTime(`${text}T00:00:00.000Z`) !== undefined;
}

function wrongLine(values: OptionValues, files: readonly string[]): string | undefined {
  if (files.length > 0 && (values.all || values.cwd !== undefined)) return `${values.all ? "--all" : "--cwd"} reads a project's sessions and takes no FILE`;
  if (values.all && values.cwd !== undefined) return "--cwd and --all cannot be combined";
  for (const name of ["since", "until"] as const) {
    const day = values[name];
    if (typeof day === "string" && !isDay(day)) return `--${name} takes a day written YYYY-MM-DD, not ${quote(day)}`;
  }
  if (typeof values.since === "string" && typeof values.until === "string" && values.since > values.until)
    return `--since ${values.since} is after --until ${values.until}: no day is left`;
  return undefined;
}

export function runUsage(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "usage", usage: USAGE_USAGE, options: OPTIONS, check: wrongLine });
  if (typeof line === "number") return line;
  const { values, positionals } = line;
  const run: UsageRun = {
    by: (values.by as UsageGrouping | undefined) ?? "day",
    since: values.since as string | undefined,
    until: values.until as string | undefined,
    json: values.json === true,
    threads: values.threads === undefined ? defaultThreads() : Number(values.threads),
  };
  const sessionDir = values["session-dir"] as string | undefined;
  if (positionals.length === 0) {
    const found = projectSessions(
      { scope: values.all ? "all" : "current", cwd: values.cwd as string | undefined },
      { sessionDir, env: io.env },
      { doing: "reading", to: "read" },
    );
    if (found.problem) io.err(`pi-session-lsp usage: ${escapeControls(found.problem)}\n`);
    io.err(`pi-session-lsp usage: ${found.empty ?? found.where}\n`);
    return readAll(found.paths, run, io, 0);
  }
  return withSessionFiles("usage", positionals, io, { version: "1.x", sessionDir }, (paths) => {
    let status = 0;
    const notes: string[] = [];
    const targets = expandPaths(paths, {
      note: (text) => notes.push(text),
      unreadable: (text) => {
        status = 2;
        io.err(`pi-session-lsp usage: ${escapeControls(text)}\n`);
      },
    });
    for (const note of notes) io.err(`pi-session-lsp usage: ${escapeControls(note)}\n`);
    return readAll(
      targets.map((t) => t.path),
      run,
      io,
      status,
    );
  });
}

interface UsageRun {
  by: UsageGrouping;
  since: string | undefined;
  until: string | undefined;
  json: boolean;
  threads: number;
}

const WORKER_SCRIPT = join(__dirname, "usageWorker.js");

async function readAll(paths: readonly string[], run: UsageRun, io: CliIo, status: number): Promise<number> {
  const tasks: UsageTask[] = paths.map((path) => ({ path, by: run.by, since: run.since, until: run.until }));
  const progress = io.errIsTTY ? new Progress("reading") : undefined;
  let files: FileUsage[];
  try {
    files = await runPool(
      tasks,
      { script: WORKER_SCRIPT, here: scanUsage },
      { threads: run.threads, sizes: sizesOf(paths), withThisThread: true, onProgress: (p) => progress?.update(p) },
    );
  } finally {
    progress?.done();
  }
  const report = usageReport(files, run);
  io.out(run.json ? jsonLine(report) : renderUsage(report, io.cwd ?? process.cwd()));
  return Math.max(status, report.skipped.length > 0 ? 1 : 0);
}

function sizesOf(paths: readonly string[]): number[] {
  return paths.map((path) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  });
}
