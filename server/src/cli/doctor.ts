/**
 * `pi-session-lsp doctor FILE|ID`: the report `/doctor` shows inside Pi (`features/doctor.ts`), on
 * the command line, word for word: what Pi silently did with the session, what its next request
 * carries that the provider refuses, what to do, and the remedies that are safe while Pi holds the
 * file. With `--fork` the repaired copy is written as a new session next to FILE (never over a
 * file); FILE itself is only read.
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SessionDocument } from "../core/session/document";
import { type DoctorReport, doctorReport, doctorText } from "../features/api/doctor";
import { folderInputs, sessionFacts } from "../io/sessionFacts";
import { type OptionSpecs, oneFile, readCommandLine } from "./commandLine";
import { closeFile, openSessionFile } from "./files";
import { decodeSession } from "../io/checkRead";
import type { CliIo } from "./io";
import { writeNewFile } from "../io/newFile";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { escapeControls, escapeControlsKeepingLines } from "./terminal";
import { errorText } from "./walk";

export const DOCTOR_USAGE = `Usage: pi-session-lsp doctor [--fork] [--session-dir DIR] FILE

What Pi silently did with the session FILE (lines skipped, cycles, duplicate ids, a metadata leaf
that hides messages, a header it refuses or rewrites) and what its next request carries that the
provider refuses, grouped, each with what to do, and the remedies that are safe while Pi holds the
file: the same report as /doctor inside Pi (install the package in Pi: pi install npm:pi-session-lsp).
It is made from the diagnostics check prints; check FILE lists every one.
  --fork   write the repaired copy (check --fix's fixes, and the tool results a provider refuses
           dropped from the context) as a new session next to FILE; FILE is only read
${FILE_OR_ID_HELP}
Exit status: 0 nothing lost, 1 faults found, 2 usage error, unreadable file, or no copy to write.`;

const OPTIONS: OptionSpecs = { fork: { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };

export function runDoctor(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "doctor", usage: DOCTOR_USAGE, options: OPTIONS, check: oneFile });
  if (typeof line === "number") return line;
  const sessionDir = line.values["session-dir"] as string | undefined;
  return withSessionFile("doctor", line.positionals[0]!, io, { version: "1.x", sessionDir }, (path) =>
    diagnose(path, line.values.fork === true, sessionDir, io),
  );
}

function diagnose(path: string, fork: boolean, sessionDir: string | undefined, io: CliIo): number {
  const fail = (message: string) => {
    io.err(`pi-session-lsp doctor: ${escapeControls(message)}\n`);
    return 2;
  };
  const source = resolve(io.cwd ?? process.cwd(), path);
  let report: DoctorReport;
  try {
    const file = openSessionFile(path);
    try {
      const decoded = decodeSession(file.bytes);
      const doc = new SessionDocument(pathToFileURL(source).href, "jsonl", 0, decoded.text);
      const facts = sessionFacts(doc, folderInputs({ version: "1.x", sessionDir }), decoded);
      report = doctorReport(doc, { facts, path: decoded.lossless ? source : undefined });
    } finally {
      closeFile(file);
    }
  } catch (error) {
    return fail(`cannot read ${path}: ${errorText(error)}`);
  }
  io.out(`${escapeControlsKeepingLines(doctorText(report, path))}\n`);
  if (fork) {
    const copy = report.remedies.find((r) => r.kind === "repaired-copy");
    if (!copy) return fail(`${path}: there is no repaired copy to write: check --fix's fixes change nothing in it`);
    try {
      writeNewFile(copy.path, copy.text);
    } catch (error) {
      return fail(`cannot write ${copy.path}: ${errorText(error)}`);
    }
    io.out(
      `\nWrote the repaired copy ${escapeControls(copy.path)} (session ${copy.sessionId}); ${escapeControls(path)} is unchanged. Resume it with pi --session ${copy.sessionId}\n`,
    );
  }
  return report.verdict === "healthy" || report.verdict === "notes" ? 0 : 1;
}
