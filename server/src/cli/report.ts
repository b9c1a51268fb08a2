/**
 * How `check` reports to a person: one line per diagnostic in the `file:line:col:` form editors
 * and CI annotate, paths relative to the current folder, a `[--fix]` mark on what `--fix` mends,
 * severities in colour on a terminal, and a closing summary (as ruff and biome end theirs):
 *
 *     sessions/a.jsonl:1:1: error bom [--fix]: The file starts with a byte order mark. …
 *     3 errors, 1 warning in 2 of 27 files; 2 fixable with --fix
 *
 * And as JSON for machines: one object per file and line, written diagnostic by diagnostic so that
 * no single string has to hold a file's whole report.
 */

import { isAbsolute, relative, resolve } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import { MAX_PER_CODE, MAX_PER_FILE } from "../features/api/diagnostics";
import { escapeControls, escapeControlsKeepingLines, escapeJsonControls, type Style } from "./terminal";
import { groupDigits } from "../core/base/text";

export const SEVERITY_NAMES = ["", "error", "warning", "information", "hint"] as const;

/** The path to print: relative to `cwd` when the file is under it, else absolute; controls escaped. */
export function displayPath(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  const under = rel !== "" && rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
  return escapeControls(under ? rel : absolute);
}

/** The names of a unified diff's two sides, as git writes them: `a/` and `b/` before the path. */
export function diffNames(path: string, cwd: string): [string, string] {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  const under = rel !== "" && rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
  // An absolute path loses its leading "/" after the prefix (git writes `a/tmp/x` too), so the
  // header never reads `a//tmp/x`.
  const name = under ? rel : absolute.replace(/^\/+/, "");
  return [`a/${name}`, `b/${name}`];
}

export function severityWord(severity: number | undefined, style: Style): string {
  const word = SEVERITY_NAMES[severity ?? 1] ?? "error";
  switch (severity ?? 1) {
    case 1:
      return style.bold(style.red(word));
    case 2:
      return style.bold(style.yellow(word));
    case 3:
      return style.bold(style.blue(word));
    default:
      return style.dim(word);
  }
}

/** One diagnostic as a line of text, 1-based positions. */
export function formatDiagnostic(path: string, d: Diagnostic, fixable: boolean, style: Style): string {
  const { line, character } = d.range.start;
  const code = escapeControls(String(d.code ?? ""));
  const mark = fixable ? ` ${style.cyan("[--fix]")}` : "";
  return `${style.bold(path)}:${line + 1}:${character + 1}: ${severityWord(d.severity, style)} ${code}${mark}: ${escapeControls(typeof d.message === "string" ? d.message : d.message.value)}`;
}

/** A unified diff for a terminal: controls escaped (lines and tabs kept), `-`/`+` lines in colour. */
export function formatDiff(diff: string, style: Style): string {
  return diff
    .split("\n")
    .map((line) => {
      const shown = escapeControlsKeepingLines(line);
      if (line.startsWith("---") || line.startsWith("+++")) return style.bold(shown);
      if (line.startsWith("@@")) return style.cyan(shown);
      if (line.startsWith("-")) return style.red(shown);
      if (line.startsWith("+")) return style.green(shown);
      return shown;
    })
    .join("\n");
}

export interface Totals {
  files: number;
  /** Files with at least one diagnostic shown. */
  filesWithProblems: number;
  /** Diagnostics by severity (index 1–4), counting those the caps did not show. */
  bySeverity: number[];
  fixable: number;
  /** Diagnostics that only an unsafe fix mends (`--fix --unsafe-fixes`). */
  unsafeFixable: number;
  /** Diagnostics the caps did not show. */
  omitted: number;
  fixedFiles: number;
  fixedProblems: number;
  /** Files `--dry-run` would change. */
  wouldFix: number;
  /** Paths that could not be read, checked or written. */
  failed: number;
}

export function emptyTotals(): Totals {
  return {
    files: 0,
    filesWithProblems: 0,
    bySeverity: [0, 0, 0, 0, 0],
    fixable: 0,
    unsafeFixable: 0,
    omitted: 0,
    fixedFiles: 0,
    fixedProblems: 0,
    wouldFix: 0,
    failed: 0,
  };
}

