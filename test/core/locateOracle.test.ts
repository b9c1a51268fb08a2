/**
 * A differential oracle for `core/line/locate.ts`: `JSON.parse` is the reference. For every line and every
 * path chosen among the line's real paths,
 *
 * - `locate` finds it, its value span is exactly one JSON token (no surrounding whitespace) that
 *   `JSON.parse`s back to the value `JSON.parse` gives at that path, and its key span parses back to
 *   the key (after escapes: `"\u0069d"` is the key `id`);
 * - `locateAt` at the value's start (and the key's) returns that very path, and anywhere inside the
 *   value a path that starts with it;
 * - a path that does not exist (a missing key, an index past the end, a step into a scalar) is not
 *   found, and no input, however truncated, makes either function throw.
 *
 * The lines are the whole parity corpus, a small session from the benchmark's generator, and
 * generated JSON written the way no `JSON.stringify` writes it: random escapes (`\"`, `\\`, `\/`,
 * `\uXXXX` in either case, surrogate pairs as escapes), strings that end in backslashes (`"C:\\"`),
 * astral characters, lone surrogates, brackets and quotes inside strings, repeated keys (the last
 * wins, as in `JSON.parse`), whitespace between every token, and nesting hundreds deep.
 * `PI_LSP_LOCATE_ROUNDS` and `PI_LSP_LOCATE_SEED` widen or vary the generated part by hand.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type JsonPath, locate, locateAt, type Span } from "../../server/src/core/line/locate";
import { seededRandom } from "../helpers/lspClient";

const ROUNDS = Number(process.env.PI_LSP_LOCATE_ROUNDS ?? 1500);
const SEED = Number(process.env.PI_LSP_LOCATE_SEED ?? 20260302);
/** Paths checked per line: the line's real paths are sampled, not all walked, on large lines. */
const PATHS_PER_LINE = 40;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// ---- The reference: what JSON.parse says is at a path -------------------------------------------

function valueAt(root: unknown, path: JsonPath): unknown {
  let value = root;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

/** Every path of a parsed value (root included), at most `limit` of them, in document order. */
function pathsOf(root: unknown, limit: number): JsonPath[] {
  const paths: JsonPath[] = [];
  const stack: { value: unknown; path: JsonPath }[] = [{ value: root, path: [] }];
  while (stack.length > 0 && paths.length < limit) {
    const { value, path } = stack.pop()!;
    paths.push(path);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], path: [...path, keys[i]!] });
    }
  }
  return paths;
}

/** Up to `count` paths, chosen at random among all of the value's paths (the root always among them). */
function samplePaths(root: unknown, count: number, random: Random): JsonPath[] {
  const all = pathsOf(root, 20_000);
  if (all.length <= count) return all;
  const chosen: JsonPath[] = [[]];
  for (let k = 1; k < count; k++) chosen.push(all[Math.floor(random() * all.length)]!);
  return chosen;
}

const JSON_WS = /^[ \t\n\r]|[ \t\n\r]$/;

function inside(text: string, span: Span): boolean {
  return span.start >= 0 && span.start < span.end && span.end <= text.length;
}

// ---- The checks ---------------------------------------------------------------------------------

/**
 * What the checks found. They collect failures rather than call `expect` per path (tens of thousands
 * of paths), so the test stays fast and a failure lists every disagreement at once.
 */
interface Tally {
  lines: number;
  paths: number;
  keys: number;
  failures: string[];
}

const newTally = (): Tally => ({ lines: 0, paths: 0, keys: 0, failures: [] });

