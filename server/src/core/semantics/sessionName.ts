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

export const sessionName = perAnalysis((a): SessionName => {
  for (let i = a.entries.length - 1; i >= 0; i--) {
    const entry = a.entries[i]!;
    if (entry.type !== "session_info") continue;
    const raw = entry.parsed.object?.name;
    if (typeof raw === "string") return { name: raw.trim() || undefined, entry, throws: false };
    return { name: undefined, entry, throws: raw !== undefined && raw !== null };
  }
  return { name: undefined, entry: undefined, throws: false };
});
