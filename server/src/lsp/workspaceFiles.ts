/**
 * What the workspace's diagnostics (`workspaceDiagnostics.ts`) cover and how their reports are
 * named: the session files of Pi's folder for a workspace folder, and what besides a file decides
 * its report (the part of a result id that is not the file's own `lstat`).
 */

import { createHash } from "node:crypto";
import { cwdMatches } from "../core/disk/location";
import { probeHeader } from "../io/scanFile";
import { folderFiles, locate } from "../io/sessionStore";
import { VERSION } from "../version";
import type { Settings } from "./settings";

/**
 * The session files of Pi's folder for a workspace folder, as `check` with no path finds them: in
 * a folder several projects share, the files whose header names another project are left out.
 */
export function piFolderFiles(folder: string): string[] {
  let located: ReturnType<typeof locate>;
  try {
    located = locate({ version: "1.x", cwd: folder });
  } catch {
    return [];
  }
  const { process: p, location } = located;
  const files = folderFiles("1.x", location.currentDir);
  const kept = location.filterByCwd
    ? files.filter((f) => {
        const probe = probeHeader(f.path, f.size);
        return !probe.header || cwdMatches(probe.header.cwd, p);
      })
    : files;
  return kept.map((f) => f.path);
}

/** What decides a report besides the file: the server's version and the severity overrides. */
export function resultPrefix(settings: Settings): string {
  const overrides = Object.entries(settings.severity).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256")
    .update(JSON.stringify([VERSION, overrides]))
    .digest("base64url")
    .slice(0, 12);
}
