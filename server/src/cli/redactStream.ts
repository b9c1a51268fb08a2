/**
 * `redact`'s two passes over a session file, line by line in bounded memory (`io/lineReader.ts`:
 * one 1 MiB chunk and the longest line): the first gathers the distinct secrets of every line
 * (`SecretCollector`), the second writes each line redacted (`redactLine`). They are the functions
 * `redactText` runs over a whole text, so the copy is byte for byte the one the whole text gives,
 * and a secret found on the last line is replaced on the first too: the same secret, the same
 * placeholder, however far apart its occurrences are.
 *
 * Lines are split on "\n" as Pi splits them, and a "\r" before it is kept as the line's ending, as
 * `splitLines` keeps it. A line that is not valid UTF-8 stops the run: writing its decoded text back
 * would turn bytes Pi reads as U+FFFD into real ones, and other bytes with them.
 */

import type { Hash } from "node:crypto";
import * as nodeFs from "node:fs";
import { type RedactedSecret, type RedactionSink, redactLine, SecretCollector } from "../core/edits/redact";
import type { SecretKind } from "../core/line/secrets";
import { readLinesSync } from "../io/lineReader";
import { LineTooLong } from "../io/streamedDocument";

/** Thrown for a line whose bytes are not valid UTF-8. */
export class NotUtf8 extends Error {}

/** Which bytes of the file a pass reads: `[start, end)`. */
export interface Span {
  start?: number;
  end: number;
  /** The longest line read (tests lower it); a longer one throws `LineTooLong`. */
  maxLineBytes?: number;
}

/** What the second pass did: counts, and the first of each kind, for the listing. */
export interface RedactionCounts {
  /** Occurrences replaced. */
  replaced: number;
  /** Distinct pairs of a line and a secret replaced on it (what the listing counts). */
  pairs: number;
  /** The first `listMax` of those pairs, in file order. */
  listed: { line: number; secret: RedactedSecret }[];
  /** The first `listMax` occurrences left in place because they are part of an id or a link. */
  kept: { line: number; secret: RedactedSecret }[];
  /** Lines changed. */
  lines: number;
}

/** Calls `onLine(text, eol, line)` for each line of the span, as `splitLines` would split the same bytes, feeding `hash` (when given) the bytes read. */
function eachLine(fd: number, span: Span, onLine: (text: string, eol: string, line: number) => void, hash?: Hash): void {
  const maxLineBytes = span.maxLineBytes;
  readLinesSync(
    fd,
    (raw, meta) => {
      if (raw === undefined) throw new LineTooLong(`line ${meta.line + 1} is longer (${meta.bytes} bytes) than this tool reads in one line`);
      // Decoding replaced invalid UTF-8 with U+FFFD only if the bytes differ from the text's.
      if (raw.includes("\uFFFD")) {
        const bytes = Buffer.allocUnsafe(meta.bytes);
        const n = nodeFs.readSync(fd, bytes, 0, meta.bytes, meta.start);
        if (n !== meta.bytes || !Buffer.from(raw, "utf8").equals(bytes)) throw new NotUtf8(`line ${meta.line + 1} is not valid UTF-8`);
      }
      const crlf = meta.newline && raw.charCodeAt(raw.length - 1) === 13;
      onLine(crlf ? raw.slice(0, -1) : raw, meta.newline ? (crlf ? "\r\n" : "\n") : "", meta.line);
    },
    {
      start: span.start ?? 0,
      end: span.end,
      ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
      ...(hash === undefined ? {} : { onBytes: (bytes: Buffer) => hash.update(bytes) }),
    },
  );
}

/** The first pass: the distinct secrets of the span, longest first, each with its placeholder; `hash` is fed the bytes read. */
export function collectSecrets(fd: number, span: Span, placeholderOf: (kind: SecretKind, value: string) => string, hash?: Hash): RedactedSecret[] {
  const collector = new SecretCollector(placeholderOf);
  eachLine(fd, span, (text, _eol, line) => collector.add(text, line), hash);
  return collector.secrets();
}

/** Gathers what is written before it goes to the file, so that short lines cost one write a megabyte. */
const WRITE_BATCH_CHARS = 1024 * 1024;

/**
 * The second pass: each line of the span redacted and written to `out` (nowhere when undefined:
 * a count only), listing at most `listMax` of the replacements and of the occurrences kept; `hash`
 * is fed the bytes read.
 */
export function writeRedacted(
  fd: number,
  span: Span,
  secrets: readonly RedactedSecret[],
  out: number | undefined,
  listMax: number,
  hash?: Hash,
): RedactionCounts {
  const counts: RedactionCounts = { replaced: 0, pairs: 0, listed: [], kept: [], lines: 0 };
  // The secrets already replaced on the line being read: a pair is listed once.
  let onLine = new Set<RedactedSecret>();
  let lineNo = -1;
  const sink: RedactionSink = {
    replaced(line, secret) {
      counts.replaced++;
      if (line !== lineNo) {
        lineNo = line;
        onLine = new Set();
      }
      if (onLine.has(secret)) return;
      onLine.add(secret);
      if (counts.pairs++ < listMax) counts.listed.push({ line, secret });
    },
    kept(line, secret) {
      if (counts.kept.length < listMax) counts.kept.push({ line, secret });
    },
  };
  let batch: string[] = [];
  let batchChars = 0;
  const flush = () => {
    if (out !== undefined && batch.length > 0) writeAll(out, Buffer.from(batch.join(""), "utf8"));
    batch = [];
    batchChars = 0;
  };
  eachLine(
    fd,
    span,
    (text, eol, line) => {
      const redacted = secrets.length > 0 ? redactLine(text, line, secrets, sink) : text;
      if (redacted !== text) counts.lines++;
      if (out === undefined) return;
      batch.push(redacted, eol);
      batchChars += redacted.length + eol.length;
      if (batchChars >= WRITE_BATCH_CHARS) flush();
    },
    hash,
  );
  flush();
  return counts;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let n = 0; n < bytes.length; ) n += nodeFs.writeSync(fd, bytes, n, bytes.length - n);
}
