/**
 * Document formatting: lines rewritten as Pi writes them (`JSON.stringify(JSON.parse(line))`), line
 * by line, with malformed and blank lines, line endings and a byte order mark left alone, no edit
 * for lines already in Pi's form, and no edit that would change a value. Round trip: every file Pi
 * wrote in the parity corpus formats to itself.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TextEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeFormatting, reserializesLosslessly } from "../../server/src/features/formatting";

const FIXTURES = join(__dirname, "..", "parity", "fixtures");

function doc(text: string): SessionDocument {
  return new SessionDocument("file:///f.jsonl", "jsonl", 1, text);
}

function format(text: string): { edits: TextEdit[]; text: string } {
  const d = doc(text);
  const edits = computeFormatting(d);
  return { edits, text: TextDocument.applyEdits(TextDocument.create(d.uri, "jsonl", 1, text), edits) };
}

const H = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const USER =
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}';

describe("computeFormatting", () => {
  it("rewrites a spaced-out line compactly, keeping key order", () => {
    const spaced =
      '{ "type": "message",  "id": "a1", "parentId": null,\t"timestamp": "2026-03-02T10:00:01.000Z", "message": { "role": "user", "content": "hi", "timestamp": 1772445601000 } }  ';
    const { edits, text } = format(`${H}\n${spaced}\n`);
    expect(edits).toHaveLength(1);
    expect(edits[0]!.range).toEqual({ start: { line: 1, character: 0 }, end: { line: 1, character: spaced.length } });
    expect(text).toBe(`${H}\n${USER}\n`);
  });

  it("writes escaped unicode the way JSON.stringify does", () => {
    const escaped =
      '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"caf\\u00e9 \\ud83d\\ude00 \\/ \\u0007 \\ud800","timestamp":1772445601000}}';
    const { text } = format(`${H}\n${escaped}\n`);
    // Pi's form: é and 😀 as themselves, "/" unescaped, a control character and a lone surrogate as \u escapes.
    expect(text.split("\n")[1]).toBe(
      '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"café 😀 / \\u0007 \\ud800","timestamp":1772445601000}}',
    );
    expect(JSON.parse(text.split("\n")[1]!)).toEqual(JSON.parse(escaped));
  });

  it("leaves malformed and blank lines untouched and never joins or splits lines", () => {
    const source = `${H}\n{ "type": "message", "id": "x"\n   \n\n{"broken\n${USER}\n`;
    const { edits, text } = format(source);
    expect(edits).toEqual([]);
    expect(text).toBe(source);
    const spaced = `${H}\n{"a" : 1}\n  \n{ oops }\n[ 1, 2 ]\n`;
    const formatted = format(spaced).text;
    expect(formatted).toBe(`${H}\n{"a":1}\n  \n{ oops }\n[1,2]\n`);
    expect(formatted.split("\n")).toHaveLength(spaced.split("\n").length);
  });

  it("keeps each line's ending, a last line without one, and a byte order mark", () => {
    const { text } = format(`\uFEFF${H.replace(",", ", ")}\r\n{ "b" : 2 }\r\n{ "c" : 3 }`);
    expect(text).toBe(`\uFEFF${H}\r\n{"b":2}\r\n{"c":3}`);
  });

  it("gives no edit for a line already in Pi's form", () => {
    expect(format(`${H}\n${USER}\n`).edits).toEqual([]);
  });

  it("leaves a line alone when rewriting it would change a value", () => {
    const cases = [
      '{"a":1,"a":2}', // a repeated key: JSON.parse keeps only the last
      '{"a" : {"b":1, "b":1}}',
      '{"a": 1e400}', // becomes null
      '{"a": 12345678901234567890123}', // more digits than a double holds
      '{"b": 1, "2": 1}', // integer-like keys move first (issue 10, item 2)
      '{"x": {"2": 1, "1": 1}}',
    ];
    for (const line of cases) {
      expect(reserializesLosslessly(line)).toBe(false);
      expect(format(`${H}\n${line}\n`).edits).toEqual([]);
    }
    // A line nested too deep for JSON.stringify is left as it is, not a failed request.
    expect(format(`${H}\n{"a" : ${"[".repeat(20_000)}${"]".repeat(20_000)}}\n`).edits).toEqual([]);
    for (const line of [
      '{"1": 1, "2": 1, "a": 1}',
      '{"a": 1.50, "b": -0, "c": 1E3, "d": 0.1, "e": [1, 2.0e-7], "f": {"a": 1}, "g": "\\"a\\":1,\\"a\\""}',
      '[ {"a":1}, {"a":1} ]',
    ]) {
      expect(reserializesLosslessly(line)).toBe(true);
      expect(format(`${H}\n${line}\n`).edits).toHaveLength(1);
    }
  });

  it("changes nothing in any session Pi wrote (round trip)", () => {
    const written = readdirSync(FIXTURES).filter((f) => f.startsWith("written-") && f.endsWith(".jsonl"));
    expect(written.length).toBeGreaterThan(10);
    for (const file of written) {
      const source = readFileSync(join(FIXTURES, file), "utf8");
      expect(computeFormatting(doc(source)), file).toEqual([]);
    }
  });
});
