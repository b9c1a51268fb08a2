import type { IdKey } from "../base/ids";
import type { ValueLine } from "../line/facts";

/**
 * An entry of the session: a value line after the header, with its place in the file. Its ids and
 * type are its parse's, read through it: one such object per entry (50,000 in a 45 MB session)
 * holding only the place and the parse is 48 bytes instead of the 88 that copies of the five facts
 * took (2 MB of the 45 MB session's steady heap). `reanalyze` swaps in a parse of the same
 * structure (`sameStructure`), so the facts read through it stay those the analysis was built on.
 */
export class Entry {
  constructor(
    /** Position in `entries`; moved, with `line`, by a structural edit above it (`resplice.ts`). */
    public index: number,
    /** 0-based line number in the document. */
    public line: number,
    public parsed: ValueLine,
  ) {}

  /** The id when it is a string (what features show and name); `key` is what Pi files the entry under. */
  get id(): string | undefined {
    return this.parsed.id;
  }

  get parentId(): string | null | undefined {
    return this.parsed.parentId;
  }

  /** The id as Pi's `byId` keys it, whatever its JSON type. */
  get key(): IdKey {
    return this.parsed.idKey;
  }

  /** The parentId as Pi looks the parent up, whatever its JSON type. */
  get parentKey(): IdKey {
    return this.parsed.parentKey;
  }

  get type(): string | undefined {
    return this.parsed.type;
  }
}

/** The index of the first entry on line `line` or below it (binary search: entries are in line order). */
export function firstEntryFrom(entries: readonly Entry[], line: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (entries[mid]!.line < line) low = mid + 1;
    else high = mid;
  }
  return low;
}
