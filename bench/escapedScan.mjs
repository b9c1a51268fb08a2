// bench/escapedScan.mjs: the byte scan of a session's lines as a `didOpen` carries them, inside the
// JSON string of the message's `text`, so still escaped: the session's `"` arrives as `\"`, its `\`
// as `\\`, its line break as `\n`, and any character may come as a `\uXXXX` escape (Neovim's
// encoder writes `\/` too). It is the scan of bench/scanFloor.mjs with the message's escapes read
// in place, for the bytes-first floor of the open (bench/bytesFirstServer.mjs): each line validated
// as JSON.parse of the decoded line would validate it (or found blank as Pi finds it: `trim()`
// leaves nothing), its top-level "id", "parentId" and "type" found, and where it ends, without
// decoding a byte into a string.
//
// Most of a session's bytes are inside its strings (tool outputs), and every character that means
// something there (a quote, a backslash, a control character, a line break) is escaped in the
// message, so a session string is skipped from backslash to backslash with `indexOf`; the rest is
// read one character at a time, each message escape decoded where it stands.
//
// Like the floor it follows, it does not check that the bytes are UTF-8 (decoding replaces bad
// bytes, which JSON.parse then accepts), and a key written with escapes is not recognised: the
// values found before it are dropped, since it may be a later "id" (the generated sessions have
// none; the real reader would decode such a line).
//
//        import { scanEscapedLine, EscapedTextScan } from "./escapedScan.mjs"
//        (test/bench/escapedScan.test.ts holds them to JSON.parse)

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LINE_FEED = 0x0a;
/** What `inner` returns at the end of the line: a line break, the end of the region, or a broken escape. */
const END = -1;

const OBJECT = 1;
const ARRAY = 2;

/** The line's statuses, `out[0]`. */
export const BLANK = 0;
export const OBJECT_LINE = 1;
export const OTHER_VALUE = 2;
export const MALFORMED = 3;

/** `out` slots: the status, where the line ends, then [start, end) of the id, parentId and type values. */
export const FACTS = 8;
/** A parentId that is JSON's null, in `out[4]`. */
export const PARENT_NULL = -2;

const KEY_ID = Buffer.from("id");
const KEY_PARENT = Buffer.from("parentId");
const KEY_TYPE = Buffer.from("type");

