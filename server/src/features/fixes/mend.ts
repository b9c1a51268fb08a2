/**
 * Mending a malformed line instead of deleting it. Two kinds of line hold whole entries that Pi
 * skips (and that its migration then deletes from disk):
 *
 * - **Entries joined without a newline**: two or more whole objects back to back (`}{`, maybe with
 *   spaces between them), as real sessions hold them (an assistant message and a compaction, an
 *   assistant message and the next user message). Splitting the line keeps every byte of each object.
 * - **One entry with a slip**: a missing comma, quote or bracket, or garbage after the entry
 *   (bytes of a crash, a stray brace). `jsonrepair` proposes the entry, and the mend is offered
 *   only when the repair only *inserts*: every character of the line, strings included, stays
 *   where it was, in order. Garbage after a whole object is dropped only when it holds no string.
 *
 * A cut-off entry that Pi 0.73/0.74 wrote its next entry onto is split too: the cut-off text gets a
 * line of its own, where it may be recovered (`recover.ts`).
 *
 * Both are unsafe (the file changes and the context Pi builds with it), and both come before
 * deleting the line, which stays the last resort.
 */

import type { TextEdit } from "vscode-languageserver";
import { clip, plural } from "../../core/base/text";
import { type Context, eolOf, type Fix } from "./fixContext";
import { insertionsInto, type UsableEntry, usableEntry } from "./recover";
import { mayRepair } from "./slips";

// jsonrepair is loaded on the first repair, as in recover.ts, so that a run with nothing to repair never loads it.
let repairer: ((text: string) => string) | undefined;
function jsonrepair(text: string): string {
  repairer ??= (require("jsonrepair") as { jsonrepair: (text: string) => string }).jsonrepair;
  return repairer(text);
}

/**
 * Lines longer than this are not given to jsonrepair: it took 240 ms on a 1 MB line with one slip
 * and 2.4 s on a 10 MB one (one long string; 145 ms and 1.5 s for many short ones), and the quick
 * fix must answer while the user waits. Lines over 64 KiB also need few slips (`slips.ts`).
 * Splitting has no such bound: it is one scan and one `JSON.parse` per object.
 */
export const MAX_REPAIR_CHARS = 1024 * 1024;

/** Repairs that need more separate insertions than this are rewrites, not a slip mended. */
const MAX_INSERTIONS = 8;

/** A line is split into at most this many entries; more is not a slip of Pi's writer. */
const MAX_PIECES = 64;

/** One object of a line: its offsets in the line (end excluded). */
interface Span {
  start: number;
  end: number;
}

/** What a scan of a line finds: the whole objects it starts with, back to back, and where that run ends. */
interface Scan {
  objects: Span[];
  /** Where the text after the last whole object starts (after spaces); the line's length when nothing follows. */
  rest: number;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 13;

/** The whole objects at `from` in `text`, with only spaces between them; linear in the line. */
export function scanObjects(text: string, from = 0): Scan {
  const objects: Span[] = [];
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  let rest = i;
  while (i < text.length && text.charCodeAt(i) === 123 && objects.length <= MAX_PIECES) {
    const end = objectEnd(text, i);
    if (end === undefined) break;
    objects.push({ start: i, end });
    i = end;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    rest = i;
  }
  return { objects, rest };
}

/** Just past the `}` that closes the object opened at `start`, if it closes on this line. */
function objectEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 92) escaped = true;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return c === 125 ? i + 1 : undefined;
      if (depth < 0) return undefined;
    }
  }
  return undefined;
}

/** The entries a split makes, and the cut-off text before or after them (each kept on a line of its own). */
export interface Split {
  entries: (UsableEntry & Span)[];
  /** Text before the entries that is not a whole entry (a cut-off one Pi 0.73/0.74 wrote its next entry after). */
  cutHead: Span | undefined;
  /** A last object that does not close on the line. */
  cutRest: Span | undefined;
}

/** Places where Pi's next entry may start after a cut-off one: Pi writes every entry's `type` first. */
const ENTRY_START = '{"type":"';

/** At most this many such places are tried on one line, each costing a scan of the rest of it. */
const MAX_HEAD_CANDIDATES = 16;

/**
 * Where whole objects start that run to the end of the line, after text that is not one (a cut-off
 * entry, when Pi 0.73/0.74 wrote its next entry onto the cut line); undefined if there is none.
 */
function wholeTail(text: string): number | undefined {
  let at = text.indexOf(ENTRY_START, 1);
  for (let tries = 0; at > 0 && tries < MAX_HEAD_CANDIDATES; tries++) {
    const scan = scanObjects(text, at);
    if (scan.objects.length > 0 && scan.rest === text.length) return at;
    at = text.indexOf(ENTRY_START, at + 1);
  }
  return undefined;
}

