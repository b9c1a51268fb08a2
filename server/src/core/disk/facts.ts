/**
 * What the checks know of a session file beyond its text: how its bytes were encoded, and whether
 * it lies where Pi keeps its header's project. `io/sessionFacts.ts` gathers them, the same way for
 * `check` and for the editor, so that both report the same `utf16`, `cwd-missing` and
 * `folder-mismatch` diagnostics; `info` reads the folder facts too. Where the file lies is decided
 * here from where Pi keeps sessions (`location.ts`) and the file's path alone.
 */

import type { Encoded } from "../base/encoding";
import { basename, dirname } from "../base/posixPath";
import { defaultSessionDir, encodeCwd, type PiProcess, type SessionLocation } from "./location";

export interface FolderPlace {
  /** The header cwd this was decided for. */
  cwd: string;
  /** The name of the folder the file lies in. */
  folderName: string;
  /** The file lies in one of Pi's folders: a project folder under the sessions root, or the one flat folder a custom session folder names. */
  inPiFolder: boolean;
  /** The file lies in a project folder under the sessions root, whose name says which cwd it is for. */
  inProjectFolder: boolean;
  /** The folder Pi keeps the header cwd's sessions in by default. */
  piDir: string;
  /** The file's folder is that folder, or the file is not in a project folder (nothing to compare). */
  matches: boolean;
}

/** Where the session at `path` (absolute) lies, for the header cwd `cwd`, as Pi sees it. */
export function folderPlace(path: string, cwd: string, location: SessionLocation, p: Pick<PiProcess, "cwd" | "home">): FolderPlace {
  const folder = dirname(path);
  const inProjectFolder = dirname(folder) === location.sessionsRoot;
  const inPiFolder = inProjectFolder || (location.all.kind === "flat" && folder === location.all.dir);
  const piDir = defaultSessionDir(location.version, cwd, location.agentDir, p);
  return {
    cwd,
    folderName: basename(folder),
    inPiFolder,
    inProjectFolder,
    piDir,
    matches: !inProjectFolder || basename(folder) === encodeCwd(location.version, cwd, p),
  };
}

/** The folder facts the diagnostics read: where the file lies, and what the file system says of the header cwd. */
export interface FolderFacts extends FolderPlace {
  /** The header cwd exists on disk. */
  cwdExists: boolean;
  /** A workspace folder with the missing cwd's name, where the project may have moved, and where Pi run there looks. */
  movedTo?: { folder: string; piDir: string };
}

export interface SessionFacts {
  /** How the file's bytes are encoded; undefined when the text did not come from a file's bytes (an unsaved buffer). */
  encoding?: Encoded;
  /** Undefined for a file that is not on disk, a header without a cwd, or when Pi's folders are unknown. */
  folder?: FolderFacts;
}
