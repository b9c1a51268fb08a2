/**
 * The file's version as Pi's migration reads it (`migrateToCurrentVersion`):
 *
 *     const version = header?.version ?? 1;
 *     if (version >= 3) return false;   // nothing to do
 *     if (version < 2) migrateV1ToV2(entries);
 *     if (version < 3) migrateV2ToV3(entries);
 *     return true;                      // the file is rewritten
 *
 * The comparisons are JavaScript's loose ones, on whatever JSON value the header holds. They are
 * reproduced (`looseNumber` in base/loose.ts) without coercing the value itself (a string is read
 * as a number, an array is joined as `String([…])` would join it, an object is NaN), iteratively,
 * because coercing a deeply nested array recurses: Pi's own comparison throws a RangeError past a
 * few thousand levels, and so would ours.
 */

import { looseNumber } from "../../base/loose";
import { CURRENT_VERSION } from "../../line/schema";
import { perAnalysis } from "./memo";

// The diagnostics name the depth limit beside the version rules it bounds.

export interface VersionRules {
  /** Whether the header has a `version` member. */
  present: boolean;
  /** The raw value. */
  raw: unknown;
  /** The number Pi's comparisons see (NaN when none); undefined when Pi's comparison throws. */
  compared: number | undefined;
  /** What Pi's comparison throws, when it throws: a RangeError (nesting too deep) or a TypeError (an object that has no primitive value). */
  error: "RangeError" | "TypeError" | undefined;
  /** Whether Pi treats the file as current (`version >= 3`): no migration, no rewrite. */
  current: boolean;
  /** Whether Pi migrates it from v1 (`version < 2`): new random ids, a single chain. */
  v1: boolean;
  /** Whether Pi migrates it from v2 (`version < 3`): `hookMessage` roles renamed. */
  v2: boolean;
  /** Whether Pi rewrites the whole file on open because of its version. */
  rewrites: boolean;
  /** Whether Pi's comparison throws (a RangeError on arrays nested past `COERCION_DEPTH_LIMIT`). */
  throws: boolean;
  /** Whether the value is what Pi writes: a number up to the current version. */
  wellFormed: boolean;
}

export const versionRules = perAnalysis((a): VersionRules => rulesFor(a.header === undefined ? undefined : a.header, a.header !== undefined));

/** The rules for a header (or none). */
export function rulesFor(header: Record<string, unknown> | undefined, hasHeader: boolean): VersionRules {
  const present = header !== undefined && "version" in header;
  const raw = header?.version;
  const value = raw ?? 1;
  const loose = looseNumber(value);
  const compared = typeof loose === "number" ? loose : undefined;
  const error = typeof loose === "number" ? undefined : loose;
  const throws = error !== undefined;
  const n = compared ?? Number.NaN;
  // `NaN >= 3`, `NaN < 2` and `NaN < 3` are all false: no step runs, but the file is still rewritten.
  const current = hasHeader && !throws && n >= CURRENT_VERSION;
  const v1 = hasHeader && !throws && n < 2;
  const v2 = hasHeader && !throws && n < 3;
  return {
    present,
    raw,
    compared,
    error,
    current,
    v1,
    v2,
    rewrites: hasHeader && !throws && !current,
    throws,
    wellFormed: typeof raw === "number" && raw <= CURRENT_VERSION,
  };
}
