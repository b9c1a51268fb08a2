/**
 * Labels, as Pi's `labelsById`: `label` entries in file order (on any branch), each keyed by its
 * raw `targetId`; a truthy `label` sets the target's label, a falsy one deletes it. The map keeps
 * Pi's insertion order (a relabelled target moves to the end, since deleting comes first).
 */

import type { Entry } from "../analysis";
import type { IdKey } from "../ids";
import { idKeyOf } from "../ids";
import { perAnalysis } from "./memo";

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

export const labels = perAnalysis((a): Labels => {
  const byTarget = new Map<IdKey, Label>();
  const lastChange = new Map<IdKey, Entry>();
  for (const entry of a.entries) {
    if (entry.type !== "label") continue;
    const o = entry.parsed.object;
    if (!o) continue;
    const target = idKeyOf(o.targetId);
    lastChange.set(target, entry);
    byTarget.delete(target);
    if (o.label) byTarget.set(target, { value: o.label, entry });
  }
  return { byTarget, lastChange };
});

/** The label Pi shows on `entry`, if any. */
export function labelOf(a: Parameters<typeof labels>[0], entry: Entry): Label | undefined {
  return labels(a).byTarget.get(entry.key);
}
