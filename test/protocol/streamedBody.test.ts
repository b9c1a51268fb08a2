/**
 * The streamed decoding of large messages (`server/src/lsp/streamedBody.ts`, issue 12) against the
 * plain one: for seeded random messages (every way JSON can escape a character, line endings of
 * every kind, astral and lone surrogates, a byte order mark, invalid UTF-8, text anywhere in the
 * message) cut into random chunks, the message equals `JSON.parse` of the whole body, and a
 * `didOpen`'s lines equal `splitLines` of its text; for broken bodies, the error is `JSON.parse`'s.
 * The long-string threshold is lowered so that short texts exercise every cut (down to 1 byte,
 * where keys are long strings too and the message is decoded the plain way).
 */

import { describe, expect, it } from "vitest";
import { splitLines } from "../../server/src/core/line/split";
import { LONG_STRING_BYTES, StreamedBody } from "../../server/src/lsp/streamedBody";
import { seededRandom } from "../helpers/lspClient";

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Characters that stress the decoder: escapes, line breaks, wide and astral characters, lone surrogates. */
const ATOMS = [
  "a",
  "Z",
  " ",
  '"',
  "\\",
  "/",
  "\n",
  "\n",
  "\r\n",
  "\r",
  "\t",
  "\u0000",
  "\u001f",
  "é",
  "\u2019",
  "\u2028",
  "\ufeff",
  "😀",
  "\ud800",
  "\udc00",
  "n",
  "u",
  '{"type":"message","id":"a1","parentId":null}',
  "}",
  "}\\",
  '\\"',
  "\\n",
  "\\\\n",
];

function randomText(random: Random, size: number): string {
  let text = random() < 0.2 ? "\ufeff" : "";
  while (text.length < size) text += pick(random, ATOMS);
  return text;
}

/** A JSON string literal of `text` written with randomly chosen (valid) escapes, as any client might. */
function encodeString(text: string, random: Random): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const r = random();
    if (ch === "\n") out += r < 0.7 ? "\\n" : r < 0.85 ? "\\u000a" : "\\u000A";
    else if (ch === '"') out += r < 0.8 ? '\\"' : "\\u0022";
    else if (ch === "\\") out += r < 0.8 ? "\\\\" : "\\u005c";
    else if (ch === "/" && r < 0.5) out += "\\/";
    else if (ch === "\r") out += r < 0.8 ? "\\r" : "\\u000d";
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code > 0xffff && r < 0.3) {
      const hi = 0xd800 + ((code - 0x10000) >> 10);
      const lo = 0xdc00 + ((code - 0x10000) & 0x3ff);
      out += `\\u${hi.toString(16)}\\u${lo.toString(16).toUpperCase()}`;
    } else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
    else if (code > 0x7f && r < 0.2) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A message holding `text` in one of several shapes (a didOpen with its members in various orders, a didChange, an array). */
function randomMessage(random: Random, text: string): string {
  return randomShape(random, text).message;
}

/** The message, and the length in bytes of the document text's literal when the message is a didOpen. */
function randomShape(random: Random, text: string): { message: string; documentBytes?: number } {
  const t = encodeString(text, random);
  const shape = Math.floor(random() * 5);
  const message = shaped(random, shape, t, text);
  return shape < 2 ? { message, documentBytes: Buffer.byteLength(t) - 2 } : { message };
}

function shaped(random: Random, shape: number, t: string, text: string): string {
  const other = encodeString(randomText(random, 20), random);
  switch (shape) {
    case 0:
      return `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.jsonl","languageId":"jsonl","version":1,"text":${t}}}}`;
    case 1:
      return `{ "params" : { "textDocument" : { "text" : ${t} , "uri" : ${other}, "version" : 3 } }, "method" : "textDocument/didOpen", "jsonrpc" : "2.0" }`;
    case 2:
      return `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"text":${t}},{"text":${encodeString(text.slice(3), random)}}]}}`;
    case 3:
      return `[${other},${t},{"k":${t}},"${"\\n".repeat(3)}"]`;
    default:
      return t;
  }
}

