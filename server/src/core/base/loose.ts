/**
 * JavaScript's loose coercions of a parsed JSON value, as Pi's code applies them (`String(value)`,
 * a relational comparison with a number, `new Date(value)`), computed without coercing the value
 * itself: iteratively, because coercing a deeply nested array recurses, and without calling a
 * `toString` member that JSON made a plain value. They sit in base/ because text shown to the user
 * (`text.ts`), the version rules and the sibling order all read values this way.
 */

/**
 * How deep nested arrays may be before V8's `Array.prototype.join`, which Pi's comparison calls,
 * overflows the stack: from about 3,130 levels on Node 22 and 3,210 on Node 20 (measured, with Pi's
 * own stack in front); a little less is taken, so that what is called safe is safe.
 */
export const COERCION_DEPTH_LIMIT = 3000;

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

/**
 * `new Date(value).getTime()` for a parsed JSON value, as Pi computes it for any `timestamp`:
 * strings are parsed, numbers are milliseconds, `null` is 0, booleans 0 or 1. An array becomes its
 * text first and an object is NaN (where JavaScript would recurse into a deep array or throw on an
 * object with its own `toString`, the answer here is NaN).
 */
export function dateTime(value: unknown): number {
  if (typeof value === "string" || typeof value === "number") return new Date(value).getTime();
  if (value === null) return 0;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (Array.isArray(value)) {
    // `new Date([…])` parses the array's text, `String([…])`, made here without recursion.
    const text = joinedText(value);
    return typeof text === "string" ? new Date(text).getTime() : Number.NaN;
  }
  return Number.NaN;
}
