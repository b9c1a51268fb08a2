/**
 * `pi-session-lsp context`: the context Pi builds for the model when it resumes a session
 * (`buildSessionContext()`), on the command line.
 *
 * It reads the file into the same `SessionDocument` the server and `check` use, builds the context
 * with the core's `buildContext` from the file's last entry (where Pi resumes) or from `--leaf ID`,
 * and prints it: as JSON, exactly `JSON.stringify` of Pi's `{messages, thinkingLevel, model}`, or as
 * Markdown to read (`renderContextMarkdown`). Where Pi itself would not get a context (it refuses,
 * rewrites or migrates the file, throws, or hangs on a parent cycle) it says so on stderr instead.
 *
 * Exit status: 0 printed, 1 Pi cannot build this context, 2 usage error, unreadable file or unknown
 * `--leaf` id.
 */

import { readFileSync } from "node:fs";
import type { Entry, SessionAnalysis } from "../core/analysis";
import { buildContext, type ContextFailure, type PiFlavor } from "../core/buildContext";
import { SessionDocument } from "../core/document";
import { contextMarkdownOptions, renderContextMarkdown } from "../features/contextMarkdown";
import { singleLine } from "../core/text";
import type { CliIo } from "./check";

export const CONTEXT_USAGE = `Usage: pi-session-lsp context [--leaf ID] [--format json|markdown] [--pi 1.x|0.74] FILE

Prints what the model sees when Pi resumes the session FILE (Pi's buildSessionContext), built from
the file's last entry as Pi resumes it, or from the entry --leaf ID. FILE - reads standard input.
  --format json       exactly JSON.stringify of Pi's {messages, thinkingLevel, model} (default)
  --format markdown   the conversation to read, with message counts, estimated tokens and model
  --pi 1.x|0.74|retained-tail
                      whose rules to follow: Pi 1.x (default), Pi 0.73/0.74, or Pi 1.x
                      with compaction retainedTail checkpoints (Pi 0.83 docs)
Exit status: 0 printed, 1 Pi cannot build this context (it refuses or migrates the file, throws,
or hangs), 2 usage error, unreadable file or unknown --leaf id.`;

const FLAVORS = new Map<string, PiFlavor>([
  ["1.x", "1.x"],
  ["1", "1.x"],
  ["0.74", "0.74"],
  ["retained-tail", "retained-tail"],
  ["0.73", "0.74"],
]);

export function runContext(args: readonly string[], io: CliIo): number {
  const usage = (message: string) => {
    io.err(`pi-session-lsp context: ${message}\n${CONTEXT_USAGE}\n`);
    return 2;
  };
  let format = "json";
  let flavor: PiFlavor = "1.x";
  let leafId: string | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const option = /^(--format|--leaf|--pi)(?:=(.*))?$/s.exec(arg);
    if (option) {
      const name = option[1]!;
      const value = option[2] ?? args[++i];
      if (value === undefined) return usage(`${name} needs a value`);
      if (name === "--format") {
        if (value !== "json" && value !== "markdown") return usage(`--format must be json or markdown, not ${JSON.stringify(clip(value))}`);
        format = value;
      } else if (name === "--pi") {
        const f = FLAVORS.get(value.replace(/^v/, ""));
        if (!f) return usage(`--pi must be 1.x or 0.74, not ${JSON.stringify(clip(value))}`);
        flavor = f;
      } else {
        leafId = value;
      }
    } else if (arg === "--help" || arg === "-h") {
      io.out(`${CONTEXT_USAGE}\n`);
      return 0;
    } else if (arg.startsWith("-") && arg !== "-") {
      return usage(`unknown option ${clip(arg)}`);
    } else {
      files.push(arg);
    }
  }
  if (files.length !== 1) return usage(files.length === 0 ? "no file given" : "give exactly one file");
  const file = files[0]!;

  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    io.err(`pi-session-lsp context: cannot read ${file}: ${(error as Error).message}\n`);
    return 2;
  }
  const doc = new SessionDocument(`file://${file}`, "jsonl", 0, text);
  const a = doc.analysis;

  const refusal = openRefusal(doc, flavor);
  if (refusal) {
    io.err(`pi-session-lsp context: ${file}: ${refusal}\n`);
    return 1;
  }

  let leaf: Entry | undefined;
  if (leafId !== undefined) {
    leaf = a.byId.get(leafId);
    if (!leaf) {
      io.err(
        `pi-session-lsp context: ${file}: no entry has the id ${JSON.stringify(clip(leafId))}${a.leaf?.id !== undefined ? ` (the last entry, where Pi resumes, is ${JSON.stringify(clip(a.leaf.id))})` : ""}\n`,
      );
      return 2;
    }
  }

  const result = buildContext(a, { leaf, flavor });
  if (!result.ok) {
    io.err(`pi-session-lsp context: ${file}: ${describeFailure(a, result.failure, flavor)}\n`);
    return 1;
  }
  if (format === "json") io.out(`${JSON.stringify(result.build.context)}\n`);
  else io.out(renderContextMarkdown(result.build, contextMarkdownOptions(a, flavor)));
  return 0;
}

/**
 * Why Pi would not build a context from this file as it is, or undefined: Pi refuses or rewrites a
 * file without a valid header, Pi 1.x refuses a file starting with a byte order mark, Pi migrates
 * and rewrites a file older than version 3, and Pi 0.73/0.74 throws on a `null` line and keeps
 * `0`, `false` and `""` lines as entries.
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
    // Pi's own loose comparison (`version ?? 1`, `>= 3`) decides whether it migrates.
    const version = (a.header.version ?? 1) as number;
    if (!(version >= 3)) {
      const v1 = version < 2;
      return (
        `the header has ${"version" in a.header ? `version ${clip(JSON.stringify(a.header.version) ?? "?")}` : "no version (v1)"}: Pi migrates the file to version 3 when it opens it and rewrites it` +
        (v1 ? ", giving every entry a new random id and chaining them into one line of history" : " (`hookMessage` roles become `custom`)") +
        ". The context Pi then builds comes from the migrated file; open the session in Pi once and run this on the rewritten file."
      );
    }
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
  let e: Entry | undefined = entry;
  // reachesCycle guarantees the walk meets a cycle; the bound guards the loop anyway.
  for (let steps = 0; e && a.cycleOf[e.index]! < 0 && steps <= a.entries.length; steps++) e = a.parent[e.index];
  if (!e || a.cycleOf[e.index]! < 0) return "a parent cycle";
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

function clip(text: string): string {
  return singleLine(text, 60);
}
