/**
 * `pi-session-lsp export`: a session to read or share, as Markdown or as one self-contained HTML
 * page: the branch Pi resumes (or `--leaf ID`'s), or the whole tree (`--all`), with the check's
 * findings marked on their entries.
 *
 * The file is read as `check` reads it, as a stream (`io/streamedDocument.ts`: a session of any
 * size, the text of each line dropped once its facts are kept), checked with the same checks, and
 * then written entry by entry, each entry read back from the file when its turn comes
 * (`features/export/exportSession.ts`). Nothing is written into any file but `--out`'s, which is
 * never overwritten without `--force` (`exportOutput.ts`).
 *
 * Exit status: 0 written, 1 Pi cannot open the file or build the branch, 2 usage error, unreadable
 * file, unknown `--leaf` id, `--out` refused, or an internal failure.
 */

import { createHash } from "node:crypto";
import type * as nodeFs from "node:fs";
import { resolve } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import type { PiFlavor } from "../core/pi/buildContext";
import { releaseKept } from "../core/session/semantics/memo";
import { capDiagnostics, collectDiagnostics, MAX_PER_CODE } from "../features/api/diagnostics";
import { contextDocument, exportPlan, exportSession, migrationNote, PAGE_SCRIPT } from "../features/api/export";
import { folderInputs, sessionFacts } from "../io/sessionFacts";
import type { StreamedDocument } from "../io/streamedDocument";
import { type OptionSpecs, type OptionValues, quote, readCommandLine } from "./commandLine";
import { openRefusal } from "./contextFromDocument";
import { findEntry } from "./entryArg";
import { type ExportSink, fileSink, outRefusal, stdoutSink } from "./exportOutput";
import { withStreamedSession } from "./streamedSession";
import type { CliIo } from "./io";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { escapeControls, escapeControlsKeepingLines } from "./terminal";
import { errorText } from "./walk";

/** Bytes written at most; the entries after are counted, not shown. */
export const MAX_EXPORT_BYTES = 256 * 1024 * 1024;
/** HTML larger than this (estimated from the entries' sizes) needs `--out`: a page that large is not for a terminal. */
export const MAX_STDOUT_HTML_BYTES = 16 * 1024 * 1024;
/** Parsed values kept while the file streams (as `check` keeps them). */
const VALUE_CHARS = 16_000_000;

export const EXPORT_USAGE = `Usage: pi-session-lsp export [--leaf ID | --all] [--format markdown|html] [--out PATH [--force]] [--pi 1.x|0.74] [--session-dir DIR] FILE

Writes the session FILE to read or share: the branch Pi resumes (from the file's last entry), or
the branch ending at --leaf ID, or the whole tree with --all, with the findings of check marked on
their entries.
  --format markdown   the messages as Markdown, as context --format markdown shows them (default)
  --format html       one self-contained HTML page: it loads nothing, runs no code but its own
                      (a Content-Security-Policy allows one script, by its hash), lists the
                      branches (click one to see its messages), folds tool calls and results,
                      shows thinking collapsed and images inline
  --leaf ID           the branch ending at entry ID (an id or the start of one, as tree prints it)
  --all               every entry of the tree, in file order, with the list of its branches
  --out PATH          write to PATH instead of standard output (needed for HTML larger than
                      16 MiB); an existing PATH is not replaced unless --force is given
  --force             replace PATH if it exists
${FILE_OR_ID_HELP}
Each text shows at most 1,000,000 characters (the rest is counted), an image at most 6 MB,
and the export stops after 256 MiB (the entries left are counted at the end).
Exit status: 0 written, 1 Pi cannot open the file or build the branch, 2 usage error, unreadable
file, unknown --leaf id or --out refused.`;

const OPTIONS: OptionSpecs = {
  format: { type: "string", choices: ["markdown", "html"] },
  leaf: { type: "string" },
  all: { type: "boolean" },
  out: { type: "string" },
  force: { type: "boolean" },
  "session-dir": SESSION_DIR_OPTION,
};

function checkWords(values: OptionValues, files: readonly string[]): string | undefined {
  if (values.leaf !== undefined && values.all) return "give --leaf ID or --all, not both";
  if (values.force && values.out === undefined) return "--force replaces the file --out names: give --out PATH";
  if (values.out === "") return "--out needs a path";
  if (files.length === 0) return "no file given";
  if (files.length !== 1) return `give exactly one file (given ${files.length}: ${files.slice(0, 3).map(quote).join(", ")}${files.length > 3 ? ", …" : ""})`;
  return undefined;
}

export function runExport(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "export", usage: EXPORT_USAGE, options: OPTIONS, check: checkWords, pi: true });
  if (typeof line === "number") return line;
  const { values, version } = line;
  const sessionDir = values["session-dir"] as string | undefined;
  return withSessionFile("export", line.positionals[0]!, io, { version, sessionDir }, (file) => exportFile(file, values, version, io));
}

