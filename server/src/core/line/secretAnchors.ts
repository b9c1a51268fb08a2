/**
 * Where a credential may start in a line, found fast. The places are the alternatives of one
 * case-insensitive expression (a private key's header, a URL's `://`, a vendor's prefix, a
 * credential's name, an image's `"data":"`), but V8 tries an alternation of that many literals at
 * every character, and on a 43 MB session that cost more than `JSON.parse` of every line. Every
 * alternative is at least three characters long, so the scan below reads the line once, keeps a
 * 15-bit hash of the last three characters, and runs the expression, anchored, only where that
 * hash is one of an alternative's first three characters: about one place in 500 of a session.
 *
 * The answer is exactly the expression's own: the first place where it matches, and there its
 * first matching alternative. A place the scan skips cannot match, because the hash of every
 * match's first three characters is in the table whatever their case, and the expression, not
 * the table, decides every place the scan stops at.
 */

/** The alternatives, in the order the expression prefers them (see `findSecrets`). */
const ALTERNATIVES = [
  '"data":"',
  "-----BEGIN ",
  ":\\/\\/",
  "sk-",
  "gh[pousr]_",
  "github_pat_",
  "A(?:KIA|SIA|BIA|CCA|3T|Iza)",
  "xox[abposre]-",
  "[sr]k_(?:live|test|prod)_",
  "npm_",
  "eyJ",
  "api_?key",
  "apikey",
  "access_?key",
  "secret",
  "token",
  "passw(?:or)?d",
  "pwd",
  "bearer",
  "credential",
  "creds",
  "auth",
];

/** The expression, anchored where the scan stands. */
const ANCHOR_AT = new RegExp(ALTERNATIVES.join("|"), "iy");

/**
 * Every word an alternative matches, spelled out. The alternatives use a small part of the syntax
 * (literals, `\\/`, classes of single characters, `(?:…|…)` groups and `?`), which this reads, so
 * that the table below is derived from the expression and cannot drift from it.
 */
function expand(pattern: string): string[] {
  let words = [""];
  let i = 0;
  while (i < pattern.length) {
    let options: string[];
    if (pattern[i] === "\\") {
      options = [pattern[i + 1]!];
      i += 2;
    } else if (pattern[i] === "[") {
      const close = pattern.indexOf("]", i);
      options = [...pattern.slice(i + 1, close)];
      i = close + 1;
    } else if (pattern.startsWith("(?:", i)) {
      let depth = 0;
      let close = i;
      for (; close < pattern.length; close++) {
        if (pattern[close] === "(") depth++;
        else if (pattern[close] === ")" && --depth === 0) break;
      }
      options = splitAlternatives(pattern.slice(i + 3, close)).flatMap(expand);
      i = close + 1;
    } else {
      options = [pattern[i]!];
      i++;
    }
    if (pattern[i] === "?") {
      options = ["", ...options];
      i++;
    }
    words = words.flatMap((w) => options.map((o) => w + o));
  }
  return words;
}

/** The alternatives of a group, split at its own `|`s, not at those of the groups inside it. */
function splitAlternatives(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === "(") depth++;
    else if (inner[i] === ")") depth--;
    else if (inner[i] === "|" && depth === 0) {
      parts.push(inner.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(inner.slice(from));
  return parts;
}

/**
 * Three characters, each reduced to its low five bits, as one 15-bit number. The reduction folds
 * case (`A` and `a` differ in bit 5 only); other characters may share a number with an
 * alternative's start, which costs one anchored try that fails, never a missed place.
 */
function hash(a: number, b: number, c: number): number {
  return ((a & 31) << 10) | ((b & 31) << 5) | (c & 31);
}

/** Set where the first three characters of some alternative's word hash to: 32 KiB, which stays in the cache. */
const STARTS = new Uint8Array(1 << 15);
for (const word of ALTERNATIVES.flatMap(expand)) {
  // The scan looks at three characters at a time, so a shorter word would be missed.
  if (word.length < 3) throw new Error(`secret anchor shorter than three characters: ${word}`);
  STARTS[hash(word.charCodeAt(0), word.charCodeAt(1), word.charCodeAt(2))] = 1;
}

/**
 * The line's characters as bytes, one window at a time. Reading a byte array costs less than
 * `charCodeAt` on a string, and `latin1` writes each character's low byte, which holds the five
 * bits the hash reads, so the window hashes exactly as the characters do. The window is kept
 * between the searches for one line's anchors, so each character is written once; it holds on to
 * the last line searched until the next one, which is one line more in memory at most.
 */
const WINDOW = 1 << 16;
const bytes = Buffer.alloc(WINDOW);
let windowText = "";
let windowStart = 0;
let windowEnd = 0;

function fill(text: string, at: number): void {
  windowText = text;
  windowStart = at;
  windowEnd = Math.min(text.length, at + WINDOW);
  bytes.write(text.slice(windowStart, windowEnd), 0, "latin1");
}

/** The places, past `from`, where the three characters starting there hash to an entry of `STARTS`. */
function nextCandidate(text: string, from: number): number {
  const n = text.length;
  let h = 0;
  for (let i = from; i < n; ) {
    // Equal strings hold equal characters, so a window of an equal line is as good as its own.
    if (text !== windowText || i < windowStart || i >= windowEnd) fill(text, i);
    const off = windowStart;
    for (const end = windowEnd; i < end; i++) {
      h = ((h << 5) | (bytes[i - off]! & 31)) & 0x7fff;
      if (STARTS[h] === 1 && i - 2 >= from) return i - 2;
    }
  }
  return -1;
}

/** The same expression, searching: what a run of near-misses falls back to (see `nextAnchor`). */
const ANCHOR_SEARCH = new RegExp(ANCHOR_AT.source, "gi");

/**
 * How many anchored tries may fail in one search before it hands the rest of the line to the
 * searching expression. Prose and JSON fail about one try per anchor found; a hostile run of
 * `---` or `sec` fails one at every few characters, where one try costs more than the engine's own
 * search, so from there on the line costs what it cost before the scan.
 */
const MAX_MISSES = 32;

/**
 * The first place at or after `from` where the expression matches, and the text it matches there.
 * The time is linear in the line: one step per character, and at most `MAX_MISSES` failed
 * anchored tries (each of a couple of dozen characters at most) before the engine's own search.
 */
export function nextAnchor(text: string, from: number): { index: number; hit: string } | undefined {
  let misses = 0;
  for (let at = nextCandidate(text, from); at >= 0; at = nextCandidate(text, at + 1)) {
    ANCHOR_AT.lastIndex = at;
    const m = ANCHOR_AT.exec(text);
    if (m) return { index: at, hit: m[0] };
    if (++misses === MAX_MISSES) {
      ANCHOR_SEARCH.lastIndex = at + 1;
      const found = ANCHOR_SEARCH.exec(text);
      return found ? { index: found.index, hit: found[0] } : undefined;
    }
  }
  return undefined;
}
