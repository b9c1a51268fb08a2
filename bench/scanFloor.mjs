#!/usr/bin/env node
// bench/scanFloor.mjs: the byte-scan floor of issue 32, what the least a reader of a session must
// do costs: read the file, split it on "\n" as Pi does, validate each line as JSON with a byte scan
// (no string is decoded and nothing is JSON.parsed), and find each line's top-level "id" and
// "parentId" string values (their byte offsets). The benchmark reports the server's open and
// `check` against it (bench/run.mjs). It is a floor, so it is kept simple and honest: it validates
// the whole JSON grammar (strings with their escapes and control characters, numbers, literals,
// nesting), as JSON.parse of the decoded line would, except that it does not check that the bytes
// are UTF-8 (decoding replaces bad bytes, and JSON.parse never sees them either). An "id" written
// with escapes in its key is not found, which the generated sessions never have.
//
// Usage: node bench/scanFloor.mjs FILE   prints {ms, readMs, lines, valid, ids, parents} as JSON
//        import { scanBuffer } from "./scanFloor.mjs"   (test/bench/scanFloor.test.ts)

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OBJECT = 1;
const ARRAY = 2;
const KEY_ID = [0x69, 0x64];
const KEY_PARENT = [...Buffer.from("parentId")];
const TRUE = [...Buffer.from("true")];
const FALSE = [...Buffer.from("false")];
const NULL = [...Buffer.from("null")];

/** Whether `c` is JSON whitespace other than "\n", which ends the line before the scan sees it. */
const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0d;
const isDigit = (c) => c >= 0x30 && c <= 0x39;
const isHex = (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function skipSpace(b, i, end) {
  while (i < end && isSpace(b[i])) i++;
  return i;
}

/** The bytes that stop the run of plain bytes inside a string: the quote, the backslash, controls. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[QUOTE] = 1;
STRING_STOP[BACKSLASH] = 1;

/** The offset after the string whose opening quote is at `i - 1`, or -1 if it is not valid JSON. */
function scanString(b, i, end) {
  while (i < end) {
    while (i < end && STRING_STOP[b[i]] === 0) i++;
    if (i >= end) return -1;
    const c = b[i];
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = b[i + 1];
      if (e === 0x75) {
        if (i + 5 >= end || !isHex(b[i + 2]) || !isHex(b[i + 3]) || !isHex(b[i + 4]) || !isHex(b[i + 5])) return -1;
        i += 6;
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
      else return -1;
    } else return -1;
  }
  return -1;
}

/** The offset after the number at `i`, or -1 (JSON's grammar: -? int frac? exp?). */
function scanNumber(b, i, end) {
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else if (i < end && b[i] >= 0x31 && b[i] <= 0x39) while (i < end && isDigit(b[i])) i++;
  else return -1;
  if (b[i] === 0x2e) {
    i++;
    if (!(i < end && isDigit(b[i]))) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    if (!(i < end && isDigit(b[i]))) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  return i;
}

/** Whether the bytes from `i` spell `word` (within `end`). */
function spells(b, i, end, word) {
  if (i + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}

/** 1 for the key "id", 2 for "parentId", 0 otherwise, from the key's bytes [from, to). */
function keyKind(b, from, to) {
  if (to - from === 2 && spells(b, from, to, KEY_ID)) return 1;
  if (to - from === 8 && spells(b, from, to, KEY_PARENT)) return 2;
  return 0;
}

/**
 * Validates the line b[start, end) as one JSON value and, when it is an object, writes the byte
 * offsets of its top-level "id" and "parentId" string values into `found` (-1 when absent; the last
 * of two wins, as with JSON.parse). The nesting is kept on an explicit stack, so no line can
 * exhaust the call stack. Returns whether the line is valid JSON.
 */
export function scanLine(b, start, end, found) {
  found.fill(-1);
  const stack = [];
  let key = 0;
  let i = skipSpace(b, start, end);
  // Reads an object's key and its colon at `i`; leaves `i` at the value, or returns false.
  const readKey = () => {
    if (b[i] !== QUOTE) return false;
    const from = i + 1;
    i = scanString(b, from, end);
    if (i < 0) return false;
    key = stack.length === 1 ? keyKind(b, from, i - 1) : 0;
    i = skipSpace(b, i, end);
    if (b[i] !== COLON) return false;
    i = skipSpace(b, i + 1, end);
    return true;
  };
  for (;;) {
    // A value starts at `i`.
    if (i >= end) return false;
    const c = b[i];
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      i = skipSpace(b, i + 1, end);
      if (b[i] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) i++;
      else {
        stack.push(c === OPEN_OBJECT ? OBJECT : ARRAY);
        if (c === OPEN_OBJECT && !readKey()) return false;
        continue;
      }
    } else if (c === QUOTE) {
      const from = i + 1;
      i = scanString(b, from, end);
      if (i < 0) return false;
      if (key !== 0 && stack.length === 1) {
        found[2 * key - 2] = from;
        found[2 * key - 1] = i - 1;
      }
    } else if (c === 0x2d || isDigit(c)) {
      i = scanNumber(b, i, end);
      if (i < 0) return false;
    } else if (spells(b, i, end, TRUE)) i += 4;
    else if (spells(b, i, end, FALSE)) i += 5;
    else if (spells(b, i, end, NULL)) i += 4;
    else return false;
    key = 0;
    // After a value: close what ends here, then a comma before the next value (or the line's end).
    for (;;) {
      i = skipSpace(b, i, end);
      if (stack.length === 0) return i === end;
      const top = stack[stack.length - 1];
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
        if (top === OBJECT && !readKey()) return false;
        break;
      }
      if (b[i] !== (top === OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return false;
      stack.pop();
      i++;
    }
  }
}

/**
 * Scans every line of `b` (split on "\n" only, as Pi splits): how many lines, how many are valid
 * JSON (blank lines are neither valid nor counted as entries), and how many have an "id" and a
 * "parentId" string, with their offsets kept in typed arrays (what an index would start from).
 */
export function scanBuffer(b) {
  const found = new Int32Array(4);
  const idStarts = [];
  const parentStarts = [];
  let lines = 0;
  let valid = 0;
  let blank = 0;
  for (let start = 0; start <= b.length; ) {
    let end = b.indexOf(10, start);
    if (end < 0) end = b.length;
    if (end > start || start < b.length) {
      lines++;
      if (skipSpace(b, start, end) === end) blank++;
      else if (scanLine(b, start, end, found)) {
        valid++;
        if (found[0] >= 0) idStarts.push(found[0]);
        if (found[2] >= 0) parentStarts.push(found[2]);
      }
    }
    start = end + 1;
  }
  return { lines, valid, blank, ids: Int32Array.from(idStarts), parents: Int32Array.from(parentStarts) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const bytes = readFileSync(process.argv[2]);
  const readMs = performance.now() - t0;
  const r = scanBuffer(bytes);
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, readMs, bytes: bytes.length, lines: r.lines, valid: r.valid, ids: r.ids.length, parents: r.parents.length }));
}
