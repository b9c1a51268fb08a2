/**
 * "Fork a branch into a new session": the text of a new session file holding the path from the
 * root to one entry, as Pi 1.6's `createBranchedSession(leafId)` writes it, and the name Pi gives
 * such a file.
 *
 * What Pi 1.6 does, and this does too:
 * - the path is Pi's `getBranch(leafId)`: the parent walk from the entry up, root first;
 * - `label` entries on the path are left out, and every entry after one is re-chained onto the
 *   entry before it (a compaction whose `firstKeptEntryId` named a removed label names the entry
 *   that followed it), so no `parentId` dangles: Pi 0.73/0.74 leaves them dangling and the forked
 *   file's first turn drops out of its context (session-format.md, section 6);
 * - then one `label` entry per label Pi holds for an entry of the path (`labelsById`, in its
 *   order, with the label's own timestamp), chained after the last entry;
 * - the header: `{type: "session", version: 3, id, timestamp, cwd, parentSession}` with a fresh
 *   UUIDv7 id, `cwd` from the source's header and `parentSession` the source's path;
 * - the file name `<timestamp with ":" and "." made "-">_<id>.jsonl`, in the source's folder.
 *
 * Unlike Pi, which writes every entry again with `JSON.stringify`, each entry keeps the bytes of
 * its line; only a `parentId` (and a re-chained `firstKeptEntryId`) is replaced inside the line, by
 * the JSON text of the id it now names, so no other byte of the source changes.
 */

import type { Entry } from "../session/entry";
import type { SessionDocument } from "../session/document";
import { freshEntryId, type IdKey, uuidv7 } from "../base/ids";
import { locate } from "../line/locate";
import { dirname, join } from "../base/posixPath";
import { labels } from "../session/semantics/labels";
import { pathTo } from "../session/semantics/walk";
import { CURRENT_VERSION } from "../line/schema";
import { type EditClock, nameable, type Refusal, refuse, unreadable } from "./appendLine";

export interface Fork {
  ok: true;
  /** The new file's whole text. */
  text: string;
  /** The new session's id (the header's). */
  sessionId: string;
  /** Pi's name for the file: `<timestamp>_<id>.jsonl`. */
  fileName: string;
  /** The path of the new file: `fileName` in the source's folder. */
  path: string;
  /** How many entries of the path it holds (labels re-created included). */
  entries: number;
  /** How many `parentId`s were re-chained past removed labels or a dangling root link. */
  relinked: number;
}

/** The new session text that forks `source` (its file path) at `entry`, or why there is none. */
export function forkSession(doc: SessionDocument, entry: Entry, source: string, clock: EditClock): Fork | Refusal {
  const a = doc.analysis;
  const blocked = forkBlocked(doc, entry, source);
  if (blocked) return blocked;
  const path = pathTo(a, entry);
  const lines: string[] = [];
  const kept = new Set<IdKey>();
  /** The removed labels waiting for the next kept entry, which takes their place (Pi's `replacementByLabelId`). */
  const replacement = new Map<IdKey, string>();
  let pending: Entry[] = [];
  let previous: Entry | undefined;
  let relinked = 0;
  for (const e of path) {
    if (e.type === "label") {
      pending.push(e);
      continue;
    }
    const idText = rawValue(doc, e, "id") ?? "null";
    for (const label of pending) replacement.set(label.key, idText);
    pending = [];
    let text = doc.jsonText(e.line);
    const parentText = previous ? (rawValue(doc, previous, "id") ?? "null") : "null";
    const parentHolds = previous ? e.parentKey === previous.key : e.parsed.object?.parentId === null;
    if (!parentHolds) {
      text = withMember(text, "parentId", parentText);
      relinked++;
    }
    if (e.type === "compaction") {
      const target = e.parsed.object?.firstKeptEntryId;
      const moved = target !== e.parsed.object?.id ? replacement.get(target as IdKey) : undefined;
      if (moved !== undefined) text = withMember(text, "firstKeptEntryId", moved);
    }
    lines.push(text);
    kept.add(e.key);
    previous = e;
  }

  // One label entry per label on a kept entry, in `labelsById` order, chained after the path.
  const newIds = new Set<unknown>(kept);
  let parentText = previous ? (rawValue(doc, previous, "id") ?? "null") : "null";
  for (const [target, label] of labels(a).byTarget) {
    if (!kept.has(target)) continue;
    const id = freshEntryId((candidate) => newIds.has(candidate), clock.random);
    newIds.add(id);
    const targetText = rawValue(doc, label.entry, "targetId")!;
    const labelText = rawValue(doc, label.entry, "label")!;
    const timestamp = rawValue(doc, label.entry, "timestamp");
    const time = timestamp === undefined ? "" : `,"timestamp":${timestamp}`;
    lines.push(`{"type":"label","id":${JSON.stringify(id)},"parentId":${parentText}${time},"targetId":${targetText},"label":${labelText}}`);
    parentText = JSON.stringify(id);
  }

  const { header, sessionId, fileName, path: newPath } = forkHeader(doc, source, clock);
  return {
    ok: true,
    text: `${header}\n${lines.map((l) => `${l}\n`).join("")}`,
    sessionId,
    fileName,
    path: newPath,
    entries: lines.length,
    relinked,
  };
}

/** A new session's header line, id and file as Pi 1.6's fork makes them (the doctor's repaired copy makes its own the same way). */
export interface ForkHeader {
  header: string;
  sessionId: string;
  fileName: string;
  path: string;
}

/**
 * The header of a session forked from `source` (its file path): a fresh UUIDv7 id, `cwd` from the
 * source's header, `parentSession` the source's path; the file named `<timestamp>_<id>.jsonl` in
 * the source's folder.
 */
export function forkHeader(doc: SessionDocument, source: string, clock: EditClock): ForkHeader {
  const timestamp = clock.now.toISOString();
  const sessionId = uuidv7(clock.now, clock.random);
  const cwd = doc.analysis.header?.cwd;
  const header = JSON.stringify({
    type: "session",
    version: CURRENT_VERSION,
    id: sessionId,
    timestamp,
    ...(typeof cwd === "string" ? { cwd } : {}),
    parentSession: source,
  });
  const fileName = `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
  return { header, sessionId, fileName, path: join(dirname(source), fileName) };
}

/** Why `entry` of `source` cannot be forked, checked without building the text (O(1)). */
export function forkBlocked(doc: SessionDocument, entry: Entry, source: string): Refusal | undefined {
  const blocked = unreadable(doc) ?? nameable(doc.analysis, entry);
  if (blocked) return blocked;
  if (!source.startsWith("/")) return refuse("the session is not a file on disk, so there is no folder to fork it into");
  return undefined;
}

/** The JSON text of a member of an entry's line, exactly as the line holds it. */
function rawValue(doc: SessionDocument, entry: Entry, member: string): string | undefined {
  const text = doc.jsonText(entry.line);
  const found = locate(text, [member]);
  return found ? text.slice(found.value.start, found.value.end) : undefined;
}

/**
 * The line with `member` set to the JSON text `value`: the value replaced where the line holds it,
 * or the member added at the end of the object when it has none.
 */
function withMember(text: string, member: string, value: string): string {
  const found = locate(text, [member]);
  if (found) return text.slice(0, found.value.start) + value + text.slice(found.value.end);
  const close = text.lastIndexOf("}");
  const before = text.slice(0, close).trimEnd();
  const comma = before.endsWith("{") ? "" : ",";
  return `${before}${comma}${JSON.stringify(member)}:${value}${text.slice(close)}`;
}
