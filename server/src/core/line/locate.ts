/**
 * Finding where a key or value sits inside one line of JSON, on demand.
 *
 * Lines are parsed with `JSON.parse`, which is fast but keeps no offsets. Offsets are needed only
 * for the few tokens a diagnostic, hover or definition points at, so instead of building a full
 * syntax tree for every line (which would cost several times `JSON.parse` on 400 KB lines), this
 * module walks the raw text along one path and skips every other value. Strings, which make up
 * nearly all of a large line, are skipped with `indexOf`, so locating a token is cheap even on the
 * largest lines.
 *
 * The walker never throws: on text that is not valid JSON it returns `undefined`. When an object
 * repeats a key, the last occurrence wins, as it does for `JSON.parse`.
 */

export type JsonPath = readonly (string | number)[];

export interface Span {
  start: number;
  end: number;
}

export interface Located {
  /** The key's span including its quotes; absent for array elements and the root. */
  key?: Span;
  value: Span;
}

/** Locates the member at `path` (object keys and array indices) in `text`. */
export function locate(text: string, path: JsonPath): Located | undefined {
  try {
    return walk(text, path);
  } catch {
    // The walker signals malformed text by throwing a private sentinel; callers only see "not found".
    return undefined;
  }
}

class Malformed extends Error {}

function fail(): never {
  throw new Malformed();
}

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else return i;
  }
}

/** Returns the index just past the string that starts at `i` (which must be a quote). */
function skipString(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) fail();
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
  }
}

/** Returns the index just past the JSON value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return skipString(text, i);
  if (c === 123 || c === 91) {
    // Containers are skipped by bracket depth; strings inside are jumped over whole so that
    // brackets within them do not count.
    let depth = 0;
    let j = i;
    for (;;) {
      const d = text.charCodeAt(j);
      if (Number.isNaN(d)) fail();
      if (d === 34) {
        j = skipString(text, j);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
  }
  // Numbers and literals run until a delimiter.
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (Number.isNaN(d) || d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) {
      if (j === i) fail();
      return j;
    }
    j++;
  }
}

function readKey(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

function walk(text: string, path: JsonPath): Located | undefined {
  let valueStart = skipWs(text, 0);
  let keySpan: Span | undefined;
  for (const step of path) {
    const c = text.charCodeAt(valueStart);
    let found: Located | undefined;
    if (typeof step === "string") {
      if (c !== 123) return undefined;
      let i = skipWs(text, valueStart + 1);
      if (text.charCodeAt(i) !== 125) {
        for (;;) {
          if (text.charCodeAt(i) !== 34) fail();
          const keyEnd = skipString(text, i);
          const key = readKey(text, i, keyEnd);
          let j = skipWs(text, keyEnd);
          if (text.charCodeAt(j) !== 58) fail();
          j = skipWs(text, j + 1);
          const vEnd = skipValue(text, j);
          if (key === step) found = { key: { start: i, end: keyEnd }, value: { start: j, end: vEnd } };
          i = skipWs(text, vEnd);
          const sep = text.charCodeAt(i);
          if (sep === 44) {
            i = skipWs(text, i + 1);
            continue;
          }
          if (sep === 125) break;
          fail();
        }
      }
    } else {
      if (c !== 91) return undefined;
      let i = skipWs(text, valueStart + 1);
      let index = 0;
      if (text.charCodeAt(i) !== 93) {
        for (;;) {
          const vEnd = skipValue(text, i);
          if (index === step) {
            found = { value: { start: i, end: vEnd } };
            break;
          }
          index++;
          i = skipWs(text, vEnd);
          const sep = text.charCodeAt(i);
          if (sep === 44) {
            i = skipWs(text, i + 1);
            continue;
          }
          if (sep === 93) break;
          fail();
        }
      }
    }
    if (!found) return undefined;
    keySpan = found.key;
    valueStart = found.value.start;
  }
  const end = skipValue(text, valueStart);
  return keySpan ? { key: keySpan, value: { start: valueStart, end } } : { value: { start: valueStart, end } };
}

export interface TokenAt {
  /** Keys and indices from the root to the innermost member under the offset. */
  path: (string | number)[];
  /** The innermost member's key span (absent for array elements and the root). */
  key?: Span;
  /** The innermost member's value span. */
  value: Span;
  /** Whether the offset is on the key rather than the value. */
  onKey: boolean;
}

/**
 * Finds the innermost member of the JSON text whose key or value contains `offset` (a position
 * between two characters; a token "contains" its start and end). Returns undefined on text that is
 * not valid JSON up to that point, or when the offset is outside the root value.
 */
export function locateAt(text: string, offset: number): TokenAt | undefined {
  try {
    return walkAt(text, offset);
  } catch {
    return undefined;
  }
}

/** A container being read by `walkAt`: its kind, the member being read, and where that member's key is. */
interface Frame {
  array: boolean;
  /** The key of the member being read (objects), or the index of the element (arrays). */
  key: string | number;
  keySpan: Span | undefined;
  valueStart: number;
  /** What the reader expects next: a key (or "}"), a ":", a value, or a "," (or the closing bracket). */
  expect: "key" | "colon" | "value" | "comma";
}

