/**
 * An entry named on the command line (`resume-from FILE ID`, `drop-from-context FILE ID`,
 * `fork --leaf ID`, `context --leaf ID`): the entry Pi's `byId` finds under the word, or else the
 * one entry whose id starts with it, so that the short ids `tree` prints are taken everywhere.
 */

import { clip } from "../core/base/text";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";

/** How many of the entries an ambiguous start of an id matches are named. */
const SHOWN_MATCHES = 5;

/** The entry named ID, or why there is none (one line; the caller escapes it). */
export function findEntry(a: SessionAnalysis, id: string): Entry | string {
  const exact = a.byId.get(id);
  if (exact) return exact;
  // "" is a prefix of every id, so it would name the one entry of a file that has one: an empty
  // word is a forgotten value, not a prefix.
  if (id === "") return `no entry has the id ""`;
  const matches = a.entries.filter((e) => e.id?.startsWith(id) && a.byId.get(e.key) === e);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) return `no entry has the id ${JSON.stringify(shownId(id))}`;
  const named = matches.slice(0, SHOWN_MATCHES).map((e) => `${JSON.stringify(shownId(e.id))} (line ${e.line + 1})`);
  const more = matches.length > SHOWN_MATCHES ? `, and ${matches.length - SHOWN_MATCHES} more` : "";
  return `${matches.length} entries have ids starting with ${JSON.stringify(shownId(id))} (${named.join(", ")}${more}); give more of it`;
}

/**
 * An id as messages show it, clipped: an id in the file, or one given on the command line, can be
 * megabytes long, and a message is one short line whatever it names.
 */
export function shownId(id: string | undefined): string {
  return clip(id ?? "");
}
