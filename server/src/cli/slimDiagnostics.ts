/**
 * The diagnostics half of `slim`'s proof: `check` run on the file before and after (the same
 * checks, streamed for a large file), compared by code and line. Slimming may remove a finding
 * (an image too large, on a line Pi no longer sends), never add one.
 */

import { checkOne } from "./check";
import type { CheckOptions } from "./checkOptions";

const OPTIONS: CheckOptions = { json: true, color: false, fix: false, dryRun: false, unsafe: false, quiet: true, minSeverity: 4 };

/** How many diagnostics of each code start on each line of `path` (`code:line` → count). */
export function diagnosticCounts(path: string): Map<string, number> {
  const report = checkOne({ target: { path, writable: false }, options: OPTIONS, cwd: process.cwd() }, () => {});
  const counts = new Map<string, number>();
  // One object per file, written in pieces: joined, then read line by line.
  const out = report.printed
    .filter(([stream]) => stream === 1)
    .map(([, text]) => text)
    .join("");
  for (const line of out.split("\n")) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as { diagnostics?: { code?: unknown; range?: { start?: { line?: unknown } } }[] };
    for (const d of parsed.diagnostics ?? []) {
      const key = `${String(d.code)}:${String(d.range?.start?.line)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** `code` on line N (1-based), from a `code:line` key. */
function described(key: string): string {
  const at = key.lastIndexOf(":");
  return `${key.slice(0, at)} on line ${Number(key.slice(at + 1)) + 1}`;
}

/**
 * What `after` reports that `before` did not (`added`), what `before` reported on a line not in
 * `changed` that `after` does not (`lost`), and how many diagnostics `before` had that `after` has
 * not (`removed`, on the changed lines: what slimming removed).
 */
export function compareDiagnostics(
  before: Map<string, number>,
  after: Map<string, number>,
  changed: ReadonlySet<number>,
): { added: string[]; lost: string[]; removed: number } {
  const added: string[] = [];
  const lost: string[] = [];
  let removed = 0;
  for (const [key, n] of after) if (n > (before.get(key) ?? 0)) added.push(described(key));
  for (const [key, n] of before) {
    const gone = n - (after.get(key) ?? 0);
    if (gone <= 0) continue;
    if (changed.has(Number(key.slice(key.lastIndexOf(":") + 1)))) removed += gone;
    else lost.push(described(key));
  }
  return { added, lost, removed };
}
