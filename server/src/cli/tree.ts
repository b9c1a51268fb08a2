/**
 * `pi-session-lsp tree FILE`: the session tree as Pi's `/tree` shows it, in a terminal.
 *
 * The file is read once, streaming, into a skeleton (`core/disk/skeleton.ts`), laid out as Pi
 * 1.6's tree selector lays it out (`core/disk/tree.ts`), and only the rows printed are read back for
 * their text. Output is bounded: long runs of ordinary entries fold into "⋮ N more" lines
 * (`core/disk/treeOutline.ts`), `--depth N` folds deeper branches, and `--all` prints every row.
 */

import { looseText } from "../core/base/text";
import { homedir } from "node:os";
import { buildTreeView, FILTER_MODES, type FilterMode, statusLine, type TreeView } from "../core/disk/tree";
import { LEAF_LOOPS, leafWalkLoops, type Skeleton } from "../core/disk/skeleton";
import { KeyMaker, keyText } from "../core/disk/keys";
import { ShortIds } from "../core/disk/shortIds";
import { outlineTree } from "../core/disk/treeOutline";
import { rowText } from "../core/disk/treeText";
import { EntryReader, readSkeleton } from "../io/skeletonReader";
import type { PiVersion } from "../core/disk/location";
import { type CommandLine, type OptionSpecs, oneFile, readCommandLine } from "./commandLine";
import type { CliIo } from "./io";
import { escapeControls, jsonLine } from "./terminal";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { clipColumns, oneLine, terminalWidth } from "./sessionOutput";

export const TREE_USAGE = `Usage: pi-session-lsp tree [--filter MODE] [--depth N] [--all] [--pi 1.x|0.74] [--session-dir DIR] [--json] FILE

Prints the session tree of FILE as Pi's /tree shows it: the branch with the leaf first, a ├─/└─ at
each branch point, • on the active path, [labels], compactions and branch summaries, and › on the
row Pi selects. Each row starts with its entry's id, as much of it as is unique (at least 8
characters), which fork --leaf, resume-from, drop-from-context and context --leaf take; "← leaf"
marks the entry Pi resumes from. The last line is Pi's status: (selected row/rows shown). Long runs
of entries fold into "⋮ N more" lines.
  --filter MODE   Pi's /tree filter: default, no-tools, user-only, labeled-only, all
  --depth N       fold everything more than N branch levels deep
  --all           print every row (no folding, no line limit)
  --pi 1.x|0.74   read the file as Pi 1.x (default) or Pi 0.73/0.74 opens it
  --json          the rows as data: {file, leaf, rows: [{id, short, leaf, line, text, prefix, active, selected, label}], …}
${FILE_OR_ID_HELP}
Exit status: 0 printed, 1 Pi would not show this tree or resume it (it refuses the file, throws or hangs), 2 usage
error or unreadable file.`;

const OPTIONS: OptionSpecs = {
  filter: { type: "string", choices: FILTER_MODES },
  depth: { type: "string", whole: {} },
  all: { type: "boolean" },
  json: { type: "boolean" },
  "session-dir": SESSION_DIR_OPTION,
};

export interface PrintedRow {
  id: string;
  /** The shortest start of the id no other entry's id has (at least 8 characters): what `tree` prints. */
  short: string;
  /** The entry Pi resumes from. */
  leaf: boolean;
  line: number;
  type: string;
  text: string;
  prefix: string;
  active: boolean;
  selected: boolean;
  label?: unknown;
  throws?: string;
}

/** The text of each row to print, read back from the file. */
function rowsText(path: string, sk: Skeleton, view: TreeView, indices: number[], home: string): Map<number, PrintedRow> {
  const reader = new EntryReader(path, sk);
  const keys = new KeyMaker();
  const shortIds = new ShortIds(sk);
  const out = new Map<number, PrintedRow>();
  try {
    for (const index of indices) {
      const row = view.rows[index]!;
      const entry = reader.entry(row.entry);
      const result = entry ? rowText(entry, (id) => reader.toolCall(id, (v) => keys.key(v)), home) : { throws: "the line changed since it was read" };
      const key = sk.keys[row.entry]!;
      const printed: PrintedRow = {
        id: keyText(key),
        short: key.charCodeAt(0) === 0 && key[1] !== "s" ? keyText(key) : shortIds.of(keyText(key)),
        leaf: sk.leafKey !== undefined && key === sk.leafKey,
        line: sk.lines[row.entry]! + 1,
        type: sk.types[row.entry]!,
        text: "text" in result ? result.text : "",
        prefix: row.prefix,
        active: row.active,
        selected: row.selected,
      };
      if (row.label !== undefined) printed.label = row.label;
      if ("throws" in result) printed.throws = result.throws;
      out.set(index, printed);
    }
  } finally {
    reader.close();
  }
  return out;
}

