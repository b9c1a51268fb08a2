/**
 * `pi-session-lsp diff FILE LEAF_A [LEAF_B]`: what the model saw on two branches of a session. The
 * file is read as `context` reads it (whole, bounded, a v1/v2 file migrated in memory), the two
 * contexts Pi would build from the two leaves are built by the core, and `branchDiff` compares
 * them. Text for people (every session value escaped) or `--json`.
 *
 * Exit status: 0 compared, 1 Pi cannot build one of the contexts (it refuses the file, throws or
 * hangs), 2 usage error, unreadable file or unknown leaf.
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { buildContext, type ContextBuild, type PiFlavor } from "../core/pi/buildContext";
import { SessionDocument } from "../core/session/document";
import type { Entry } from "../core/session/entry";
import { contextDocument, migrationNote } from "../features/api/context";
import { branchDiff, renderDiff } from "../features/api/diff";
import { type OptionSpecs, type OptionValues, readCommandLine } from "./commandLine";
import { openRefusal } from "./contextFromDocument";
import { findEntry, shownId } from "./entryArg";
import { closeFile, openSessionFile } from "./files";
import { decodeSession } from "../io/checkRead";
import type { CliIo } from "./io";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { escapeControls, escapeControlsKeepingLines, jsonLine } from "./terminal";
import { errorText } from "./walk";

export const DIFF_USAGE = `Usage: pi-session-lsp diff [--json] [--pi 1.x|0.74] [--session-dir DIR] FILE LEAF_A [LEAF_B]

Compares what the model sees on two branches of the session FILE: the contexts Pi builds from the
entries LEAF_A and LEAF_B (ids or the start of one, as tree prints them; LEAF_B defaults to the
last entry, where Pi resumes). Says where the two paths part, the messages only one context holds
with their estimated tokens, and for the entries only one branch has: their cost (the assistant
messages' usage), the tools they called and the files they read or changed.
  --json      one JSON object instead of text
  --pi 1.x|0.74
              whose rules build the contexts: Pi 1.x (default) or Pi 0.73/0.74
${FILE_OR_ID_HELP}
Exit status: 0 compared, 1 Pi cannot build one of the contexts, 2 usage error, unreadable file or
unknown entry.`;

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
  const fail = (status: number, message: string) => {
    io.err(`pi-session-lsp diff: ${shown}: ${escapeControls(message)}\n`);
    return status;
  };
  let text: string;
  try {
    const opened = openSessionFile(file);
    closeFile(opened);
    const decoded = decodeSession(opened.bytes);
    if (decoded.encoding !== "utf-8") return fail(1, `the file is ${decoded.encoding}, not UTF-8, which Pi does not read`);
    text = decoded.text;
  } catch (error) {
    return fail(2, `cannot read it: ${errorText(error)}`);
  }
  const doc = new SessionDocument(pathToFileURL(resolve(file)).href, "jsonl", 0, text);
  const refusal = openRefusal(doc, options.flavor);
  if (refusal) return fail(1, refusal);
  const a = contextDocument(doc).analysis;
  const note = migrationNote(doc);
  if (note) io.err(`pi-session-lsp diff: ${shown}: ${escapeControls(note)}\n`);
  const sides: { leaf: Entry; build: ContextBuild }[] = [];
  for (const id of [idA, idB]) {
    const leaf = id === undefined ? a.leaf : findEntry(a, id);
    if (leaf === undefined || leaf === null) return fail(2, "the file has no entry to compare with (LEAF_B)");
    if (typeof leaf === "string") return fail(2, leaf);
    const built = buildContext(a, { leaf, flavor: options.flavor });
    if (!built.ok) {
      const why = built.failure.kind === "cycle" ? "its path runs into a parent cycle" : built.failure.reason;
      return fail(1, `Pi cannot build a context from ${JSON.stringify(shownId(leaf.id))} (line ${leaf.line + 1}): ${why}`);
    }
    sides.push({ leaf, build: built.build });
  }
  const [sa, sb] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const result = branchDiff(a, sa.leaf, sa.build, sb.leaf, sb.build);
  io.out(options.json ? jsonLine({ file, ...result }) : escapeControlsKeepingLines(renderDiff(result, idB === undefined, escapeControls)));
  return 0;
}
