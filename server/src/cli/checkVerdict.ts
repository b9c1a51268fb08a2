/**
 * What `sessions --check` says of a session from `check`'s findings on it: whether Pi can resume
 * it (Pi 1.x refuses the file), whether its next provider request fails, and how many errors and warnings `check` reports.
 * It is made inside `check`'s own run of the file (`check.ts`, on the check pool's threads), from
 * the same diagnostics `check FILE` prints, so the two always agree.
 */

import type { Diagnostic } from "vscode-languageserver";
import { type DiagnosticCode, REFUSED_CODES, REQUEST_FAILS_CODES } from "../core/base/codes";

export interface CheckVerdict {
  /** Errors and warnings, as `check FILE`'s summary counts them (past the caps too). */
  errors: number;
  warnings: number;
  /** The code of the first error that makes Pi's next provider request fail. */
  requestFails?: string;
  /** The code of the first error that makes Pi 1.x refuse to open the file (Pi 0.73/0.74 may still list and open it). */
  refused?: string;
  /** An internal failure of the check, whose findings are then incomplete. */
  failed?: string;
}

/** The verdict on `doc` from every diagnostic `check` found (`all`, in its order) and its counts by severity. */
export function checkVerdict(all: readonly Diagnostic[], bySeverity: readonly number[], failed: string | undefined): CheckVerdict {
  const verdict: CheckVerdict = { errors: bySeverity[1] ?? 0, warnings: bySeverity[2] ?? 0 };
  for (const d of all) {
    if ((d.severity ?? 1) !== 1) continue;
    const code = String(d.code) as DiagnosticCode;
    if (verdict.refused === undefined && REFUSED_CODES.has(code)) verdict.refused = code;
    else if (verdict.requestFails === undefined && REQUEST_FAILS_CODES.has(code)) verdict.requestFails = code;
  }
  if (failed !== undefined) verdict.failed = failed;
  return verdict;
}
