/**
 * The byte-scan floor (bench/scanFloor.mjs) does the work it claims, so that the benchmark's floor
 * is honest: it accepts and rejects lines exactly as JSON.parse does, and finds the top-level "id"
 * and "parentId" string values (and no nested ones).
 */

import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the benchmark, without types.
import { scanBuffer, scanLine } from "../../bench/scanFloor.mjs";
import { INVALID_LINES, mangledLines, VALID_LINES } from "./jsonLines";

const VALID = VALID_LINES;
const INVALID = INVALID_LINES;

function scan(text: string): { valid: boolean; id?: string; parentId?: string } {
  const bytes = Buffer.from(text);
  const found = new Int32Array(4);
  const valid = scanLine(bytes, 0, bytes.length, found);
  const slice = (k: number) => ((found[k] ?? -1) >= 0 ? bytes.subarray(found[k], found[k + 1]).toString() : undefined);
  return { valid, id: slice(0), parentId: slice(2) };
}

/** Whether JSON.parse takes the line. */
function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

describe("bench/scanFloor.mjs", () => {
  it("accepts and rejects lines as JSON.parse does", () => {
    for (const line of [...VALID, ...INVALID]) {
      expect(scan(line).valid, line).toBe(parses(line));
    }
  });

  it("agrees with JSON.parse on lines mangled at random (a seeded generator)", () => {
    const base = '{"type":"message","id":"ab12","parentId":"cd34","message":{"content":[{"text":"hi \\"x\\" \\u00e9"}],"n":-1.5e3,"t":true,"z":null}}';
    const alphabet = '{}[]",:0123456789-+.eE\\ utfnal';
    for (const line of mangledLines(base, alphabet, 5000)) expect(scan(line).valid, line).toBe(parses(line));
  });

  it("finds the top-level id and parentId only", () => {
    expect(scan('{"id":"x","parentId":"y"}')).toEqual({ valid: true, id: "x", parentId: "y" });
    expect(scan('{"b":{"id":"inner"},"id":"outer"}')).toEqual({ valid: true, id: "outer", parentId: undefined });
    expect(scan('{"id":{"x":"y"},"parentId":null}')).toEqual({ valid: true, id: undefined, parentId: undefined });
    expect(scan('[{"id":"x"}]')).toEqual({ valid: true, id: undefined, parentId: undefined });
  });

  it("splits a file on \\n only and counts its lines, valid lines, blank lines and ids", () => {
    const text = ['{"type":"session","id":"h"}', '{"id":"a","parentId":null}', "", "not json", '{"id":"b","parentId":"a"}\r', ""].join("\n");
    const r = scanBuffer(Buffer.from(text));
    expect({ lines: r.lines, valid: r.valid, blank: r.blank, ids: r.ids.length, parents: r.parents.length }).toEqual({
      lines: 5,
      valid: 3,
      blank: 1,
      ids: 3,
      parents: 1,
    });
  });
});
