/**
 * Labels, as Pi's `labelsById`: `label` entries in file order (on any branch), each keyed by its
 * raw `targetId`, applied by `applyLabel` (`../rules.ts`), the rule the files on disk are read by
 * too. The map keeps Pi's insertion order, which a fork writes its labels in.
 */

import type { Entry } from "../entry";
import type { IdKey } from "../../base/ids";
import { idKeyOf } from "../../base/ids";
import { applyLabel } from "../rules";
import { perStructure, perStructureAndLines } from "./memo";

export interface Label {
  /** The label's value (truthy; a string in every file Pi wrote). */
  value: unknown;
  /** The `label` entry that set it. */
  entry: Entry;
}

export interface Labels {
  /** The label of each target key, in Pi's order. */
  byTarget: Map<IdKey, Label>;
  /** The last `label` entry naming each target key, whether it set or cleared the label. */
  lastChange: Map<IdKey, Entry>;
}

/** The lines of `label` entries, marked: the only lines whose text the labels read. */
const labelLines = perStructure((a): Uint8Array => {
  const marked = new Uint8Array(a.entryAtLine.length);
  for (const entry of a.entries) if (entry.type === "label") marked[entry.line] = 1;
  return marked;
});

/** Kept while the edits touch no `label` line: typing in a message does not walk every entry again. */
export const labels = perStructureAndLines(labelLines, (a): Labels => {
  const byTarget = new Map<IdKey, Label>();
  const lastChange = new Map<IdKey, Entry>();
  for (const entry of a.entries) {
    if (entry.type !== "label") continue;
    const o = entry.parsed.object;
    if (!o) continue;
    const target = idKeyOf(o.targetId);
    lastChange.set(target, entry);
    applyLabel(byTarget, target, o.label, () => ({ value: o.label, entry }));
  }
  return { byTarget, lastChange };
});

/** The label Pi shows on `entry`, if any. */
export function labelOf(a: Parameters<typeof labels>[0], entry: Entry): Label | undefined {
  return labels(a).byTarget.get(entry.key);
}
