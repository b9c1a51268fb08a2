/**
 * The raw-byte scan of `context`'s shortcut against `JSON.parse`, its oracle: on well-formed,
 * hand-made and byte-mutated lines, a line starting with `{` is valid exactly when `JSON.parse`
 * accepts its decoded text, and the top-level `type`, `id`, `parentId` and `message` it reports
 * are those of the parsed object, or the line is reported unsure.
 */

import { describe, expect, it } from "vitest";
import { LineKind, type ScannedFacts, rawFacts } from "../../server/src/core/line/rawFacts";

const encoder = new TextEncoder();

function scan(text: string | Uint8Array): { kind: LineKind; facts: ScannedFacts } {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  const facts: ScannedFacts = { type: "x", id: "x", parentId: "x", hasMessage: true, oddId: true, oddParent: true };
  return { kind: rawFacts(bytes, 0, bytes.length, facts), facts };
}

/** What the scan must say of `bytes`, from `JSON.parse` of its text (undefined: either answer or unsure). */
function expectAgrees(bytes: Uint8Array): LineKind {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const { kind, facts } = scan(bytes);
  if (kind === LineKind.Unsure) return kind;
  if (text.trim() === "") {
    expect(kind).toBe(LineKind.Blank);
    return kind;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    expect(kind, text).toBe(LineKind.Invalid);
    return kind;
  }
  // The scan is unsure of every line not starting with "{"; a line that does and parses is an object.
  expect(kind, text).toBe(LineKind.Object);
  const o = value as Record<string, unknown>;
  expect(facts.type, text).toBe(typeof o.type === "string" ? o.type : undefined);
  expect(facts.id, text).toBe(o.id);
  expect(facts.parentId, text).toBe(o.parentId);
  expect(facts.hasMessage, text).toBe(o.message !== undefined && o.message !== null);
  return kind;
}

