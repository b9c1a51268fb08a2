/**
 * `check` with no PATH: the sessions of a project (or of every project), found in the folder Pi
 * itself would read. The folder comes from `locate` and the files from `filesFor`, the same calls
 * `sessions` makes, so `check` and `sessions` never disagree about where a project's sessions are.
 */

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { cwdMatches, type SessionLocation } from "../core/disk/location";
import { probeHeader } from "../io/scanFile";
import { filesFor } from "../io/sessionQuery";
import { locate } from "../io/sessionStore";
import { describeSource, tildePath } from "./sessionOutput";
import { escapeControls } from "./terminal";

/** What `check` was asked to check instead of paths: this project's sessions, or every project's. */
export interface ProjectScope {
  scope: "current" | "all";
  /** `--cwd DIR`: the project, as `cd DIR && pi` sees it; default the current folder. */
  cwd?: string | undefined;
}

export interface ProjectSessions {
  /** The session files to check, sorted by path, as a folder's files are. */
  paths: string[];
  /** One line saying which folder is checked and why. */
  where: string;
  /** When there is nothing to check: why (the folder is missing, or holds no session). */
  empty?: string;
  /** Set when Pi would stop at startup instead of reading the folder (as `sessions` says it). */
  problem?: string;
}

/**
 * The session files Pi considers for the project (or every project): the `.jsonl` files of the
 * folder it lists from. In a folder shared by several projects (Pi 1.x with a folder of its own),
 * the files whose header names another project are left out, as Pi's list leaves them out; a file
 * whose header cannot be read is kept, since its problem is what `check` is asked about. `verb`
 * words the line for another command (`usage` is "reading" them, with "no sessions to read").
 */
export function projectSessions(
  project: ProjectScope,
  options: { sessionDir?: string | undefined; env?: NodeJS.ProcessEnv | undefined },
  verb: { doing: string; to: string } = { doing: "checking", to: "check" },
): ProjectSessions {
  const { process: p, location } = locate({ version: "1.x", cwd: project.cwd, sessionDir: options.sessionDir, env: options.env });
  const home = homedir();
  let files = filesFor("1.x", location, project.scope);
  let others = 0;
  if (project.scope === "current" && location.filterByCwd) {
    const kept = files.filter((f) => {
      const probe = probeHeader(f.path, f.size);
      return !probe.header || cwdMatches(probe.header.cwd, p);
    });
    others = files.length - kept.length;
    files = kept;
  }
  const paths = files.map((f) => f.path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const folder = folderOf(location, project.scope);
  const shown = escapeControls(tildePath(folder || "(empty folder name)", home));
  const why = project.scope === "all" && location.all.kind === "projects" ? "" : ` (${describeSource(location)})`;
  const count = `${paths.length} session${paths.length === 1 ? "" : "s"}`;
  const whose = project.scope === "all" ? "of every project" : `of ${escapeControls(tildePath(p.cwd, home))}`;
  const place = project.scope === "all" && location.all.kind === "projects" ? `under ${shown}` : `in ${shown}`;
  const skipped = others > 0 ? `; ${others} other session${others === 1 ? "" : "s"} there belong${others === 1 ? "s" : ""} to other projects` : "";
  const result: ProjectSessions = { paths, where: `${verb.doing} ${count} ${whose} ${place}${why}${skipped}` };
  if (location.problem) result.problem = location.problem;
  if (paths.length === 0)
    result.empty =
      folder === "" || !existsSync(folder)
        ? `no sessions to ${verb.to}: ${shown} does not exist${why}`
        : `no sessions to ${verb.to} in ${shown}${why}${skipped}`;
  return result;
}

/** The folder the files were read from: the project's, or the root of every project's (or Pi 1.x's one flat folder). */
function folderOf(location: SessionLocation, scope: "current" | "all"): string {
  if (scope === "current") return location.currentDir;
  return location.all.kind === "projects" ? location.all.root : location.all.dir;
}
