/**
 * `context FILE` the full way: the file read into a `SessionDocument` and analysed as the server
 * and `check` do, the context built with `buildContext` from the file's last entry or `--leaf`, and
 * printed as JSON, Markdown or the provider's request; or, where Pi would not get a context (it
 * refuses or overwrites the file, throws, or hangs on a parent cycle), why not, on stderr.
 * `context.ts` runs it for every file the shortcut (`core/pi/scannedContext.ts`) is not sure of, and
 * for every other stage and format.
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { buildContext, type ContextFailure, type PiFlavor } from "../core/pi/buildContext";
import { SessionDocument } from "../core/session/document";
import { versionRules } from "../core/session/semantics/version";
import { cycleMetFrom } from "../core/session/semantics/walk";
import { singleLine } from "../core/base/text";
import { contextDocument, contextMarkdownOptions, migrationNote, renderContextMarkdown } from "../features/api/context";
import type { CliIo } from "./io";
import { type CliStage, printProvider, printRequest, type WireChoice } from "./providerStage";
import { escapeControls, escapeControlsKeepingLines } from "./terminal";
import { findEntry } from "./entryArg";

export function printContext(
  file: string,
  shown: string,
  text: string,
  options: { format: string; flavor: PiFlavor; leafId: string | undefined; stage: CliStage; wire?: WireChoice },
  io: CliIo,
): number {
  const { format, flavor, leafId, stage } = options;
  const doc = new SessionDocument(pathToFileURL(resolve(file)).href, "jsonl", 0, text);

  const refusal = openRefusal(doc, flavor);
  if (refusal) {
    io.err(`pi-session-lsp context: ${shown}: ${escapeControls(refusal)}\n`);
    return 1;
  }
  // A v1/v2 file: Pi builds from the entries it migrates in memory (and rewrites the file).
  let a: SessionAnalysis;
  try {
    a = contextDocument(doc).analysis;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Pi's migration writes every entry back with JSON.stringify, which overflows as ours did.
    io.err(
      `pi-session-lsp context: ${shown}: Pi cannot open it: it rewrites a migrated file entry by entry with JSON.stringify, which throws a RangeError on a value nested this deep\n`,
    );
    return 1;
  }
  const note = migrationNote(doc);
  if (note) io.err(`pi-session-lsp context: ${shown}: ${escapeControls(note)}\n`);

  let leaf: Entry | undefined;
  if (leafId !== undefined) {
    const found = findEntry(a, leafId);
    if (typeof found === "string") {
      io.err(
        `pi-session-lsp context: ${shown}: ${escapeControls(found)}${a.leaf?.id !== undefined ? ` (the last entry, where Pi resumes, is ${escapeControls(JSON.stringify(clip(a.leaf.id)))})` : ""}\n`,
      );
      return 2;
    }
    leaf = found;
  }

  const result = buildContext(a, { leaf, flavor });
  if (!result.ok) {
    io.err(`pi-session-lsp context: ${shown}: ${escapeControls(describeFailure(a, result.failure, flavor))}\n`);
    return 1;
  }
  if (stage === "provider") return printProvider(a, result.build, flavor, format, shown, io);
  if (stage === "request") return printRequest(result.build, options.wire ?? {}, shown, io);
  if (format === "json") {
    let json: string;
    try {
      json = JSON.stringify(result.build.context);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      io.err(
        `pi-session-lsp context: ${shown}: the context holds a value nested too deep for JSON.stringify (${escapeControls(error.message)}), which is also what Pi uses to send a context to a provider; --format markdown shows the conversation.\n`,
      );
      return 1;
    }
    io.out(`${json}\n`);
  } else io.out(escapeControlsKeepingLines(renderContextMarkdown(result.build, contextMarkdownOptions(a, flavor))));
  return 0;
}

/**
 * Why Pi would not build a context from this file as it is, or undefined: Pi refuses or rewrites a
 * file without a valid header, Pi 1.x refuses a file starting with a byte order mark, Pi cannot
 * compare a version nested too deep, and Pi 0.73/0.74 throws on a `null` line and keeps `0`,
 * `false` and `""` lines as entries.
 */
