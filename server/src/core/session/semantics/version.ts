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
 * reproduced here without coercing the value itself (a string is read as a number, an array is
 * joined as `String([…])` would join it, an object is NaN), iteratively, because coercing a deeply
 * nested array recurses: Pi's own comparison throws a RangeError past a few thousand levels, and so
 * would ours.
 */

import { CURRENT_VERSION } from "../../line/schema";
import { perAnalysis } from "./memo";

/**
 * How deep nested arrays may be before V8's `Array.prototype.join`, which Pi's comparison calls,
 * overflows the stack: from about 3,130 levels on Node 22 and 3,210 on Node 20 (measured, with Pi's
 * own stack in front); a little less is taken, so that what is called safe is safe.
 */
export const COERCION_DEPTH_LIMIT = 3000;

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

/**
 * The number a relational comparison with a number makes of a JSON value (ToNumber of ToPrimitive),
 * computed iteratively, or the error the comparison throws: a RangeError when V8 would overflow its
 * stack joining nested arrays, a TypeError for an object with its own `toString` member (JSON makes
 * it a plain value, which is not callable, and `valueOf` gives the object back, so it has no
 * primitive value: "Cannot convert object to primitive value").
 */
export function looseNumber(value: unknown): number | "RangeError" | "TypeError" {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === null) return 0;
  if (typeof value === "string") return Number(value);
  if (!Array.isArray(value)) return hasOwnToString(value) ? "TypeError" : Number.NaN; // "[object Object]"
  const text = joinedText(value);
  return typeof text === "string" ? Number(text) : text.error;
}

function hasOwnToString(value: unknown): boolean {
  return value !== null && typeof value === "object" && Object.hasOwn(value, "toString");
}

/** `String(value)` of a parsed JSON value, or the error V8 throws making it, computed without coercing it. */
export function looseString(value: unknown): string | { error: "RangeError" | "TypeError" } {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return String(value);
  if (Array.isArray(value)) return joinedText(value);
  return hasOwnToString(value) ? { error: "TypeError" } : "[object Object]";
}

/** `String(array)` of a parsed JSON array, or the error V8 throws making it. */
export function joinedText(root: unknown[]): string | { error: "RangeError" | "TypeError" } {
  // An explicit stack of [array, next index]; text is appended as `join(",")` would produce it.
  const stack: [unknown[], number][] = [[root, 0]];
  let out = "";
  while (stack.length > 0) {
    if (stack.length > COERCION_DEPTH_LIMIT) return { error: "RangeError" };
    const top = stack[stack.length - 1]!;
    const [array, i] = top;
    if (i >= array.length) {
      stack.pop();
      continue;
    }
    if (i > 0) out += ",";
    top[1] = i + 1;
    const item = array[i];
    if (Array.isArray(item)) stack.push([item, 0]);
    else if (item === null || item === undefined) continue;
    else if (typeof item === "object") {
      if (hasOwnToString(item)) return { error: "TypeError" };
      out += "[object Object]";
    } else out += String(item);
  }
  return out;
}