/**
 * The entries of a line that holds whole entries back to back: two or more, or one before or after
 * the start of another that was cut off. Each must be an entry Pi can use, with an id that neither
 * another entry nor another piece holds.
 */
export function splitLine(text: string, idInUse: (id: string) => boolean): Split | undefined {
  try {
    let { objects, rest } = scanObjects(text);
    let cutHead: Span | undefined;
    if (objects.length === 0) {
      const start = wholeTail(text);
      if (start === undefined || text.slice(0, start).trim() === "") return undefined;
      cutHead = { start: 0, end: start };
      ({ objects, rest } = scanObjects(text, start));
    }
    if (objects.length === 0 || objects.length > MAX_PIECES) return undefined;
    const cutRest = rest < text.length ? { start: rest, end: text.length } : undefined;
    if (cutRest && text.charCodeAt(rest) !== 123) return undefined;
    if (objects.length + (cutRest ? 1 : 0) + (cutHead ? 1 : 0) < 2) return undefined;
    const ids = new Set<string>();
    const entries: (UsableEntry & Span)[] = [];
    for (const span of objects) {
      const entry = usableEntry(text.slice(span.start, span.end), (id) => ids.has(id) || idInUse(id));
      if (!entry) return undefined;
      ids.add(entry.id);
      entries.push({ ...entry, ...span });
    }
    return { entries, cutHead, cutRest };
  } catch {
    // A mend that fails is not offered; deleting the line still is.
    return undefined;
  }
}

/** One text inserted before the character at `offset` of the line. */
export interface Insertion {
  offset: number;
  text: string;
}

/** A repaired line: the insertions that make it an entry, and the garbage after the entry that goes. */
export interface Repair {
  entry: UsableEntry;
  insertions: Insertion[];
  /** Text after the entry that is dropped (it holds no string); its span in the line. */
  dropped: Span | undefined;
}

/**
 * The entry `jsonrepair` makes of a line with a slip in it, when the repair keeps every character
 * of the line, in order (garbage after a whole object aside, when it holds no string).
 */
export function repairLine(text: string, idInUse: (id: string) => boolean): Repair | undefined {
  if (text.length > MAX_REPAIR_CHARS) return undefined;
  try {
    const { objects, rest } = scanObjects(text);
    // Garbage after the first whole object: the object is mended alone, and the garbage dropped,
    // unless it may hold content (a string) or the start of another entry (splitLine's case).
    if (objects.length === 1 && rest < text.length) {
      const tail = text.slice(rest);
      if (tail.includes('"') || tail.includes("{")) return undefined;
      const head = text.slice(0, objects[0]!.end);
      const mended = repairWhole(head, idInUse);
      return mended && { ...mended, dropped: { start: objects[0]!.end, end: text.length } };
    }
    if (objects.length > 1) return undefined;
    const mended = repairWhole(text, idInUse);
    return mended && { ...mended, dropped: undefined };
  } catch {
    return undefined;
  }
}

/** The entry `text` is, as it is or with jsonrepair's insertions. */
function repairWhole(text: string, idInUse: (id: string) => boolean): Omit<Repair, "dropped"> | undefined {
  const asIs = usableEntry(text, idInUse);
  if (asIs) return { entry: asIs, insertions: [] };
  if (!mayRepair(text, MAX_INSERTIONS)) return undefined;
  let repaired: string;
  try {
    repaired = jsonrepair(text);
  } catch {
    return undefined;
  }
  // Only insertions: a character jsonrepair dropped or changed (an escape it did not understand,
  // quotes it normalised, a comment it removed) would be content lost or rewritten.
  const insertions = insertionsInto(text, repaired);
  if (!insertions || insertions.length === 0 || insertions.length > MAX_INSERTIONS) return undefined;
  const entry = usableEntry(repaired, idInUse);
  return entry && { entry, insertions };
}

/** `"abc"` for a title: clipped, with quotes, line breaks and control characters escaped as JSON writes them. */
export function quoted(text: string, max = 24): string {
  return JSON.stringify(clip(text, max));
}

/** "insert "," at column 47 and "]" at column 90" (or "inserted …" with `past`): what a repair changes. */
export function describeRepair(repair: Repair, base: number, line: string, past = false): string {
  const parts = repair.insertions.slice(0, 3).map((x) => `${quoted(x.text, 12)} at column ${base + x.offset + 1}`);
  if (repair.insertions.length > 3) parts.push(`${repair.insertions.length - 3} more`);
  const inserted = parts.length > 0 ? `${past ? "inserted" : "insert"} ${parts.join(parts.length > 2 ? ", " : " and ")}` : "";
  if (!repair.dropped) return inserted;
  const tail = line.slice(base + repair.dropped.start, base + repair.dropped.end);
  const drop = `${past ? "dropped" : "drop"} the ${plural(tail.length, "character")} after the entry (${quoted(tail, 16)})`;
  return inserted ? `${inserted}, ${drop}` : drop;
}

