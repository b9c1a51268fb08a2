/**
 * `pi-session-lsp info FILE`: a one-screen summary of a session: its entries and tree, the models
 * and thinking levels used, Pi's own token and cost totals (`/session`), how long it ran, its
 * compactions, tool calls by name, the files it read and changed, where it was forked from, and
 * whether its folder still matches its project.
 *
 * The file is read once, streaming (`readSkeleton` with a `StatsCollector`), so a session of any
 * size is summarised in bounded memory. The `--json` field `piStats` equals what Pi's
 * `AgentSession#getSessionStats` returns (without `sessionFile` and `contextUsage`), and for Pi 1.x
 * `usageBreakdown` equals its `getUsageCostBreakdown`.
 */

import { looseText, groupDigits } from "../core/base/text";
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { treeShape } from "../core/disk/tree";
import type { PiVersion } from "../core/disk/location";
import { LEAF_LOOPS, type Skeleton } from "../core/disk/skeleton";
import { LastSessionName } from "../core/session/rules";
import { keyText } from "../core/disk/keys";
import { type SessionInfoReport, StatsCollector } from "../core/disk/stats";
import { probeHeader } from "../io/scanFile";
import { folderFacts, folderInputs } from "../io/sessionFacts";
import { readSkeleton } from "../io/skeletonReader";
import { type CommandLine, type OptionSpecs, oneFile, readCommandLine } from "./commandLine";
import type { CliIo } from "./io";
import { escapeControls, jsonLine } from "./terminal";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { tildePath } from "./sessionOutput";
import { formatBytes, formatCost, formatDateTime, oneLine, terminalWidth } from "./sessionOutput";

export const INFO_USAGE = `Usage: pi-session-lsp info [--pi 1.x|0.74] [--session-dir DIR] [--json] FILE

A one-screen summary of the session FILE: entries and branches, the leaf, models and thinking
levels, Pi's token and cost totals (as /session shows them, usage entries included), duration,
compactions, tool calls by name, files read and changed, the sessions it was forked from, and
whether its folder still matches its project.
  --pi 1.x|0.74   Pi's rules (default 1.x); Pi 0.74 totals only the resumed context
  --json          the summary as data; "piStats" is exactly Pi's getSessionStats()
${FILE_OR_ID_HELP}
Exit status: 0 printed, 1 Pi would not open the file or cannot resume it, 2 usage error or unreadable file.`;

const OPTIONS: OptionSpecs = { json: { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };

export interface LineageStep {
  path: string;
  exists: boolean;
  id?: string;
  cwd?: unknown;
  /** The chain loops back to a file already in it. */
  loops?: boolean;
}

/** The `parentSession` chain from a header: each file's header read, at most 50 steps, loops cut. */
export function lineageOf(parent: unknown, from: string): LineageStep[] {
  const steps: LineageStep[] = [];
  const seen = new Set<string>([safeRealpath(from)]);
  let next = parent;
  while (typeof next === "string" && next !== "" && steps.length < 50) {
    const path = resolve(dirname(from), next);
    const key = safeRealpath(path);
    if (seen.has(key)) {
      steps.push({ path, exists: true, loops: true });
      break;
    }
    seen.add(key);
    if (!existsSync(path)) {
      steps.push({ path, exists: false });
      break;
    }
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      // Unreadable: reported as a file without a header.
    }
    const probe = probeHeader(path, size);
    const step: LineageStep = { path, exists: true };
    if (probe.header) {
      step.id = probe.header.id;
      step.cwd = probe.header.cwd;
    }
    steps.push(step);
    next = probe.header?.parentSession;
  }
  return steps;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export interface FolderCheck {
  /** The header's cwd exists on disk. */
  cwdExists: boolean;
  /** The folder Pi keeps the header cwd's sessions in. */
  piLooksIn: string;
  /** The file's folder is that folder (or the file is outside Pi's sessions folder). */
  matches: boolean;
}

/** Whether the session's folder is the one Pi uses for its header's cwd, and whether that cwd still exists. */
export function checkFolder(version: PiVersion, file: string, cwd: unknown): FolderCheck | undefined {
  if (typeof cwd !== "string" || cwd === "") return undefined;
  // Pi's folders found as every session command and the diagnostics find them (`io/sessionFacts.ts`).
  const facts = folderFacts(file, cwd, folderInputs({ version }));
  return { cwdExists: facts.cwdExists, piLooksIn: resolve(facts.piDir), matches: facts.matches };
}

export function runInfo(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "info", usage: INFO_USAGE, options: OPTIONS, pi: true, check: oneFile });
  if (typeof line === "number") return line;
  const sessionDir = line.values["session-dir"] as string | undefined;
  return withSessionFile("info", line.positionals[0]!, io, { version: line.version, sessionDir }, (path) => printInfo(path, line, io));
}

