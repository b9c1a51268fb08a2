/**
 * "Drop from the context, keeping the history": the `context_edit` line that makes Pi 1.x leave
 * one message out of what it sends the model, while the file keeps the message.
 *
 * Pi 1.x (`appendContextEdit`, 1.6.0) appends `{type: "context_edit", targetId, replacement}` as a
 * child of the current leaf; `buildSessionProjection` then gives the target no message when the
 * last selected edit for it has `replacement: null`. Pi accepts a target only on the active branch
 * and only a user, assistant or tool result message or a custom message ("does not contribute
 * editable model content" otherwise); the action asks more: that the entry gives a message to the
 * context Pi resumes with now, since an edit of an entry summarised away by a compaction changes
 * nothing. The new line hangs on the leaf, so Pi still resumes from the same branch.
 *
 * Pi 0.73/0.74 has no `context_edit`: it keeps the line as an unknown entry and sends the message
 * anyway. So the edit is made only for files Pi 1.x opens.
 */

import type { Entry } from "../session/entry";
import { activeContext } from "../pi/activeContext";
import type { SessionDocument } from "../session/document";
import { type AppendedLine, type EditClock, nameable, newEntryId, piReads, type Refusal, refuse } from "./appendLine";

/** The roles Pi 1.x's `appendContextEdit` accepts on a `message` entry. */
const EDITABLE_ROLES: ReadonlySet<string | undefined> = new Set(["user", "assistant", "toolResult"]);

/** What Pi 0.73/0.74 makes of the edit, for titles and the command's output. */
export const OLD_PI_NOTE = "Pi 0.73/0.74 ignores context_edit entries and still sends it";

/** Whether Pi 1.x would accept `entry` as the target of a context edit. */
export function isEditableTarget(entry: Entry): boolean {
  return entry.type === "custom_message" || (entry.type === "message" && EDITABLE_ROLES.has(entry.parsed.role));
}

/** The `context_edit` line that drops `entry` from the context Pi 1.x resumes with, or why there is none. */
export function dropFromContextLine(doc: SessionDocument, entry: Entry, clock: EditClock): AppendedLine | Refusal {
  const a = doc.analysis;
  if (!piReads(doc, "1.x"))
    return refuse("Pi 1.x does not open this file as it is, and Pi 0.73/0.74 ignores context_edit entries, so the edit would change nothing");
  if (!isEditableTarget(entry)) return refuse("Pi 1.x edits only user, assistant and tool result messages and custom messages");
  const target = nameable(a, entry);
  if (target) return target;
  const leaf = a.leaf;
  if (!leaf) return refuse("the file has no entry Pi resumes from");
  const parent = nameable(a, leaf);
  if (parent) return refuse(`the last line, which the edit would hang on, cannot be named: ${parent.reason}`);
  const built = activeContext(a);
  if (!built.ok) return refuse("Pi cannot build the context it resumes with (see the diagnostics)");
  if (!built.build.sources.includes(entry))
    return refuse("this entry gives no message to the context Pi resumes with (another branch, compacted, or already dropped)");
  const id = newEntryId(a, clock.random);
  // Pi's key order for `appendContextEdit`.
  const line = JSON.stringify({ type: "context_edit", id, parentId: leaf.id, timestamp: clock.now.toISOString(), targetId: entry.id, replacement: null });
  return { ok: true, line, id };
}
