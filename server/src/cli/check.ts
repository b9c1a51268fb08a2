/**
 * `pi-session-lsp check`: the editor's diagnostics on the command line, for CI and fixtures.
 *
 * It reads each file, builds the same `SessionDocument` the server builds for an open editor
 * buffer, and prints what `computeDiagnostics` returns, capped as the server caps it, so the CLI
 * and the editor always agree. Every file is untrusted: reading is bounded (`files.ts`), the walk
 * follows no folder links (`walk.ts`), writing verifies the file first (`replace.ts`), and a failure
 * on one file costs that file's answer, never the other files'.
 *
 * Exit status: 1 if any error was found, 2 for a usage error, a path that cannot be read, a file
 * that cannot be fixed, or an internal failure (the other paths are still checked), 0 otherwise.
 */

import * as nodeFs from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { SessionDocument } from "../core/session/document";
import { forgetValues, keepAllValues, setValueBudget } from "../core/line/values";
import { LineTooLong } from "../io/streamedDocument";
import { capDiagnostics, collectDiagnostics, encodingDiagnostics, MAX_PER_CODE } from "../features/api/diagnostics";
import { type FolderInputs, folderInputs, sessionFacts } from "../io/sessionFacts";
import { type CheckTask, checkTargets, type FileReport } from "./checkPool";
import { type CheckVerdict, checkVerdict } from "./checkVerdict";
import { type CheckOptions, readCheckLine } from "./checkOptions";
import { type ProjectScope, projectSessions } from "./checkProject";
import { type CliIo, Progress } from "./io";
import { closeFile, openRegularFile, openSessionFile, type OpenedFile } from "./files";
import { decodeSession, isUtf16, readStreamedForCheck } from "../io/checkRead";
import type { Encoded } from "../core/base/encoding";
import { type Fixable, fixableMarks, fixedLine, severityOf, unsafeList } from "./checkOutput";
import { fixFile, type FixOutcome } from "./fix";
import { addTotals, diffNames, displayPath, emptyTotals, formatDiagnostic, formatDiff, formatSummary, writeJsonReport, type Totals } from "./report";
import { escapeControls, styleFor, type Style } from "./terminal";
import { errorText, expandPaths, type Target } from "./walk";
import { withSessionFiles } from "./sessionArg";

export function runCheck(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCheckLine(args, io);
  if (typeof line === "number") return line;
  // A progress line on a terminal's stderr, erased before anything else is printed.
  const progress = io.errIsTTY ? new Progress("checking") : undefined;
  const shown: CliIo = progress
    ? {
        ...io,
        out: (text) => {
          progress.done();
          io.out(text);
        },
        err: (text) => {
          progress.done();
          io.err(text);
        },
      }
    : io;
  if (line.project) return checkProject(line.options, line.project, line.threads, shown, progress);
  const ids = { version: "1.x" as const, sessionDir: line.options.sessionDir };
  return withSessionFiles("check", line.paths, shown, ids, (paths) => new CheckRun(line.options, shown).run(paths, line.threads, progress));
}

/** `check` with no PATH: the project's sessions (or every project's), the folder said on stderr first. */
function checkProject(options: CheckOptions, project: ProjectScope, threads: number, io: CliIo, progress: Progress | undefined): number | Promise<number> {
  const found = projectSessions(project, { sessionDir: options.sessionDir, env: io.env });
  if (found.problem) io.err(`pi-session-lsp check: ${escapeControls(found.problem)}\n`);
  if (!options.quiet) io.err(`pi-session-lsp check: ${found.empty ?? found.where}\n`);
  const run = new CheckRun(options, io);
  // The line above already says there is nothing to check; the folder walk's note would only repeat it.
  run.emptyNote = undefined;
  return run.run(found.paths, threads, progress);
}

/** Checks one file as `check` does, into a report of what it printed and counted (a worker thread's task). */
export function checkOne(task: CheckTask<CheckOptions>, onBytes: (bytes: number) => void): FileReport {
  const printed: FileReport["printed"] = [];
  const run = new CheckRun(task.options, { out: (text) => printed.push([1, text]), err: (text) => printed.push([2, text]), cwd: task.cwd });
  run.onBytes = onBytes;
  run.checkTarget(task.target);
  return { printed, totals: run.totals, status: run.status, failed: [...run.failed], ...(run.verdict ? { verdict: run.verdict } : {}) };
}

/**
 * One run of `check`: its status, its totals, and what it printed. The run over the paths given
 * checks each file with `checkTarget`, in this thread or, for a folder of many files, on a pool of
 * worker threads (`checkPool.ts`) whose per-file runs it absorbs in the files' order.
 */
export class CheckRun {
  status = 0;
  readonly totals: Totals = emptyTotals();
  readonly failed = new Set<string>();
  /** With the option `verdict`, what the check says of the (last) file checked. */
  verdict: CheckVerdict | undefined;
  private readonly style: Style;
  private readonly cwd: string;
  /** Told the bytes read as a file streams past (a progress line). */
  onBytes: ((bytes: number) => void) | undefined;
  /** The note printed when the paths hold no file to check. */
  emptyNote: string | undefined = "no *.jsonl files in the paths given";
  /** Where Pi keeps sessions, found once per run (and once per worker thread) for the folder checks. */
  private folders: FolderInputs | undefined;