/** Adds the counts of `from` to `into`. */
export function addTotals(into: Totals, from: Totals): void {
  into.files += from.files;
  into.filesWithProblems += from.filesWithProblems;
  for (let s = 0; s < into.bySeverity.length; s++) into.bySeverity[s]! += from.bySeverity[s]!;
  into.fixable += from.fixable;
  into.unsafeFixable += from.unsafeFixable;
  into.omitted += from.omitted;
  into.fixedFiles += from.fixedFiles;
  into.fixedProblems += from.fixedProblems;
  into.wouldFix += from.wouldFix;
  into.failed += from.failed;
}

const COUNT_NAMES: [string, string][] = [
  ["", ""],
  ["error", "errors"],
  ["warning", "warnings"],
  ["info", "infos"],
  ["hint", "hints"],
];

function count(n: number, singular: string, plural: string): string {
  return `${groupDigits(n)} ${n === 1 ? singular : plural}`;
}

/** The closing line: "3 errors, 1 warning in 2 of 27 files; 2 fixable with --fix (1 more with --fix --unsafe-fixes)". */
export function formatSummary(t: Totals, style: Style): string {
  const colours = [style.bold, style.red, style.yellow, style.blue, style.dim];
  const parts: string[] = [];
  for (let s = 1; s <= 4; s++) if (t.bySeverity[s]! > 0) parts.push(colours[s]!(count(t.bySeverity[s]!, ...COUNT_NAMES[s]!)));
  const files = t.filesWithProblems === t.files ? count(t.files, "file", "files") : `${groupDigits(t.filesWithProblems)} of ${count(t.files, "file", "files")}`;
  if (t.files === 0 && t.failed > 0) return `${count(t.failed, "path", "paths")} could not be read, checked or fixed (see above); no file was checked`;
  let line = parts.length === 0 ? `No problems in ${count(t.files, "file", "files")}` : `${parts.join(", ")} in ${files}`;
  if (t.omitted > 0) line += ` (${groupDigits(t.omitted)} not shown: at most ${MAX_PER_CODE} per code and ${groupDigits(MAX_PER_FILE)} per file are listed)`;
  if (t.fixable > 0) line += `; ${groupDigits(t.fixable)} fixable with ${style.cyan("--fix")}`;
  // As ruff words it: the fixes that guess are not counted as fixable, but said to be there.
  if (t.unsafeFixable > 0)
    line +=
      t.fixable > 0
        ? ` (${groupDigits(t.unsafeFixable)} more with ${style.cyan("--fix --unsafe-fixes")})`
        : `; ${groupDigits(t.unsafeFixable)} fixable with ${style.cyan("--fix --unsafe-fixes")}`;
  if (t.fixedFiles > 0) line += `; fixed ${count(t.fixedProblems, "problem", "problems")} in ${count(t.fixedFiles, "file", "files")}`;
  if (t.wouldFix > 0) line += `; --fix would change ${count(t.wouldFix, "file", "files")}`;
  if (t.failed > 0) line += `; ${count(t.failed, "path", "paths")} could not be read, checked or fixed (see above)`;
  return line;
}

/**
 * Writes one file's JSON report as `{…head, "diagnostics": [ … ], …tail}` and a newline, one
 * diagnostic per write. DEL, C1 and bidirectional controls are escaped too (`JSON.stringify`
 * leaves them raw); the value parsed back is the same.
 */
export function writeJsonReport(
  out: (text: string) => void,
  head: Record<string, unknown>,
  diagnostics: readonly Diagnostic[],
  tail: Record<string, unknown>,
): void {
  const fields = (o: Record<string, unknown>) =>
    Object.entries(o)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const start = fields(head);
  out(escapeJsonControls(`{${start.join(",")}${start.length > 0 ? "," : ""}"diagnostics":[`));
  for (let i = 0; i < diagnostics.length; i++) out(escapeJsonControls(`${i > 0 ? "," : ""}${JSON.stringify(diagnostics[i])}`));
  const end = fields(tail);
  out(escapeJsonControls(`]${end.length > 0 ? "," : ""}${end.join(",")}}\n`));
}
