/** Checks of the tree as a whole: duplicate ids and parent cycles. */

import { cycleReachedFrom } from "../../core/session/semantics/walk";
import { describeKey } from "../../core/base/ids";
import { clip } from "../../core/base/text";
import { MAX_RELATED, type Report } from "./report";

/** What Pi does when it walks a parent cycle, as observed with the real packages. */
const CYCLE_FATE =
  'Pi 0.73/0.74 hangs building the context, and Pi 1.x grows an array until it fails with "RangeError: Invalid array length" after seconds and gigabytes';

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
    const consequence =
      index === leafCycle
        ? `The last line leads into this cycle, so resuming this session never works: ${CYCLE_FATE}.`
        : `Resuming from any entry in or below this cycle fails: ${CYCLE_FATE}.`;
    if (cycle.length === 1 && cycle[0]!.parentKey === cycle[0]!.key) {
      r.add("self-parent", `This entry is its own parent. ${consequence}`, r.valueRange(cycle[0]!.line, ["parentId"]));
      continue;
    }
    const ids = cycle.map((e) => (e.id === undefined ? describeKey(e.key) : `"${clip(e.id, 12)}"`));
    const chain = cycle.length > 8 ? `${ids.slice(0, 8).join(" → ")} → … (${cycle.length} entries)` : `${ids.join(" → ")} → ${ids[0]}`;
    const viaDuplicate = cycle.some((e) => a.duplicates.has(e.key)) ? " The loop runs through a duplicated id: Pi follows the last entry with that id." : "";
    for (const entry of cycle) {
      // Only the first few members are related, so a 50,000-entry cycle stays linear.
      const others = cycle.slice(0, MAX_RELATED + 1).filter((e) => e !== entry);
      r.add(
        "parent-cycle",
        `parentId cycle: ${chain}.${viaDuplicate} ${consequence}`,
        r.valueRange(entry.line, ["parentId"]),
        r.related(others, "in the same cycle"),
      );
    }
  }
}
