/**
 * The scan of a session's lines inside a `didOpen`'s escaped text (bench/escapedScan.mjs), which the
 * bytes-first floor of the open stands on, does the work it claims: each line accepted and rejected
 * as JSON.parse of the decoded line does, its top-level "id", "parentId" and "type" found, and its
 * end found, whatever escapes the client wrote and however the message arrives in chunks.
 */

import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the benchmark, without types.
import { BLANK, EscapedTextScan, FACTS, MALFORMED, OBJECT_LINE, OTHER_VALUE, PARENT_NULL, STRIDE, scanEscapedLine } from "../../bench/escapedScan.mjs";
import { INVALID_LINES, mangledLines, seededRandom, VALID_LINES } from "./jsonLines";

const VALID = [...VALID_LINES, '{"type":"message","id":"é1","text":"😀 \\ud83d"}', '{"a":"x"}\r'];
const INVALID = [...INVALID_LINES, '{"a":"\u0001"}', "{é:1}", '{"a":1}\u000b'];

/** How a client may write the session's text in its message: as JSON.stringify does, with `\/` (Neovim), or every character as `\u`. */
const STYLES: Record<string, (text: string) => string> = {
  stringify: (text) => JSON.stringify(text),
  slashes: (text) => JSON.stringify(text).replaceAll("/", "\\/"),
  unicode: (text) =>
    `"${[...text]
      .map((ch) =>
        ch
          .split("")
          .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`)
          .join(""),
      )
      .join("")}"`,
  mixed: (text) =>
    `"${[...text]
      .map((ch, at) => (at % 3 === 0 && /[a-z{}:,"\\]/.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}` : JSON.stringify(ch).slice(1, -1)))
      .join("")}"`,
};

interface Scanned {
  status: number;
  id?: string;
  parentId?: string | null;
  type?: string;
}

const slice = (bytes: Buffer, out: Int32Array, k: number) => ((out[k] ?? -1) >= 0 ? bytes.subarray(out[k], out[k + 1]).toString() : undefined);

/** One line, written in a message's string by `style`, scanned. */
function scan(line: string, style = "stringify"): Scanned {
  const bytes = Buffer.from((STYLES[style] ?? JSON.stringify)(line));
  const out = scanEscapedLine(bytes, 1, bytes.length - 1, new Int32Array(FACTS));
  expect(out[1], "the line ends at the string's end").toBe(bytes.length - 1);
  return { status: out[0], id: slice(bytes, out, 2), parentId: out[4] === PARENT_NULL ? null : slice(bytes, out, 4), type: slice(bytes, out, 6) };
}

/** What JSON.parse says of the line: its status, and the id, parentId and type it would find unescaped. */
function expected(line: string): Scanned {
  if (!line.trim()) return { status: BLANK };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { status: MALFORMED };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { status: OTHER_VALUE };
  const v = value as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === "string" ? x : undefined);
  return { status: OBJECT_LINE, id: str(v.id), parentId: v.parentId === null ? null : str(v.parentId), type: str(v.type) };
}

/** The scan agrees with JSON.parse: the same status, and every value it found is the parsed one (an escaped value may be left unfound). */
function agree(line: string, style: string): void {
  const got = scan(line, style);
  const want = expected(line);
  expect(got.status, `${style}: ${line}`).toBe(want.status);
  for (const key of ["id", "parentId", "type"] as const) if (got[key] !== undefined) expect(got[key], `${style} ${key}: ${line}`).toBe(want[key]);
}

