/**
 * The session's name, as Pi's `getSessionName` reads it: the last `session_info` entry in file
 * order (on any branch) decides, with `entry.name?.trim() || undefined`. An empty or missing name
 * clears it; a name that is neither a string nor null makes Pi throw (`name.trim is not a function`),
 * in its session list and its footer alike.
 */

import type { Entry } from "../analysis";
import { perAnalysis } from "./memo";

export interface SessionName {
  /** The name Pi shows, trimmed; undefined when cleared, absent, or when Pi throws reading it. */
  name: string | undefined;
  /** The `session_info` entry that decides, if any. */
  entry: Entry | undefined;
  /** Whether Pi throws reading it (the name is neither a string, null nor absent). */
  throws: boolean;
}

/**
 * What one `session_info` entry's `name` value sets, by Pi's `entry.name?.trim() || undefined`: the
 * trimmed string, nothing for an empty, null or absent name, and a throw (reported as `throws`) for
 * any other value. Every place that reads a session name, whatever it reads the entries from, asks this.
 */
export function nameOfValue(raw: unknown): { name: string | undefined; throws: boolean } {
  if (typeof raw === "string") return { name: raw.trim() || undefined, throws: false };
  return { name: undefined, throws: raw !== undefined && raw !== null };
}

export const sessionName = perAnalysis((a): SessionName => {
  for (let i = a.entries.length - 1; i >= 0; i--) {
    const entry = a.entries[i]!;
    if (entry.type !== "session_info") continue;
    return { ...nameOfValue(entry.parsed.object?.name), entry };
  }
  return { name: undefined, entry: undefined, throws: false };
});
