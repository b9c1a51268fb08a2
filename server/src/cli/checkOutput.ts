/**
 * What `check` says about one file besides its diagnostics: which diagnostics a flag would fix,
 * the unsafe fixes applied (or that `--dry-run` would apply), and the line `--fix` prints for a
 * fixed file.
 */

import type { Diagnostic } from "vscode-languageserver";
import { CODES, type DiagnosticCode } from "../core/base/codes";
import type { SessionDocument } from "../core/session/document";
import { quickFixes, type UnsafeFixApplied } from "../features/fixes";
import { needsMigration } from "../features/migration";
import type { FixOutcome } from "./fix";
import { displayPath } from "./report";
import { escapeControls } from "./terminal";
import { groupDigits } from "../core/base/text";

/** The unsafe fixes applied, with 1-based lines of the file as it was read (null for a line a fix added). */
export function unsafeList(applied: readonly UnsafeFixApplied[]): { line: number | null; code: string; summary: string }[] {
  return applied.map((u) => ({ line: u.line < 0 ? null : u.line + 1, code: u.code, summary: u.summary }));
}

/** What `--fix` did to a file, in one line. */
export function fixedLine(shownPath: string, outcome: FixOutcome, cwd: string): string {
  const summary = [...outcome.fixed!].map(([code, count]) => (count > 1 ? `${code} ×${count}` : code)).join(", ");
  const replaced = outcome.replaced!;
  const linked = replaced.viaLink ? ` (in ${displayPath(replaced.target, cwd)}, the file it links to)` : "";
  let line = `${shownPath}: fixed ${escapeControls(summary)}${linked}; the original is saved as ${displayPath(replaced.backup, cwd)} (pi-session-lsp restore puts it back)`;
  if (replaced.history) line += `; older backups were moved to ${displayPath(replaced.history, cwd)}`;
  if (replaced.recovered > 0) {
    line += `; ${groupDigits(replaced.recovered)} bytes appended to it during the replacement were kept at its end`;
    if (replaced.reordered) line += " (after an entry appended later: check the order of the last lines)";
  }
  return line;
}

/** Per diagnostic, whether `--fix` would mend it (it has a safe fix), or only `--fix --unsafe-fixes`. */
export function fixableMarks(doc: SessionDocument, diagnostics: readonly Diagnostic[]): Fixable[] {
  try {
    let migration: boolean | undefined;
    return quickFixes(doc, diagnostics).map(({ diagnostic, fixes }): Fixable => {
      const code = String(diagnostic.code);
      if (code === "old-version" || code === "invalid-version") return (migration ??= needsMigration(doc)) ? "safe" : false;
      return fixes.some((f) => f.safe) ? "safe" : fixes.length > 0 ? "unsafe" : false;
    });
  } catch {
    // The marks are a courtesy: without them the diagnostics are still all there.
    return diagnostics.map(() => false);
  }
}

export type Fixable = "safe" | "unsafe" | false;

/** The LSP severity (1 error … 4 hint) of a diagnostic code. */
export function severityOf(code: string): number {
  const level = Object.hasOwn(CODES, code) ? CODES[code as DiagnosticCode].severity : "error";
  return { error: 1, warning: 2, information: 3, hint: 4 }[level];
}
