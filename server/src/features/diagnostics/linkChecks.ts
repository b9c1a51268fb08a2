/** Checks of what each entry names: its parent, a label's or edit's target, a summary's branch, a compaction's kept range, a result's tool call. */

import type { Entry } from "../../core/session/entry";
import { entriesWhere } from "../../core/session/resplice";
import { clip } from "../../core/base/text";
import { type Add, ascending, checkByLine, type LineFindings } from "./replay";
import type { Report } from "./report";
import { unmatchedToolResults } from "./toolResultCalls";

/**
 * Kept per structure (`replay.ts`): what an entry names is structural, and a finding's message reads
 * only structural facts and the ids malformed lines seem to declare (the key), so after an edit
 * inside lines only the edited entries are checked again (their ranges move), and the entries whose
 * related location is on an edited line.
 */
const memos = new WeakMap<object, LineFindings<Map<string, number>>>();

export function checkLinks(r: Report): void {
  const { a } = r;
  const malformed = r.malformedIdLines();
  checkByLine(r, {
    memos,
    key: malformed,
    sameKey: sameMap,
    // A full run makes the list of entries naming an id too, which the first edit of the tree
    // would otherwise make, looking at every entry (3 ms on the 45 MB session), where the carry
    // below derives it from this structure's.
    lines: () => {
      entriesNaming(a);
      return a.entries.map((e) => e.line);
    },
    again: (edited) => ascending(edited.filter((line) => a.entryAtLine[line] !== undefined)),
    check: (line, add, depend) => {
      const entry = a.entryAtLine[line];
      if (entry) checkEntryLinks(r, entry, malformed, add, depend);
    },
    // After a structural edit, an entry outside the edit without findings gains one only when the
    // holder of the id it names changed: its parent's (`reparented`), or its target's; and a
    // compaction's kept entry may leave its path anywhere. The ids malformed lines declare (the key)
    // are read only for a parent that names no entry: an entry that had that finding is checked
    // again, and one that has it now lost its parent's holder.
    carry: (resplice, had) => {
      const lines = [...had, ...resplice.reparented().map((e) => e.line)];
      for (const entry of entriesNaming(a)) {
        if (entry.type === "compaction" || resplice.changedKeys.has(entry.parsed.reference)) lines.push(entry.line);
      }
      return lines;
    },
  });
}

/** The entries that name an id besides their parent (`reference`), per structure. */
const entriesNaming = entriesWhere((e) => e.parsed.reference !== undefined);

function sameMap<K, V>(x: ReadonlyMap<K, V>, y: ReadonlyMap<K, V>): boolean {
  if (x.size !== y.size) return false;
  for (const [k, v] of x) if (y.get(k) !== v) return false;
  return true;
}

function checkEntryLinks(r: Report, entry: Entry, malformed: ReadonlyMap<string, number>, add: (...args: Add) => void, depend: (line: number) => void): void {
  const { a } = r;
  const p = entry.parsed;
  if (!p.isObject) return;
  // The analysis already resolved every parent: a named parent that did not resolve dangles.
  if (typeof entry.parentId === "string" && entry.parentId !== "" && a.parent[entry.index] === undefined) {
    const where = malformed.get(entry.parentId);
    const cause = where !== undefined ? ` (the entry with this id is on line ${where + 1}, which Pi cannot parse)` : "";
    const above = "Pi treats this entry as a root: a context built through it stops here and loses everything above.";
    add("dangling-parent", `parentId "${clip(entry.parentId)}" names no entry${cause}. ${above}`, r.valueRange(entry.line, ["parentId"]));
  } else if (entry.parentId === "") {
    // Pi's writers put null on a root; an empty string is read the same way, as no parent.
    add(
      "dangling-parent",
      "parentId is the empty string, which Pi reads as no parent. Pi treats this entry as a root: a context built through it stops here and loses everything above.",
      r.valueRange(entry.line, ["parentId"]),
    );
  }
  // The id each entry names besides its parent is a fact of its parse (`reference`).
  const named = p.reference;
  switch (entry.type) {
    case "label":
    case "context_edit": {
      if (typeof named === "string" && !a.byId.has(named)) {
        const effect = entry.type === "label" ? "Pi keeps the label, but it marks no entry in the tree." : "Pi 1.x applies the edit to no message.";
        add("dangling-target", `targetId "${clip(named)}" names no entry. ${effect}`, r.valueRange(entry.line, ["targetId"]));
      }
      break;
    }
    case "branch_summary": {
      if (typeof named === "string" && named !== "root" && !a.byId.has(named)) {
        add(
          "dangling-from",
          `fromId "${clip(named)}" names no entry (only "root" may name none). Pi still shows the summary to the model, but the branch it summarises cannot be found.`,
          r.valueRange(entry.line, ["fromId"]),
        );
      }
      break;
    }
    case "compaction":
      checkFirstKept(r, entry, named, add, depend);
      break;
  }
}

function checkFirstKept(r: Report, entry: Entry, firstKept: unknown, add: (...args: Add) => void, depend: (line: number) => void): void {
  const { a } = r;
  // Pi 1.x stores the compaction's own id when it keeps nothing from before it.
  if (typeof firstKept !== "string" || firstKept === entry.id) return;
  const target = a.byId.get(firstKept);
  if (!target) {
    add(
      "dangling-first-kept",
      `firstKeptEntryId "${clip(firstKept)}" names no entry. Pi keeps nothing from before this compaction: the model sees only the summary and what follows it.`,
      r.valueRange(entry.line, ["firstKeptEntryId"]),
    );
    return;
  }
  if (a.reachesCycle[entry.index]) return; // The path is undefined; the cycle is reported instead.
  if (!a.isAncestor(target, entry)) {
    depend(target.line);
    add(
      "first-kept-not-on-path",
      `firstKeptEntryId "${clip(firstKept)}" (line ${target.line + 1}) is not on the path above this compaction. Pi keeps nothing from before the compaction: the model sees only the summary and what follows it.`,
      r.valueRange(entry.line, ["firstKeptEntryId"]),
      r.related([target], "the entry it names"),
    );
  }
}

export function checkToolResults(r: Report): void {
  const { a } = r;
  for (const { entry, elsewhere: holder } of unmatchedToolResults(a)) {
    const id = entry.parsed.toolResultId!;
    const elsewhere = holder ? ` (a tool call with this id is on line ${holder.line + 1}, on another branch)` : "";
    r.add(
      "unmatched-tool-result",
      `No assistant message on this entry's path has a tool call with id "${clip(id)}"${elsewhere}. Pi sends the result anyway; most providers reject a tool result without its tool call.`,
      r.valueRange(entry.line, ["message", "toolCallId"]),
    );
  }
}