function printInfo(path: string, line: CommandLine, io: CliIo): number {
  const { values, version } = line;
  const collector = new StatsCollector(version);
  const name = new LastSessionName();
  let sk: Skeleton;
  try {
    sk = readSkeleton(path, version, [collector.observe, name.observe]);
  } catch (error) {
    // The path and the error name the file as typed: a name can hold control characters.
    io.err(`pi-session-lsp info: cannot read ${escapeControls(path)}: ${escapeControls((error as Error).message)}\n`);
    return 2;
  }
  const report = collector.finish(sk);
  const shape = treeShape(sk);
  const header = sk.header;
  const sessionName = name.name;
  const lineage = header ? lineageOf(header.parentSession, path) : [];
  const folder = header ? checkFolder(version, path, header.cwd) : undefined;
  const created = header && typeof header.timestamp === "string" ? Date.parse(header.timestamp) : Number.NaN;
  const doc = {
    file: path,
    pi: version,
    load: sk.load,
    ...(sk.loadMessage ? { loadMessage: sk.loadMessage } : {}),
    session: header
      ? { id: header.id, name: sessionName ?? null, cwd: header.cwd, created: header.timestamp, parentSession: header.parentSession ?? null }
      : null,
    bytes: sk.bytes,
    entries: sk.n,
    ...(sk.unreadLines.length > 0 ? { unreadLines: sk.unreadLines.map((l) => l + 1) } : {}),
    tree: shape,
    leaf: sk.leafKey === undefined ? null : { id: keyText(sk.leafKey), line: sk.n > 0 ? sk.lines[sk.n - 1]! + 1 : null },
    labels: sk.labels.size,
    ...report,
    durationMs:
      report.first !== undefined && report.last !== undefined ? report.last - Math.min(report.first, Number.isNaN(created) ? report.first : created) : null,
    lineage,
    ...(folder ? { folder } : {}),
  };
  // A leaf whose walk up loops: Pi cannot resume the session, as `check` says with its error.
  const status = sk.load === "ok" && shape.activePath !== undefined ? 0 : 1;
  if (values.json) {
    io.out(jsonLine(shape.activePath === undefined ? { ...doc, cannotResume: LEAF_LOOPS } : doc));
    return status;
  }
  io.out(renderInfo(doc, sk, report, shape, lineage, folder, sessionName));
  return status;
}

const money = (n: number) => (Number.isFinite(n) ? formatCost(n) : String(n));
const count = (n: unknown) => (typeof n === "number" ? groupDigits(n) : String(n));

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