/** Values compared as `JSON.stringify` writes them: both sides come from `JSON.parse`, so key order agrees. */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Checks every sampled path of `text`, which must be valid JSON. */
function checkLine(text: string, random: Random, tally: Tally, where: string, count = PATHS_PER_LINE): void {
  const root = JSON.parse(text) as unknown;
  tally.lines++;
  const fail = (path: JsonPath, what: string) => {
    if (tally.failures.length < 20) tally.failures.push(`${where} at ${JSON.stringify(path)}: ${what}`);
  };
  for (const path of samplePaths(root, count, random)) {
    tally.paths++;
    const found = locate(text, path);
    if (!found) {
      fail(path, "not found");
      continue;
    }
    const { key, value } = found;
    if (!inside(text, value)) {
      fail(path, `value span ${JSON.stringify(value)} outside the text`);
      continue;
    }
    const valueText = text.slice(value.start, value.end);
    let parsed: unknown;
    try {
      parsed = JSON.parse(valueText);
    } catch {
      fail(path, `value span ${JSON.stringify(valueText.slice(0, 80))} is not JSON`);
      continue;
    }
    if (JSON_WS.test(valueText)) fail(path, `value span ${JSON.stringify(valueText.slice(0, 80))} has surrounding whitespace`);
    if (!same(parsed, valueAt(root, path))) fail(path, `value span ${JSON.stringify(valueText.slice(0, 80))} is not the value there`);

    const last = path[path.length - 1];
    if (typeof last === "string") {
      tally.keys++;
      const keyText = key && inside(text, key) ? text.slice(key.start, key.end) : "";
      let parsedKey: unknown;
      try {
        parsedKey = keyText.startsWith('"') && keyText.endsWith('"') ? JSON.parse(keyText) : undefined;
      } catch {
        parsedKey = undefined;
      }
      if (parsedKey !== last) fail(path, `key span ${JSON.stringify(key)} holds ${JSON.stringify(keyText)}`);
      else if (key!.end > value.start) fail(path, "key span after the value");
      const onKey = locateAt(text, key?.start ?? -1);
      if (!onKey || !same(onKey.path, path) || !onKey.onKey) fail(path, `locateAt on the key gives ${JSON.stringify(onKey?.path)}`);
    } else if (key) {
      fail(path, "a key span for an array element or the root");
    }

    const atStart = locateAt(text, value.start);
    if (!atStart || !same(atStart.path, path) || !same(atStart.value, value))
      fail(path, `locateAt at the value's start gives ${JSON.stringify(atStart?.path)}`);
    const offset = value.start + Math.floor(random() * (value.end - value.start + 1));
    const within = locateAt(text, offset);
    if (!within || !same(within.path.slice(0, path.length), path)) fail(path, `locateAt at ${offset} gives ${JSON.stringify(within?.path)}`);
  }
  checkMissing(text, root, random, tally, where);
}

/** Paths next to real ones that do not exist are not found. */
function checkMissing(text: string, root: unknown, random: Random, tally: Tally, where: string): void {
  for (const path of samplePaths(root, 8, random)) {
    const value = valueAt(root, path);
    const missing: JsonPath[] = [];
    if (Array.isArray(value)) missing.push([...path, value.length], [...path, "0"]);
    else if (value !== null && typeof value === "object") missing.push([...path, "\u0000no such key"], [...path, 0]);
    else missing.push([...path, 0], [...path, "id"]);
    for (const m of missing) if (locate(text, m) !== undefined) tally.failures.push(`${where}: ${JSON.stringify(m)} does not exist but was found`);
  }
}

/** No prefix of a line makes locate or locateAt throw, and whatever they return lies inside it. */
function checkTruncations(text: string, random: Random, tally: Tally, where: string): void {
  const root = JSON.parse(text) as unknown;
  const paths = samplePaths(root, 6, random);
  for (let k = 0; k < 6; k++) {
    const cut = text.slice(0, Math.floor(random() * text.length));
    for (const path of paths) {
      const found = locate(cut, path);
      if (found && found.value.end > cut.length) tally.failures.push(`${where} cut at ${cut.length}: ${JSON.stringify(path)} ends past the text`);
    }
    const at = locateAt(cut, Math.floor(random() * (cut.length + 1)));
    if (at && at.value.end > cut.length) tally.failures.push(`${where} cut at ${cut.length}: locateAt ends past the text`);
  }
}

// ---- Generated JSON, written as no serializer writes it -----------------------------------------

const PIECES = [
  "a",
  "id",
  "parentId",
  " ",
  '"',
  "\\",
  "\\\\",
  "C:\\",
  "/",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  '\\"',
  '":"',
  "\n",
  "\r",
  "\t",
  "\u0000",
  "\u001f",
  "é",
  "中文",
  "😀",
  "𝄞",
  "\ud83d",
  "\ude00",
  "\u2028",
  "\u2029",
  "\ufeff",
  "u0041",
  "\\u",
];

