/**
 * One session file that is not open, checked for the workspace's diagnostics exactly as `check FILE`
 * checks it (`cli/check.ts`, which this layer may not import): a UTF-8 file streamed line by line
 * in bounded memory (`io/streamedDocument.ts`), whatever its size, a UTF-16 file decoded whole up
 * to `MAX_WHOLE_BYTES`, the same facts (`io/sessionFacts.ts`), the same checks and cap through the
 * facade (`features/api/diagnostics`). `test/e2e/workspaceDiagnostics.test.ts` holds the two to
 * the same answer. It runs on a worker thread of the pool (`fileCheckWorker.ts`), so that the
 * server's thread stays free for the editor while a large session is read.
 */

import { closeSync, fstatSync, readSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { type Encoded, utf16Of } from "../core/base/encoding";
import { forgetValues, keepAllValues, setValueBudget } from "../core/line/values";
import { contextInputLines } from "../core/pi/activeContext";
import { SessionDocument } from "../core/session/document";
import { capDiagnostics, collectDiagnostics, encodingDiagnostics, MAX_PER_CODE } from "../features/api/diagnostics";
import { openRegularSync } from "../io/lineReader";
import { probeHeader } from "../io/scanFile";
import { type FolderInputs, folderInputs, sessionFacts } from "../io/sessionFacts";
import { readStreamedDocument } from "../io/streamedDocument";

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
/** The values the streamed check keeps parsed (`STREAMED_VALUE_CHARS` of `cli/check.ts`). */
const STREAMED_VALUE_CHARS = 16_000_000;

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
    const head = Buffer.alloc(4096);
    const utf16 = utf16Of(head.subarray(0, readSync(fd, head, 0, head.length, 0)));
    return utf16 ? checkWhole(task, fd, utf16) : checkStreamed(task, fd, onBytes);
  } catch (error) {
    return { path: task.path, diagnostics: [], error: `cannot check it: ${errorText(error)}` };
  } finally {
    closeSync(fd);
    forgetValues();
    setValueBudget(undefined);
  }
}

function checkStreamed(task: FileCheckTask, fd: number, onBytes: (bytes: number) => void): FileCheckResult {
  setValueBudget(STREAMED_VALUE_CHARS);
  const streamed = readStreamedDocument(fd, fileUri(task.path), { onChunk: onBytes, keepTailChars: STREAMED_VALUE_CHARS });
  setValueBudget(STREAMED_VALUE_CHARS + contextChars(streamed.doc));
  return report(task, streamed.doc, { encoding: "utf-8", bom: false, lossless: streamed.lossless });
}

function checkWhole(task: FileCheckTask, fd: number, encoding: "utf-16le" | "utf-16be"): FileCheckResult {
  const size = fstatSync(fd).size;
  if (size > MAX_WHOLE_BYTES)
    return { path: task.path, diagnostics: [], error: `it is a UTF-16 file of ${size} bytes, more than the ${MAX_WHOLE_BYTES} read whole` };
  const bytes = Buffer.alloc(size);
  let read = 0;
  for (let n = 1; read < size && n > 0; read += n) n = readSync(fd, bytes, read, size - read, read);
  const body = bytes.subarray(0, read);
  const bom = body.length >= 2 && ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff));
  keepAllValues();
  // TextDecoder drops the byte order mark and turns an odd last byte into U+FFFD, as `check` decodes.
  const doc = new SessionDocument(fileUri(task.path), "jsonl", 0, new TextDecoder(encoding).decode(body));
  return report(task, doc, { encoding, bom, lossless: false });
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

/** The characters of the lines the context Pi resumes is built from, as `check` budgets them. */
function contextChars(doc: SessionDocument): number {
  let chars = 0;
  try {
    const marked = contextInputLines(doc.analysis);
    for (let line = 0; line < marked.length; line++) if (marked[line]) chars += (doc.parsed[line] as { textLength?: number }).textLength ?? 0;
  } catch {
    return 0;
  }
  return chars;
}

function fileUri(path: string): string {
  return pathToFileURL(resolve(path)).href;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