/**
 * One pass over the text, linear whatever the nesting: values are read in order with an explicit
 * stack, and the first value to end that contains the offset is the innermost one. Its path is the
 * stack's keys at that moment. A key that contains the offset answers at once, once its value's end
 * is known.
 */
function walkAt(text: string, offset: number): TokenAt | undefined {
  const rootStart = skipWs(text, 0);
  if (offset < rootStart) return undefined;
  const stack: Frame[] = [];
  const pathOf = (): (string | number)[] => stack.map((f) => f.key);
  let i = rootStart;
  let rootDone = false;
  let result: TokenAt | undefined;
  /** A value of `stack[top]` (or the root) that spans [start, end] has been read. */
  const ended = (start: number, end: number): boolean => {
    if (offset < start || offset > end) return false;
    const top = stack[stack.length - 1];
    const path = pathOf();
    if (!top) result = { path: [], value: { start, end }, onKey: false };
    else result = top.keySpan ? { path, key: top.keySpan, value: { start, end }, onKey: false } : { path, value: { start, end }, onKey: false };
    return true;
  };
  for (;;) {
    i = skipWs(text, i);
    const top = stack[stack.length - 1];
    if (!top && rootDone) return undefined;
    const c = text.charCodeAt(i);
    if (Number.isNaN(c)) fail();
    if (!top || top.expect === "value") {
      // A value starts here.
      if (top) top.valueStart = i;
      if (c === 123 || c === 91) {
        stack.push({ array: c === 91, key: c === 91 ? 0 : "", keySpan: undefined, valueStart: i, expect: c === 91 ? "value" : "key" });
        i = skipWs(text, i + 1);
        // An empty container ends right away.
        if (text.charCodeAt(i) === (c === 91 ? 93 : 125)) {
          stack.pop();
          if (ended(top ? top.valueStart : rootStart, i + 1)) return result;
          if (!top) rootDone = true;
          else top.expect = "comma";
          i++;
        }
        continue;
      }
      const end = skipValue(text, i);
      if (ended(i, end)) return result;
      if (!top) rootDone = true;
      else top.expect = "comma";
      i = end;
      continue;
    }
    if (top.expect === "key") {
      if (c !== 34) fail();
      const keyEnd = skipString(text, i);
      top.key = readKey(text, i, keyEnd);
      top.keySpan = { start: i, end: keyEnd };
      top.expect = "colon";
      i = keyEnd;
      continue;
    }
    if (top.expect === "colon") {
      if (c !== 58) fail();
      const valueStart = skipWs(text, i + 1);
      const keySpan = top.keySpan!;
      if (offset >= keySpan.start && offset <= keySpan.end) {
        // On the key: the answer needs the value's span, which one skip of the value gives.
        const valueEnd = skipValue(text, valueStart);
        return { path: [...pathOf()], key: keySpan, value: { start: valueStart, end: valueEnd }, onKey: true };
      }
      top.expect = "value";
      i = valueStart;
      continue;
    }
    // After a member: "," or the closing bracket.
    if (c === 44) {
      if (top.array) {
        top.key = (top.key as number) + 1;
        top.expect = "value";
      } else {
        top.expect = "key";
        top.keySpan = undefined;
      }
      i++;
      continue;
    }
    if (c !== (top.array ? 93 : 125)) fail();
    stack.pop();
    const parent = stack[stack.length - 1];
    const start = parent ? parent.valueStart : rootStart;
    if (ended(start, i + 1)) return result;
    if (!parent) rootDone = true;
    else parent.expect = "comma";
    i++;
  }
}

/**
 * The span of the `id` value in a line written the way Pi writes it (`{"type":"message","id":"…",`),
 * found with one `indexOf` instead of walking the whole line (which on a long line means skipping
 * every value after the id). The match is accepted only when everything before it is plain
 * top-level members: no other bracket and no backslash, and an even number of quotes, so the match
 * is a key of the outer object and not text inside a string or a nested value. Otherwise undefined,
 * and the caller walks the line with `locate`. `id` is the line's parsed `id`.
 */
export function locateIdFast(text: string, id: string): Span | undefined {
  const at = text.indexOf('"id":"');
  if (at < 0 || at > 4096) return undefined;
  // The raw text must be the id itself (no escapes), closed by a quote and then "," or "}".
  const start = at + 5;
  const end = start + id.length + 2;
  if (!text.startsWith(id, start + 1) || text.charCodeAt(end - 1) !== 34) return undefined;
  const after = text.charCodeAt(end);
  if (after !== 44 && after !== 125) return undefined;
  let opened = false;
  let quotes = 0;
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quotes++;
    else if (c === 92 || c === 91 || c === 93 || c === 125)
      return undefined; // \ [ ] }
    else if (c === 123) {
      if (opened) return undefined;
      opened = true;
    }
  }
  if (!opened || quotes % 2 !== 0) return undefined;
  return { start, end };
}