function randomString(random: Random): string {
  let s = "";
  const n = Math.floor(random() * 6);
  for (let i = 0; i < n; i++) s += pick(random, PIECES);
  // Windows paths end in a backslash; the closing quote then follows an escaped backslash.
  if (random() < 0.15) s += pick(random, ["\\", "\\\\", "C:\\"]);
  return s;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function hex4(code: number, random: Random): string {
  const h = code.toString(16).padStart(4, "0");
  return `\\u${random() < 0.5 ? h : h.toUpperCase()}`;
}

/** A JSON string literal for `s`, each character written literally or escaped at random. */
function writeString(s: string, random: Random): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    const mustEscape = ch === '"' || ch === "\\" || code < 0x20;
    const r = random();
    if (code > 0xffff) {
      // An astral character: literal, or as an escaped surrogate pair.
      out += r < 0.7 ? ch : hex4(ch.charCodeAt(0), random) + hex4(ch.charCodeAt(1), random);
    } else if (mustEscape) {
      out += r < 0.6 && SHORT_ESCAPES[ch] ? SHORT_ESCAPES[ch] : hex4(code, random);
    } else if (ch === "/" && r < 0.5) {
      out += "\\/";
    } else {
      out += r < 0.8 ? ch : hex4(code, random);
    }
  }
  return `${out}"`;
}

const NUMBERS = ["0", "-0", "7", "-12", "3.25", "1e3", "2.5E+2", "-4e-2", "1E400", "123456789012345678901234567890", "0.000001"];
const KEYS = ["id", "type", "parentId", "message", "content", "a", "", "__proto__", "ключ", "😀", 'q"uote', "back\\slash", "C:\\", "\u2028", "\ufeff"];

function ws(random: Random): string {
  return random() < 0.6 ? "" : pick(random, [" ", "  ", "\t", "\n", "\r\n", " \r "]);
}

/** Raw JSON text for a random value, nested at most `depth` deep. */
function writeValue(random: Random, depth: number): string {
  const r = random();
  if (depth <= 0 || r < 0.35) {
    const s = random();
    if (s < 0.55) return writeString(randomString(random), random);
    if (s < 0.8) return pick(random, NUMBERS);
    return pick(random, ["true", "false", "null"]);
  }
  const n = Math.floor(random() * 5);
  const items: string[] = [];
  if (r < 0.65) {
    for (let i = 0; i < n; i++) {
      // Keys repeat often, so the last-occurrence rule is exercised.
      const key = random() < 0.7 ? pick(random, KEYS) : randomString(random);
      items.push(`${ws(random)}${writeString(key, random)}${ws(random)}:${ws(random)}${writeValue(random, depth - 1)}${ws(random)}`);
    }
    return `{${items.join(",") || ws(random)}}`;
  }
  for (let i = 0; i < n; i++) items.push(`${ws(random)}${writeValue(random, depth - 1)}${ws(random)}`);
  return `[${items.join(",") || ws(random)}]`;
}

/** A value nested `depth` deep through alternating objects and arrays, with a sibling at each level. */
function writeDeep(random: Random, depth: number): string {
  let text = writeValue(random, 1);
  for (let d = 0; d < depth; d++) {
    const sibling = writeValue(random, 1);
    text = d % 2 === 0 ? `{${writeString(pick(random, KEYS), random)}:${sibling},${writeString("k", random)}:${text}}` : `[${sibling},${ws(random)}${text}]`;
  }
  return text;
}

// ---- The tests ----------------------------------------------------------------------------------

function corpusLines(): { where: string; text: string }[] {
  const dir = join(__dirname, "../parity/fixtures");
  const lines: { where: string; text: string }[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .forEach((raw, i) => {
        // The server parses line 0 without its byte order mark and drops a "\r" before "\n".
        const text = (i === 0 ? raw.replace(/^\ufeff/, "") : raw).replace(/\r$/, "");
        lines.push({ where: `${file}:${i + 1}`, text });
      });
  }
  return lines;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return text.trim().length > 0;
  } catch {
    return false;
  }
}