/** How many entries hang from each id that no entry holds: the children a mended entry takes back. */
function danglingChildren(ctx: Context): Map<string, number> {
  if (ctx.dangling) return ctx.dangling;
  const { a } = ctx;
  const counts = new Map<string, number>();
  for (const e of a.entries) {
    if (typeof e.parentId !== "string" || a.parent[e.index] !== undefined) continue;
    counts.set(e.parentId, (counts.get(e.parentId) ?? 0) + 1);
  }
  ctx.dangling = counts;
  return counts;
}

/** ", and 3 entries below them are no longer dangling", or "". */
function childrenBack(ctx: Context, ids: readonly string[], them: string): string {
  const counts = danglingChildren(ctx);
  let n = 0;
  for (const id of ids) n += counts.get(id) ?? 0;
  return n === 0 ? "" : `, and ${plural(n, "entry", "entries")} below ${them} no longer ${n === 1 ? "dangles" : "dangle"}`;
}

/** The newline a mend adds after a last line that has none, so that Pi reads the entry whole. */
function finalNewline(ctx: Context, line: number): TextEdit[] {
  const { doc } = ctx;
  if (doc.eols.at(line) !== "") return [];
  const end = doc.lines[line]!.length;
  return [{ range: doc.spanRange(line, end, line, end), newText: eolOf(doc) }];
}

/** "Split line 5 into its entries": each whole object on a line of its own, every byte of each kept. */
export function splitFix(ctx: Context, line: number): Fix | undefined {
  const { doc, a } = ctx;
  const split = splitLine(doc.jsonText(line), (id) => a.byId.has(id));
  if (!split) return undefined;
  const base = doc.jsonOffset(line);
  const eol = eolOf(doc);
  const pieces: Span[] = [...(split.cutHead ? [split.cutHead] : []), ...split.entries, ...(split.cutRest ? [split.cutRest] : [])];
  // Only the spaces between the pieces change: each becomes a line break.
  const edits: TextEdit[] = pieces.slice(1).map((piece, i) => ({ range: doc.spanRange(line, base + pieces[i]!.end, line, base + piece.start), newText: eol }));
  edits.push(...finalNewline(ctx, line));
  const names = [
    ...(split.cutHead ? ["cut-off text"] : []),
    ...split.entries.map((e) => `${e.kind} "${clip(e.id, 24)}"`),
    ...(split.cutRest ? ["a cut-off entry"] : []),
  ];
  const what = `${pieces.length} lines (${names.join(", ")})`;
  const n = split.entries.length;
  const back = childrenBack(
    ctx,
    split.entries.map((e) => e.id),
    n === 1 ? "it" : "them",
  );
  return {
    title: `Split line ${line + 1} into ${what}, every byte kept: Pi then reads ${n === 1 ? "the entry" : n === 2 ? "both entries" : `all ${n} entries`}${back} (unsafe: changes the context)`,
    edits,
    safe: false,
    preferred: true,
    summary: `split the line into ${what}, every byte kept`,
  };
}

/** "Mend line 5": jsonrepair's insertions (and the garbage after the entry dropped), every character of the entry kept. */
export function repairFix(ctx: Context, line: number): Fix | undefined {
  const { doc, a } = ctx;
  const repair = repairLine(doc.jsonText(line), (id) => a.byId.has(id));
  if (!repair) return undefined;
  const base = doc.jsonOffset(line);
  const edits: TextEdit[] = repair.insertions.map(({ offset, text }) => ({ range: doc.spanRange(line, base + offset, line, base + offset), newText: text }));
  if (repair.dropped) edits.push({ range: doc.spanRange(line, base + repair.dropped.start, line, base + repair.dropped.end), newText: "" });
  edits.push(...finalNewline(ctx, line));
  const how = describeRepair(repair, base, doc.lines[line]!);
  const entry = `${repair.entry.kind} "${clip(repair.entry.id, 24)}"`;
  const back = childrenBack(ctx, [repair.entry.id], "it");
  const risk = repair.dropped ? "the dropped characters are lost" : "jsonrepair's guess, every character kept";
  return {
    title: `Mend line ${line + 1} into the ${entry}: ${how}${back} (unsafe: ${risk})`,
    edits,
    safe: false,
    preferred: repair.dropped === undefined,
    summary: `mended the line into the ${entry}: ${describeRepair(repair, base, doc.lines[line]!, true)}`,
  };
}
