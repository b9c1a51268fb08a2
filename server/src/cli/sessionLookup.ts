/**
 * A session named by its id where a command asks for a FILE: `tree 019cafb4` reads the session
 * that `pi --session 019cafb4` opens, found by the rule `find` follows (`core/disk/resolve.ts`,
 * Pi 1.6's `resolveSessionPath`: this project's exact id, then this project's newest session whose
 * id starts with it, then every project's, exact first), in the folder Pi would look in
 * (`--session-dir`, `PI_CODING_AGENT_DIR`, `PI_CODING_AGENT_SESSION_DIR`, the settings).
 *
 * Two things differ from Pi, on purpose. A path that exists is read as a path, even when it looks
 * like an id (Pi would look the id up), because a file the user named is what they meant. And a
 * prefix that more than one session's id starts with is refused, with the candidates and the one
 * Pi would have taken: Pi takes the first of its list without a word (#9733), and a command that
 * writes (`resume-from`, `drop-from-context`) must not guess.
 */

import { homedir } from "node:os";
import { looseText } from "../core/base/text";
import type { PiVersion } from "../core/disk/location";
import { type Candidate, type FindResult, findSessions } from "../io/sessionFind";
import type { CliIo } from "./io";
import { formatDateTime, oneLine } from "./sessionOutput";
import { escapeControls } from "./terminal";
import { tildePath } from "./sessionOutput";

/** How many candidates a refusal lists; the rest are counted. */
const SHOWN_CANDIDATES = 10;

export type SessionArg = { ok: true; path: string } | { ok: false; status: number };

export interface SessionArgOptions {
  version: PiVersion;
  sessionDir?: string;
}

/**
 * The session whose id `arg` is (the caller has made sure it names no file), said on stderr in
 * one line; or a refusal, already said, with exit status 2.
 */
export async function resolveSessionArg(command: string, arg: string, io: CliIo, options: SessionArgOptions): Promise<SessionArg> {
  const result = await findSessions({
    version: options.version,
    arg,
    cwd: io.cwd,
    sessionDir: options.sessionDir,
    ...(io.env ? { env: io.env } : {}),
    text: "never",
  });
  const home = homedir();
  const say = (text: string) => io.err(`pi-session-lsp ${command}: ${text}\n`);
  if (result.location.problem) say(escapeControls(result.location.problem));
  const r = result.resolution;
  const folder = escapeControls(tildePath(result.location.currentDir, home));
  if (r.kind === "not-found" || r.kind === "throws" || r.kind === "path") {
    say(
      `no file ${escapeControls(arg)}, and no session id starts with it (${r.kind === "throws" ? `Pi stops with ${escapeControls(r.error)}` : `Pi ${result.location.version} looks in ${folder} and every project's folder`}; \`pi-session-lsp sessions --all\` lists them)`,
    );
    return { ok: false, status: 2 };
  }
  const meant = r.how === "exact" ? result.candidates.filter((c) => c.exact) : result.candidates;
  if (meant.length > 1) {
    say(ambiguity(result, meant, home));
    return { ok: false, status: 2 };
  }
  const opened = result.opens?.info;
  const id = opened && typeof opened.id === "string" ? opened.id : arg;
  const where = r.kind === "local" ? "of this project" : `of another project (${escapeControls(tildePath(r.cwd, home))})`;
  say(`${escapeControls(arg)} is session ${escapeControls(oneLine(id, 60))} ${where}: ${escapeControls(tildePath(r.path, home))}`);
  return { ok: true, path: r.path };
}

/** The refusal of a prefix (or an id) more than one session could be meant by, and the one Pi takes. */
function ambiguity(result: FindResult, meant: Candidate[], home: string): string {
  const arg = escapeControls(result.arg);
  const what = meant.every((c) => c.exact) ? `${meant.length} sessions have the id ${arg}` : `${meant.length} session ids start with ${arg}`;
  const lines = [`${what}; give more of the id, or the file:`];
  for (const c of meant.slice(0, SHOWN_CANDIDATES)) {
    const info = c.session.info;
    const scope = c.scope === "local" ? "this project" : `project ${oneLine(tildePath(info.cwd, home), 30)}`;
    const title = oneLine(info.name ?? info.firstMessage, 40);
    lines.push(
      `  ${escapeControls(oneLine(looseText(info.id), 36))}  ${formatDateTime(info.modified)}  ${escapeControls(scope)}  ${escapeControls(title)}  ${escapeControls(tildePath(info.path, home))}`,
    );
  }
  if (meant.length > SHOWN_CANDIDATES) lines.push(`  … ${meant.length - SHOWN_CANDIDATES} more (\`pi-session-lsp find --ids ${arg}\` lists all)`);
  const r = result.resolution;
  if (r.kind === "local" || r.kind === "global") {
    // Pi 1.x finds an exact id of this project by reading its folder's headers in folder order, and
    // a prefix in its list, newest first (`resolveSessionPath`, main.js:231-255).
    const rule =
      r.kind === "local"
        ? r.how === "exact"
          ? "the first file of this project's folder with that id"
          : "the first of this project's list, newest first"
        : "the first of every project's list";
    lines.push(`pi --session ${arg} would open ${escapeControls(tildePath(r.path, home))} without a word (${rule}).`);
  }
  return lines.join("\n");
}
