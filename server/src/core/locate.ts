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

function walkAt(text: string, offset: number): TokenAt | undefined {
  const start = skipWs(text, 0);
  const end = skipValue(text, start);
  if (offset < start || offset > end) return undefined;
  const result: TokenAt = { path: [], value: { start, end }, onKey: false };
  for (;;) {
    const { start: vStart } = result.value;
    const c = text.charCodeAt(vStart);
    let descended = false;
    if (c === 123) {
      let i = skipWs(text, vStart + 1);
      while (text.charCodeAt(i) === 34) {
        const keyEnd = skipString(text, i);
        let j = skipWs(text, keyEnd);
        if (text.charCodeAt(j) !== 58) fail();
        j = skipWs(text, j + 1);
        const valueEnd = skipValue(text, j);
        if (offset >= i && offset <= keyEnd) {
          return { path: [...result.path, readKey(text, i, keyEnd)], key: { start: i, end: keyEnd }, value: { start: j, end: valueEnd }, onKey: true };
        }
        if (offset >= j && offset <= valueEnd) {
          result.path.push(readKey(text, i, keyEnd));
          result.key = { start: i, end: keyEnd };
          result.value = { start: j, end: valueEnd };
          descended = true;
          break;
        }
        i = skipWs(text, valueEnd);
        if (text.charCodeAt(i) !== 44) break;
        i = skipWs(text, i + 1);
      }
    } else if (c === 91) {
      let i = skipWs(text, vStart + 1);
      let index = 0;
      while (text.charCodeAt(i) !== 93 && i < text.length) {
        const valueEnd = skipValue(text, i);
        if (offset >= i && offset <= valueEnd) {
          result.path.push(index);
          delete result.key;
          result.value = { start: i, end: valueEnd };
          descended = true;
          break;
        }
        i = skipWs(text, valueEnd);
        if (text.charCodeAt(i) !== 44) break;
        i = skipWs(text, i + 1);
        index++;
      }
    }
    if (!descended) return result;
  }
}
