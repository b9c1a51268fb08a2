/**
 * `check --fix` and `--dry-run` for one file: the safe fixes of `features/fixes.ts` (and with
 * `--unsafe-fixes` the unsafe ones) applied to the text read, and the result written by
 * `replace.ts` or shown as a diff.
 *
 * When the file changes while it is being fixed (Pi appending an entry), the fix is made again on
 * what the file holds now, a few times; a file Pi keeps writing to is then left as it is, and the
 * command says so. What is reported afterwards is always the text last read or written.
 */

import * as nodeFs from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SessionDocument } from "../core/session/document";
import { unifiedDiff, unitsOf } from "../core/edits/diff";
import { applyFixes, type FixAllResult, type UnsafeFixApplied } from "../features/api/fixes";
import { closeFile, openSessionFile, type OpenedFile } from "./files";
import { decodeSession } from "../io/checkRead";
import { encodingName, type Decoded } from "../core/base/encoding";
import { FileChanged, FixRefused, replaceFile, type FixFs, type Replaced } from "./replace";
import { errorText, type Target } from "./walk";

/** Attempts at fixing a file that changes under the fix, before it is left alone. */
const ATTEMPTS = 3;

export interface FixOutcome {
  /** The file as last read: its descriptor is open, and the caller closes it. */
  file: OpenedFile;
  decoded: Decoded;
  /** The document to report on: the fixed text when it was written or diffed, else the text read. */
  doc?: SessionDocument;
  /** The codes fixed, with how many times each (only when the file was written or diffed). */
  fixed?: Map<string, number>;
  /** The unsafe fixes among them, each with the line of the text read (only with `--unsafe-fixes`). */
  unsafe?: UnsafeFixApplied[];
  replaced?: Replaced;
  /** For `--dry-run`: the unified diff with the given names of the two sides. */
  diff?: (oldName: string, newName: string) => string;
  /** Why the file could not be fixed (the exit status becomes 2). */
  failure?: string;
  /** Why the file was not fixed although it could have been (a link found in a folder). */
  notice?: string;
}

export interface FixMode {
  /** Show the fixes as a diff instead of writing them. */
  dryRun: boolean;
  /** Apply the unsafe fixes too (`--unsafe-fixes`). */
  unsafe: boolean;
}

export function fixFile(target: Target, first: OpenedFile, firstDecoded: Decoded, mode: FixMode, fs: FixFs = nodeFs): FixOutcome {
  let file = first;
  let decoded = firstDecoded;
  for (let attempt = 1; ; attempt++) {
    if (!decoded.lossless) {
      const why =
        decoded.encoding === "utf-8"
          ? "it is not valid UTF-8, and rewriting it would change bytes that are not fixes"
          : `it is ${encodingName(decoded)}; convert it to UTF-8 first (for example with iconv -f UTF-16 -t UTF-8)`;
      return { file, decoded, failure: why };
    }
    const doc = new SessionDocument(pathToFileURL(resolve(file.path)).href, "jsonl", 0, decoded.text);
    let result: FixAllResult;
    try {
      result = applyFixes(doc, { unsafe: mode.unsafe });
    } catch (error) {
      // The fixes failing costs the fix, not the file's diagnostics.
      return { file, decoded, doc, failure: `internal error while fixing it: ${errorText(error)}` };
    }
    if (result.doc === doc) return { file, decoded, doc };
    const unsafe = mode.unsafe ? result.unsafe : undefined;
    if (mode.dryRun) {
      const before = unitsOf(doc);
      const after = unitsOf(result.doc);
      return { file, decoded, doc: result.doc, fixed: result.fixed, unsafe, diff: (a, b) => unifiedDiff(before, after, a, b) };
    }
    if (!target.writable) return { file, decoded, doc, notice: `not fixed: ${target.notWritable}; name it on the command line to fix the file it links to` };
    try {
      const replaced = replaceFile(file, result.doc.getText(), fs);
      return { file, decoded, doc: result.doc, fixed: result.fixed, unsafe, replaced };
    } catch (error) {
      if (error instanceof FileChanged && attempt < ATTEMPTS) {
        // Read it again and fix what it holds now.
        const next = reopen(file);
        if (typeof next === "string") return { file, decoded, doc, failure: next };
        file = next;
        decoded = decodeSession(file.bytes);
        continue;
      }
      if (error instanceof FileChanged) {
        return {
          file,
          decoded,
          doc,
          failure: `it changed while it was being fixed, ${ATTEMPTS} times (last: ${error.message}), so it is left as it is with every byte written to it; run again when Pi is not writing to it`,
        };
      }
      const why = error instanceof FixRefused ? error.message : errorText(error);
      return { file, decoded, doc, failure: why };
    }
  }
}

/** Closes `file` and opens its path again; a string says why it cannot be read now. */
function reopen(file: OpenedFile): OpenedFile | string {
  closeFile(file);
  try {
    return openSessionFile(file.path);
  } catch (error) {
    return `it changed while it was being fixed and cannot be read again: ${errorText(error)}`;
  }
}