function renderInfo(
  doc: { file: string; durationMs: number | null; bytes: number },
  sk: Skeleton,
  report: SessionInfoReport,
  shape: ReturnType<typeof treeShape>,
  lineage: LineageStep[],
  folder: FolderCheck | undefined,
  sessionName: string | undefined,
): string {
  const home = homedir();
  const width = terminalWidth();
  const text = (value: unknown, w = width - 12) => oneLine(looseText(value), w);
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${label.padEnd(11)} ${value}`);
  const header = sk.header;
  lines.push(`Session ${header ? text(header.id, 60) : "(no header)"}${sessionName ? `  "${text(sessionName, 60)}"` : ""}`);
  if (sk.load !== "ok" || sk.loadMessage) lines.push(`warning: ${escapeControls(sk.loadMessage ?? sk.load)}`);
  if (shape.activePath === undefined)
    lines.push(`warning: ${LEAF_LOOPS}; \`pi-session-lsp check\` shows the cycle, and \`resume-from\` an entry above it makes the session resumable.`);
  row("File", `${text(tildePath(doc.file, home), width - 40)} (${formatBytes(doc.bytes)}, ${count(sk.n)} entries)`);
  if (header) row("Project", text(tildePath(looseText(header.cwd), home)));
  const types = Object.entries(report.byType)
    .slice(0, 8)
    .map(([t, n]) => `${escapeControls(t)} ${count(n)}`)
    .join(", ");
  row("Entries", types || "none");
  const leaf = sk.leafKey === undefined ? "none" : `${text(keyText(sk.leafKey), 40)} (line ${sk.lines[sk.n - 1]! + 1})`;
  const active = shape.activePath === undefined ? "the walk up from the leaf loops" : `active path ${count(shape.activePath)} entries`;
  row(
    "Tree",
    `${count(shape.leaves)} branch${shape.leaves === 1 ? "" : "es"}, ${count(shape.branchPoints)} branch point${shape.branchPoints === 1 ? "" : "s"}, leaf ${leaf}, ${active}`,
  );
  if (report.first !== undefined) row("Time", `${formatDateTime(report.first)} to ${formatDateTime(report.last!)} (${duration(doc.durationMs ?? Number.NaN)})`);
  const stats = report.piStats;
  if (stats && "throws" in stats) row("Pi /session", `throws: ${text(stats.throws)}`);
  else if (stats) {
    row(
      "Messages",
      `${count(stats.totalMessages)} (${count(stats.userMessages)} user, ${count(stats.assistantMessages)} assistant, ${count(stats.toolResults)} tool results, ${count(stats.toolCalls)} tool calls)`,
    );
    const t = stats.tokens;
    row(
      "Tokens",
      `input ${count(t.input)}, output ${count(t.output)}, cache read ${count(t.cacheRead)}, cache write ${count(t.cacheWrite)}, total ${count(t.total)}`,
    );
    row("Cost", `${money(stats.cost)}${sk.version === "0.74" ? " (Pi 0.74 counts the resumed context only)" : ""}`);
  }
  const breakdown = report.usageBreakdown;
  if (Array.isArray(breakdown) && breakdown.length > 1) row("", `by model: ${breakdown.map((b) => `${escapeControls(b.key)} ${money(b.cost)}`).join(", ")}`);
  if (report.models.length > 0) row("Models", text(report.models.map((m) => `${m.model}${m.messages ? ` ×${m.messages}` : ""}`).join(", ")));
  if (report.thinkingLevels.length > 0)
    row("Thinking", text(report.thinkingLevels.map((l) => `${l.level}${l.changes ? ` (${l.changes} change${l.changes === 1 ? "" : "s"})` : ""}`).join(", ")));
  row("Tools", report.toolCalls.length > 0 ? text(report.toolCalls.map((t) => `${t.name} ×${t.calls}`).join(", ")) : "none");
  const files = (list: string[]) => (list.length === 0 ? "none" : `${list.length}: ${list.slice(0, 6).join(", ")}${list.length > 6 ? ", …" : ""}`);
  row("Read", text(files(report.files.read)));
  row("Changed", text(files(report.files.changed)));
  row(
    "Compactions",
    report.compactionCount === 0
      ? "none"
      : text(
          `${report.compactionCount}: ${report.compactions.map((c) => `line ${c.line} (${typeof c.tokensBefore === "number" ? `${count(c.tokensBefore)} tokens before` : "?"})`).join(", ")}`,
        ),
  );
  row(
    "Summaries",
    `${report.branchSummaries} branch summar${report.branchSummaries === 1 ? "y" : "ies"}, ${sk.labels.size} label${sk.labels.size === 1 ? "" : "s"}`,
  );
  if (lineage.length > 0) {
    const chain = lineage.map((s) =>
      s.loops
        ? "(loops back)"
        : !s.exists
          ? `${tildePath(s.path, home)} (missing)`
          : `${s.id?.slice(0, 8) ?? basename(s.path)}${typeof s.cwd === "string" ? ` in ${tildePath(s.cwd, home)}` : ""}`,
    );
    row("Forked from", text(chain.join(" ← ")));
  }
  if (folder && !folder.cwdExists) {
    row(
      "Moved?",
      text(
        `${tildePath(looseText(header?.cwd), home)} no longer exists: Pi 1.x asks whether to continue in the current folder or fork, and stops in print and rpc mode`,
      ),
    );
  }
  if (folder && !folder.matches) row("Folder", text(`not the one Pi uses for this cwd; Pi looks for its sessions in ${tildePath(folder.piLooksIn, home)}`));
  if (sk.unreadLines.length > 0) lines.push(`note: ${sk.unreadLines.length} line(s) too long to read were left out.`);
  return `${lines.join("\n")}\n`;
}