const isDigit = (c) => c >= 0x30 && c <= 0x39;
const hexValue = (c) => (isDigit(c) ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

// The scan's state, module-wide so that the small readers below need no closure: the bytes, where
// the scan is, and where the region it may read ends.
let B = Buffer.alloc(0);
let P = 0;
let E = 0;

/** The value of the four hex digits at `at`, or -1. */
function hex4(at) {
  if (at + 4 > E) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const h = hexValue(B[at + k]);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

/**
 * The next character of the session's line (a UTF-16 unit for a `\u` escape, a byte otherwise) and
 * `P` moved past it; END, with `P` left on it, at a line break (`\n` or `\u000a`), at the region's
 * end, at the text's closing quote or at an escape the message may not hold.
 */
function inner() {
  if (P >= E) return END;
  const c = B[P];
  if (c !== BACKSLASH) {
    if (c === QUOTE || c < 0x20) return END;
    P++;
    return c;
  }
  // An escape cut off by the region's end: what follows it is not the region's to read.
  if (P + 1 >= E) return END;
  switch (B[P + 1]) {
    case QUOTE:
      P += 2;
      return QUOTE;
    case BACKSLASH:
      P += 2;
      return BACKSLASH;
    case 0x2f:
      P += 2;
      return 0x2f;
    case 0x74:
      P += 2;
      return 0x09;
    case 0x72:
      P += 2;
      return 0x0d;
    case 0x62:
      P += 2;
      return 0x08;
    case 0x66:
      P += 2;
      return 0x0c;
    case 0x75: {
      const v = hex4(P + 2);
      if (v < 0 || v === LINE_FEED) return END;
      P += 6;
      return v;
    }
    default:
      return END;
  }
}

/** JSON whitespace other than the line break, which ends the line. */
const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0d;

/** Whitespace to `trim()` (JavaScript's, beyond JSON's), which Pi's test of a blank line uses. */
const isTrimmed = (c) =>
  c === 0x20 ||
  (c >= 0x09 && c <= 0x0d) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/**
 * The code point of a raw UTF-8 character whose first byte `lead` was just read, `P` moved past
 * it, or -1. Only the leads of `trim()`'s whitespace are read (C2-DF, E1-E3, EF), none of which
 * starts an overlong form or a surrogate, so each valid sequence decodes to what the decoder gives.
 */
function rawCodePoint(lead) {
  if (lead >= 0xc2 && lead <= 0xdf) {
    if (P >= E || (B[P] & 0xc0) !== 0x80) return -1;
    return ((lead & 0x1f) << 6) | (B[P++] & 0x3f);
  }
  if ((lead >= 0xe1 && lead <= 0xe3) || lead === 0xef) {
    if (P + 2 > E || (B[P] & 0xc0) !== 0x80 || (B[P + 1] & 0xc0) !== 0x80) return -1;
    P += 2;
    return ((lead & 0x0f) << 12) | ((B[P - 2] & 0x3f) << 6) | (B[P - 1] & 0x3f);
  }
  return -1;
}

/**
 * Whether the rest of the line, from its character `c` just read, is all whitespace to `trim()`:
 * Pi skips such a line as blank, though JSON.parse would refuse it. A character above ASCII read
 * raw (the byte before `P` is `c` itself, where a `\u` escape leaves a hex digit) is decoded first.
 */
function onlyTrimmed(c) {
  for (;;) {
    if (c >= 0x80 && c <= 0xff && B[P - 1] === c) c = rawCodePoint(c);
    if (!isTrimmed(c)) return false;
    c = inner();
    if (c === END) return true;
  }
}

/** The next character that is not whitespace (or END). */
function innerAfterSpace() {
  let c = inner();
  while (isSpace(c)) c = inner();
  return c;
}

/**
 * Reads the rest of a session string whose opening quote was just read: true with `P` past its
 * closing quote, false if it is not valid (a control character, a bad escape, the line's end).
 * `escaped[0]` is set to 1 when the string holds an escape of the session's (or a `\u` escape).
 */
function skipString(escaped) {
  for (;;) {
    const j = B.indexOf(BACKSLASH, P);
    // A backslash that is the region's last byte starts an escape cut off by its end.
    if (j < 0 || j + 1 >= E) {
      P = E;
      return false;
    }
    // Between P and j the bytes are plain: a quote or control byte there would end the message's
    // string, which the region never crosses.
    P = j;
    const e = B[j + 1];
    if (e === QUOTE) {
      P = j + 2;
      return true;
    }
    if (e === 0x2f) {
      P = j + 2;
      escaped[0] = 1;
      continue;
    }
    if (e === BACKSLASH) {
      // The session's own escapes as a client writes them, read in place: `\\n` (its "\n"), `\\\"`
      // (its '\"') and `\\\\` (its "\\"); any other way of writing one is read below.
      const x = B[j + 2];
      if ((x === 0x6e || x === 0x74 || x === 0x72 || x === 0x2f || x === 0x62 || x === 0x66) && j + 3 <= E) {
        P = j + 3;
        escaped[0] = 1;
        continue;
      }
      if (x === BACKSLASH && (B[j + 3] === QUOTE || B[j + 3] === BACKSLASH) && j + 4 <= E) {
        P = j + 4;
        escaped[0] = 1;
        continue;
      }
    }
    let c;
    if (e === BACKSLASH) c = BACKSLASH;
    else if (e === 0x75) {
      c = hex4(j + 2);
      if (c < 0x20) return false;
      if (c === QUOTE) {
        // Closed by `\u0022`: its bytes are not the two of `\"` that a caller cuts off.
        P = j + 6;
        escaped[0] = 1;
        return true;
      }
      escaped[0] = 1;
      if (c !== BACKSLASH) {
        P = j + 6;
        continue;
      }
    } else return false; // a control character in the session string, or its line's end
    // The session's own escape: a backslash, then what it escapes.
    P = j + (e === BACKSLASH ? 2 : 6);
    escaped[0] = 1;
    const x = inner();
    if (x === QUOTE || x === BACKSLASH || x === 0x2f || x === 0x62 || x === 0x66 || x === 0x6e || x === 0x72 || x === 0x74) continue;
    if (x !== 0x75) return false;
    for (let k = 0; k < 4; k++) if (hexValue(inner()) < 0) return false;
  }
}

/** Reads a number whose first character `c` was just read; returns the character after it. */
function readNumber(c) {
  if (c === 0x2d) c = inner();
  if (c === 0x30) c = inner();
  else if (c >= 0x31 && c <= 0x39) {
    c = inner();
    while (isDigit(c)) c = inner();
  } else return -2;
  if (c === 0x2e) {
    c = inner();
    if (!isDigit(c)) return -2;
    while (isDigit(c)) c = inner();
  }
  if (c === 0x65 || c === 0x45) {
    c = inner();
    if (c === 0x2b || c === 0x2d) c = inner();
    if (!isDigit(c)) return -2;
    while (isDigit(c)) c = inner();
  }
  return c;
}

/** Whether the next characters spell `rest` (the literal's first was read). */
function readWord(rest) {
  for (let k = 0; k < rest.length; k++) if (inner() !== rest.charCodeAt(k)) return false;
  return true;
}

/** Which of the top-level keys the bytes [from, to) spell, without escapes: 1 id, 2 parentId, 3 type, 0 another. */
function keyKind(from, to) {
  const n = to - from;
  if (n === 2 && B[from] === KEY_ID[0] && B[from + 1] === KEY_ID[1]) return 1;
  if (n === 8 && B.compare(KEY_PARENT, 0, 8, from, to) === 0) return 2;
  if (n === 4 && B.compare(KEY_TYPE, 0, 4, from, to) === 0) return 3;
  return 0;
}

const escapedFlag = new Uint8Array(1);

/**
 * Validates the line of `b` that starts at `start`, within the region [start, end) (a region holds
 * one line or more: the line ends at its first line break, or at `end`). Writes into `out`
 * (`FACTS` slots): the status (BLANK, OBJECT_LINE, OTHER_VALUE, MALFORMED), the offset where the
 * line ends (its line break's backslash, or `end`), and the [start, end) offsets of the top-level
 * "id", "parentId" and "type" string values without escapes (-1 when absent, not a string or
 * escaped; `PARENT_NULL` for a null parentId; the last of two keys wins, as with JSON.parse). The
 * nesting is kept on an explicit stack.
 */
export function scanEscapedLine(b, start, end, out) {
  B = b;
  P = start;
  E = end;
  out.fill(-1, 2);
  const status = scanValue(out);
  if (status === MALFORMED) skipToLineEnd();
  // Only an object has top-level keys to speak of.
  if (status !== OBJECT_LINE) out.fill(-1, 2);
  out[0] = status;
  out[1] = P;
  return out;
}

function scanValue(out) {
  const stack = [];
  let key = 0;
  let c = innerAfterSpace();
  if (c === END) return BLANK;
  // No JSON value starts above ASCII or with \v or \f, where `trim()` may still leave nothing.
  if (c >= 0x80 || c === 0x0b || c === 0x0c) return onlyTrimmed(c) ? BLANK : MALFORMED;
  const isObject = c === 0x7b;
  // Reads a key and its colon once its quote `c` was read; returns the value's first character.
  const readKey = (q) => {
    if (q !== QUOTE) return -2;
    const from = P;
    escapedFlag[0] = 0;
    if (!skipString(escapedFlag)) return -2;
    key = stack.length === 1 && escapedFlag[0] === 0 ? keyKind(from, P - 2) : 0;
    // A top-level key written with an escape may spell any of the three, and a later key wins:
    // what was found before it is forgotten, so that the line's own parse decides.
    if (stack.length === 1 && escapedFlag[0] !== 0) out.fill(-1, 2);
    if (innerAfterSpace() !== 0x3a) return -2;
    return innerAfterSpace();
  };
  for (;;) {
    // A value starts with `c`.
    if (c === 0x7b || c === 0x5b) {
      if (key !== 0 && stack.length === 1) {
        out[2 * key] = -1;
        out[2 * key + 1] = -1;
      }
      const close = c === 0x7b ? 0x7d : 0x5d;
      const next = innerAfterSpace();
      if (next === close) c = inner();
      else {
        stack.push(c === 0x7b ? OBJECT : ARRAY);
        c = c === 0x7b ? readKey(next) : next;
        if (c < 0) return MALFORMED;
        continue;
      }
    } else if (c === QUOTE) {
      const from = P;
      escapedFlag[0] = 0;
      if (!skipString(escapedFlag)) return MALFORMED;
      if (key !== 0 && stack.length === 1) {
        const at = 2 * key;
        out[at] = escapedFlag[0] === 0 ? from : -1;
        out[at + 1] = escapedFlag[0] === 0 ? P - 2 : -1;
      }
      c = inner();
    } else {
      if (key !== 0 && stack.length === 1) {
        out[2 * key] = -1;
        out[2 * key + 1] = -1;
      }
      if (c === 0x2d || isDigit(c)) c = readNumber(c);
      else if (c === 0x74) c = readWord("rue") ? inner() : -2;
      else if (c === 0x66) c = readWord("alse") ? inner() : -2;
      else if (c === 0x6e) {
        if (!readWord("ull")) return MALFORMED;
        if (key === 2 && stack.length === 1) out[4] = PARENT_NULL;
        c = inner();
      } else return MALFORMED;
      if (c === -2) return MALFORMED;
    }
    key = 0;
    // After a value (`c` is the character after it): close what ends here, then a comma.
    for (;;) {
      while (isSpace(c)) c = inner();
      if (stack.length === 0) return c === END ? (isObject ? OBJECT_LINE : OTHER_VALUE) : MALFORMED;
      const top = stack[stack.length - 1];
      if (c === 0x2c) {
        c = innerAfterSpace();
        if (top === OBJECT) c = readKey(c);
        if (c < 0) return MALFORMED;
        break;
      }
      if (c !== (top === OBJECT ? 0x7d : 0x5d)) return MALFORMED;
      stack.pop();
      c = inner();
    }
  }
}

/** Moves `P` to the line's end: its line break (`\n` or `\u000a`), or the region's end. */
function skipToLineEnd() {
  for (;;) {
    const j = B.indexOf(BACKSLASH, P);
    if (j < 0 || j + 1 >= E) {
      P = E;
      return;
    }
    const e = B[j + 1];
    if (e === 0x6e || (e === 0x75 && hex4(j + 2) === LINE_FEED)) {
      P = j;
      return;
    }
    P = j + (e === 0x75 ? 6 : 2);
  }
}

/** Where the line after a line ending at `at` starts: past its `\n` or `\u000a`. */
function afterLineBreak(b, at) {
  return at + (b[at + 1] === 0x75 ? 6 : 2);
}

/**
 * The scan of a message's `text` string while its bytes arrive into one buffer: `feed(received)`
 * scans every line that is complete in the bytes received so far, `finish(textEnd)` the rest. A
 * line is known complete at the next `}\n` in the message (a `}` cannot end an escape, so the
 * backslash after it starts one: the session's line break after a `}`, as nearly every session
 * line ends); a region up to it is scanned line by line, so lines that end otherwise are found in it.
 * Each line's facts are appended to `facts` (an array of numbers, `FACTS` per line, the line's
 * start first instead of its status, which is kept in `statuses`).
 */
export class EscapedTextScan {
  constructor(buffer, textStart) {
    this.buffer = buffer;
    this.lineStart = textStart;
    this.searchFrom = textStart;
    this.facts = [];
    this.out = new Int32Array(FACTS);
  }

  feed(received) {
    // The buffer past `received` is not written yet: no search may read it.
    const view = this.buffer.subarray(0, received);
    for (;;) {
      const k = view.indexOf(BRACE_NEWLINE, this.searchFrom);
      if (k < 0) {
        this.searchFrom = Math.max(this.lineStart, received - 2);
        return;
      }
      this.scanRegion(k + 1);
      this.searchFrom = this.lineStart;
    }
  }

  finish(textEnd) {
    if (this.lineStart <= textEnd) this.scanRegion(textEnd, true);
  }

  /** Scans the lines from `lineStart` to the line break at `end` (or to the text's end, `last`). */
  scanRegion(end, last = false) {
    const b = this.buffer;
    // The region's own view, so that no search in a line runs past it.
    const view = b.subarray(0, end);
    for (;;) {
      const out = scanEscapedLine(view, this.lineStart, end, this.out);
      this.facts.push(this.lineStart, out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]);
      if (out[1] >= end) {
        this.lineStart = last ? end + 1 : afterLineBreak(b, end);
        return;
      }
      this.lineStart = afterLineBreak(b, out[1]);
    }
  }
}

/** Per line in `EscapedTextScan.facts`: its start, then the `FACTS` slots of `scanEscapedLine`. */
export const STRIDE = FACTS + 1;

const BRACE_NEWLINE = Buffer.from("}\\n", "latin1");