/** A row exactly as Pi prints it (cursor, prefix, path marker, label, text). */
export function piRowLine(row: PrintedRow): string {
  return `${row.selected ? "› " : "  "}${row.prefix}${row.active ? "• " : ""}${row.label !== undefined ? `[${looseText(row.label)}] ` : ""}${row.text}`;
}

export interface TreeReport {
  sk: Skeleton;
  view: TreeView;
  outline: ReturnType<typeof outlineTree>;
  printed: Map<number, PrintedRow>;
  problems: string[];
  /** Pi's `/tree` throws drawing one of the printed rows. */
  rowThrows?: string;
  /** Pi's walk up from the leaf loops: it cannot resume the session. */
  leafLoops: boolean;
}

/** Reads `path` and lays it out as Pi's `/tree`; only the rows the outline keeps are read back for their text. */
export function treeReport(path: string, version: PiVersion, options: { filter?: FilterMode; all?: boolean; depth?: number; home?: string } = {}): TreeReport {
  const sk = readSkeleton(path, version);
  const problems: string[] = [];
  if (sk.load !== "ok") {
    const what =
      sk.load === "empty"
        ? "Pi writes a new header into it when it opens it"
        : sk.load === "throws"
          ? "Pi cannot open it"
          : version === "1.x"
            ? 'Pi 1.x refuses to open it ("not a valid pi session")'
            : "Pi 0.73/0.74 overwrites it with a new empty session";
    problems.push(`${sk.loadMessage}: ${what}.`);
  } else if (sk.loadMessage) {
    problems.push(`${sk.loadMessage}.`);
  }
  if (sk.unreadLines.length > 0)
    problems.push(`${sk.unreadLines.length} line(s) are too long to read here (first: line ${sk.unreadLines[0]! + 1}); they are left out.`);
  const leafLoops = leafWalkLoops(sk);
  if (leafLoops) problems.push(`${LEAF_LOOPS}; \`pi-session-lsp check\` shows the cycle, and \`resume-from\` an entry above it makes the session resumable.`);
  const view = buildTreeView(sk, { filter: options.filter ?? "default" });
  if (view.hangs) problems.push(`${view.hangs}.`);
  if (view.throws) problems.push(`${view.throws}.`);
  if (view.collapsedRepeats) problems.push("Duplicate ids make Pi show some subtrees many times over; each entry is shown once here.");
  const outline = outlineTree(view, sk, { all: options.all === true, depth: options.depth });
  const indices = outline.items.flatMap((item) => (item.kind === "row" ? [item.index] : []));
  const printed = rowsText(path, sk, view, indices, options.home ?? homedir());
  const throwing = [...printed.values()].find((row) => row.throws !== undefined);
  if (!throwing) return { sk, view, outline, printed, problems, leafLoops };
  const rowThrows = `Pi's /tree throws drawing line ${throwing.line} (${throwing.throws})`;
  problems.push(`${rowThrows}.`);
  return { sk, view, outline, printed, problems, rowThrows, leafLoops };
}

export function runTree(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "tree", usage: TREE_USAGE, options: OPTIONS, pi: true, check: oneFile });
  if (typeof line === "number") return line;
  const sessionDir = line.values["session-dir"] as string | undefined;
  return withSessionFile("tree", line.positionals[0]!, io, { version: line.version, sessionDir }, (path) => printTree(path, line, io));
}

