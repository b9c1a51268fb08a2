/**
 * `pi-session-lsp context`: the context Pi builds for the model when it resumes a session
 * (`buildSessionContext()`), on the command line.
 *
 * The default answer, the JSON of a file it is sure of, comes from the shortcut
 * `core/pi/scannedContext.ts`, which scans every line but parses only those the context reads. Every
 * other answer, and every file the shortcut is not sure of, takes the full path
 * (`contextFromDocument.ts`, loaded only then): the file read into the same `SessionDocument` the
 * server and `check` use, the context built with the core's `buildContext` from the file's last
 * entry (where Pi resumes) or from `--leaf ID`, and printed: as JSON, exactly `JSON.stringify` of Pi's `{messages, thinkingLevel, model}`, or as
 * Markdown to read (`renderContextMarkdown`). A v1/v2 file is migrated in memory first, as Pi does
 * (`migratedView.ts`), and stderr says Pi rewrites it. Where Pi itself would not get a context (it
 * refuses or overwrites the file, throws, or hangs on a parent cycle) it says so on stderr instead.
 *
 * Exit status: 0 printed, 1 Pi cannot build this context, 2 usage error, unreadable file, unknown
 * `--leaf` id or an internal failure.
 *
 * The file is read as `check` reads it (a regular file or standard input, bounded, its encoding
 * told), and everything printed as text has its control characters escaped: the Markdown and the
 * messages quote the session's own ids and text. The JSON stays byte for byte Pi's.
 */

import type { PiFlavor } from "../core/pi/buildContext";
import { scannedContext } from "../core/pi/scannedContext";
import { WIRE_APIS, type WireApi } from "../core/pi/provider/wire/common";
import { keepAllValues } from "../core/line/values";
import { type OptionSpecs, type OptionValues, quote, readCommandLine } from "./commandLine";
import type { CliIo } from "./io";
import { closeFile, openSessionFile, readStdin } from "./files";
import { encodingName, utf16Of } from "../core/base/encoding";
import { escapeControls } from "./terminal";
import { errorText } from "./walk";
import type { CliStage } from "./providerStage";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";

export const CONTEXT_USAGE = `Usage: pi-session-lsp context [--stage context|provider|request] [--api API] [--prompt TEXT] [--leaf ID] [--format json|markdown] [--pi 1.x|0.74] [--session-dir DIR] FILE

Prints what the model sees when Pi resumes the session FILE (Pi's buildSessionContext), built from
the file's last entry as Pi resumes it, or from the entry --leaf ID (an id or the start of one, as
tree prints it). FILE - reads standard input.
  --stage context     the context Pi builds (default)
  --stage provider    what the provider receives: the messages pi-ai's transformMessages gives for
                      the model Pi resumes with, as {"model": …, "messages": [...]}
  --stage request     the HTTP body Pi 1.6 sends when you type a prompt, as JSON: "model" and
                      the conversation ("messages" or "input"). Fields that come from the
                      machine, not the session (system prompt, tools, max tokens, thinking
                      and stream options, cache keys) are left out
  --api API           with --stage request: anthropic-messages, openai-completions or
                      openai-responses (default: the resumed model's API); for another API
                      than the model's, the body is for a custom model of models.json
  --prompt TEXT       with --stage request: the new user message (default "Say ok.")
  --format json       exactly JSON.stringify of Pi's {messages, thinkingLevel, model} (default)
  --format markdown   the conversation to read, with message counts, estimated tokens and model
  --pi 1.x|0.74|retained-tail
                      whose rules to follow: Pi 1.x (default), Pi 0.73/0.74, or Pi 1.x
                      with compaction retainedTail checkpoints (Pi 0.83 docs)
${FILE_OR_ID_HELP}
A version 1 or 2 file is read as Pi reads it, migrated to version 3 in memory (stderr says so).
Exit status: 0 printed, 1 Pi cannot build this context (it refuses the file, throws, or hangs)
or sends no request, 2 usage error, unreadable file, unknown --leaf id, or --stage request
without --api for a model of another API.`;

const FLAVORS = new Map<string, PiFlavor>([
  ["1.x", "1.x"],
  ["1", "1.x"],
  ["0.74", "0.74"],
  ["retained-tail", "retained-tail"],
  ["0.73", "0.74"],
]);

const OPTIONS: OptionSpecs = {
  format: { type: "string", choices: ["json", "markdown"] },
  leaf: { type: "string" },
  stage: { type: "string", choices: ["context", "provider", "request"] },
  api: { type: "string", choices: [...WIRE_APIS] },
  prompt: { type: "string" },
  // Not the `pi` of the session commands: context also follows Pi 1.x with retained-tail checkpoints.
  pi: { type: "string" },
  "session-dir": SESSION_DIR_OPTION,
};