describe("locate agrees with JSON.parse", () => {
  it("on every line of the parity corpus", () => {
    const random = seededRandom(SEED);
    const tally = newTally();
    let malformed = 0;
    for (const { where, text } of corpusLines()) {
      if (parses(text)) {
        checkLine(text, random, tally, where);
        checkTruncations(text, random, tally, where);
      } else if (text.trim() !== "") {
        // Malformed lines: nothing is found, and nothing throws.
        malformed++;
        if (locate(text, ["id"]) !== undefined) tally.failures.push(`${where}: found an id in a malformed line`);
        locateAt(text, Math.floor(text.length / 2));
      }
    }
    expect(tally.failures).toEqual([]);
    expect(tally.lines).toBeGreaterThan(400);
    expect(tally.keys).toBeGreaterThan(5000);
    expect(malformed).toBeGreaterThan(0);
  });

  it("on a session from the benchmark's generator (long tool outputs, code, base64, usage)", async () => {
    // Loaded by URL so that the type checker does not need declarations for the script.
    const generator = pathToFileURL(join(__dirname, "../../bench/generate.mjs")).href;
    const { generateSession } = (await import(generator)) as { generateSession: (params: object) => string };
    const text = generateSession({ entries: 300, bigLines: 1, bigLineChars: 20_000 });
    const random = seededRandom(SEED + 1);
    const tally = newTally();
    for (const [i, line] of text.split("\n").entries()) if (line !== "") checkLine(line, random, tally, `generated:${i + 1}`);
    expect(tally.failures).toEqual([]);
    expect(tally.lines).toBeGreaterThan(300);
    expect(tally.paths).toBeGreaterThan(5000);
  });

  it("on generated JSON with escapes, backslashes, astral characters, repeated keys and whitespace", () => {
    const random = seededRandom(SEED + 2);
    const tally = newTally();
    let endsInBackslash = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const text = `${ws(random)}${writeValue(random, 4)}${ws(random)}`;
      if (/\\\\"/.test(text)) endsInBackslash++;
      const where = `round ${round} of seed ${SEED + 2}: ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)}`;
      checkLine(text, random, tally, where);
      if (round % 10 === 0) checkTruncations(text, random, tally, where);
    }
    expect(tally.failures).toEqual([]);
    // The generator really produced what the oracle is about.
    expect(endsInBackslash).toBeGreaterThan(ROUNDS / 10);
    expect(tally.keys).toBeGreaterThan(ROUNDS);
  });

  it("on values nested hundreds deep", () => {
    const random = seededRandom(SEED + 3);
    const tally = newTally();
    for (const depth of [50, 150, 400]) {
      const text = writeDeep(random, depth);
      // Locating is linear in the text per level, so a few paths suffice at these depths.
      checkLine(text, random, tally, `depth ${depth}`, 8);
      // The deepest path of all, whatever the sample picked.
      const root = JSON.parse(text) as unknown;
      const deepest = pathsOf(root, 100_000).reduce((a, b) => (b.length > a.length ? b : a));
      expect(deepest.length).toBeGreaterThanOrEqual(depth);
      const found = locate(text, deepest);
      expect(found).toBeDefined();
      expect(same(JSON.parse(text.slice(found!.value.start, found!.value.end)), valueAt(root, deepest))).toBe(true);
    }
    expect(tally.failures).toEqual([]);
  });

  it('finds a key after a "C:\\\\" value (an escaped backslash right before the closing quote)', () => {
    const text = '{"cwd":"C:\\\\","id":"a1","parentId":"x\\\\\\"y\\\\","timestamp":"t"}';
    expect(JSON.parse(text).cwd).toBe("C:\\");
    const found = locate(text, ["timestamp"]);
    expect(found && text.slice(found.value.start, found.value.end)).toBe('"t"');
    expect(found && text.slice(found.key!.start, found.key!.end)).toBe('"timestamp"');
    expect(locateAt(text, text.indexOf('"a1"'))?.path).toEqual(["id"]);
  });
});
