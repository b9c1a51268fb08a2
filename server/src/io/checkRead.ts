/**
 * How a session file is read to be checked, shared by `check FILE` (`cli/check.ts`) and the
 * workspace's diagnostics (`lsp/fileCheck.ts`), so that the editor's problem list and `check` read
 * the same bytes the same way: the encoding told from the first bytes (`decodeSession`,
 * `isUtf16`), a UTF-8 file streamed line by line (`readStreamedForCheck`), and the budget of
 * parsed values the checks may keep meanwhile.
 */

import * as nodeFs from "node:fs";
import { type Decoded, utf16Of } from "../core/base/encoding";
import { setValueBudget } from "../core/line/values";
import { contextInputLines } from "../core/pi/activeContext";
import type { SessionDocument } from "../core/session/document";
import { readStreamedDocument, type StreamedDocument } from "./streamedDocument";

/**
 * Decodes a session's bytes. UTF-16 (what Windows PowerShell's `Out-File` and `>` write) is told
 * by its byte order mark, or without one by NUL bytes in every other position of ASCII text; JSON
 * Pi writes never holds a raw NUL. Everything else is read as UTF-8, as Pi reads it.
 */
export function decodeSession(bytes: Buffer): Decoded {
  const encoding = utf16Of(bytes);
  if (encoding) {
    const bom = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
    // TextDecoder drops the byte order mark and turns an odd last byte into U+FFFD.
    return { text: new TextDecoder(encoding).decode(bytes), encoding, bom, lossless: false };
  }
  const text = bytes.toString("utf8");
  // Decoding replaces each invalid sequence by U+FFFD: without one in the text nothing was lost, and
  // only a text that holds one is encoded again to tell a real U+FFFD from a replaced byte.
  const lossless = !text.includes("\uFFFD") || (Buffer.byteLength(text, "utf8") === bytes.length && Buffer.from(text, "utf8").equals(bytes));
  return { text, encoding: "utf-8", bom: false, lossless };
}

/** Whether the file open at `fd` is UTF-16 (judged from its first 4 KiB, as `decodeSession` judges it). */
export function isUtf16(fd: number): boolean {
  return utf16OfFile(fd) !== undefined;
}

/** Which UTF-16 the file open at `fd` is, or undefined for UTF-8 (judged as `isUtf16` judges it). */
export function utf16OfFile(fd: number): "utf-16le" | "utf-16be" | undefined {
  const head = Buffer.alloc(4096);
  const n = nodeFs.readSync(fd, head, 0, head.length, 0);
  return utf16Of(head.subarray(0, n));
}

/** The values the streamed check keeps parsed: the lines read last, as many characters as this. */
export const STREAMED_VALUE_CHARS = 16_000_000;

/**
 * Reads a UTF-8 session open at `fd` as the streamed check reads it, and leaves the value budget
 * set for its checks (only its first `end` bytes when given): the caller resets it (`setValueBudget(undefined)`, `forgetValues()`) once
 * they ran. It throws what `readStreamedDocument` throws (a line too long, an error reading).
 */
export function readStreamedForCheck(fd: number, uri: string, onChunk?: (bytes: number) => void, end?: number): StreamedDocument {
  setValueBudget(STREAMED_VALUE_CHARS);
  const streamed = readStreamedDocument(fd, uri, { onChunk, keepTailChars: STREAMED_VALUE_CHARS, ...(end === undefined ? {} : { end }) });
  // The context's messages stay alive while the request checks run (their builds keep them): so
  // can its values, or both of Pi's builds (1.x's and 0.74's) parse every line of it again. The
  // budget holds the context and the usual budget besides, so that the values the checks read
  // elsewhere never push the context's out (the cache lets a quarter go when it is full).
  setValueBudget(STREAMED_VALUE_CHARS + contextChars(streamed.doc));
  return streamed;
}

/** The characters of the lines the context Pi resumes is built from (either version's), or 0 when that cannot be told. */
function contextChars(doc: SessionDocument): number {
  let chars = 0;
  try {
    const marked = contextInputLines(doc.analysis);
    for (let line = 0; line < marked.length; line++) if (marked[line]) chars += (doc.parsed[line] as { textLength?: number }).textLength ?? 0;
  } catch {
    // The analysis or the walk failed: the checks say so themselves, with the usual budget.
    return 0;
  }
  return chars;
}
