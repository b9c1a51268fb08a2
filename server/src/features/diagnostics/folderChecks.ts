/**
 * Where the session lies: `cwd-missing` when the project folder of the header's `cwd` no longer
 * exists (a moved project: Pi stops or asks before it opens the session), and `folder-mismatch`
 * when the session lies in a folder Pi uses for another cwd (so Pi lists it for another project),
 * each saying where Pi looks. Only for sessions in Pi's own folders: a copied or exported session
 * names another machine's folders. The facts come from `io/sessionFacts.ts`, gathered the same way
 * by `check` and by the editor.
 */

import { CODES } from "../../core/base/codes";
import type { FolderFacts } from "../../core/disk/facts";
import type { Report } from "./report";

export function checkFolder(r: Report, facts: FolderFacts | undefined): void {
  const line = r.a.headerLine;
  const cwd = r.a.header?.cwd;
  // Facts gathered for another cwd (the header was edited since) say nothing of this one.
  if (!facts?.inPiFolder || line === undefined || typeof cwd !== "string" || cwd === "" || facts.cwd !== cwd) return;
  const range = r.valueRange(line, ["cwd"]);
  if (!facts.cwdExists) {
    const now = facts.movedTo
      ? ` If the project is now ${facts.movedTo.folder}, Pi run there looks in ${facts.movedTo.piDir}, not in this session's folder.`
      : "";
    r.add("cwd-missing", `The project folder ${cwd} no longer exists (moved or deleted?). ${CODES["cwd-missing"].pi}.${now}`, range);
  }
  if (!facts.matches) {
    r.add(
      "folder-mismatch",
      `This session is in ${facts.folderName}, but Pi keeps the sessions of ${cwd} in ${facts.piDir}. ${CODES["folder-mismatch"].pi}.`,
      range,
    );
  }
}
