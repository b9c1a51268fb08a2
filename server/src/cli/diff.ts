/**
 * `pi-session-lsp diff FILE LEAF_A [LEAF_B]`: what the model saw on two branches of a session. The
 * file is read as `check` and `export` read it, as a stream (`streamedSession.ts`: a session of any
 * size, each line's text left on disk; a v1/v2 file migrated in memory, up to the size the
 * streamed document copies), the two contexts Pi would build from the two leaves are built by the
 * core and summarised message by message as they are built (`summarizeContext`), and `branchDiff`
 * compares the summaries. Text for people (every session value escaped) or `--json`.
 *
 * Exit status: 0 compared, 1 Pi cannot build one of the contexts (it refuses the file, which a
 * UTF-16 one is, throws or hangs), 2 usage error, unreadable file or unknown leaf.
 */

import type { PiFlavor } from "../core/pi/buildContext";
import type { SessionAnalysis } from "../core/session/analysis";
import type { SessionDocument } from "../core/session/document";
import type { Entry } from "../core/session/entry";
import { contextDocument, migrationNote } from "../features/api/context";
import { branchDiff, type ContextSummary, renderDiff, summarizeContext } from "../features/api/diff";
import { STREAMED_VALUE_CHARS } from "../io/checkRead";
import { type OptionSpecs, type OptionValues, readCommandLine } from "./commandLine";
import { openRefusal } from "./contextFromDocument";
import { findEntry, shownId } from "./entryArg";
import type { CliIo } from "./io";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { withStreamedSession } from "./streamedSession";
import { escapeControls, escapeControlsKeepingLines, jsonLine } from "./terminal";
import { errorText } from "./walk";

export const DIFF_USAGE = `Usage: pi-session-lsp diff [--json] [--pi 1.x|0.74] [--session-dir DIR] FILE LEAF_A [LEAF_B]

Compares what the model sees on two branches of the session FILE: the contexts Pi builds from the
entries LEAF_A and LEAF_B (ids or the start of one, as tree prints them; LEAF_B defaults to the
last entry, where Pi resumes). Says where the two paths part, the messages only one context holds
with their estimated tokens, and for the entries only one branch has: their cost (the assistant
messages' usage), the tools they called and the files they read or changed. The file is read as
a stream of lines, in bounded memory whatever its size (a line over 256 MiB is refused).
  --json      one JSON object instead of text
  --pi 1.x|0.74
              whose rules build the contexts: Pi 1.x (default) or Pi 0.73/0.74
${FILE_OR_ID_HELP}
Exit status: 0 compared, 1 Pi cannot build one of the contexts (or the file is UTF-16), 2 usage
error, unreadable file or unknown entry.`;

const OPTIONS: OptionSpecs = { json: { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };

function checkWords(_values: OptionValues, words: readonly string[]): string | undefined {
  if (words.length === 0) return "no file given";
  if (words.length === 1) return "give the entry to compare (LEAF_A)";
  if (words.length > 3) return "give a file and at most two entries";
  return undefined;
}

export function runDiff(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "diff", usage: DIFF_USAGE, options: OPTIONS, check: checkWords, pi: true });
  if (typeof line === "number") return line;
  const [file, leafA, leafB] = line.positionals as [string, string, string | undefined];
  const sessionDir = line.values["session-dir"] as string | undefined;
  return withSessionFile("diff", file, io, { version: line.version, sessionDir }, (path) =>
    diff(path, leafA, leafB, { json: line.values.json === true, flavor: line.version }, io),
  );
}

function diff(file: string, idA: string, idB: string | undefined, options: { json: boolean; flavor: PiFlavor }, io: CliIo): number {
  const shown = escapeControls(file);
  const fail = (message: string, status = 2) => {
    io.err(`pi-session-lsp diff: ${shown}: ${escapeControls(message)}\n`);
    return status;
  };
  const read = {
    // The two paths are read once each: the values of the long lines are not worth keeping, and
    // kept they would hold 128 MB of a large session's tool outputs.
    valueChars: STREAMED_VALUE_CHARS,
    keepTail: false,
    utf16Refusal: (encoding: string) => `the file is ${encoding}, not UTF-8, which Pi does not read`,
  };
  return withStreamedSession(file, read, fail, (streamed) => diffDocument(file, streamed.doc, { a: idA, b: idB }, options, io, fail));
}

function diffDocument(
  file: string,
  doc: SessionDocument,
  ids: { a: string; b: string | undefined },
  options: { json: boolean; flavor: PiFlavor },
  io: CliIo,
  fail: (message: string, status?: number) => number,
): number {
  const refusal = openRefusal(doc, options.flavor);
  if (refusal) return fail(refusal, 1);
  let a: SessionAnalysis;
  try {
    a = contextDocument(doc).analysis;
  } catch (error) {
    // A v1/v2 file too large to copy into memory, where Pi migrates it (`StreamedSessionDocument.clone`).
    return fail(`Pi migrates this file when it opens it, and it cannot be migrated here: ${errorText(error)}`, 1);
  }
  const note = migrationNote(doc);
  if (note) io.err(`pi-session-lsp diff: ${escapeControls(file)}: ${escapeControls(note)}\n`);
  const sides: { leaf: Entry; summary: ContextSummary }[] = [];
  for (const id of [ids.a, ids.b]) {
    const leaf = id === undefined ? a.leaf : findEntry(a, id);
    if (leaf === undefined || leaf === null) return fail("the file has no entry to compare with (LEAF_B)");
    if (typeof leaf === "string") return fail(leaf);
    const built = summarizeContext(a, leaf, options.flavor);
    if (!built.ok) {
      const why = built.failure.kind === "cycle" ? "its path runs into a parent cycle" : built.failure.reason;
      return fail(`Pi cannot build a context from ${JSON.stringify(shownId(leaf.id))} (line ${leaf.line + 1}): ${why}`, 1);
    }
    sides.push({ leaf, summary: built.summary });
  }
  const [sa, sb] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const result = branchDiff(sa.leaf, sa.summary, sb.leaf, sb.summary);
  io.out(options.json ? jsonLine({ file, ...result }) : escapeControlsKeepingLines(renderDiff(result, ids.b === undefined, escapeControls)));
  return 0;
}
