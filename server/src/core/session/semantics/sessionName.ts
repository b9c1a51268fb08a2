/**
 * The session's name, as Pi's `getSessionName` reads it: the last `session_info` entry in file
 * order (on any branch) decides, with `nameOfValue` (`../rules.ts`), `entry.name?.trim() || undefined`. An empty or missing name
 * clears it; a name that is neither a string nor null makes Pi throw (`name.trim is not a function`),
 * in its session list and its footer alike.
 */

import type { Entry } from "../entry";
import { nameOfValue } from "../rules";
import { perAnalysis, perStructure } from "./memo";

export interface SessionName {
  /** The name Pi shows, trimmed; undefined when cleared, absent, or when Pi throws reading it. */
  name: string | undefined;
  /** The `session_info` entry that decides, if any. */
  entry: Entry | undefined;
  /** Whether Pi throws reading it (the name is neither a string, null nor absent). */
  throws: boolean;
}

/** The entry that decides: which one it is is a matter of types alone, so it is kept for the structure. */
const decidingEntry = perStructure((a): Entry | undefined => {
  for (let i = a.entries.length - 1; i >= 0; i--) if (a.entries[i]!.type === "session_info") return a.entries[i];
  return undefined;
});

export const sessionName = perAnalysis((a): SessionName => {
  const entry = decidingEntry(a);
  if (!entry) return { name: undefined, entry: undefined, throws: false };
  return { ...nameOfValue(entry.parsed.object?.name), entry };
});
