/**
 * Every place that names an entry id: children's `parentId`, `targetId` of labels and context
 * edits, `fromId` of branch summaries, `firstKeptEntryId` of compactions. Built in one pass over the
 * entries, once per analysis.
 *
 * Keys are Pi's (`IdKey`): a numeric `parentId` names a numeric id. Empty strings and other falsy
 * values name nothing, as Pi follows none of them.
 */

import type { Entry } from "../entry";
import { type IdKey, OpaqueId } from "../../base/ids";
import { perStructure } from "./memo";

/** The fields whose value names another entry. */
export type ReferenceField = "parentId" | "targetId" | "fromId" | "firstKeptEntryId";

/** Which fields name entries, by entry type ("*" for every entry). */
const REFERENCE_FIELDS: readonly { type: string; field: ReferenceField }[] = [
  { type: "*", field: "parentId" },
  { type: "label", field: "targetId" },
  { type: "context_edit", field: "targetId" },
  { type: "branch_summary", field: "fromId" },
  { type: "compaction", field: "firstKeptEntryId" },
];

export function isReferenceField(type: string | undefined, field: string): field is ReferenceField {
  return REFERENCE_FIELDS.some((r) => r.field === field && (r.type === "*" || r.type === type));
}

/** The reference field an entry of this type has besides `parentId`, if any. */
export function otherReferenceField(type: string | undefined): ReferenceField | undefined {
  return REFERENCE_FIELDS.find((r) => r.type !== "*" && r.type === type)?.field;
}

/** A place that names an entry id. */
export interface Reference {
  entry: Entry;
  field: ReferenceField;
}

export interface ReferenceIndex {
  /** Every place naming each id key, in file order. */
  byId: Map<IdKey, Reference[]>;
}

export const referenceIndex = perStructure((a): ReferenceIndex => {
  const byId = new Map<IdKey, Reference[]>();
  const add = (key: IdKey, entry: Entry, field: ReferenceField) => {
    if (!key || key instanceof OpaqueId) return;
    const list = byId.get(key);
    if (list) list.push({ entry, field });
    else byId.set(key, [{ entry, field }]);
  };
  for (const entry of a.entries) {
    add(entry.parentKey, entry, "parentId");
    const field = otherReferenceField(entry.type);
    if (field) add(entry.parsed.reference, entry, field);
  }
  return { byId };
});

/** The places that name `key`, in file order. */
export function referencesTo(a: Parameters<typeof referenceIndex>[0], key: IdKey): readonly Reference[] {
  return referenceIndex(a).byId.get(key) ?? [];
}