describe("rawFacts", () => {
  it("reads a line as Pi writes it", () => {
    const { kind, facts } = scan('{"type":"message","id":"a1","parentId":"b2","timestamp":"t","message":{"role":"user","content":"hi"}}');
    expect(kind).toBe(LineKind.Object);
    const { lastId, ...found } = facts;
    expect(found).toEqual({ type: "message", id: "a1", parentId: "b2", hasMessage: true, oddId: false, oddParent: false });
    // Where the id lies, for the next line's parentId.
    expect(lastId).toEqual({ start: 24, end: 26, value: "a1" });
  });

  const cases: [string, LineKind][] = [
    ["", LineKind.Blank],
    [" \t\v\f\r", LineKind.Blank],
    ["{}", LineKind.Object],
    [' { "id" : "a" , "parentId" : null } ', LineKind.Unsure],
    ['{ "id" : "a" , "parentId" : null }\t\r', LineKind.Object],
    ['{"id":"a","parentId":"p","id":"b"}', LineKind.Object],
    ['{"\\u0069d":"esc","type":"t\\u0079pe"}', LineKind.Object],
    ['{"id":"a\\"b\\\\","x":"\\/\\b\\f\\n\\r\\t\\u00e9"}', LineKind.Object],
    ['{"id":5}', LineKind.Unsure],
    ['{"id":5,"id":"s"}', LineKind.Object],
    ['{"id":null}', LineKind.Unsure],
    ['{"parentId":[1]}', LineKind.Unsure],
    ['{"parentId":null,"message":null}', LineKind.Object],
    ['{"message":{"a":[1,2,{"b":null}]},"type":5}', LineKind.Object],
    ['{"a":1,}', LineKind.Invalid],
    ['{"a":01}', LineKind.Invalid],
    ['{"a":1.}', LineKind.Invalid],
    ['{"a":.5}', LineKind.Invalid],
    ['{"a":-}', LineKind.Invalid],
    ['{"a":1e}', LineKind.Invalid],
    ['{"a":-0.5e+10}', LineKind.Object],
    ['{"a":tru}', LineKind.Invalid],
    ['{"a":"\\x"}', LineKind.Invalid],
    ['{"a":"\\u12g4"}', LineKind.Invalid],
    ['{"a":"tab\there"}', LineKind.Invalid],
    ['{"a":"nul\u0000"}', LineKind.Invalid],
    ['{"a":"del\u007f"}', LineKind.Object],
    ['{"a":1}}', LineKind.Invalid],
    ['{"a":1} x', LineKind.Invalid],
    ['{"a":1}\u00a0', LineKind.Invalid],
    ['{"a":[1 2]}', LineKind.Invalid],
    ['{"a":[1,]}', LineKind.Invalid],
    // Empty containers close on the path of a container closed after a value.
    ['{"a":[],"b":{},"c":[[],{}],"d":{"e":[]}}', LineKind.Object],
    ['{"a":[}', LineKind.Invalid],
    ['{"a":{]}', LineKind.Invalid],
    ['{"a":{"b":1,}}', LineKind.Invalid],
    ['{"a":[,]}', LineKind.Invalid],
    ['{"a":[] ,"b":{ } }', LineKind.Object],
    ['{"a" 1}', LineKind.Invalid],
    ["{'a':1}", LineKind.Invalid],
    ['{"a":1', LineKind.Invalid],
    ['{"a', LineKind.Invalid],
    ["[1]", LineKind.Unsure],
    ["null", LineKind.Unsure],
    ["\u00a0", LineKind.Unsure],
    ["\ufeff{}", LineKind.Unsure],
    [`{"a":${"[".repeat(999)}${"]".repeat(999)}}`, LineKind.Object],
    [`{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`, LineKind.Unsure],
  ];
  for (const [text, want] of cases) {
    it(`says ${LineKind[want]} of ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`, () => {
      expect(scan(text).kind).toBe(want);
      expectAgrees(encoder.encode(text));
    });
  }

  it("reuses the line before's id for a parentId with the same bytes, and decodes one with other bytes", () => {
    const facts: ScannedFacts = { type: undefined, id: undefined, parentId: undefined, hasMessage: false, oddId: false, oddParent: false };
    const bytes = encoder.encode('{"id":"aa","parentId":null}\n{"id":"bb","parentId":"aa"}\n{"id":"cc","parentId":"ab"}\n{"parentId":"bb"}');
    const seen: unknown[] = [];
    for (let start = 0; start < bytes.length; ) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      expect(rawFacts(bytes, start, end, facts)).toBe(LineKind.Object);
      seen.push([facts.id, facts.parentId]);
      start = end + 1;
    }
    expect(seen).toEqual([
      ["aa", null],
      ["bb", "aa"],
      ["cc", "ab"],
      [undefined, "bb"],
    ]);
  });

  it("reads ids and parents from a Buffer as from other bytes: ASCII, past ASCII, long, and not UTF-8", () => {
    const long = "l".repeat(64);
    const longer = "m".repeat(65);
    const lines = [
      '{"type":"session","id":"h"}',
      '{"id":"ab12","parentId":null}',
      '{"id":"é1","parentId":"ab12"}',
      `{"id":"${long}","parentId":"é1"}`,
      `{"id":"${longer}","parentId":"${long}"}`,
      `{"id":"x\u00e9","parentId":"${longer}"}`,
    ];
    // A byte that is not UTF-8 in an id, and a parent naming it: both U+FFFD, as the whole text decodes.
    const broken = Buffer.concat([
      Buffer.from('{"id":"b'),
      Buffer.from([0xff]),
      Buffer.from('c","parentId":"x\u00e9"}\n{"id":"d","parentId":"b'),
      Buffer.from([0xff]),
      Buffer.from('c"}'),
    ]);
    const bytes = Buffer.concat([Buffer.from(`${lines.join("\n")}\n`), broken]);
    const text = new TextDecoder().decode(bytes).split("\n");
    const facts: ScannedFacts = { type: undefined, id: undefined, parentId: undefined, hasMessage: false, oddId: false, oddParent: false };
    const seen: unknown[] = [];
    for (let start = 0, line = 0; start < bytes.length; line++) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      expect(rawFacts(bytes, start, end, facts)).toBe(LineKind.Object);
      const o = JSON.parse(text[line]!) as { id: string; parentId?: string | null };
      seen.push([facts.id, facts.parentId]);
      expect([facts.id, facts.parentId], text[line]).toEqual([o.id, o.parentId]);
      start = end + 1;
    }
    expect(seen.slice(2, 4)).toEqual([
      ["é1", "ab12"],
      [long, "é1"],
    ]);
    expect(seen.at(-1)).toEqual(["d", "b\ufffdc"]);
  });

  it("agrees with JSON.parse wherever a quote, a backslash or a control byte falls in a long string, at every alignment", () => {
    let checked = 0;
    for (const special of ["\u0001", "\u001f", "\t", '"', "\\", "\\n", "\\u00e9", "\\x", "\u007f", "é", " "]) {
      for (let length = 0; length < 40; length += 3) {
        for (let at = 0; at <= length; at++) {
          const text = `{"id":"${"x".repeat(at)}${special}${"y".repeat(length - at)}","parentId":null}`;
          const line = encoder.encode(text);
          for (let shift = 0; shift < 4; shift++) {
            // The line placed at each offset of a buffer, so that its bytes meet every word boundary.
            const buffer = new Uint8Array(line.length + shift + 8);
            buffer.set(line, shift);
            const facts: ScannedFacts = { type: undefined, id: undefined, parentId: undefined, hasMessage: false, oddId: false, oddParent: false };
            const kind = rawFacts(buffer, shift, shift + line.length, facts);
            let parsed: { id?: unknown } | undefined;
            try {
              parsed = JSON.parse(text) as { id?: unknown };
            } catch {
              parsed = undefined;
            }
            expect(kind, text).toBe(parsed ? LineKind.Object : LineKind.Invalid);
            if (parsed) expect(facts.id, text).toBe(parsed.id);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it("agrees with JSON.parse on hostile sessions and on every byte mutation of their lines", async () => {
    const { makeGen, seeded } = await import("../helpers/hostile.mjs");
    const random = seeded(12);
    const gen = makeGen(random);
    const kinds = new Map<LineKind, number>();
    const bytesOf = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0x09, 0x0d, 0x00, 0x30, 0x2d, 0x2e, 0x65, 0x75, 0x6e, 0xc3, 0xff];
    for (let s = 0; s < 150; s++) {
      for (const line of gen.session({ oddIds: s % 3 === 0 }).split("\n")) {
        const bytes = encoder.encode(line);
        for (let m = 0; m < 12; m++) {
          const mutated = bytes.slice();
          const at = Math.floor(random() * mutated.length);
          if (m % 3 === 0) mutated[at] = bytesOf[Math.floor(random() * bytesOf.length)]!;
          const cut = m % 3 === 1 ? mutated.subarray(0, at) : mutated;
          const kind = expectAgrees(m === 0 ? bytes : cut);
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        }
      }
    }
    // Each answer was given many times, so the agreement above covers all of them.
    for (const kind of [LineKind.Blank, LineKind.Invalid, LineKind.Object, LineKind.Unsure]) expect(kinds.get(kind) ?? 0).toBeGreaterThan(100);
  });
});
