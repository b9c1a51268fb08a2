/**
 * One session file that is not open, checked for the workspace's diagnostics exactly as `check FILE`
 * checks it (`cli/check.ts`, which this layer may not import), read as `io/checkRead.ts` reads it
 * for both: a UTF-8 file streamed line by line in bounded memory, whatever its size, a UTF-16 file
 * decoded whole up to `MAX_WHOLE_BYTES`, the same facts (`io/sessionFacts.ts`), the same checks and cap through the
 * facade (`features/api/diagnostics`). `test/e2e/workspaceDiagnostics.test.ts` holds the two to
 * the same answer. It runs on a worker thread of the pool (`fileCheckWorker.ts`), so that the
 * server's thread stays free for the editor while a large session is read.
 */

import { closeSync, fstatSync, readSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import type { Encoded } from "../core/base/encoding";
import { forgetValues, keepAllValues, setValueBudget } from "../core/line/values";
import { SessionDocument } from "../core/session/document";
import { capDiagnostics, collectDiagnostics, encodingDiagnostics, MAX_PER_CODE } from "../features/api/diagnostics";
import { openRegularSync } from "../io/lineReader";
import { probeHeader } from "../io/scanFile";
import { type FolderInputs, folderInputs, sessionFacts } from "../io/sessionFacts";
import { decodeSession, isUtf16, readStreamedForCheck } from "../io/checkRead";

/** What a worker needs to check one file as the server would: the file, and the folders Pi's facts are read against. */
export interface FileCheckTask {
  path: string;
  /** Pi's cwd for the folder facts (the first workspace folder), and the workspace folders. */
  cwd: string;
  folders: readonly string[];
  /**
   * Whether a file without a session header is left alone (a `*.jsonl` file of the workspace may
   * be any data); in Pi's folder such a file is what Pi stumbles on, and is checked.
   */
  sessionsOnly: boolean;
}

export interface FileCheckResult {
  path: string;
  /** The diagnostics `check FILE` lists (capped as it caps them); none when the file could not be read. */
  diagnostics: Diagnostic[];
  /** Why the file could not be read or checked. */
  error?: string;
}

/** The largest UTF-16 file decoded whole, as `check` decodes it (`MAX_FILE_BYTES` of `cli/files.ts`). */
const MAX_WHOLE_BYTES = 256 * 1024 * 1024;

/** Pi's folder inputs, found once per thread for each set of workspace folders. */
let inputsFor: { key: string; inputs: FolderInputs | undefined } | undefined;

function inputsOf(task: FileCheckTask): FolderInputs | undefined {
  const key = JSON.stringify([task.cwd, task.folders]);
  if (inputsFor?.key !== key) {
    let inputs: FolderInputs | undefined;
    try {
      inputs = folderInputs({ version: "1.x", cwd: task.cwd }, task.folders);
    } catch {
      // Where Pi keeps sessions cannot be told: the folder checks are left out, as the server leaves them.
      inputs = undefined;
    }
    inputsFor = { key, inputs };
  }
  return inputsFor.inputs;
}

/** Checks one file; whatever fails costs this file's answer only. */
export function checkFile(task: FileCheckTask, onBytes: (bytes: number) => void): FileCheckResult {
  let fd: number;
  try {
    // Without blocking on a FIFO put there after the listing, and refusing anything but a regular file.
    fd = openRegularSync(task.path);
  } catch (error) {
    return { path: task.path, diagnostics: [], error: `cannot read it: ${errorText(error)}` };
  }
  try {
    // Pi's own test of a header (the index's too): a file that has none is not a session of Pi's.
    if (task.sessionsOnly && !probeHeader(task.path, fstatSync(fd).size).header) return { path: task.path, diagnostics: [] };
    return isUtf16(fd) ? checkWhole(task, fd) : checkStreamed(task, fd, onBytes);
  } catch (error) {
    return { path: task.path, diagnostics: [], error: `cannot check it: ${errorText(error)}` };
  } finally {
    closeSync(fd);
    forgetValues();
    setValueBudget(undefined);
  }
}

function checkStreamed(task: FileCheckTask, fd: number, onBytes: (bytes: number) => void): FileCheckResult {
  const streamed = readStreamedForCheck(fd, fileUri(task.path), onBytes);
  return report(task, streamed.doc, { encoding: "utf-8", bom: false, lossless: streamed.lossless });
}

function checkWhole(task: FileCheckTask, fd: number): FileCheckResult {
  const size = fstatSync(fd).size;
  if (size > MAX_WHOLE_BYTES)
    return { path: task.path, diagnostics: [], error: `it is a UTF-16 file of ${size} bytes, more than the ${MAX_WHOLE_BYTES} read whole` };
  const bytes = Buffer.alloc(size);
  let read = 0;
  for (let n = 1; read < size && n > 0; read += n) n = readSync(fd, bytes, read, size - read, read);
  const decoded = decodeSession(bytes.subarray(0, read));
  keepAllValues();
  const doc = new SessionDocument(fileUri(task.path), "jsonl", 0, decoded.text);
  return report(task, doc, decoded);
}

/** The diagnostics of a read document, as `check` collects and caps them. */
function report(task: FileCheckTask, doc: SessionDocument, encoded: Encoded): FileCheckResult {
  try {
    const found = collectDiagnostics(doc, MAX_PER_CODE, sessionFacts(doc, inputsOf(task), encoded));
    return { path: task.path, diagnostics: capDiagnostics(found.diagnostics, { overflow: found.overflow }).diagnostics };
  } catch (error) {
    return { path: task.path, diagnostics: encodingDiagnostics(encoded), error: `internal error while checking it: ${errorText(error)}` };
  }
}

function fileUri(path: string): string {
  return pathToFileURL(resolve(path)).href;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