/** Feeds `bytes` to a streamed body in random chunks (sometimes one byte at a time) and finishes it. */
function streamed(bytes: Buffer, random: Random, longString: number) {
  const body = new StreamedBody(bytes.length, longString);
  const tiny = random() < 0.2;
  for (let at = 0; at < bytes.length; ) {
    const size = tiny ? 1 + Math.floor(random() * 3) : 1 + Math.floor(random() * 4000);
    body.push(bytes.subarray(at, at + size));
    at += size;
  }
  return body.finish();
}

function plain(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString("utf8"));
}

/** The error `f` throws, as a string, or "ok". */
function outcome(f: () => unknown): string {
  try {
    f();
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe("StreamedBody", () => {
  it("decodes seeded random messages, cut into random chunks, exactly as JSON.parse of the whole body", () => {
    const random = seededRandom(12);
    let documents = 0;
    for (let n = 0; n < 400; n++) {
      const text = randomText(random, Math.floor(random() * 3000));
      const { message, documentBytes } = randomShape(random, text);
      const bytes = Buffer.from(message, "utf8");
      // From 16 bytes on, no key of these shapes is long (a long key makes the plain path decode the message).
      const longString = pick(random, [16, 64, 500, LONG_STRING_BYTES]);
      const sent = Buffer.from(bytes);
      const got = streamed(bytes, random, longString);
      // The scanner borrows two bytes around each line it decodes and puts them back.
      expect(bytes.equals(sent)).toBe(true);
      const want = plain(bytes) as { params?: { textDocument?: { text?: unknown } } };
      expect(got.message).toEqual(want);
      const wantText = want?.params?.textDocument?.text;
      // A didOpen whose text is long comes with its lines: the streamed path did not give up.
      expect(got.documentText !== undefined).toBe(documentBytes !== undefined && documentBytes >= longString);
      if (got.documentText) {
        documents++;
        expect(got.documentText.text).toBe(wantText);
        expect(got.documentText.split).toEqual(splitLines(got.documentText.text));
      }
    }
    expect(documents).toBeGreaterThan(50);
  });

  it("reads a session-sized didOpen written by JSON.stringify, its lines equal to splitLines", () => {
    const random = seededRandom(7);
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, message: { role: "user", content: randomText(random, 80) } }),
    );
    const text = `${lines.join(random() < 0.5 ? "\n" : "\r\n")}\n`;
    const bytes = Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "textDocument/didOpen",
        params: { textDocument: { uri: "file:///s.jsonl", languageId: "jsonl", version: 1, text } },
      }),
    );
    const got = streamed(bytes, random, LONG_STRING_BYTES);
    expect(got.message).toEqual(plain(bytes));
    expect(got.documentText?.text).toBe(text);
    expect(got.documentText?.split).toEqual(splitLines(text));
  });

  it('finds every line of a large didOpen whatever its lines end with, not only a "}"', () => {
    const random = seededRandom(9);
    // 1.5 MB of lines, most of them in chunks where no line ends with "}", which the scanner
    // searches for every escaped line break, and chunks where some lines end with "}" and others not.
    const lines = Array.from({ length: 9000 }, (_, i) =>
      JSON.stringify({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, message: { role: "user", content: randomText(random, 60) } }),
    );
    for (const ending of ["\r\n", " \n", "\n\n", "}\\n"]) {
      // The first 8,000 lines (1.3 MB) end otherwise, then the "}" line breaks come back.
      const text = lines.map((line, i) => (i < 8000 ? line + ending : `${line}\n`)).join("");
      const bytes = Buffer.from(
        JSON.stringify({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri: "file:///s.jsonl", version: 1, text } } }),
      );
      const got = streamed(bytes, random, LONG_STRING_BYTES);
      expect(got.documentText?.text).toBe(text);
      expect(got.documentText?.split).toEqual(splitLines(text));
    }
  });

  it("reads a line break cut between any two bytes of the message", () => {
    // Lines that end with "}", with "}" inside a string, with "\r", a blank line, an escaped
    // newline right after "}": each byte of the message in turn is where the second chunk starts.
    const text = '{"a":"}"}\n{"b":"x}\\n"}\r\n\n{"c":1}\n}\n{"d":"\u2019"}';
    const bytes = Buffer.from(JSON.stringify({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri: "file:///s.jsonl", text } } }));
    const start = bytes.indexOf('"text":"') + 8;
    for (let cut = start - 2; cut <= bytes.length; cut++) {
      for (const second of [cut, cut + 1]) {
        const body = new StreamedBody(bytes.length, 16);
        const cuts: [number, number][] = [
          [0, cut],
          [cut, second],
          [second, bytes.length],
        ];
        for (const [from, to] of cuts) if (to > from) body.push(bytes.subarray(from, to));
        const got = body.finish();
        expect(got.documentText?.text).toBe(text);
        expect(got.documentText?.split).toEqual(splitLines(text));
      }
    }
  });

  it('decodes each stretch a bounded number of times when many long strings end before a distant "}" line break', () => {
    // In one chunk, every long string holds an escaped line break and ends long before the only
    // "}" line break of the body; a stretch that failed to decode is not tried again by each string.
    const long = `"${"x".repeat(20_000)}\\ny"`;
    const bytes = Buffer.from(`{"jsonrpc":"2.0","method":"m","params":{"a":[${Array(60).fill(long).join(",")},"}\\n"]}}`);
    const parse = JSON.parse;
    let parsedChars = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      parsedChars += text.length;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let got: unknown;
    try {
      const body = new StreamedBody(bytes.length, LONG_STRING_BYTES / 8, () => undefined);
      body.push(bytes);
      got = body.finish().message;
    } finally {
      JSON.parse = parse;
    }
    expect(got).toEqual(plain(bytes));
    expect(parsedChars).toBeLessThan(4 * bytes.length);
  });

  it("keeps invalid UTF-8 as the plain decoding does (replacement characters)", () => {
    const random = seededRandom(3);
    for (let n = 0; n < 200; n++) {
      const text = randomText(random, 200 + Math.floor(random() * 400));
      const bytes = Buffer.from(randomMessage(random, text), "utf8");
      // Invalid bytes (a lone continuation byte, a cut-off lead byte, an overlong form) somewhere.
      const at = Math.floor(random() * bytes.length);
      const bad = pick(random, [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xff], [0xed, 0xa0, 0x80]]);
      const broken = Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
      const want = outcome(() => plain(broken));
      expect(outcome(() => streamed(broken, random, 16))).toBe(want);
      if (want === "ok") expect(streamed(broken, random, 16).message).toEqual(plain(broken));
    }
  });

  it("fails on a broken body with JSON.parse's own error, and reads every body JSON.parse reads", () => {
    const random = seededRandom(5);
    const damage = ["\u0001", "\n", '"', "\\", "\\x", "\\u12", "\\u12g4", "}", "]", ",", ":", "", "\\n", "\\u000a"];
    let failures = 0;
    for (let n = 0; n < 600; n++) {
      const text = randomText(random, Math.floor(random() * 800));
      const good = randomMessage(random, text);
      const at = Math.floor(random() * good.length);
      const cut = random() < 0.3 ? 1 : 0;
      const bad = Buffer.from(good.slice(0, at) + pick(random, damage) + good.slice(at + cut), "utf8");
      const want = outcome(() => plain(bad));
      if (want !== "ok") failures++;
      expect(outcome(() => streamed(bad, random, pick(random, [1, 16, 256])))).toBe(want);
      if (want === "ok") expect(streamed(bad, random, 16).message).toEqual(plain(bad));
    }
    expect(failures).toBeGreaterThan(100);
  });

  it("cannot be fooled by a client string that looks like a placeholder", () => {
    const text = "x\n".repeat(100);
    const message = JSON.stringify({ a: "\u0000pi-session-lsp:00000000-0000-0000-0000-000000000000:0", text });
    const bytes = Buffer.from(message);
    expect(streamed(bytes, seededRandom(1), 8).message).toEqual(JSON.parse(message));
  });
});
