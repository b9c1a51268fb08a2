/**
 * How the commands that read one session of any size open it: `export` and `diff` read the file
 * as `check` does, as a stream (`io/streamedDocument.ts`: each line's facts kept, its text left on
 * disk and read back when asked for), refuse UTF-16 (which Pi does not read) before reading it, and
 * keep a bounded budget of parsed values while they work, let go when they are done.
 */

import * as nodeFs from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { forgetValues, setValueBudget } from "../core/line/values";
import { releaseKept } from "../core/session/semantics/memo";
import { utf16OfFile } from "../io/checkRead";
import { LineTooLong, readStreamedDocument, type StreamedDocument } from "../io/streamedDocument";
import { openRegularFile } from "./files";
import { errorText } from "./walk";

export interface StreamedSessionRead {
  /** Parsed values kept while the file streams and while the command works (as `check` keeps them). */
  valueChars: number;
  /**
   * Whether the values of the file's last `valueChars` and of its long lines are kept as it streams
   * (`StreamOptions.keepTailChars`: the command reads them again, as the export writing every entry
   * does), or only as many as `valueChars` as it streams and after (the command reads a few paths).
   */
  keepTail: boolean;
  /** What the command says of a UTF-16 file, which it refuses with status 1. */
  utf16Refusal: (encoding: "utf-16le" | "utf-16be") => string;
  /** Why the command will not go on with the file once it is open, before reading it (status 2), or undefined. */
  beforeRead?: (stat: nodeFs.Stats) => string | undefined;
}

/**
 * Opens `file`, streams it and runs `use` on the document while the file stays open (its lines are
 * read back through it), or says through `fail` why it cannot: status 2 for a file that cannot be
 * opened or read (a line longer than the reader takes), 1 for UTF-16. What `use` throws, or an error
 * the read does not expect, is thrown after the file is closed and the values let go.
 */
export function withStreamedSession(
  file: string,
  options: StreamedSessionRead,
  fail: (message: string, status?: number) => number,
  use: (streamed: StreamedDocument) => number,
): number {
  let opened: { fd: number; stat: nodeFs.Stats };
  try {
    opened = openRegularFile(file);
  } catch (error) {
    return fail(`cannot read it: ${errorText(error)}`);
  }
  const refused = options.beforeRead?.(opened.stat);
  if (refused) {
    nodeFs.closeSync(opened.fd);
    return fail(refused);
  }
  setValueBudget(options.valueChars);
  try {
    const encoding = utf16OfFile(opened.fd);
    if (encoding) return fail(options.utf16Refusal(encoding), 1);
    let streamed: StreamedDocument;
    try {
      streamed = readStreamedDocument(opened.fd, pathToFileURL(resolve(file)).href, { keepTailChars: options.keepTail ? options.valueChars : undefined });
    } catch (error) {
      if (!(error instanceof LineTooLong) && (error as NodeJS.ErrnoException).code === undefined) throw error;
      return fail(`cannot read it: ${errorText(error)}`);
    }
    return use(streamed);
  } finally {
    nodeFs.closeSync(opened.fd);
    forgetValues();
    setValueBudget(undefined);
    releaseKept();
  }
}
