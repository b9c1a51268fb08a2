/**
 * `usage`'s answer from each file's sums (`io/usageScan.ts`): the rows of the grouping, added in the
 * files' order (so the same numbers whatever the threads), the total, the files skipped and the
 * notes on files whose usage Pi's `/session` would not sum; and that answer as a table.
 */

import { homedir } from "node:os";
import { relative } from "node:path";
import { groupDigits, plural } from "../core/base/text";
import { addTotals, newUsageTotals, totalTokens, type UsageTotals } from "../core/disk/usage";
import { type FileUsage, NO_DATE, OTHER_GROUP, type UsageGrouping } from "../io/usageScan";
import { escapeControls } from "./terminal";
import { formatCost, oneLine, padStart, terminalWidth, tildePath } from "./sessionOutput";

/** The numbers of a row and of the total, in `--json`'s names. */
export interface UsageSums {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

export interface UsageRow extends UsageSums {
  key: string;
  /** By session: the file's session id and name. */
  id?: string;
  name?: string;
}

export interface UsageReport {
  by: UsageGrouping;
  since?: string;
  until?: string;
  rows: UsageRow[];
  total: UsageSums;
  /** Files counted. */
  files: number;
  skipped: { path: string; reason: string }[];
  notes: { path?: string; note: string }[];
}

/** Rows kept in all: past them, every further group is added to "(other)". */
const MAX_ROWS = 10_000;
/** Notes kept in all (the text prints fewer). */
const MAX_NOTES = 1000;

const sums = (t: UsageTotals): UsageSums => ({
  input: t.input,
  output: t.output,
  cacheRead: t.cacheRead,
  cacheWrite: t.cacheWrite,
  totalTokens: totalTokens(t),
  cost: t.cost,
});

export function usageReport(files: readonly FileUsage[], run: { by: UsageGrouping; since?: string | undefined; until?: string | undefined }): UsageReport {
  const rows = new Map<string, { totals: UsageTotals; id?: string; name?: string }>();
  const total = newUsageTotals();
  const report: UsageReport = { by: run.by, rows: [], total: sums(total), files: 0, skipped: [], notes: [] };
  if (run.since !== undefined) report.since = run.since;
  if (run.until !== undefined) report.until = run.until;
  let undated = 0;
  let outside = 0;
  let notes = 0;
  for (const file of files) {
    if (file.skipped !== undefined) {
      report.skipped.push({ path: file.path, reason: file.skipped });
      continue;
    }
    report.files++;
    for (const [key, groupSums] of file.groups) {
      let row = rows.get(key);
      if (row === undefined) {
        const kept = rows.size >= MAX_ROWS ? OTHER_GROUP : key;
        row = rows.get(kept);
        if (row === undefined) rows.set(kept, (row = { totals: newUsageTotals() }));
        if (run.by === "session" && kept === key) {
          if (file.id !== undefined) row.id = file.id;
          if (file.name !== undefined) row.name = file.name;
        }
      }
      addTotals(row.totals, groupSums);
    }
    addTotals(total, file.total);
    undated += file.undated;
    outside += file.outside;
    for (const note of fileNotes(file)) if (notes++ < MAX_NOTES) report.notes.push({ path: file.path, note });
  }
  if (notes > MAX_NOTES) report.notes.push({ note: `${groupDigits(notes - MAX_NOTES)} more notes left out` });
  if (undated > 0) report.notes.push({ note: `${plural(undated, "usage")} without an ISO timestamp left out by --since/--until` });
  if (outside > 0) report.notes.push({ note: `${plural(outside, "usage")} outside --since/--until left out` });
  if (!Number.isFinite(total.input + total.output + total.cacheRead + total.cacheWrite + total.cost))
    report.notes.push({ note: "a sum is too large for a number (the usages hold numbers near 1e308): it is written as null in --json" });
  report.rows = [...rows].map(([key, row]) => ({
    key,
    ...(row.id !== undefined ? { id: row.id } : {}),
    ...(row.name !== undefined ? { name: row.name } : {}),
    ...sums(row.totals),
  }));
  report.rows.sort(run.by === "day" ? byDay : byCost);
  report.total = sums(total);
  return report;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Days in order, undated and "(other)" last. */
const byDay = (a: UsageRow, b: UsageRow) =>
  Number(a.key === NO_DATE || a.key === OTHER_GROUP) - Number(b.key === NO_DATE || b.key === OTHER_GROUP) || compare(a.key, b.key);
/** Most expensive first, as Pi's /session breaks cost down. */
const byCost = (a: UsageRow, b: UsageRow) => b.cost - a.cost || compare(a.key, b.key);

/** What is worth saying about one file's sums: where Pi's `/session` would throw or not show numbers, and what was left out. */
export function fileNotes(file: FileUsage): string[] {
  const notes: string[] = [];
  const odd = file.odd > 0 ? `${plural(file.odd, "usage")} whose numbers are not all numbers left out here` : "";
  const pi = file.pi;
  if (pi && "throws" in pi) notes.push(`Pi's /session throws on this session (${pi.throws})${odd ? `; ${odd}` : "; its usages are counted here"}`);
  else if (pi) {
    const values = Object.values(pi.totals) as unknown[];
    const shown = values.some((v) => typeof v !== "number")
      ? "text instead of numbers"
      : values.some((v) => Number.isNaN(v))
        ? "NaN"
        : values.some((v) => !Number.isFinite(v as number))
          ? "Infinity"
          : undefined;
    if (shown) notes.push(`Pi's /session shows ${shown} for this session${odd ? `: ${odd}` : ""}`);
    else if (odd) notes.push(`${odd}; Pi's /session adds them as JavaScript converts them (null as 0, true as 1)`);
  }
  if (file.unreadLines > 0) notes.push(`${plural(file.unreadLines, "line")} too long to read not counted`);
  return notes;
}

const LABELS: Record<UsageGrouping, string> = { day: "DAY (UTC)", model: "MODEL", project: "PROJECT", session: "SESSION" };

/** The report as a table: the numbers first, then the row's name, which may be long; the total; what was skipped; the notes. */
export function renderUsage(report: UsageReport, cwd: string): string {
  const home = homedir();
  const width = terminalWidth();
  const shownPath = (path: string) => escapeControls(tildePath(relativeOrAbsolute(path, cwd), home));
  const columns: [string, (s: UsageSums) => string][] = [
    ["INPUT", (s) => count(s.input)],
    ["OUTPUT", (s) => count(s.output)],
    ["CACHE READ", (s) => count(s.cacheRead)],
    ["CACHE WRITE", (s) => count(s.cacheWrite)],
    ["TOTAL TOKENS", (s) => count(s.totalTokens)],
    ["COST", (s) => formatCost(s.cost)],
  ];
  const all: UsageSums[] = [...report.rows, report.total];
  const widths = columns.map(([title, cell]) => Math.max(title.length, ...all.map((s) => cell(s).length)));
  const numbers = (s: UsageSums) => columns.map(([, cell], i) => padStart(cell(s), widths[i]!)).join("  ");
  const room = Math.max(20, width - widths.reduce((a, b) => a + b + 2, 0));
  const lines = [`${columns.map(([title], i) => padStart(title, widths[i]!)).join("  ")}  ${LABELS[report.by]}`];
  for (const row of report.rows) lines.push(`${numbers(row)}  ${oneLine(rowLabel(report.by, row, shownPath), room)}`);
  const period = report.since || report.until ? ` (${report.since ?? "…"} to ${report.until ?? "…"})` : "";
  lines.push(`${numbers(report.total)}  TOTAL of ${plural(report.files, "session")}${period}`);
  for (const s of report.skipped.slice(0, 50)) lines.push(`skipped ${shownPath(s.path)}: ${escapeControls(s.reason)}`);
  if (report.skipped.length > 50) lines.push(`… ${report.skipped.length - 50} more skipped (--json lists all)`);
  for (const n of report.notes.slice(0, 50)) lines.push(`note: ${n.path !== undefined ? `${shownPath(n.path)}: ` : ""}${escapeControls(n.note)}`);
  if (report.notes.length > 50) lines.push(`… ${report.notes.length - 50} more notes (--json lists all)`);
  return `${lines.join("\n")}\n`;
}

function rowLabel(by: UsageGrouping, row: UsageRow, shownPath: (path: string) => string): string {
  // The id and name first: the path, often long, is what a narrow terminal cuts.
  if (by === "session")
    return `${row.id ? `${escapeControls(row.id.slice(0, 8))}  ` : ""}${row.name ? `"${escapeControls(row.name)}"  ` : ""}${shownPath(row.key)}`;
  if (by === "project") return escapeControls(tildePath(row.key, homedir()));
  return escapeControls(row.key);
}

const count = (n: number) => (Number.isFinite(n) ? groupDigits(n) : "(overflow)");

/** A path shown relative to the current folder when it is inside it. */
function relativeOrAbsolute(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !rel.startsWith("/") ? rel : path;
}
