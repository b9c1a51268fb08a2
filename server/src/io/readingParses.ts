/**
 * Parsing a large document's lines while its `didOpen` still arrives, on the main thread: the
 * reader (`lsp/streamedBody.ts`) offers each line as soon as it has decoded it, between two chunks
 * of the message, and the line is parsed then. Over a pipe the server waits for the client's bytes
 * for much of a 45 MB message; the parses fill those waits, where the document would otherwise
 * parse its 50,000 lines only once the last byte is in, with the editor waiting for the answer.
 *
 * The parses are `parseLine`'s, the document's own but for its first line (a byte order mark) and
 * its last (a lone "\r" it may end with), which `take` parses again with the document's parser, as
 * the worker's pool does (`parsePool.ts`, the choice when `$PI_SESSION_LSP_THREADS` asks for it).
 * No value is kept: the lines come only from a message too large for the value cache (`values.ts`).
 */

import type { ParsedLine } from "../core/line/facts";
import type { LineParses } from "../core/line/packed";
import { parseLine } from "../core/line/parse";
import { parseWithoutKeeping } from "../core/line/values";
import { startParsePool } from "./parsePool";

/** Parses of a string's lines made while they arrive: offered the lines decoded so far, taken by the document. */
export interface ParsesWhileReading extends LineParses {
  /** The lines of the string decoded so far (each complete); with `last`, every line of it. */
  offer(lines: readonly string[], last: boolean): void;
}

/**
 * The parses of the first large `didOpen` of `chars` characters at most: on the worker's pool when
 * asked for and a core is free for it (`startParsePool`), else here, on the main thread.
 */
export function startParsesWhileReading(chars: number): ParsesWhileReading {
  return startParsePool() ?? new ParsesHere(chars);
}

export class ParsesHere implements ParsesWhileReading {
  /** The parses so far, by line; a hole for a line left to `take`. */
  private parsed: (ParsedLine | undefined)[] | undefined = [];

  /** `chars`: the most characters the text can have (the message's bytes), which tells whether values are kept. */
  constructor(private readonly chars: number) {}

  offer(lines: readonly string[]): void {
    const parsed = this.parsed;
    if (!parsed || parsed.length >= lines.length) return;
    parseWithoutKeeping(this.chars, () => {
      for (let i = parsed.length; i < lines.length; i++) {
        const text = lines[i]!;
        // A line that ends in "\r" loses it when the text is split into the document's lines
        // (`splitOf`): it is left to `take`, which parses the document's line.
        parsed.push(text.charCodeAt(text.length - 1) === 13 ? undefined : parseLine(text));
      }
    });
  }

  take(lines: readonly string[], parseHere: (text: string, line: number) => ParsedLine): ParsedLine[] | undefined {
    const parsed = this.parsed;
    this.parsed = undefined;
    if (!parsed || parsed.length !== lines.length || lines.length === 0) return undefined;
    parsed[0] = undefined;
    parsed[lines.length - 1] = undefined;
    for (let i = 0; i < lines.length; i++) parsed[i] ??= parseHere(lines[i]!, i);
    return parsed as ParsedLine[];
  }

  dispose(): void {
    this.parsed = undefined;
  }
}
