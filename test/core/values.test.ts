// The values cache: a line's parsed value is kept within a budget of text characters and parsed
// again from the line's text once let go; the CLI keeps every value of the one file it reads.
import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { cachedChars, forgetValues, keepAllValues, lineValue, parseWithoutKeeping, rememberValue, setValueBudget } from "../../server/src/core/line/values";

/** A line of about `size` characters whose value is an object. */
function line(n: number, size: number): { text: string } {
  return { text: JSON.stringify({ n, pad: "x".repeat(Math.max(0, size - 20)) }) };
}

describe("values cache", () => {
  it("returns the remembered value itself and parses a line it never saw", () => {
    forgetValues();
    const a = line(1, 100);
    const value = JSON.parse(a.text);
    rememberValue(a, value);
    expect(lineValue(a)).toBe(value);
    const b = line(2, 100);
    expect(lineValue(b)).toEqual({ n: 2, pad: "x".repeat(80) });
    expect(cachedChars()).toBe(a.text.length + b.text.length);
  });

  it("keeps primitives out of the cache", () => {
    forgetValues();
    rememberValue({ text: "42" }, 42);
    rememberValue({ text: "null" }, null);
    expect(cachedChars()).toBe(0);
    expect(lineValue({ text: '"s"' })).toBe("s");
    expect(cachedChars()).toBe(0);
  });

  it("lets the least recently used values go past its budget and parses them again, equal", () => {
    forgetValues();
    const lines = Array.from({ length: 100 }, (_, n) => line(n, 100_000));
    const values = lines.map((l) => {
      const value = JSON.parse(l.text);
      rememberValue(l, value);
      return value;
    });
    // 100 lines of 100,000 characters are 10 million: over the 8 million budget.
    expect(cachedChars()).toBeLessThanOrEqual(8_000_000);
    expect(cachedChars()).toBeGreaterThan(0);
    expect(lineValue(lines[99]!)).toBe(values[99]);
    const again = lineValue(lines[0]!);
    expect(again).not.toBe(values[0]);
    expect(again).toEqual(values[0]);
  });

  it("keeps a value that was used recently over one that was not", () => {
    forgetValues();
    const lines = Array.from({ length: 60 }, (_, n) => line(n, 100_000));
    const first = JSON.parse(lines[0]!.text);
    rememberValue(lines[0]!, first);
    for (const l of lines.slice(1)) {
      // Line 0 is used before each new line: it stays the most recently used.
      expect(lineValue(lines[0]!)).toBe(first);
      rememberValue(l, JSON.parse(l.text));
    }
    expect(lineValue(lines[0]!)).toBe(first);
    expect(cachedChars()).toBeLessThanOrEqual(8_000_000);
  });

  it("parses lines that would not fit the budget without keeping their values, and those that would as usual", () => {
    forgetValues();
    setValueBudget(1000);
    const big = line(1, 600);
    parseWithoutKeeping(2000, () => rememberValue(big, JSON.parse(big.text)));
    expect(cachedChars()).toBe(0);
    // Their values are still there when asked for: parsed again.
    expect(lineValue(big)).toEqual(JSON.parse(big.text));
    expect(cachedChars()).toBe(big.text.length);
    forgetValues();
    parseWithoutKeeping(900, () => rememberValue(big, JSON.parse(big.text)));
    expect(cachedChars()).toBe(big.text.length);
    forgetValues();
    // A document larger than the budget keeps no values while it is parsed, and reads them all the same.
    const text = Array.from({ length: 5 }, (_, n) => line(n, 400).text).join("\n");
    const doc = new SessionDocument("file:///a.jsonl", "jsonl", 1, text);
    expect(cachedChars()).toBe(0);
    expect(doc.parsed.map((p) => (p.kind === "value" ? p.value : undefined))).toEqual(text.split("\n").map((l) => JSON.parse(l)));
    setValueBudget(undefined);
    forgetValues();
  });

  it("keeps every value after keepAllValues, until forgetValues", () => {
    forgetValues();
    keepAllValues();
    const lines = Array.from({ length: 100 }, (_, n) => line(n, 100_000));
    const values = lines.map((l) => {
      const value = JSON.parse(l.text);
      rememberValue(l, value);
      return value;
    });
    expect(cachedChars()).toBe(lines.reduce((sum, l) => sum + l.text.length, 0));
    expect(lineValue(lines[0]!)).toBe(values[0]);
    forgetValues();
    expect(cachedChars()).toBe(0);
    expect(lineValue(lines[0]!)).not.toBe(values[0]);
  });
});
