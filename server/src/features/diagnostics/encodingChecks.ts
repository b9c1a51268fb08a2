/**
 * The file's encoding: Pi reads sessions as UTF-8, so a UTF-16 file (what Windows PowerShell's
 * `Out-File` and `>` write) is refused or overwritten. The text the other checks read has already
 * been decoded, by `check` or by the editor; the encoding is a fact about the bytes that
 * `io/sessionFacts.ts` gathers from the file's first bytes for both.
 */

import type { Diagnostic } from "vscode-languageserver";
import { type Encoded, encodingName } from "../../core/base/encoding";
import { diagnostic, type Report } from "./report";

/** The `utf16` error at the start of the file, or nothing for a UTF-8 file or one whose bytes are unknown. */
export function checkEncoding(r: Report, encoded: Encoded | undefined): void {
  if (encoded && encoded.encoding !== "utf-8") r.add("utf16", utf16Message(encoded), r.point(0, 0));
}

/**
 * The `utf16` error alone, for a file whose other checks could not run (`check` lists what it
 * knows when the collection throws).
 */
export function encodingDiagnostics(encoded: Encoded | undefined): Diagnostic[] {
  if (!encoded || encoded.encoding === "utf-8") return [];
  return [diagnostic("utf16", utf16Message(encoded), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } })];
}

function utf16Message(encoded: Encoded): string {
  return (
    `This file is ${encodingName(encoded)}, not UTF-8 (Windows PowerShell's Out-File and ">" write UTF-16). ` +
    'Pi reads session files as UTF-8: Pi 1.x refuses to open this one ("not a valid pi session"), and Pi 0.73/0.74 overwrites it with a fresh header, losing every entry. ' +
    "Convert it to UTF-8 without a byte order mark (for example iconv -f UTF-16 -t UTF-8); the other diagnostics are those of the converted text."
  );
}
