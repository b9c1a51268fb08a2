/** The hover on a timestamp: the time in words, and the gap since the parent entry. */

import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import type { SessionDocument } from "../../core/session/document";
import { isoTime } from "../../core/line/isoTime";
import { groupDigits } from "../../core/base/text";
import { inlineCode as code } from "../markdown";

export function timestampHover(doc: SessionDocument, a: SessionAnalysis, entry: Entry | undefined, line: number, value: string): string {
  const p = doc.parsed[line];
  const time = p?.kind === "value" ? p.time : isoTime(value);
  const out: string[] = [];
  if (time === undefined) {
    const loose = Date.parse(value);
    if (Number.isNaN(loose))
      return `**Timestamp** ${code(value)}\n\nNot a valid time: Pi reads it as an invalid date, so it cannot order this entry among sibling branches.`;
    out.push(
      `**Timestamp** ${code(value)}`,
      `Not in the form Pi writes (2026-03-02T10:00:00.000Z). Pi still reads it with \`new Date()\`, as local time unless it names a zone (here: ${timeInWords(loose)}).`,
    );
    return out.join("\n\n");
  }
  out.push(`**${timeInWords(time)}**`);
  if (!entry) {
    out.push(line === a.headerLine ? "When the session was created." : "A header timestamp.");
    return out.join("\n\n");
  }
  const parent = a.parent[entry.index];
  if (!parent) {
    out.push(
      typeof entry.parentId === "string" && entry.parentId !== ""
        ? "A root (its parent names no entry): no parent to compare with."
        : "A root: no parent to compare with.",
    );
  } else if (parent.parsed.time === undefined) {
    out.push(`Its parent's timestamp (line ${parent.line + 1}) is not a valid time.`);
  } else {
    const gap = time - parent.parsed.time;
    out.push(
      gap >= 0
        ? `+${duration(gap)} after its parent (line ${parent.line + 1})`
        : `${duration(-gap)} *before* its parent (line ${parent.line + 1}): out of order`,
    );
  }
  return out.join("\n\n");
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "Monday 2 March 2026, 10:00:05 UTC" (with milliseconds when there are any). */
export function timeInWords(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "an invalid date";
  const pad = (n: number) => String(n).padStart(2, "0");
  const millis = d.getUTCMilliseconds();
  const clock = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${millis ? `.${String(millis).padStart(3, "0")}` : ""}`;
  return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${clock} UTC`;
}

/** A duration in the largest fitting units: "850 ms", "2.3 s", "4 min 12 s", "1 h 5 min", "2 d 3 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
  return `${groupDigits(Math.floor(ms / 86_400_000))} d ${Math.floor((ms % 86_400_000) / 3_600_000)} h`;
}
