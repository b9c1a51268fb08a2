/**
 * `resume-from FILE ID`, `drop-from-context FILE ID` and `fork FILE [--leaf ID] [--out PATH]`: the
 * entry actions of the editor (`core/edits/`) on the command line.
 *
 * Resume and drop append one line, through `replace.ts`'s `appendToFile`: a copy of the file as
 * read is kept as FILE.bak, the file is checked to be still what was read, and the line goes at
 * the end with one append, so nothing Pi wrote before or after is lost. When Pi appended in the
 * meantime, the line is computed again from what the file holds now (a few times).
 *
 * Fork reads the source read-only (`openSessionFile` opens it `O_RDONLY`) and creates the new
 * file exclusively (`wx`): an existing file is never overwritten.
 */

import * as nodeFs from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Entry } from "../core/session/entry";
import { SessionDocument } from "../core/session/document";
import { type AppendedLine, appendedText, type EditClock, type Refusal } from "../core/edits/appendLine";
import { dropFromContextLine, OLD_PI_NOTE } from "../core/edits/dropFromContext";
import { forkSession } from "../core/edits/fork";
import { resumeFromLine } from "../core/edits/resumeFrom";
import { type OptionSpecs, type OptionValues, oneFile, readCommandLine } from "./commandLine";
import type { CliIo } from "./io";
import { closeFile, openSessionFile, type OpenedFile } from "./files";
import { decodeSession } from "../io/checkRead";
import { encodingName } from "../core/base/encoding";
import { appendToFile, FileChanged, type FixFs } from "./replace";
import { writeNewFile } from "../io/newFile";
import { escapeControls } from "./terminal";
import { findEntry, shownId } from "./entryArg";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { errorText } from "./walk";

export const RESUME_FROM_USAGE = `Usage: pi-session-lsp resume-from [--dry-run] [--session-dir DIR] FILE ID

Makes Pi resume the session FILE from the entry ID (or a unique prefix of it) without changing
what the model sees: appends one "custom" entry whose parent is ID, which Pi keeps in the tree and
sends nothing for (Pi resumes from the last line). Nothing above it changes; the file as it was is
kept as FILE.bak.
  --dry-run   print the line instead of appending it
${FILE_OR_ID_HELP}
Exit status: 0 appended (or printed), 2 usage error, unreadable file, or no such entry.`;

export const DROP_USAGE = `Usage: pi-session-lsp drop-from-context [--dry-run] [--session-dir DIR] FILE ID

Drops the message ID from the context Pi 1.x sends the model, keeping it in the file: appends a
"context_edit" entry with "replacement": null on the branch Pi resumes. ${OLD_PI_NOTE}. The file as
it was is kept as FILE.bak.
  --dry-run   print the line instead of appending it
${FILE_OR_ID_HELP}
Exit status: 0 appended (or printed), 2 usage error, unreadable file, or the message cannot be dropped.`;

export const FORK_USAGE = `Usage: pi-session-lsp fork [--leaf ID] [--out PATH] [--session-dir DIR] FILE

Writes a new session holding the path from the root to ID (default: the entry Pi resumes from), as
Pi 1.6's /fork writes it: labels re-chained, a fresh session id, "parentSession" naming FILE, the
file named <timestamp>_<id>.jsonl in FILE's folder. No parent is left dangling (Pi 0.73/0.74 leaves
them). FILE is only read; an existing file is never overwritten.
  --leaf ID    the last entry of the new session (an id or a unique prefix)
  --out PATH   the new file, or the folder to write it into
${FILE_OR_ID_HELP}
Exit status: 0 written, 2 usage error, unreadable file, no such entry, or PATH exists.`;

