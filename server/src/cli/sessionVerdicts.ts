/**
 * `sessions --check`: `check`'s run on each listed session, on the check pool's threads
 * (`checkPool.ts`, bounded in memory: one file per task, the verdicts kept, nothing printed), and
 * what the listing says of each: Pi cannot resume it, its next provider request fails, or how many
 * errors `check` finds in it.
 */

import type { ListedSession } from "../core/disk/list";
import { defaultThreads } from "../io/poolThreads";
import type { CheckOptions } from "./checkOptions";
import { checkTargets, type FileReport } from "./checkPool";
import type { CheckVerdict } from "./checkVerdict";
import { Progress } from "./io";

/** The options of `check` that keep each file's verdict and print nothing (every severity counted, as `check FILE` counts). */
function verdictOptions(sessionDir: string | undefined): CheckOptions {
  return { json: false, color: false, fix: false, dryRun: false, unsafe: false, quiet: true, minSeverity: 4, sessionDir, verdict: true };
}

/** Checks `sessions` as `check` checks each file, in parallel; the verdicts come back in the same order. */
export async function checkSessions(sessions: readonly ListedSession[], sessionDir: string | undefined, cwd: string): Promise<CheckVerdict[]> {
  // `check`'s module (and the features it loads) is required only when sessions are checked.
  const { checkOne } = require("./check") as typeof import("./check");
  const options = verdictOptions(sessionDir);
  const verdicts: CheckVerdict[] = [];
  const take = (report: FileReport) => verdicts.push(report.verdict ?? { errors: 0, warnings: 0, failed: failureOf(report) });
  const targets = sessions.map((s) => ({ path: s.info.path, writable: false }));
  const progress = new Progress("checking sessions");
  try {
    await checkTargets(targets, {
      threads: defaultThreads(),
      options,
      cwd,
      progress,
      here: (target, onBytes) => take(checkOne({ target, options, cwd }, onBytes)),
      one: checkOne,
      absorb: take,
    });
  } finally {
    progress.done();
  }
  return verdicts;
}

/** What a file's check printed on stderr when it could not be checked (it cannot be read, or the check failed). */
function failureOf(report: FileReport): string {
  const text = report.printed
    .filter(([stream]) => stream === 2)
    .map(([, t]) => t.replace(/^pi-session-lsp check: /, "").trim())
    .join("; ");
  return text === "" ? "it could not be checked" : text;
}

/** The mark of the text listing before a session's title; "" for a session `check` finds no error in. */
export function verdictMark(s: ListedSession, verdict: CheckVerdict | undefined): string {
  if (s.leafLoops) return "✗ cannot resume  ";
  if (!verdict) return "";
  if (verdict.refused) return "✗ Pi 1.x refuses it  ";
  if (verdict.failed !== undefined) return "? not checked  ";
  if (verdict.requestFails) return `! next request fails: ${verdict.requestFails}  `;
  return verdict.errors > 0 ? `${verdict.errors} error${verdict.errors === 1 ? "" : "s"}  ` : "";
}

/** The `check` object of a session's `--json` details. */
export function verdictJson(verdict: CheckVerdict): Record<string, unknown> {
  return { ...verdict };
}

/** The notes under the listing: what the marks mean and what to do next; without `--check`, that it exists. */
export function verdictNotes(checked: ReadonlyMap<ListedSession, CheckVerdict> | undefined, listed: number): string[] {
  if (!checked) {
    return listed > 0 ? ["", "`pi-session-lsp sessions --check` checks each session too, and marks those Pi cannot resume or whose next request fails."] : [];
  }
  const verdicts = [...checked.entries()];
  const refused = verdicts.filter(([s, v]) => !s.leafLoops && v.refused);
  const failing = verdicts.filter(([s, v]) => !s.leafLoops && !v.refused && v.requestFails);
  const erring = verdicts.filter(([s, v]) => !s.leafLoops && !v.refused && !v.requestFails && v.errors > 0);
  const broken = verdicts.filter(([, v]) => v.failed !== undefined);
  const lines: string[] = [];
  const sessions = (n: number) => (n === 1 ? "1 session" : `${n} sessions`);
  if (refused.length > 0) {
    const codes = [...new Set(refused.map(([, v]) => v.refused!))].join(", ");
    lines.push("", `✗ ${sessions(refused.length)} Pi 1.x refuses to open (${codes}). \`pi-session-lsp check ID\` says why, and whether --fix mends it.`);
  }
  if (failing.length > 0)
    lines.push(
      "",
      `! ${sessions(failing.length)} Pi resumes, but whose next provider request fails (the provider refuses it, or Pi throws before sending it), so every prompt fails. \`pi-session-lsp check ID\` names the entry; \`pi-session-lsp context ID --stage provider\` shows the request.`,
    );
  if (erring.length > 0) lines.push("", `${sessions(erring.length)} with other errors: \`pi-session-lsp check ID\` lists them.`);
  if (broken.length > 0) lines.push("", `? ${sessions(broken.length)} could not be checked (--json says why).`);
  if (lines.length === 0) lines.push("", `check finds no error in the ${sessions(verdicts.length)} checked.`);
  return lines;
}
