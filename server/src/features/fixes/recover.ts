/**
 * Recovering a cut-off entry: a line that stops in the middle of its JSON (a crash while Pi
 * appended it, a disk that filled up) usually still holds the entry's id, parent and most of its
 * content. `jsonrepair` closes what was cut (strings, arrays, objects, a key without its value),
 * and the fix inserts only what it added, only where the line was cut: every character of the
 * line stays where it was.
 *
 * It is unsafe, since it guesses how the entry ended, and it is offered only when the guess is an
 * entry Pi can use: an object whose `id` and `parentId` survived, whose id no other entry holds,
 * and whose own line raises no error (a message entry cut before its `message` would make Pi throw
 * building the context, which is worse than the line Pi skips).
 */

import type * as JsonRepair from "jsonrepair" with { "resolution-mode": "import" };
import type { TextEdit } from "vscode-languageserver";
import { CODES } from "../../core/base/codes";
import { parseLine } from "../../core/line/parse";
import { singleLine } from "../../core/base/text";
import { type Context, eolOf, type Fix } from "./fixContext";
import { mayRepair } from "./slips";

// The package is an ES module with a CommonJS build that `require` loads; only its types are
// imported as a module, so that this CommonJS file compiles. It is loaded on the first repair:
// loading it took 5.5 ms of every `check` run and server start, and most files have nothing to repair.
let repairer: typeof JsonRepair.jsonrepair | undefined;
function jsonrepair(text: string): string {
  repairer ??= (require("jsonrepair") as typeof JsonRepair).jsonrepair;
  return repairer(text);
}

/** Lines longer than this are not repaired: the quick fix must answer while the user waits. */
const MAX_RECOVER_CHARS = 4 * 1024 * 1024;

/** Repairs that need more separate insertions than this are rewrites, not a cut closed. */
const MAX_INSERTIONS = 8;

/** An insertion of `text` before the character at `offset` of the original line. */
interface Insertion {
  offset: number;
  text: string;
}

/**
 * The insertions that turn `original` into `repaired`, when `original` is a subsequence of it
 * (every character kept, in order); undefined when the repair dropped or changed a character.
 */
export function insertionsInto(original: string, repaired: string): Insertion[] | undefined {
  const out: Insertion[] = [];
  let i = 0;
  let pending = "";
  for (let k = 0; k < repaired.length; k++) {
    const c = repaired[k]!;
    if (i < original.length && original[i] === c) {
      if (pending !== "") {
        out.push({ offset: i, text: pending });
        pending = "";
      }
      i++;
    } else {
      pending += c;
    }
  }
  if (i < original.length) return undefined;
  if (pending !== "") out.push({ offset: i, text: pending });
  return out;
}

/** Where a line was cut: inside a string (or an escape in one), and where the value it was writing starts. */
interface CutPoint {
  inString: boolean;
  inEscape: boolean;
  /** The offset of the last string, number or word, or the line's length when it ends after punctuation. */
  tokenStart: number;
}

/** One pass over the line as JSON's tokens, to find where it stops. */
export function cutPoint(text: string): CutPoint {
  let inString = false;
  let escaped = false;
  let hexLeft = 0;
  let tokenStart = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (hexLeft > 0) hexLeft--;
      else if (escaped) {
        escaped = false;
        if (c === 117) hexLeft = 4; // \uXXXX
      } else if (c === 92) escaped = true;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      inWord = false;
      tokenStart = i;
    } else if (c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58 || c === 32 || c === 9 || c === 10 || c === 13) {
      inWord = false;
      tokenStart = i + 1;
    } else if (!inWord) {
      inWord = true;
      tokenStart = i;
    }
  }
  return { inString, inEscape: inString && (escaped || hexLeft > 0), tokenStart };
}

/** The entry `jsonrepair` makes of a malformed line, with the insertions that make it, if Pi can use it. */
export function recoverLine(text: string, idInUse: (id: string) => boolean): { insertions: Insertion[]; id: string } | undefined {
  if (text.length > MAX_RECOVER_CHARS || !text.trimStart().startsWith("{")) return undefined;
  // A string cut in the middle is closed where it was cut: left to itself, jsonrepair ends such a
  // string at an earlier comma and makes a key of the rest ("(a, b)" → "(a", "b)": null). A cut
  // inside an escape cannot be closed without changing what the escape says.
  const cut = cutPoint(text);
  if (cut.inEscape || !mayRepair(text, MAX_INSERTIONS)) return undefined;
  let repaired: string;
  try {
    repaired = jsonrepair(cut.inString ? `${text}"` : text);
  } catch {
    return undefined;
  }
  // Only what was being written when the line was cut may be completed; a change further up
  // (a comma or quote inserted in the middle) is jsonrepair reading a line that was not just cut.
  const insertions = insertionsInto(text, repaired);
  if (!insertions || insertions.length === 0 || insertions.length > MAX_INSERTIONS || insertions.some((x) => x.offset < cut.tokenStart)) return undefined;
  const entry = usableEntry(repaired, idInUse);
  return entry ? { insertions, id: entry.id } : undefined;
}

/** What a mend says of the entry it makes: its id, and its type and role as the title names them. */
export interface UsableEntry {
  id: string;
  /** "user message", "compaction", …: the role of a message, else the entry's type. */
  kind: string;
}

/**
 * The entry `text` is, when Pi can use it: an object that is not a header, whose `id` is a
 * non-empty string no other entry holds, whose `parentId` is a string or null, and whose own line
 * raises no error (a message entry without its `message` would make Pi throw building the context).
 */
export function usableEntry(text: string, idInUse: (id: string) => boolean): UsableEntry | undefined {
  const parsed = parseLine(text);
  if (parsed.kind !== "value" || !parsed.isObject || parsed.type === "session") return undefined;
  if (parsed.id === undefined || parsed.id === "" || parsed.parentId === undefined || idInUse(parsed.id)) return undefined;
  if (parsed.noMessage || parsed.findings.some((f) => CODES[f.code].severity === "error")) return undefined;
  const type = singleLine(parsed.type ?? "entry", 24);
  return { id: parsed.id, kind: parsed.role !== undefined ? `${singleLine(parsed.role, 16)} message` : type };
}

/** "Recover the entry": the quick fix of a malformed or cut-off line, when `recoverLine` finds an entry in it. */
export function recoverFix(ctx: Context, line: number): Fix | undefined {
  const { doc, a } = ctx;
  const recovered = recoverLine(doc.jsonText(line), (id) => a.byId.has(id));
  if (!recovered) return undefined;
  const base = doc.jsonOffset(line);
  const edits: TextEdit[] = recovered.insertions.map(({ offset, text }) => ({
    range: doc.spanRange(line, base + offset, line, base + offset),
    newText: text,
  }));
  // A cut-off last line also gets the newline Pi would add, so that the entry is whole in one step.
  if (doc.eols.at(line) === "") {
    const end = doc.lines[line]!.length;
    const last = recovered.insertions[recovered.insertions.length - 1]!;
    if (base + last.offset === end) edits[edits.length - 1]!.newText += eolOf(doc);
    else edits.push({ range: doc.spanRange(line, end, line, end), newText: eolOf(doc) });
  }
  const id = singleLine(recovered.id, 24);
  return {
    title: `Recover the entry "${id}" (unsafe: guesses how the entry ended)`,
    edits,
    safe: false,
    summary: `recovered the cut-off entry "${id}" (guessed how it ended)`,
  };
}
