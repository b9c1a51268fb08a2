/** Checks of the tree as a whole: duplicate ids and parent cycles. */

import { cycleReachedFrom } from "../../core/session/semantics/walk";
import { describeKey } from "../../core/base/ids";
import { clip } from "../../core/base/text";
import { MAX_RELATED, type Report } from "./report";

/**
 * What Pi does when the path from the entry it starts from runs into a parent cycle, as observed
 * with the real packages (`pi --session FILE` at startup builds the context before any prompt):
 * Pi 0.73/0.74's parent walk `unshift`s forever, Pi 1.x's `push`es until V8 refuses the length.
 */
const OPEN_FATE =
  'Pi 0.73/0.74 hangs as it opens it, before any prompt; Pi 1.x stops with "RangeError: Invalid array length" after some seconds and about 2 GB of memory';

/** The same walk started from an entry picked in /tree (`getBranch` of the target). */
const TREE_FATE = 'hangs Pi 0.73/0.74 and fails in Pi 1.x with "RangeError: Invalid array length"';

const FIX = "Break the cycle: point a parentId at an entry outside it (the quick fix does).";

export function checkDuplicates(r: Report): void {
  const { a } = r;
  const loop = a.treeLoops ? " These duplicates also make Pi's session tree loop forever, so /tree hangs." : "";
  for (const [id, holders] of a.duplicates) {
    const winner = holders[holders.length - 1]!;
    const shown = typeof id === "string" ? `"${clip(id)}"` : describeKey(id);
    for (const holder of holders) {
      // Only the first few other holders are named, so an id held 50,000 times stays linear.
      const others = holders
        .slice(0, MAX_RELATED + 1)
        .filter((h) => h !== holder)
        .slice(0, MAX_RELATED);
      const more = holders.length - 1 - others.length;
      const named = others.map((h) => h.line + 1).join(", ") + (more > 0 ? ` and ${more} more` : "");
      const lines = holders.length === 2 ? `line ${named}` : `lines ${named}`;
      const fate =
        holder === winner
          ? `Pi keeps this entry under the id and ignores the one${holders.length > 2 ? "s" : ""} on ${lines}.`
          : `Pi keeps only the last entry with this id (line ${winner.line + 1}): children and references resolve to that one, so this entry is cut off from the tree.`;
      r.add(
        "duplicate-id",
        `Duplicate id ${shown}, also on ${lines}. ${fate}${loop}`,
        r.valueRange(holder.line, ["id"]),
        r.related(others, `the same id ${shown}`),
      );
    }
  }
}

export function checkCycles(r: Report): void {
  const { a } = r;
  const leafCycle = a.leaf ? cycleReachedFrom(a, a.leaf) : -1;
  for (const [index, cycle] of a.cycles.entries()) {
    const viaDuplicate = cycle.some((e) => a.duplicates.has(e.key));
    const selfParent = cycle.length === 1 && cycle[0]!.parentKey === cycle[0]!.key;
    // Pi's getTree makes an entry that names itself a root, and hangs a cycle of duplicated ids
    // (duplicate-id says so); the entries of any other cycle, and those below, are in no root's subtree.
    const offPath = selfParent
      ? `/tree shows it as a root; going to it or to an entry below it ${TREE_FATE}.`
      : viaDuplicate
        ? `Going to an entry in or below it with /tree ${TREE_FATE}.`
        : "Pi opens the session, but /tree does not show these entries or any below them.";
    const consequence = index === leafCycle ? `The last line leads into it, so Pi cannot open this session: ${OPEN_FATE}.` : offPath;
    if (selfParent) {
      r.add("self-parent", `This entry is its own parent. ${consequence} ${FIX}`, r.valueRange(cycle[0]!.line, ["parentId"]));
      continue;
    }
    const ids = cycle.map((e) => (e.id === undefined ? describeKey(e.key) : `"${clip(e.id, 12)}"`));
    const chain = cycle.length > 8 ? `${ids.slice(0, 8).join(" → ")} → … (${cycle.length} entries)` : `${ids.join(" → ")} → ${ids[0]}`;
    const duplicateNote = viaDuplicate ? " The loop runs through a duplicated id: Pi follows the last entry with that id." : "";
    for (const entry of cycle) {
      // Only the first few members are related, so a 50,000-entry cycle stays linear.
      const others = cycle.slice(0, MAX_RELATED + 1).filter((e) => e !== entry);
      r.add(
        "parent-cycle",
        `parentId cycle: ${chain}.${duplicateNote} ${consequence} ${FIX}`,
        r.valueRange(entry.line, ["parentId"]),
        r.related(others, "in the same cycle"),
      );
    }
  }
}