interface Job {
  file: string;
  shown: string;
  format: "markdown" | "html";
  flavor: PiFlavor;
  out: string | undefined;
  force: boolean;
}

function exportFile(file: string, values: OptionValues, flavor: PiFlavor, io: CliIo): number {
  const out = values.out as string | undefined;
  const job: Job = {
    file,
    shown: escapeControls(file),
    format: (values.format as "markdown" | "html" | undefined) ?? "markdown",
    flavor,
    out: out === undefined ? undefined : resolve(io.cwd ?? process.cwd(), out),
    force: values.force === true,
  };
  const fail = (message: string, status = 2) => {
    io.err(`pi-session-lsp export: ${job.shown}: ${escapeControls(message)}\n`);
    return status;
  };
  const read = {
    valueChars: VALUE_CHARS,
    keepTail: true,
    utf16Refusal: () => "the file is UTF-16, not UTF-8: Pi cannot open it (Pi 1.x refuses it, Pi 0.73/0.74 overwrites it). Convert it to UTF-8 first.",
    beforeRead: (stat: nodeFs.Stats) => {
      const refused = job.out === undefined ? undefined : outRefusal(job.out, stat, job.force);
      return refused && `will not write ${job.out}: ${refused}`;
    },
  };
  try {
    return withStreamedSession(file, read, fail, (streamed) => exportOpen(job, streamed, values, io, fail));
  } catch (error) {
    return fail(`internal error: ${errorText(error)}`);
  }
}

function exportOpen(job: Job, streamed: StreamedDocument, values: OptionValues, io: CliIo, fail: (message: string, status?: number) => number): number {
  const original = streamed.doc;
  const refusal = openRefusal(original, job.flavor);
  if (refusal) return fail(refusal, 1);
  const diagnostics = findings(original, streamed.lossless, io);
  // The findings' contexts are let go before the export builds its own, entry by entry.
  releaseKept();
  let doc = original;
  try {
    doc = contextDocument(original);
  } catch (error) {
    return fail(`Pi migrates this file when it opens it, and it cannot be migrated here: ${errorText(error)}`, 1);
  }
  const note = migrationNote(original);
  if (note) io.err(`pi-session-lsp export: ${job.shown}: ${escapeControls(note.replace("This is the context", "This is the session"))}\n`);

  const a = doc.analysis;
  let leaf: Entry | undefined = a.leaf;
  if (typeof values.leaf === "string") {
    const found = findEntry(a, values.leaf);
    if (typeof found === "string") return fail(found);
    leaf = found;
  }
  const plan = exportPlan(a, { leaf, all: values.all === true, flavor: job.flavor });
  if (typeof plan === "string") return fail(plan, 1);
  if (job.format === "html" && job.out === undefined) {
    let estimate = 0;
    for (const entry of plan.entries) estimate += (entry.parsed as { textLength?: number }).textLength ?? 0;
    if (estimate > MAX_STDOUT_HTML_BYTES) {
      return fail(`the page would be about ${Math.ceil(estimate / 1024 / 1024)} MiB, more than the 16 MiB written to standard output: give --out PATH`);
    }
  }
  // Markdown keeps its line breaks and tabs, every other control shown; HTML escapes its own.
  const map = job.format === "markdown" ? escapeControlsKeepingLines : (text: string) => text;
  let sink: ExportSink;
  try {
    sink = job.out === undefined ? stdoutSink(io.out, map) : fileSink(job.out, job.force, map);
  } catch (error) {
    return fail(`cannot write ${job.out}: ${errorText(error)}`);
  }
  try {
    const scriptHash = `sha256-${createHash("sha256").update(PAGE_SCRIPT, "utf8").digest("base64")}`;
    const result = exportSession(doc, { format: job.format, flavor: job.flavor, plan, diagnostics, maxBytes: MAX_EXPORT_BYTES, scriptHash }, (t) =>
      sink.write(t),
    );
    sink.finish();
    if (result.cut > 0)
      io.err(`pi-session-lsp export: ${job.shown}: the export stopped after 256 MiB; ${result.cut} entries are counted at its end, not shown\n`);
    return 0;
  } catch (error) {
    sink.abandon();
    if (job.out !== undefined && (error as NodeJS.ErrnoException).code !== undefined) return fail(`cannot write ${job.out}: ${errorText(error)}`);
    throw error;
  }
}

/** The check's diagnostics of the file, as `check` finds them (capped per code and per file). */
function findings(doc: StreamedDocument["doc"], lossless: boolean, io: CliIo): Diagnostic[] {
  try {
    const inputs = folderInputs({ version: "1.x", cwd: io.cwd });
    const found = collectDiagnostics(doc, MAX_PER_CODE, sessionFacts(doc, inputs, { encoding: "utf-8", bom: false, lossless }));
    return capDiagnostics(found.diagnostics).diagnostics;
  } catch (error) {
    io.err(`pi-session-lsp export: the checks failed (${escapeControls(errorText(error))}); the export has no findings\n`);
    return [];
  }
}
