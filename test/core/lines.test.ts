// Splitting text into Pi's lines, and giving the lines of a big text storage of their own: the
// copies must be the same strings, character for character, whatever the characters are.
import { describe, expect, it } from "vitest";
import { detachLines, LineEnds, splitLines } from "../../server/src/core/line/split";

describe("LineEnds", () => {
  it("gives every line's ending back as the array of them would, through splices of every size", () => {
    const endings = ["\n", "\r\n", ""];
    let x = 7;
    const next = (n: number) => {
      x = (x * 1103515245 + 12345) >>> 0;
      return x % n;
    };
    const eols = Array.from({ length: 200 }, () => endings[next(2)]!);
    eols.push("");
    const ends = LineEnds.of(eols);
    for (let round = 0; round < 300; round++) {
      const start = next(eols.length);
      const count = next(Math.min(4, eols.length - start) + 1);
      const items = Array.from({ length: round % 3 === 0 ? count : next(5) }, () => endings[next(3)]!);
      const before = ends.clone();
      const arrayBefore = eols.slice();
      eols.splice(start, count, ...items);
      ends.splice(start, count, items);
      expect(ends.length).toBe(eols.length);
      for (let i = 0; i < eols.length; i++) expect(ends.at(i)).toBe(eols[i]);
      expect(ends.at(eols.length)).toBeUndefined();
      // A clone taken before is not changed by the splice.
      expect(before.length).toBe(arrayBefore.length);
      for (let i = 0; i < arrayBefore.length; i++) expect(before.at(i)).toBe(arrayBefore[i]);
    }
    expect(() => LineEnds.of(["\r"])).toThrow();
  });
});

describe("splitLines", () => {
  it("splits on \\n only, keeping \\r\\n apart and a lone \\r inside its line", () => {
    expect(splitLines('{"a":1}\r\n{"b":"x\ry"}\n\n{"c"')).toEqual({
      lines: ['{"a":1}', '{"b":"x\ry"}', "", '{"c"'],
      eols: ["\r\n", "\n", "\n", ""],
    });
    expect(splitLines("")).toEqual({ lines: [""], eols: [""] });
    expect(splitLines("\n")).toEqual({ lines: ["", ""], eols: ["\n", ""] });
  });
});

describe("detachLines", () => {
  const samples = [
    '{"type":"message","text":"plain ASCII that is long enough to be copied"}',
    '{"text":"Latin-1 only: café, naïve, ÿ, ×, ©, and \\u00ff written out"}',
    '{"text":"curly “quotes” and an emoji 😀 and CJK 漢字 past U+00FF"}',
    `{"text":"a lone high surrogate ${"\ud800"} and a lone low one ${"\udc00"} stay as they are"}`,
    `{"text":"control characters \u0000\u0001\u007f\u0080\u009f and U+2028 \u2028 and BOM \ufeff"}`,
    "short",
    "",
  ];

  it("leaves every line equal to what it was, for a big text that holds a character past U+00FF", () => {
    const text = Array.from({ length: 40_000 }, (_, i) => samples[i % samples.length]).join("\n");
    expect(text.length).toBeGreaterThan(1 << 20);
    const { lines } = splitLines(text);
    const before = lines.slice();
    detachLines(text, lines);
    expect(lines.length).toBe(before.length);
    for (let i = 0; i < lines.length; i++) if (lines[i] !== before[i]) expect.fail(`line ${i} changed: ${JSON.stringify(lines[i])}`);
    expect(lines.join("\n")).toBe(text);
  });

  it("keeps the slices of a Latin-1 text or a small text as they are", () => {
    const latin = Array.from({ length: 40_000 }, (_, i) => samples[i % 2]).join("\n");
    const { lines } = splitLines(latin);
    const before = lines.slice();
    detachLines(latin, lines);
    expect(lines).toEqual(before);
    const small = splitLines(samples.join("\n")).lines;
    const smallBefore = small.slice();
    detachLines(samples.join("\n"), small);
    expect(small).toEqual(smallBefore);
  });
});
