// The first parse of a large document keeps the values of the path Pi resumes from
// (`core/line/heldValues.ts`), among the lines at the end of the text, until the server is idle:
// the complete diagnostics then read them without parsing those lines again.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseHoldingPath } from "../../server/src/core/line/heldValues";
import { parseLine } from "../../server/src/core/line/parse";
import { cachedChars, forgetValues, heldLines, lineValue, parseWithoutKeeping, setValueBudget, trimValues } from "../../server/src/core/line/values";
import { CachedValueLine } from "../../server/src/core/line/record";
import { SessionDocument } from "../../server/src/core/session/document";
import { collectDiagnostics } from "../../server/src/features/diagnostics";
import { parseFixture } from "../helpers/fixture";

const entry = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-03-02T10:00:00.000Z", message: { role: "user", content: text } });

/** A header, then a → b → c → d with a branch x off a written between b and c, and d last. */
const LINES = [
  JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-03-02T10:00:00.000Z", cwd: "/w" }),
  entry("a", null, "first"),
  entry("b", "a", "second"),
  entry("x", "a", "a branch"),
  entry("c", "b", "third"),
  entry("d", "c", "fourth"),
];

/** `parseHoldingPath` as a large document runs it: inside `parseWithoutKeeping`, which keeps no value. */
const parseHolding = (lines: readonly string[], window: number) =>
  parseWithoutKeeping(Number.POSITIVE_INFINITY, () => parseHoldingPath(lines, (text) => parseLine(text), window));

/** Whether the line's value is at hand: read without parsing its text, equal to its parse. */
function held(line: unknown): boolean {
  if (!(line instanceof CachedValueLine)) return false;
  const parse = vi.spyOn(JSON, "parse");
  let value: unknown;
  let parsed: boolean;
  try {
    value = lineValue(line);
    parsed = parse.mock.calls.length > 0;
  } finally {
    parse.mockRestore();
  }
  expect(value).toEqual(JSON.parse(line.text));
  return !parsed;
}

afterEach(() => {
  forgetValues();
  setValueBudget(undefined);
});

describe("the values of the resumed path, kept from the first parse", () => {
  it("are those of the lines up from the last entry, and the parses are parseLine's", () => {
    forgetValues();
    const parsed = parseHolding(LINES, Number.POSITIVE_INFINITY);
    expect(parsed.map((p) => (p.kind === "value" ? [p.id, p.parentId, p.type, p.findings] : p.kind))).toEqual(
      LINES.map((text) => {
        const p = parseLine(text);
        return p.kind === "value" ? [p.id, p.parentId, p.type, p.findings] : p.kind;
      }),
    );
    expect(heldLines()).toBe(4);
    expect(parsed.map(held)).toEqual([false, true, true, false, true, true]);
  });

  it("are only those among the last `window` characters of text", () => {
    forgetValues();
    const parsed = parseHolding(LINES, LINES[4]!.length + LINES[5]!.length);
    expect(heldLines()).toBe(2);
    expect(parsed.map(held)).toEqual([false, false, false, false, true, true]);
  });

  it("join the cache once read, as a value parsed then would, and are read again from it", () => {
    forgetValues();
    const parsed = parseHolding(LINES, Number.POSITIVE_INFINITY);
    const leaf = parsed[5] as CachedValueLine;
    expect(held(leaf)).toBe(true);
    expect(heldLines()).toBe(3);
    expect(cachedChars()).toBe(leaf.text.length);
    expect(held(leaf)).toBe(true);
    // The idle server keeps the values read last: the leaf's stays, the unread ones go.
    trimValues(leaf.text.length);
    expect(heldLines()).toBe(0);
    expect(held(leaf)).toBe(true);
    expect(held(parsed[4])).toBe(false);
  });

  it("are those of the last document parsed only, so that a process without an idle collection holds one window at most", () => {
    forgetValues();
    const first = parseHolding(LINES, Number.POSITIVE_INFINITY);
    const second = parseHolding(LINES, Number.POSITIVE_INFINITY);
    expect(heldLines()).toBe(4);
    expect(held(first[5])).toBe(false);
    expect(held(second[5])).toBe(true);
  });

  it("stop at a parent written after its child, which is parsed again when read", () => {
    forgetValues();
    const lines = [LINES[0]!, entry("a", null, "first"), entry("c", "b", "third"), entry("b", "a", "second"), entry("d", "c", "fourth")];
    // The walk goes up from d to c; b, written after c, is not seen again.
    const parsed = parseHolding(lines, Number.POSITIVE_INFINITY);
    expect(parsed.map(held)).toEqual([false, false, true, false, true]);
  });

  it("keep nothing when the text is parsed keeping values anyway, or once the server is idle", () => {
    forgetValues();
    parseHoldingPath(LINES, (text) => parseLine(text), Number.POSITIVE_INFINITY);
    expect(heldLines()).toBe(0);
    const parsed = parseHolding(LINES, Number.POSITIVE_INFINITY);
    expect(heldLines()).toBe(4);
    trimValues(Number.POSITIVE_INFINITY);
    expect(heldLines()).toBe(0);
    expect(held(parsed[5])).toBe(false);
    parseHolding(LINES, Number.POSITIVE_INFINITY);
    forgetValues();
    expect(heldLines()).toBe(0);
  });
});

describe("a document too large for the value cache, with room for part of its path", () => {
  const dir = join(__dirname, "../fixtures/diagnostics");
  const key = (d: Diagnostic) => JSON.stringify([d.code, d.range, d.severity, d.message, d.relatedInformation ?? [], d.tags ?? []]);
  const texts = readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => [f, parseFixture(readFileSync(join(dir, f), "utf8")).text] as const)
    .filter(([, text]) => text.split("\n").length > 3);

  it("holds values of its last lines, and its diagnostics are those of a document that kept every value", () => {
    let heldSomewhere = 0;
    for (const [file, text] of texts) {
      forgetValues();
      setValueBudget(Math.floor(text.length / 2));
      const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
      heldSomewhere += heldLines();
      const complete = collectDiagnostics(doc).diagnostics.map(key);
      setValueBudget(undefined);
      forgetValues();
      const atOnce = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
      expect(heldLines(), file).toBe(0);
      expect(complete, file).toEqual(collectDiagnostics(atOnce).diagnostics.map(key));
    }
    expect(heldSomewhere).toBeGreaterThan(texts.length);
  });
});