  constructor(
    private readonly options: CheckOptions,
    private readonly io: CliIo,
  ) {
    this.style = styleFor(options.color);
    this.cwd = io.cwd ?? process.cwd();
  }

  run(paths: readonly string[], threads: number, progress?: Progress): number | Promise<number> {
    const targets = expandPaths(paths, {
      note: (text) => this.note(text),
      unreadable: (text) => this.fail(text),
    });
    const finish = (): number => {
      if (targets.length === 0 && this.status !== 2 && this.emptyNote) this.note(this.emptyNote);
      if (!this.options.json && !this.options.quiet) this.io.out(`${formatSummary(this.totals, this.style)}\n`);
      return this.status;
    };
    const checked = checkTargets(targets, {
      threads,
      options: this.options,
      cwd: this.cwd,
      progress,
      here: (target, onBytes) => {
        this.onBytes = onBytes;
        this.checkTarget(target);
      },
      one: checkOne,
      absorb: (report) => this.absorb(report),
    });
    return checked ? checked.then(finish) : finish();
  }

  /** Prints what a file's run printed and adds its counts (a path that failed counts once). */
  private absorb(report: FileReport): void {
    for (const [stream, text] of report.printed) (stream === 1 ? this.io.out : this.io.err)(text);
    this.status = Math.max(this.status, report.status);
    addTotals(this.totals, { ...report.totals, failed: 0 });
    for (const path of report.failed) {
      if (this.failed.has(path)) continue;
      this.failed.add(path);
      this.totals.failed++;
    }
  }

  /** Checks one file; whatever throws costs this file's answer, not the others'. */
  checkTarget(target: Target): void {
    try {
      this.checkFile(target);
    } catch (error) {
      this.fail(`internal error while checking ${target.path}: ${errorText(error)}`, target.path);
      if (this.options.json) writeJsonReport(this.io.out, { file: target.path, error: `internal error: ${errorText(error)}` }, [], {});
    }
  }

  private note(text: string): void {
    if (!this.options.quiet) this.io.err(`pi-session-lsp check: note: ${escapeControls(text)}\n`);
  }

  /** Reports a path that could not be read, checked or fixed; each path counts once in the summary. */
  private fail(text: string, path?: string): void {
    this.io.err(`pi-session-lsp check: ${escapeControls(text)}\n`);
    this.status = 2;
    if (path === undefined || !this.failed.has(path)) this.totals.failed++;
    if (path !== undefined) this.failed.add(path);
  }

  private checkFile(target: Target): void {
    if (!this.options.fix && this.checkStreamed(target)) return;
    let file: OpenedFile;
    try {
      file = openSessionFile(target.path);
    } catch (error) {
      this.fail(`cannot read ${target.path}: ${errorText(error)}`, target.path);
      return;
    }
    // Each file is read through once and dropped: its parsed values are kept until then, never parsed twice.
    keepAllValues();
    try {
      let decoded = decodeSession(file.bytes);
      let outcome: FixOutcome | undefined;
      if (this.options.fix) {
        outcome = fixFile(target, file, decoded, { dryRun: this.options.dryRun, unsafe: this.options.unsafe });
        // After a retry the file was read again: what is reported is what was last read.
        file = outcome.file;
        decoded = outcome.decoded;
      }
      const doc = outcome?.doc ?? new SessionDocument(fileUri(file.path), "jsonl", 0, decoded.text);
      this.report(target, doc, decoded, outcome);
    } finally {
      closeFile(file);
      forgetValues();
      setValueBudget(undefined);
    }
  }

  /**
   * Checks a UTF-8 file as a stream of lines (any size, bounded memory; see
   * `io/streamedDocument.ts`); false for a UTF-16 file, which is decoded whole instead.
   */
  private checkStreamed(target: Target): boolean {
    let fd: number;
    try {
      fd = openRegularFile(target.path).fd;
    } catch (error) {
      this.fail(`cannot read ${target.path}: ${errorText(error)}`, target.path);
      return true;
    }
    try {
      if (isUtf16(fd)) return false;
      let streamed: ReturnType<typeof readStreamedForCheck>;
      try {
        streamed = readStreamedForCheck(fd, fileUri(target.path), this.onBytes);
      } catch (error) {
        if (!(error instanceof LineTooLong) && (error as NodeJS.ErrnoException).code === undefined) throw error;
        this.fail(`cannot read ${target.path}: ${errorText(error)}`, target.path);
        return true;
      }
      this.report(target, streamed.doc, { encoding: "utf-8", bom: false, lossless: streamed.lossless }, undefined);
      return true;
    } finally {
      nodeFs.closeSync(fd);
      forgetValues();
      setValueBudget(undefined);
    }
  }

