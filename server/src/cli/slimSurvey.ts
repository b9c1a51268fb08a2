/**
 * `slim --dry-run` over several files or folders: what is worth slimming. Each session is planned
 * and counted as one `--dry-run` is (two streaming passes, nothing written, nothing proved), and
 * the sessions are listed by the bytes slimming would save, most first.
 */

import { groupDigits } from "../core/base/text";
import { DEFAULT_MIN_BYTES } from "../core/edits/slim";
import type { CliIo } from "./io";
import { displayPath } from "./report";
import { formatBytes } from "./sessionOutput";
import { slimSession } from "./slimRun";
import { escapeControls } from "./terminal";
import { errorText, expandPaths } from "./walk";

interface Row {
  path: string;
  size: number;
  saved: number;
  note?: string;
}

/** Lists the sessions under `paths` by what `slim` would save; exit status 2 when a path could not be read. */
export function surveySlim(paths: readonly string[], minBytes: number | undefined, io: CliIo): number {
  const cwd = io.cwd ?? process.cwd();
  let status = 0;
  const targets = expandPaths(paths, {
    note: (text) => io.err(`pi-session-lsp slim: ${escapeControls(text)}\n`),
    unreadable: (text) => {
      status = 2;
      io.err(`pi-session-lsp slim: ${escapeControls(text)}\n`);
    },
  });
  const rows: Row[] = [];
  for (const { path } of targets) {
    try {
      const outcome = slimSession(path, { dryRun: true, minBytes: minBytes ?? DEFAULT_MIN_BYTES });
      if (outcome.status === "refused") rows.push({ path, size: 0, saved: -1, note: `refused: ${outcome.reason}` });
      else rows.push({ path, size: outcome.totals.bytesIn, saved: outcome.totals.bytesIn - outcome.totals.bytesOut });
    } catch (error) {
      status = 2;
      rows.push({ path, size: 0, saved: -1, note: `cannot read it: ${errorText(error)}` });
    }
  }
  rows.sort((a, b) => b.saved - a.saved || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let total = 0;
  for (const row of rows) {
    const shown = escapeControls(displayPath(row.path, cwd));
    if (row.note !== undefined) {
      io.out(`${"-".padStart(10)}  ${shown}: ${escapeControls(row.note)}\n`);
      continue;
    }
    total += row.saved;
    const percent = row.size > 0 ? Math.round((100 * row.saved) / row.size) : 0;
    io.out(`${formatBytes(row.saved).padStart(10)}  of ${formatBytes(row.size).padStart(9)} (${String(percent).padStart(2)}%)  ${shown}\n`);
  }
  io.out(`slim would save ${formatBytes(total)} in ${groupDigits(rows.length)} ${rows.length === 1 ? "session" : "sessions"} (dry run: nothing written)\n`);
  return status;
}
