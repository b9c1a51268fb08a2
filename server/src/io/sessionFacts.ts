/**
 * The facts the diagnostics need beyond a session's text, gathered from the file system the same
 * way for `check` and for the editor (`core/disk/facts.ts` says what they are):
 *
 * - the encoding, from the file's first 4 KiB: `check` reads the bytes itself, and the server reads
 *   the first bytes of a `file:` document when it is opened (the editor sends the text it decoded,
 *   which cannot tell that the file was UTF-16);
 * - the folder facts, from where Pi keeps sessions (`folderInputs`, the one place their inputs are
 *   assembled: `--session-dir`, the environment and the settings files as Pi reads them), the
 *   header's cwd, and whether that cwd exists.
 */

import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { basename, resolve } from "node:path";
import { type Encoded, headEncoding } from "../core/base/encoding";
import { documentPath } from "../core/base/posixPath";
import { type FolderFacts, folderPlace, type SessionFacts } from "../core/disk/facts";
import { defaultSessionDir, type PiProcess, type SessionLocation } from "../core/disk/location";
import type { SessionDocument } from "../core/session/document";
import { type LocateOptions, locate } from "./sessionStore";

/** Where Pi keeps sessions, as the process it would run as sees it, and the folders a moved project may now be in. */
export interface FolderInputs {
  location: SessionLocation;
  process: PiProcess;
  /** The folders a missing cwd's project may have moved to: the editor's workspace folders, or Pi's cwd (`check`'s, or a server's without folders). */
  workspaceFolders: readonly string[];
}

/** Pi's folder inputs, as the session commands resolve them (`locate`), for `check`, `info` and the server alike. */
export function folderInputs(options: LocateOptions, workspaceFolders?: readonly string[]): FolderInputs {
  const { process, location } = locate(options);
  return { location, process, workspaceFolders: workspaceFolders && workspaceFolders.length > 0 ? workspaceFolders : [process.cwd] };
}

/** The folder facts of the session at `path` whose header names `cwd`. */
export function folderFacts(path: string, cwd: string, inputs: FolderInputs): FolderFacts {
  const { location, process: p } = inputs;
  const place = folderPlace(resolve(path), cwd, location, p);
  const facts: FolderFacts = { ...place, cwdExists: existsSync(cwd) };
  const here = facts.cwdExists ? undefined : inputs.workspaceFolders.find((f) => basename(f) === basename(cwd) && f !== cwd);
  if (here) facts.movedTo = { folder: here, piDir: defaultSessionDir(location.version, here, location.agentDir, p) };
  return facts;
}

/** The facts of a document: its folder facts when it is a file with a header cwd, and the encoding given. */
export function sessionFacts(doc: SessionDocument, inputs: FolderInputs | undefined, encoding?: Encoded): SessionFacts {
  const facts: SessionFacts = {};
  if (encoding) facts.encoding = encoding;
  const path = documentPath(doc.uri);
  const cwd = doc.analysis.header?.cwd;
  // Only sessions in Pi's folders: a copied or exported session names another machine's folders,
  // so the file system is not asked about them.
  if (inputs && path && typeof cwd === "string" && cwd !== "" && folderPlace(resolve(path), cwd, inputs.location, inputs.process).inPiFolder)
    facts.folder = folderFacts(path, cwd, inputs);
  return facts;
}

/**
 * The encoding of the file at `path`, from its first 4 KiB; undefined when it cannot be read or is
 * not a regular file (opened without blocking: a FIFO named `x.jsonl` would wait for a writer).
 */
export function fileEncoding(path: string): Encoded | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const head = Buffer.alloc(4096);
    return headEncoding(head.subarray(0, readSync(fd, head, 0, head.length, 0)));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