/** The Pi rules `--pi` names, or undefined for a value that names none. */
function flavorOf(value: string | true | undefined): PiFlavor | undefined {
  return typeof value === "string" ? FLAVORS.get(value.replace(/^v/, "")) : "1.x";
}

/** The usage errors of `context`'s words, in the order they are told. */
function checkWords(values: OptionValues, files: readonly string[]): string | undefined {
  if (!flavorOf(values.pi)) return `--pi must be 1.x, 0.74 or retained-tail, not ${quote(String(values.pi))}`;
  if ((values.api !== undefined || values.prompt !== undefined) && values.stage !== "request") return "--api and --prompt go with --stage request";
  if (values.stage === "request" && flavorOf(values.pi) !== "1.x") return "--stage request follows Pi 1.6 only (--pi 1.x)";
  if (values.stage === "request" && values.format === "markdown") return "--stage request prints the body as JSON only";
  if (files.length === 0) return "no file given";
  if (files.length !== 1) return `give exactly one file (given ${files.length}: ${files.slice(0, 3).map(quote).join(", ")}${files.length > 3 ? ", …" : ""})`;
  return undefined;
}

export function runContext(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "context", usage: CONTEXT_USAGE, options: OPTIONS, check: checkWords });
  if (typeof line === "number") return line;
  const { values } = line;
  const version = flavorOf(values.pi) === "0.74" ? "0.74" : "1.x";
  const sessionDir = values["session-dir"] as string | undefined;
  return withSessionFile("context", line.positionals[0]!, io, { version, sessionDir }, (file) => printContextOf(file, values, io));
}

/** Reads `file` (or standard input for "-") and prints the context `values` ask for. */
function printContextOf(file: string, values: OptionValues, io: CliIo): number {
  const format = (values.format as string | undefined) ?? "json";
  const flavor = flavorOf(values.pi)!;
  const leafId = values.leaf as string | undefined;
  const stage = (values.stage as CliStage | undefined) ?? "context";
  const shown = escapeControls(file);
  // The one file is read through once: its parsed values are kept, never parsed twice.
  keepAllValues();

  let bytes: Buffer;
  try {
    if (file === "-") bytes = readStdin();
    else {
      const opened = openSessionFile(file);
      bytes = opened.bytes;
      closeFile(opened);
    }
  } catch (error) {
    io.err(`pi-session-lsp context: cannot read ${shown}: ${escapeControls(errorText(error))}\n`);
    return 2;
  }
  // The shortcut for the default answer: only the lines it reads are parsed (scannedContext.ts);
  // a file it is not sure of is built the full way below, which says what is wrong with it.
  if (stage === "context" && format === "json" && utf16Of(bytes) === undefined) {
    const json = scannedJson(bytes, flavor, leafId);
    if (json !== undefined) {
      io.out(`${json}\n`);
      return 0;
    }
  }
  // The reader of the full path (with the streamed document it can build), loaded only when it runs.
  const { decodeSession } = require("../io/checkRead") as typeof import("../io/checkRead");
  const decoded = decodeSession(bytes);
  if (decoded.encoding !== "utf-8") {
    io.err(
      `pi-session-lsp context: ${shown}: the file is ${encodingName(decoded)}, not UTF-8. Pi reads session files as UTF-8: Pi 1.x refuses to open it ("not a valid pi session"), and Pi 0.73/0.74 overwrites it with a fresh header, losing every entry. Convert it to UTF-8 first (for example iconv -f UTF-16 -t UTF-8).\n`,
    );
    return 1;
  }
  try {
    // The full path, loaded only when it runs: it needs the document, the analysis and every view.
    const { printContext } = require("./contextFromDocument") as typeof import("./contextFromDocument");
    const wire = { api: values.api as WireApi | undefined, prompt: values.prompt as string | undefined };
    return printContext(file === "-" ? "stdin.jsonl" : file, shown, decoded.text, { format, flavor, leafId, stage, wire }, io);
  } catch (error) {
    // Whatever throws on a hostile file is this command's one answer: said without a stack trace,
    // with the status of an internal failure (1 would read "Pi cannot build this context").
    io.err(`pi-session-lsp context: ${shown}: internal error: ${escapeControls(errorText(error))}\n`);
    return 2;
  }
}

/** The JSON of the context `scannedContext` builds, or undefined when the full path must answer. */
function scannedJson(bytes: Buffer, flavor: PiFlavor, leafId: string | undefined): string | undefined {
  const result = scannedContext(bytes, { flavor, leafId });
  if (!result?.ok) return undefined;
  try {
    return JSON.stringify(result.build.context);
  } catch (error) {
    // Too deep to serialise: the full path says so.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
