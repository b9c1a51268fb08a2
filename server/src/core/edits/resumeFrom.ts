/**
 * "Resume from here": the one line that makes Pi resume a session from an earlier entry without
 * changing what the model sees.
 *
 * Pi resumes from the last line of the file (`_buildIndex` sets the leaf to the last entry), so a
 * new last line whose parent is the chosen entry moves the leaf there. The line must be an entry Pi
 * keeps in the tree and sends nothing for. Among Pi's types (1.6.0 and 0.74.2, from their
 * `session-manager.ts`), a `custom` entry (`appendCustomEntry`) is the one that changes nothing:
 * `sessionEntryToContextMessages` gives it no message in either version, it sets neither the model
 * nor the thinking level (as `model_change` / `thinking_level_change` would), names nothing (as
 * `label` / `session_info` would), edits nothing (as `context_edit` would in 1.x), and the
 * interactive mode shows it only through an extension's renderer for its `customType`, which no
 * extension registers for this one; `/tree` hides it by default as a settings entry. So the context
 * built from the new line is the context at the chosen entry (checked against both real Pis by
 * test/parity/verify-actions.mjs).
 */

import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";
import type { SessionDocument } from "../session/document";
import { type AppendedLine, type EditClock, nameable, newEntryId, otherReaderWarning, type Refusal, refuse, unreadable } from "./appendLine";

/** The `customType` of the line "resume from here" appends; `leaf-hides-messages` knows it is on purpose. */
export const RESUME_CUSTOM_TYPE = "pi-session-lsp.resume-from";

/** Whether `entry` is a line "resume from here" appended. */
export function isResumeMarker(entry: Entry): boolean {
  return entry.type === "custom" && entry.parsed.object?.customType === RESUME_CUSTOM_TYPE;
}

/** The line to append so that Pi resumes from `entry`, or why there is none. */
export function resumeFromLine(doc: SessionDocument, entry: Entry, clock: EditClock): AppendedLine | Refusal {
  const a: SessionAnalysis = doc.analysis;
  const blocked = unreadable(doc) ?? nameable(a, entry);
  if (blocked) return blocked;
  if (a.leaf === entry) return refuse("Pi already resumes from this entry: it is the last line of the file");
  const id = newEntryId(a, clock.random);
  // Pi's key order for `appendCustomEntry` (`data` is left out, as Pi leaves out an undefined one).
  const line = JSON.stringify({ type: "custom", customType: RESUME_CUSTOM_TYPE, id, parentId: entry.id, timestamp: clock.now.toISOString() });
  const warning = otherReaderWarning(doc);
  return warning ? { ok: true, line, id, warning } : { ok: true, line, id };
}
