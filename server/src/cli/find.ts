/**
 * `pi-session-lsp find ID|PREFIX|TEXT`: what `pi --session ARG` opens, and every other session the
 * argument could mean. An id prefix that matches several sessions is resolved the way Pi resolves
 * it (the first of its list, newest first, this project before the others), and the others are
 * listed with the reason Pi passed them over, so an ambiguous prefix (#9733) is never silent. Text
 * is matched against names and messages as `/resume`'s search matches it.
 */

import { searchesTextFirst } from "../core/disk/resolve";
import { freeCoresNow, measureFreeCores } from "../io/freeCores";
import { startScanWorkerEarly } from "../io/poolThreads";
import type { FindResult } from "../io/sessionFind";
import { type OptionSpecs, readCommandLine } from "./commandLine";
import type { CliIo } from "./io";

export const FIND_USAGE = `Usage: pi-session-lsp find [--cwd DIR] [--session-dir DIR] [--pi 1.x|0.74] [--text | --ids] [--json] ID|PREFIX|TEXT

Says which session \`pi --session ARG\` opens when run in DIR (default: the current folder): an exact
id of this project, else the newest session of this project whose id starts with ARG, else the same
across every project (Pi then offers to fork it here), or ARG as a path. Every other session whose
id starts with ARG is listed, with why Pi did not pick it. Text that is not an id (or matches no id)
is searched in session names and messages as /resume's search does ("quoted phrase", re:regex).
  --text    also search names and messages for an id-like ARG
  --ids     only resolve ARG as an id, never search text
  --json    {opens, candidates, text, ...}; "opens" is the file Pi opens
Exit status: 0 Pi opens a session or the text matched one, 1 nothing found, 2 usage error.`;

const OPTIONS: OptionSpecs = {
  cwd: { type: "string" },
  "session-dir": { type: "string" },
  text: { type: "boolean" },
  ids: { type: "boolean" },
  json: { type: "boolean" },
};

/**
 * How long the free cores are measured (the folders' listing, then the search's first files on
 * this thread) before a worker is started or not: the kernel's idle counters tick every 10 ms, so
 * a tenth of a second tells a free core from a busy one (as `check DIR`'s probe), short against a
 * search that pays for a worker (a folder of 1 GB takes one thread about 0.5 s).
 */
const FREE_CORE_MEASURE_MS = 100;

export async function runFind(args: readonly string[], io: CliIo): Promise<number> {
  const line = readCommandLine(args, io, {
    name: "find",
    usage: FIND_USAGE,
    options: OPTIONS,
    pi: true,
    check: (values, positionals) =>
      positionals.join(" ").trim() === "" ? "nothing to find" : values.text && values.ids ? "--text and --ids cannot be combined" : undefined,
  });
  if (typeof line === "number") return line;
  const { values, positionals, version } = line;
  const arg = positionals.join(" ");
  const text = values.text ? "always" : values.ids ? "never" : "auto";
  // A core free at this instant gets its worker at once, started before the search's modules are
  // loaded (a worker takes about 30 ms to start, a third of the search of a 0.4 GB folder on two
  // cores), and before anything else this module needs is loaded: what prints the answer
  // (`findOutput.ts`) is loaded once there is one. Else the measurement below decides.
  const freeNow = freeCoresNow();
  const started = searchesTextFirst(arg, text) ? startScanWorkerEarly(freeNow) : [];
  // The cores left free while this thread lists the folders and starts the search decide whether a
  // worker joins it: on a busy machine one thread alone is faster.
  const cores = measureFreeCores();
  const { findSessions } = require("../io/sessionFind") as typeof import("../io/sessionFind");
  const { Progress } = require("./io") as typeof import("./io");
  const workersWorth = () =>
    freeNow !== undefined ? Math.floor(freeNow) : cores.elapsed() < FREE_CORE_MEASURE_MS ? undefined : Math.floor(cores.freeCores() + 0.5);
  const progress = new Progress("searching sessions");
  let result: FindResult;
  try {
    result = await findSessions({
      version,
      arg,
      cwd: values.cwd as string | undefined,
      sessionDir: values["session-dir"] as string | undefined,
      text,
      pool: { onProgress: (p) => progress.update(p), withThisThread: true, workersWorth, started },
    });
  } finally {
    progress.done();
    // Workers started ahead that no pool took (the search failed before it ran) are ended here.
    for (const worker of started.splice(0)) void worker.terminate();
  }
  if (result.location.problem) io.err(`pi-session-lsp find: ${result.location.problem}\n`);
  const output = require("./findOutput") as typeof import("./findOutput");
  if (result.searchGaveUp) io.err(output.gaveUpMessage(result.searchGaveUp));
  const opensSomething = result.resolution.kind !== "not-found" && result.resolution.kind !== "throws" && result.pathState?.kind !== "stops";
  io.out(output.findText(result, values.json === true));
  return opensSomething || (result.text?.length ?? 0) > 0 ? 0 : 1;
}