function openRefusal(doc: SessionDocument, flavor: PiFlavor): string | undefined {
  const a = doc.analysis;
  const refused =
    'Pi 1.x refuses to open it ("Session file is not a valid pi session"), and Pi 0.73/0.74 overwrites it with a new empty session, losing every entry';
  const headerLine = a.headerLine === undefined ? "" : ` (line ${a.headerLine + 1})`;
  switch (a.headerState) {
    case "no-entries":
      return `not a Pi session: no line can be parsed. ${refused}.`;
    case "missing":
      return `not a Pi session: the first line Pi can parse${headerLine} is not a session header. ${refused}.`;
    case "invalid":
      return `not a Pi session: the session header${headerLine} has no string id. ${refused}.`;
    case "empty-file":
    case "ok":
      break;
  }
  if (flavor === "1.x" && doc.hasBom && doc.parsed[0]?.kind === "value") {
    return 'the file starts with a UTF-8 byte order mark: Pi 1.x cannot parse the header line and refuses to open the file ("not a valid pi session"). Pi 0.73/0.74 strips the mark (see --pi 0.74).';
  }
  if (a.header) {
    // Pi's own loose comparisons (`version ?? 1`, then `>= 3`, `< 2`, `< 3`), from the core's rules.
    const rules = versionRules(a);
    const shownVersion = rules.present ? `version ${clip(safeJson(rules.raw))}` : "no version (v1)";
    if (rules.throws) {
      return `the header has ${shownVersion}: Pi compares it with 3 by converting it to a string, which throws a RangeError for arrays nested this deep (Maximum call stack size exceeded), so Pi cannot open the file.`;
    }
    // A v1/v2 file is built after the migration Pi runs in memory (printContext); a version that
    // converts to NaN is neither current nor below 2 or 3: Pi rewrites the file but changes no entry.
  }
  if (flavor === "0.74" && a.falsyLines.length > 0) {
    const nullLine = a.falsyLines.find((line) => {
      const p = doc.parsed[line];
      return p?.kind === "value" && p.value === null;
    });
    if (nullLine !== undefined) {
      return `line ${nullLine + 1} is \`null\`: Pi 0.73/0.74 throws a TypeError opening the file ("Cannot read properties of null (reading 'type')"). Pi 1.x skips the line (see --pi 1.x).`;
    }
    const last = a.falsyLines[a.falsyLines.length - 1]!;
    if (a.leaf === undefined || last > a.leaf.line) {
      return `the last line, ${last + 1}, is a falsy JSON value, which Pi 0.73/0.74 keeps as an entry without an id and resumes from; this tool does not reproduce that context. Pi 1.x skips the line (see --pi 1.x).`;
    }
  }
  return undefined;
}

/** What stops Pi building the context, and what Pi does then. */
function describeFailure(a: SessionAnalysis, failure: ContextFailure, flavor: PiFlavor): string {
  const from = entryRef(failure.entry);
  if (failure.kind === "type-error") {
    return `cannot build the context: ${from} is ${failure.reason}. Pi throws a TypeError when it builds this context, so the session cannot be resumed from here.`;
  }
  const pi =
    flavor === "1.x"
      ? 'Pi 1.x walks round the cycle, growing its path until it fails with "RangeError: Invalid array length" or runs out of memory'
      : "Pi 0.73/0.74 walks round the cycle forever and hangs";
  return `cannot build the context from ${from}: its parentId chain runs into a cycle (${describeCycle(a, failure.entry)}). ${pi}.`;
}

/** The cycle the walk up from `entry` runs into, as `a → b → c → a`, at most a few ids. */
function describeCycle(a: SessionAnalysis, entry: Entry): string {
  const e = cycleMetFrom(a, entry);
  if (!e) return "a parent cycle";
  const size = a.cycles[a.cycleOf[e.index]!]!.length;
  const shown: string[] = [];
  let c: Entry | undefined = e;
  for (let k = 0; k < Math.min(size, 5) && c; k++, c = a.parent[c.index]) shown.push(name(c));
  if (size > 5) shown.push(`… ${size - 5} more`);
  shown.push(name(e));
  const length = size === 1 ? "an entry that is its own parent" : `${size} entries`;
  return `${length}: ${shown.join(" → ")}, from line ${e.line + 1}`;
}

function entryRef(entry: Entry): string {
  return entry.id !== undefined ? `entry ${name(entry)} (line ${entry.line + 1})` : `line ${entry.line + 1}`;
}

function name(entry: Entry): string {
  return entry.id !== undefined ? JSON.stringify(clip(entry.id)) : `line ${entry.line + 1}`;
}

/** `JSON.stringify` for a message, which cannot fail on a value nested too deep. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "?";
  } catch {
    return Array.isArray(value) ? "[…] (nested too deep to show)" : "{…} (nested too deep to show)";
  }
}

function clip(text: string): string {
  return singleLine(text, 60);
}
