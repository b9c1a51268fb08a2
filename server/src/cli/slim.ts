/**
 * `pi-session-lsp slim FILE`: a smaller session that Pi resumes to the same request. The inline
 * images and large tool and bash outputs of entries Pi no longer sends (branches it does not
 * resume, and what lies behind the last compaction on the one it does) become short placeholders;
 * no entry is removed and no id changes, so `/tree`, labels and branch summaries still find every
 * entry. The command proves its result before it keeps it (`slimProof.ts`): the context and the
 * provider request Pi 1.x and Pi 0.73/0.74 build from the slimmed file are byte for byte those of
 * the original, or nothing is kept and the exit status is 1.
 *
 * Exit status: 0 slimmed (or nothing to slim, or a dry run), 1 refused (Pi cannot resume the file,
 * the proof failed, or the file changed in a way that cannot be carried over), 2 usage error or
 * unreadable file.
 */

import { statSync } from "node:fs";
import { groupDigits, plural } from "../core/base/text";
import { DEFAULT_MIN_BYTES, SLIM_KINDS, type SlimKind } from "../core/edits/slim";
import { type OptionSpecs, type OptionValues, oneFile, readCommandLine, wholeNumber } from "./commandLine";
import type { CliIo } from "./io";
import { displayPath } from "./report";
import { formatBytes } from "./sessionOutput";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { type SlimOutcome, slimSession } from "./slimRun";
import { escapeControls } from "./terminal";
import { errorText } from "./walk";

export const SLIM_USAGE = `Usage: pi-session-lsp slim [--out PATH] [--dry-run] [--min-bytes N] [--session-dir DIR] FILE
       pi-session-lsp slim --dry-run [--min-bytes N] PATH...

Makes the session FILE smaller without changing what Pi sends when it resumes it: inline images
and large tool and bash outputs that Pi no longer sends (on branches it does not resume, and
before the last compaction on the one it does) become short placeholders such as
"[slimmed: image/png of 1,234,567 bytes removed by pi-session-lsp slim]". No entry is removed
and no id changes. Before keeping the result, slim proves it: the context and the provider request
Pi 1.x and Pi 0.73/0.74 build from it must be byte for byte those of the original, or nothing is
kept. FILE is replaced in place, the original kept as FILE.bak (older backups are moved out of
Pi's folder, as check --fix keeps them); entries Pi appends meanwhile are kept.
  --out PATH      write the slimmed session to PATH (a new file) and leave FILE as it is
  --dry-run       say what would be removed, and write nothing (not proved); with several
                  files or a folder, list the sessions by what slimming would save, most first
  --min-bytes N   replace only values of at least N bytes (default ${DEFAULT_MIN_BYTES})
${FILE_OR_ID_HELP}
Exit status: 0 slimmed (or nothing to slim, or a dry run), 1 refused (Pi cannot resume FILE, the
proof failed, or FILE changed meanwhile), 2 usage error or unreadable file.`;

const OPTIONS: OptionSpecs = {
  out: { type: "string" },
  "dry-run": { type: "boolean" },
  "min-bytes": { type: "string", whole: { min: 1, unit: "bytes" } },
  "session-dir": SESSION_DIR_OPTION,
};

/** One FILE, or with `--dry-run` any number of files and folders (`--out` takes one). */
function checkWords(values: OptionValues, words: readonly string[]): string | undefined {
  if (words.length > 1 && values["dry-run"] === true && values.out === undefined) return undefined;
  if (words.length > 1) return "give one file (several files or folders only with --dry-run)";
  return oneFile(values, words);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const KIND_NAMES: Record<SlimKind, string> = { image: "images", toolOutput: "tool outputs", bashOutput: "bash outputs" };

export function runSlim(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "slim", usage: SLIM_USAGE, options: OPTIONS, check: checkWords });
  if (typeof line === "number") return line;
  if (line.values["dry-run"] === true && (line.positionals.length > 1 || isFolder(line.positionals[0]!))) {
    const minBytes = typeof line.values["min-bytes"] === "string" ? wholeNumber(line.values["min-bytes"]) : undefined;
    return (require("./slimSurvey") as typeof import("./slimSurvey")).surveySlim(line.positionals, minBytes, io);
  }
  const sessionDir = line.values["session-dir"] as string | undefined;
  return withSessionFile("slim", line.positionals[0]!, io, { version: "1.x", sessionDir }, (file) => slim(file, line.values, io));
}