describe("bench/escapedScan.mjs", () => {
  it("accepts and rejects lines as JSON.parse of the decoded line does, in every client's escaping", () => {
    for (const style of Object.keys(STYLES)) for (const line of [...VALID, ...INVALID, "", "   ", "\r"]) agree(line, style);
  });

  it("agrees with JSON.parse on lines mangled at random", () => {
    const base = '{"type":"message","id":"ab12","parentId":"cd34","message":{"content":[{"text":"hi \\"x\\" \\u00e9 /é"}],"n":-1.5e3,"t":true,"z":null}}';
    const alphabet = '{}[]",:0123456789-+.eE\\/ utfnalé\t\u0001';
    for (const [k, line] of mangledLines(base, alphabet, 4000).entries()) agree(line, Object.keys(STYLES)[k % 4] as string);
  });

  it("finds the top-level id, parentId and type only, the last of two keys winning", () => {
    expect(scan('{"id":"x","parentId":"y","type":"message"}')).toEqual({ status: OBJECT_LINE, id: "x", parentId: "y", type: "message" });
    expect(scan('{"b":{"id":"inner"},"id":"outer"}')).toMatchObject({ id: "outer", parentId: undefined });
    expect(scan('{"id":{"x":"y"},"parentId":null}')).toMatchObject({ id: undefined, parentId: null });
    expect(scan('{"id":"a","id":5,"parentId":null,"parentId":"p"}')).toMatchObject({ id: undefined, parentId: "p" });
    expect(scan('{"parentId":"p","parentId":null}')).toMatchObject({ parentId: null });
    expect(scan('[{"id":"x"}]')).toEqual({ status: OTHER_VALUE, id: undefined, parentId: undefined, type: undefined });
    // An escaped value is left to a decoder; an unescaped one with UTF-8 is found.
    expect(scan('{"id":"a\\"b","type":"é"}')).toMatchObject({ id: undefined, type: "é" });
  });

  it("calls a line blank as Pi does (`trim()` leaves nothing), JavaScript's whitespace beyond JSON's included", () => {
    const blank = ["\f", "\u000b", " \u00a0 ", "\ufeff", "\u2028\u2029", "\u1680\u2000\u200a\u202f\u205f\u3000", "\t\f\r"];
    // Near misses: characters `trim()` keeps, alone or after a blank start.
    const kept = ["\u0085", "\u200b", "\u00a0x", "\f{}", "\ufeff{}", "\u3000\u0001"];
    for (const style of Object.keys(STYLES)) for (const line of [...blank, ...kept]) agree(line, style);
    expect(scan("\u00a0\f").status).toBe(BLANK);
  });

  it("finds no stale value when a later top-level key is written with an escape, the session's or the message's", () => {
    for (const line of ['{"id":"x","\\u0069d":"y"}', '{"parentId":"p","\\u0070arentId":null}', '{"id":"x","i\\u0064":5}', '{"type":"a","typ\\u0065":"b"}'])
      for (const style of Object.keys(STYLES)) agree(line, style);
    // The second "id" written with the message's escape for its "i": the decoded line is {"id":"x","id":"y"}.
    const bytes = Buffer.from('"{\\"id\\":\\"x\\",\\"\\u0069d\\":\\"y\\"}"');
    const out = scanEscapedLine(bytes, 1, bytes.length - 1, new Int32Array(FACTS));
    expect(out[0]).toBe(OBJECT_LINE);
    expect(slice(bytes, out, 2), "the id is y or left unfound").toBeUndefined();
  });

  it("reads nothing past the end of its region, even where the buffer goes on", () => {
    // The region holds `"x` and the cut-off start of an escape; the buffer's next byte would close the string.
    const bytes = Buffer.from('\\"x\\"');
    const out = scanEscapedLine(bytes, 0, 4, new Int32Array(FACTS));
    expect(out[0]).toBe(MALFORMED);
    expect(out[1]).toBe(4);
  });

  it("cuts a text into Pi's lines while it arrives in chunks of any size, in every escaping", () => {
    const next = seededRandom(11);
    const lines = [
      '{"type":"session","id":"h"}',
      '{"type":"message","id":"a","parentId":null,"message":{"content":"x\\ny \\"q\\" {}"}}',
      "",
      "not json {",
      '{"id":"b","parentId":"a"}\r',
      '{"id":"c","parentId":"b","n":[1,{"k":"}"}]}',
      "[1]",
      '{"id":"d","parentId":"c","text":"a\\\\"}',
      '{"id":"e"',
      '{"id":"f","parentId":"e"}',
      "",
    ];
    for (const style of Object.keys(STYLES)) {
      for (let round = 0; round < 25; round++) {
        const text = lines.filter(() => next(4) > 0).join(next(2) ? "\n" : "\r\n");
        const head = '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///s.jsonl","version":1,"text":';
        const message = Buffer.from(`${head}${(STYLES[style] as (t: string) => string)(text)}}}}`);
        const buffer = Buffer.alloc(message.length, 0x7d);
        const textStart = Buffer.byteLength(head) + 1;
        const scanner = new EscapedTextScan(buffer, textStart);
        for (let at = 0; at < message.length; ) {
          const n = 1 + next(40);
          message.copy(buffer, at, at, Math.min(message.length, at + n));
          at = Math.min(message.length, at + n);
          scanner.feed(at);
        }
        scanner.finish(message.length - 4);
        const facts: number[] = scanner.facts;
        const got = [];
        for (let k = 0; k < facts.length; k += STRIDE) {
          const out = Int32Array.from(facts.slice(k + 1, k + STRIDE));
          got.push({ status: out[0], id: slice(message, out, 2), parentId: out[4] === PARENT_NULL ? null : slice(message, out, 4) });
        }
        const want = text.split("\n").map((line) => {
          const e = expected(line);
          return { status: e.status, id: e.id, parentId: e.parentId };
        });
        // Escaped ids may be left unfound; the statuses and every found id must agree.
        expect(
          got.map((g) => g.status),
          `${style}: ${JSON.stringify(text)}`,
        ).toEqual(want.map((w) => w.status));
        got.forEach((g, k) => {
          if (g.id !== undefined) expect(g.id).toBe(want[k]?.id);
          if (g.parentId !== undefined) expect(g.parentId).toBe(want[k]?.parentId);
        });
        if (style === "stringify") expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
      }
    }
  });
});