const APPEND_OPTIONS: OptionSpecs = { "dry-run": { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };
const FORK_OPTIONS: OptionSpecs = { leaf: { type: "string" }, out: { type: "string" }, "session-dir": SESSION_DIR_OPTION };

/** Attempts at appending to a file that changes under the command, before it gives up. */
const ATTEMPTS = 3;

type Read = { ok: true; file: OpenedFile; doc: SessionDocument } | { ok: false; message: string };

/** Reads FILE as the server reads a buffer; the caller closes the file. */
function readSession(path: string): Read {
  let file: OpenedFile;
  try {
    file = openSessionFile(path);
  } catch (error) {
    return { ok: false, message: `cannot read ${path}: ${errorText(error)}` };
  }
  const decoded = decodeSession(file.bytes);
  if (!decoded.lossless) {
    closeFile(file);
    return { ok: false, message: `${path} is ${decoded.encoding === "utf-8" ? "not valid UTF-8" : encodingName(decoded)}, and Pi reads UTF-8 only` };
  }
  return { ok: true, file, doc: new SessionDocument(pathToFileURL(resolve(path)).href, "jsonl", 0, decoded.text) };
}

const now = (): EditClock => ({ now: new Date() });

type LineMaker = (doc: SessionDocument, entry: Entry, clock: EditClock) => AppendedLine | Refusal;

/** What the appended line does to `entry`, in words, for the line the command prints ("line 5 (a2)" is the entry given). */
type Effect = (entry: string) => string;

function runAppend(command: string, usage: string, make: LineMaker, effect: Effect, args: readonly string[], io: CliIo, fs: FixFs): number | Promise<number> {
  const parsed = readCommandLine(args, io, {
    name: command,
    usage,
    options: APPEND_OPTIONS,
    check: (_values, words) => (words.length === 2 ? undefined : "give the session FILE and the entry ID"),
  });
  if (typeof parsed === "number") return parsed;
  const [file, id] = parsed.positionals as [string, string];
  const sessionDir = parsed.values["session-dir"] as string | undefined;
  return withSessionFile(command, file, io, { version: "1.x", sessionDir }, (path) => appendTo(path, id, command, make, effect, parsed.values, io, fs));
}

/** Appends the line `make` makes for the entry `id` to `path`, a few times when the file changes under it. */
function appendTo(path: string, id: string, command: string, make: LineMaker, effect: Effect, values: OptionValues, io: CliIo, fs: FixFs): number {
  const fail = (message: string) => {
    io.err(`pi-session-lsp ${command}: ${escapeControls(message)}\n`);
    return 2;
  };
  for (let attempt = 1; ; attempt++) {
    const read = readSession(path);
    if (!read.ok) return fail(read.message);
    try {
      const entry = findEntry(read.doc.analysis, id);
      if (typeof entry === "string") return fail(`${path}: ${entry}`);
      const line = make(read.doc, entry, now());
      if (!line.ok) return fail(`${path}: line ${entry.line + 1} (${shownId(entry.id)}): ${line.reason}`);
      const text = appendedText(read.doc, line.line);
      if (line.warning) io.err(`pi-session-lsp ${command}: warning: ${escapeControls(`${path}: ${line.warning.text}`)}\n`);
      if (values["dry-run"]) {
        io.out(`${escapeControls(line.line)}\n`);
        return 0;
      }
      try {
        const done = appendToFile(read.file, text, fs);
        const at = read.doc.lineCount + (read.doc.analysis.endsWithNewline ? 0 : 1);
        const named = `line ${entry.line + 1} (${escapeControls(shownId(entry.id))})`;
        io.out(
          `${escapeControls(path)}: appended line ${at}, entry ${line.id}: ${effect(named)}. The file as it was: ${escapeControls(done.backup)}${done.history ? `; older backups were moved to ${escapeControls(done.history)}` : ""}\n`,
        );
        if (done.interleaved)
          io.err(`pi-session-lsp ${command}: another process appended to ${escapeControls(path)} at the same moment; check which line is last\n`);
        return 0;
      } catch (error) {
        if (error instanceof FileChanged && attempt < ATTEMPTS) continue;
        return fail(`${path} was not changed: ${errorText(error)}`);
      }
    } finally {
      closeFile(read.file);
    }
  }
}

export function runResumeFrom(args: readonly string[], io: CliIo, fs: FixFs = nodeFs): number | Promise<number> {
  return runAppend("resume-from", RESUME_FROM_USAGE, resumeFromLine, (entry) => `its parent is ${entry}, the entry Pi now resumes from`, args, io, fs);
}

export function runDropFromContext(args: readonly string[], io: CliIo, fs: FixFs = nodeFs): number | Promise<number> {
  return runAppend(
    "drop-from-context",
    DROP_USAGE,
    dropFromContextLine,
    (entry) => `it drops the message on ${entry} from the context Pi 1.x sends the model (${OLD_PI_NOTE})`,
    args,
    io,
    fs,
  );
}

export function runFork(args: readonly string[], io: CliIo): number | Promise<number> {
  const parsed = readCommandLine(args, io, {
    name: "fork",
    usage: FORK_USAGE,
    options: FORK_OPTIONS,
    // resolve("") is the current folder: an empty --out is a forgotten value, not a place to write.
    check: (values, words) => (values.out === "" ? "--out needs a path (given an empty one)" : oneFile(values, words)),
  });
  if (typeof parsed === "number") return parsed;
  const sessionDir = parsed.values["session-dir"] as string | undefined;
  return withSessionFile("fork", parsed.positionals[0]!, io, { version: "1.x", sessionDir }, (path) => forkFrom(path, parsed.values, io));
}

/** Writes the fork of `path` that `values` ask for. */
function forkFrom(path: string, values: OptionValues, io: CliIo): number {
  const fail = (message: string) => {
    io.err(`pi-session-lsp fork: ${escapeControls(message)}\n`);
    return 2;
  };
  const read = readSession(path);
  if (!read.ok) return fail(read.message);
  closeFile(read.file);
  const doc = read.doc;
  const leafId = typeof values.leaf === "string" ? values.leaf : undefined;
  const entry = leafId === undefined ? doc.analysis.leaf : findEntry(doc.analysis, leafId);
  if (entry === undefined) return fail(`${path}: the file has no entry Pi resumes from`);
  if (typeof entry === "string") return fail(`${path}: ${entry}`);
  const source = resolve(path);
  const fork = forkSession(doc, entry, source, now());
  if (!fork.ok) return fail(`${path}: line ${entry.line + 1}: ${fork.reason}`);
  let out = fork.path;
  if (typeof values.out === "string") {
    out = resolve(values.out);
    if (isFolder(out)) out = join(out, fork.fileName);
  }
  try {
    writeNewFile(out, fork.text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === "EEXIST" ? `${out} exists; it is left as it is (give another --out)` : `cannot write ${out}: ${errorText(error)}`);
  }
  io.out(
    `${escapeControls(out)}: a new session (${fork.sessionId}) with the ${fork.entries} entries from the root to line ${entry.line + 1} (${escapeControls(shownId(entry.id))}) of ${escapeControls(source)}` +
      `${fork.relinked > 0 ? `, ${fork.relinked} parent link${fork.relinked === 1 ? "" : "s"} re-chained` : ""}\n`,
  );
  return 0;
}

function isFolder(path: string): boolean {
  try {
    return nodeFs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}