function slim(file: string, values: OptionValues, io: CliIo): number {
  const shown = escapeControls(displayPath(file, io.cwd ?? process.cwd()));
  const started = performance.now();
  let outcome: SlimOutcome;
  try {
    outcome = slimSession(file, {
      ...(typeof values.out === "string" ? { out: values.out } : {}),
      dryRun: values["dry-run"] === true,
      minBytes: typeof values["min-bytes"] === "string" ? wholeNumber(values["min-bytes"])! : DEFAULT_MIN_BYTES,
    });
  } catch (error) {
    io.err(`pi-session-lsp slim: cannot slim ${shown}: ${escapeControls(errorText(error))}\n`);
    return 2;
  }
  const seconds = (performance.now() - started) / 1000;
  if (outcome.status === "refused") {
    io.err(`pi-session-lsp slim: ${shown} is left as it is: ${escapeControls(outcome.reason)}\n`);
    return 1;
  }
  io.out(slimReport(shown, outcome, seconds, io.cwd ?? process.cwd()));
  return 0;
}

/** The report of a run: what was removed, per kind, where it was, and the proof. */
export function slimReport(shown: string, outcome: Exclude<SlimOutcome, { status: "refused" }>, seconds: number, cwd: string): string {
  const { totals, plan } = outcome;
  const saved = totals.bytesIn - totals.bytesOut;
  const percent = totals.bytesIn > 0 ? ((100 * saved) / totals.bytesIn).toFixed(1) : "0.0";
  const verb = outcome.status === "dry-run" ? "would save" : "saved";
  const head =
    outcome.status === "nothing"
      ? `${shown}: nothing to slim (no image or output of at least the minimum size that Pi no longer sends); nothing written`
      : `${shown}: ${formatBytes(totals.bytesIn)} -> ${formatBytes(totals.bytesOut)}, ${verb} ${formatBytes(saved)} (${percent}%) in ${seconds.toFixed(1)} s`;
  const lines = [head];
  for (const kind of SLIM_KINDS) {
    const k = totals.kinds[kind];
    if (k.count > 0) lines.push(`  ${KIND_NAMES[kind].padEnd(13)} ${groupDigits(k.count).padStart(7)} replaced  ${formatBytes(k.saved).padStart(9)}`);
  }
  lines.push(
    `  entries Pi no longer sends: ${groupDigits(plan.offPath)} on other branches, ${groupDigits(plan.behindCompaction)} behind the last compaction; ${plural(totals.linesChanged, "line")} changed`,
  );
  if (outcome.status === "dry-run") lines.push("  dry run: nothing written, nothing proved");
  if (outcome.status === "slimmed") {
    const counts = outcome.proof.map((d) => `Pi ${d.flavor} ${d.complete ? `${groupDigits(d.messages)} messages` : "fails alike on both"}`).join(", ");
    lines.push(`  proved: the context and provider request are byte-identical to the original's (${counts})`);
    const removed = outcome.diagnosticsRemoved > 0 ? `; ${groupDigits(outcome.diagnosticsRemoved)} of its diagnostics were on what was removed` : "";
    lines.push(`  checked: no diagnostic the original has not${removed}`);
    if (outcome.backup === undefined) lines.push(`  written to ${escapeControls(displayPath(outcome.written, cwd))}`);
    else lines.push(`  backup: ${escapeControls(displayPath(outcome.backup, cwd))}`);
    if (outcome.history) lines.push(`  older backups moved to ${escapeControls(displayPath(outcome.history, cwd))}`);
    if (outcome.carried > 0) lines.push(`  ${groupDigits(outcome.carried)} bytes Pi appended meanwhile were carried over and proved`);
    if (outcome.recovered > 0) lines.push(`  ${groupDigits(outcome.recovered)} bytes Pi appended during the rename were moved into the new file`);
  }
  return `${lines.join("\n")}\n`;
}