  private report(target: Target, doc: SessionDocument, decoded: Encoded, outcome: FixOutcome | undefined): void {
    const { options, io, style } = this;
    const shownPath = displayPath(target.path, this.cwd);
    if (outcome?.failure) this.fail(`cannot fix ${target.path}: ${outcome.failure}; the file is unchanged`, target.path);
    if (outcome?.notice && !options.quiet) io.err(`pi-session-lsp check: ${escapeControls(`${target.path}: ${outcome.notice}`)}\n`);

    let all: Diagnostic[];
    let overflow = new Map<string, number>();
    let checkError: string | undefined;
    try {
      // Past the cap per code, diagnostics are only counted, so a file of millions of broken lines stays cheap.
      this.folders ??= folderInputs({ version: "1.x", sessionDir: options.sessionDir, cwd: options.projectCwd });
      const found = collectDiagnostics(doc, MAX_PER_CODE, sessionFacts(doc, this.folders, decoded));
      overflow = found.overflow;
      all = found.diagnostics;
      this.totals.files++;
    } catch (error) {
      checkError = `internal error: ${errorText(error)}`;
      this.fail(`internal error while checking ${target.path}: ${errorText(error)} (its other diagnostics cannot be listed)`, target.path);
      all = encodingDiagnostics(decoded);
    }
    const wanted = options.minSeverity >= 4 ? all : all.filter((d) => (d.severity ?? 1) <= options.minSeverity);
    const unbuilt = new Map([...overflow].filter(([code]) => severityOf(code) <= options.minSeverity));
    const { diagnostics, omitted } = capDiagnostics(wanted, { overflow: unbuilt });
    for (const [code, n] of unbuilt) this.totals.bySeverity[severityOf(code)]! += n;
    if (options.verdict) {
      // Only the verdict is wanted: no fix is looked for, nothing is printed.
      for (const d of wanted) this.totals.bySeverity[d.severity ?? 1]!++;
      this.verdict = checkVerdict(all, this.totals.bySeverity, checkError);
      return;
    }
    // After --fix only the unsafe fixes can be left, and they are counted, not marked.
    const marks: Fixable[] =
      (options.fix && options.unsafe) || !decoded.lossless || !target.writable ? diagnostics.map(() => false) : fixableMarks(doc, diagnostics);
    const fixable = options.fix ? marks.map((f) => (f === "unsafe" ? f : false)) : marks;

    for (const d of wanted) this.totals.bySeverity[d.severity ?? 1]!++;
    if (diagnostics.length > 0) this.totals.filesWithProblems++;
    this.totals.fixable += fixable.filter((f) => f === "safe").length;
    this.totals.unsafeFixable += fixable.filter((f) => f === "unsafe").length;
    for (const n of omitted.values()) this.totals.omitted += n;
    if (outcome?.fixed && outcome.replaced) {
      this.totals.fixedFiles++;
      for (const n of outcome.fixed.values()) this.totals.fixedProblems += n;
    }
    if (outcome?.diff) this.totals.wouldFix++;
    if (this.status === 0 && all.some((d) => (d.severity ?? 1) === 1)) this.status = 1;

    if (options.json) {
      const fixed = outcome?.fixed ? Object.fromEntries(outcome.fixed) : undefined;
      const head = {
        file: target.path,
        encoding: decoded.encoding === "utf-8" ? undefined : decoded.encoding,
        fixed,
        backup: outcome?.replaced?.backup,
        fixedFile: outcome?.replaced?.viaLink ? outcome.replaced.target : undefined,
        recovered: outcome?.replaced?.recovered || undefined,
        unsafeFixes: outcome?.unsafe && (outcome.replaced || outcome.diff) ? unsafeList(outcome.unsafe) : undefined,
        diff: outcome?.diff?.(...diffNames(target.path, this.cwd)),
        notFixed: outcome?.failure ?? outcome?.notice,
        error: checkError,
      };
      writeJsonReport(io.out, head, diagnostics, { omitted: omitted.size > 0 ? Object.fromEntries(omitted) : undefined });
      return;
    }
    if (outcome?.diff) {
      const [a, b] = diffNames(target.path, this.cwd);
      io.out(formatDiff(outcome.diff(a, b), style));
    }
    if (outcome?.fixed && outcome.replaced && !options.quiet) io.out(`${fixedLine(shownPath, outcome, this.cwd)}\n`);
    if (outcome?.unsafe && (outcome.replaced || outcome.diff) && !options.quiet) {
      const verb = outcome.diff ? "would apply" : "applied";
      for (const u of unsafeList(outcome.unsafe))
        io.out(
          `${style.bold(u.line === null ? shownPath : `${shownPath}:${u.line}`)}: ${verb} an unsafe fix (${escapeControls(u.code)}): ${escapeControls(u.summary)}\n`,
        );
    }
    for (let i = 0; i < diagnostics.length; i++) io.out(`${formatDiagnostic(shownPath, diagnostics[i]!, fixable[i] === "safe", style)}\n`);
  }
}

function fileUri(path: string): string {
  return pathToFileURL(resolve(path)).href;
}