function printTree(path: string, line: CommandLine, io: CliIo): number {
  const { values, version } = line;
  const filter = (values.filter ?? "default") as FilterMode;
  const depth = values.depth === undefined ? undefined : Number(values.depth);
  let report: TreeReport;
  try {
    report = treeReport(path, version, { filter, all: values.all === true, depth });
  } catch (error) {
    // The path and the error name the file as typed: a name can hold control characters.
    io.err(`pi-session-lsp tree: cannot read ${escapeControls(path)}: ${escapeControls((error as Error).message)}\n`);
    return 2;
  }
  const { sk, view, outline, printed, problems } = report;
  const failing = sk.load !== "ok" || view.hangs !== undefined || view.throws !== undefined || report.rowThrows !== undefined || report.leafLoops;

  if (values.json) {
    const header = sk.header;
    const doc = {
      file: path,
      pi: version,
      load: sk.load,
      ...(problems.length > 0 ? { problems } : {}),
      session: header ? { id: header.id, cwd: header.cwd, parentSession: header.parentSession } : null,
      entries: sk.n,
      leaf: sk.leafKey === undefined ? null : keyText(sk.leafKey),
      filter,
      shown: view.rows.length,
      selected: view.selectedIndex,
      rows: outline.items.map((item) => (item.kind === "row" ? printed.get(item.index)! : { elided: item.count, deeper: item.deeper })),
      ...(outline.cut > 0 ? { cut: outline.cut } : {}),
    };
    io.out(jsonLine(doc));
    return failing ? 1 : 0;
  }

  const width = values.all ? Number.POSITIVE_INFINITY : terminalWidth();
  const lines: string[] = [];
  const name = sk.header && typeof sk.header.id === "string" ? sk.header.id : path;
  lines.push(
    `Session ${escapeControls(oneLine(name, 60))}: ${sk.n} entries, leaf ${sk.leafKey === undefined ? "none" : escapeControls(oneLine(keyText(sk.leafKey), 40))}; /tree filter ${filter}, ${view.rows.length} rows`,
  );
  for (const p of problems) lines.push(`warning: ${escapeControls(p)}`);
  lines.push(LEGEND, "");
  lines.push(...rowLines(report, width));
  if (outline.cut > 0) lines.push(`… ${outline.cut} more rows (--all prints every row)`);
  lines.push(footer(report, filter));
  io.out(`${lines.join("\n")}\n`);
  return failing ? 1 : 0;
}

/** What the columns and marks of the text mean, under the summary. */
const LEGEND = `Each row starts with its entry's id, as much as is unique (fork --leaf, resume-from, drop-from-context
and context --leaf take it); › marks the row Pi selects, • the active path, ← leaf the entry Pi resumes from.`;

/** The longest short id shown in the id column; a longer one (only a hostile file has one) is clipped there. */
const ID_COLUMN_MAX = 24;

/** The rows as text: each row's short id in a column, then Pi's row, clipped to the width. */
function rowLines(report: TreeReport, width: number): string[] {
  const { outline, printed, view } = report;
  const idOf = (row: PrintedRow) => escapeControls(oneLine(row.short, ID_COLUMN_MAX));
  const column = Math.max(8, ...[...printed.values()].map((row) => [...idOf(row)].length));
  const pad = " ".repeat(column + 1);
  const lines: string[] = [];
  if (view.rows.length === 0) lines.push("  No entries found");
  for (const item of outline.items) {
    if (item.kind === "elided") {
      lines.push(`${pad}  ${item.prefix}${item.deeper ? `… ${item.count} more in deeper branches (--depth)` : `⋮ ${item.count} more`}`);
      continue;
    }
    const row = printed.get(item.index)!;
    const id = idOf(row);
    const mark = row.leaf ? "  ← leaf" : "";
    const text = escapeControls(piRowLine(row));
    const room = width - column - 1 - mark.length;
    const gap = " ".repeat(column + 1 - [...id].length);
    lines.push(`${id}${gap}${Number.isFinite(room) ? clipColumns(text, Math.max(room, 10)) : text}${mark}`);
    if (row.throws) lines.push(`${pad}  ${" ".repeat(row.prefix.length)}(Pi's /tree throws here: ${escapeControls(row.throws)})`);
  }
  return lines;
}

/** Pi's status line, and what it counts. */
function footer(report: TreeReport, filter: FilterMode): string {
  const { view, sk } = report;
  const status = statusLine(view);
  if (view.rows.length === 0) return `${status}  (no row to select)`;
  const leafShown = [...report.printed.values()].some((row) => row.leaf);
  const leafNote = sk.leafKey !== undefined && !leafShown ? `; filter ${filter} hides the leaf, so › marks its nearest shown ancestor` : "";
  return `${status}  (Pi's status: › is row ${view.selectedIndex + 1} of the ${view.rows.length} rows filter ${filter} shows, of ${sk.n} entries${leafNote})`;
}
