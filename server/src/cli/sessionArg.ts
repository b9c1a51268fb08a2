/**
 * A session named by its id where a command asks for a FILE: `tree 019cafb4` reads the session
 * that `pi --session 019cafb4` opens. This module decides only whether a word is such an id; the
 * look-up itself (`sessionLookup.ts`) reads Pi's sessions folder on worker threads, so it is
 * loaded only when a command is given an id, never when it is given a file.
 */

import { lstatSync } from "node:fs";
import { looksLikePath } from "../core/disk/resolve";
import type { OptionSpec } from "./commandLine";
import type { CliIo } from "./io";
import type { SessionArgOptions } from "./sessionLookup";

/** `--session-dir DIR`, for every command that takes a session FILE or id. */
export const SESSION_DIR_OPTION: OptionSpec = { type: "string" };

/** The line of a usage text that explains FILE. */
export const FILE_OR_ID_HELP = `FILE is a session file, or a session id or the start of one, found as \`pi --session ID\` finds it
(this project's sessions first, then every project's; a path that exists is always read as a path).
  --session-dir DIR   the folder Pi keeps sessions in, as Pi's own --session-dir`;

/**
 * Whether `arg` is to be looked up as a session id: it names no file, does not look like a path,
 * and could be an id (letters, digits, ".", "_", "-", as `find` reads ids).
 */
export function isSessionId(arg: string): boolean {
  if (arg === "-" || arg === "" || looksLikePath(arg) || !/^[A-Za-z0-9._-]+$/.test(arg)) return false;
  try {
    lstatSync(arg);
    return false;
  } catch {
    return true;
  }
}

/**
 * Runs `run` on the file `arg` names: at once when it is a path, else once the session id is
 * looked up (said on stderr), or returns the exit status of a refusal. A command given a file
 * stays synchronous, as it was.
 */
export function withSessionFile(
  command: string,
  arg: string,
  io: CliIo,
  options: SessionArgOptions,
  run: (path: string) => number | Promise<number>,
): number | Promise<number> {
  if (!isSessionId(arg)) return run(arg);
  const { resolveSessionArg } = require("./sessionLookup") as typeof import("./sessionLookup");
  return resolveSessionArg(command, arg, io, options).then((found) => (found.ok ? run(found.path) : found.status));
}

/**
 * `withSessionFile` for a command that takes many paths (`check`): each id is looked up in turn,
 * and one that is refused is left out with exit status 2, while the others are still run, as
 * `check` goes on past an unreadable path.
 */
export function withSessionFiles(
  command: string,
  args: readonly string[],
  io: CliIo,
  options: SessionArgOptions,
  run: (paths: string[]) => number | Promise<number>,
): number | Promise<number> {
  if (!args.some(isSessionId)) return run([...args]);
  const { resolveSessionArg } = require("./sessionLookup") as typeof import("./sessionLookup");
  return (async () => {
    const paths: string[] = [];
    let refused = 0;
    for (const arg of args) {
      if (!isSessionId(arg)) {
        paths.push(arg);
        continue;
      }
      const found = await resolveSessionArg(command, arg, io, options);
      if (found.ok) paths.push(found.path);
      else refused = found.status;
    }
    if (paths.length === 0) return refused;
    return Math.max(refused, await run(paths));
  })();
}
