/**
 * The first parse of a large document, keeping the values of the lines Pi resumes from.
 *
 * A document too large for the value cache keeps no value while its lines are parsed (`values.ts`),
 * and its complete diagnostics then build both Pi versions' contexts, which read the value of every
 * line of the resumed path: on the 45 MB session 10,000 lines, 9 MB of text, parsed a second time
 * (64 ms of the 360 between the first answer and the complete list). The path is known only once
 * every line is parsed, so the values of the lines at the end of the text, where the newest entries
 * and the leaf Pi resumes from are, are taken as they are parsed; then the path is walked up from
 * the last entry through them, and the values of the lines on it are held (`holdValue`) until the
 * server is idle, the others let go.
 *
 * It changes no parse, only which values are at hand: a line it misses (a parent written after its
 * child, a path longer than the window) is parsed again when read, as before. Memory is bounded by
 * the window, the value cache's own budget in characters of text, and only the last document parsed
 * holds values (a process with no idle server, Pi's own running `/doctor`, would otherwise add a
 * window's worth with every large session it reads).
 */

import type { ParsedLine } from "./facts";
import { CachedValueLine } from "./record";
import { captureUnkept, holdValue, releaseHeldValues, takeUnkept } from "./values";

/**
 * `lines` parsed by `parse` (inside `parseWithoutKeeping`, which keeps no value), the values of the
 * lines on the path up from the last entry, among the last `windowChars` characters of text, held.
 */
export function parseHoldingPath(lines: readonly string[], parse: (text: string, line: number) => ParsedLine, windowChars: number): ParsedLine[] {
  const n = lines.length;
  let windowStart = n;
  for (let chars = 0; windowStart > 0 && chars + lines[windowStart - 1]!.length <= windowChars; ) chars += lines[--windowStart]!.length;
  const parsed = new Array<ParsedLine>(n);
  for (let i = 0; i < windowStart; i++) parsed[i] = parse(lines[i]!, i);
  const values = new Array<unknown>(n - windowStart);
  captureUnkept(true);
  try {
    for (let i = windowStart; i < n; i++) {
      parsed[i] = parse(lines[i]!, i);
      values[i - windowStart] = takeUnkept();
    }
  } finally {
    captureUnkept(false);
  }
  releaseHeldValues();
  holdPath(parsed, values, windowStart);
  return parsed;
}

/**
 * Holds the values of the lines on the path from the last line with an id up through its parents,
 * as far as the parents are found before their children within the window (as Pi writes them).
 */
function holdPath(parsed: readonly ParsedLine[], values: readonly unknown[], windowStart: number): void {
  let wanted: unknown;
  for (let i = parsed.length - 1; i >= windowStart; i--) {
    const line = parsed[i]!;
    // Only such a record reads its value through the cache (`lineValue`), where the held one is found.
    if (!(line instanceof CachedValueLine) || typeof line.idKey !== "string") continue;
    // Before the leaf is found any id will do; after it, only the parent sought.
    if (wanted !== undefined && line.idKey !== wanted) continue;
    const value = values[i - windowStart];
    if (value !== undefined) holdValue(line, value);
    if (typeof line.parentKey !== "string") return;
    wanted = line.parentKey;
  }
}
