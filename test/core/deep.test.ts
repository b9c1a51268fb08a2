/**
 * Deeply nested JSON (issue 10, items 4 and 5): locating a token is linear in the line, and values
 * nested thousands deep, which make JavaScript's own coercions and `JSON.stringify` recurse until
 * the stack overflows, cost no answer but their own. Each of these threw, emptied a file's
 * diagnostics, or took tens of seconds before.
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { locateAt } from "../../server/src/core/line/locate";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeHover } from "../../server/src/features/hover";
import { computeDefinition, computeDocumentHighlights } from "../../server/src/features/navigation";
import { computeWorkspaceSymbols } from "../../server/src/features/workspaceSymbols";

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const nested = (depth: number, inner = "1") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const entry = (id: string, parent: string | null, content: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":${content},"timestamp":1}}`;
const doc = (...lines: string[]) => new SessionDocument("file:///deep.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);

describe("deep nesting", () => {
  it("locates a token inside a 100,000-deep array in one pass", () => {
    const text = nested(100_000);
    const at = locateAt(text, 100_000);
    expect(at?.path.length).toBe(100_000);
    expect(at?.value).toEqual({ start: 100_000, end: 100_001 });
  });

  it("answers hover, definition and highlights on an entry holding a 100,000-deep array", () => {
    const d = doc(HEADER, entry("a1", null, '"hi"'), entry("a2", "a1", nested(100_000, '"x"')));
    const line = d.lines[2]!;
    const onParent = { line: 2, character: line.indexOf('"a1"') + 1 };
    expect(computeDefinition(d, onParent)[0]?.range.start.line).toBe(1);
    expect(computeDocumentHighlights(d, onParent).length).toBe(2);
    const inside = computeHover(d, { line: 2, character: line.indexOf('"x"') + 1 });
    expect((inside?.contents as { value: string } | undefined)?.value).toMatch(/message · user/);
  });

  it("keeps a file's diagnostics when its header version is an array nested 6,000 deep", () => {
    const header = `{"type":"session","version":${nested(6000, "3")},"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`;
    const diagnostics = computeDiagnostics(doc(header, entry("a1", "missing", '"hi"')));
    const codes = diagnostics.map((d) => d.code);
    expect(codes).toContain("invalid-header");
    expect(codes).toContain("dangling-parent");
    expect(codes).not.toContain("check-failed");
    expect(diagnostics.find((d) => d.code === "invalid-header")?.message).toMatch(/RangeError/);
  });

  it("lists the workspace symbols of every session when one has a label nested 6,000 deep", () => {
    const bad = new SessionDocument(
      "file:///bad.jsonl",
      "jsonl",
      1,
      `${HEADER}\n${entry("a1", null, '"hi"')}\n{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a1","label":${nested(6000)}}\n`,
    );
    const good = new SessionDocument(
      "file:///good.jsonl",
      "jsonl",
      1,
      `${HEADER.replace('"s1"', '"s2"')}\n${entry("b1", null, '"hi"')}\n{"type":"label","id":"l2","parentId":"b1","timestamp":"2026-01-01T00:00:02.000Z","targetId":"b1","label":"checkpoint"}\n`,
    );
    const names = computeWorkspaceSymbols([bad, good], "").map((s) => s.name);
    expect(names).toContain("checkpoint");
    expect(names).toContain("session s1");
  });
});

describe("header versions Pi's comparison throws on", () => {
  const header = (version: string) => `{"type":"session","version":${version},"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`;
  const codes = (version: string) => computeDiagnostics(doc(header(version), entry("a1", null, '"hi"'))).map((d) => `${d.code} ${d.message}`);

  it("an object with a toString member: a TypeError, so Pi cannot open the file", () => {
    // Checked with the real Pi 0.74.2 and 1.6.0: "Cannot convert object to primitive value".
    expect(codes('{"toString":1}')).toEqual([expect.stringMatching(/^invalid-header .*TypeError/)]);
    expect(codes('[{"toString":1}]')).toEqual([expect.stringMatching(/^invalid-header .*TypeError/)]);
  });

  it("arrays past about 3,000 levels: a RangeError; shallower ones compare as their text", () => {
    expect(codes(nested(3200, "3"))).toEqual([expect.stringMatching(/^invalid-header .*RangeError/)]);
    expect(codes(nested(2000, "3"))).toEqual([expect.stringMatching(/^invalid-version .*treats it as current/)]);
    expect(codes('["RangeError"]')).toEqual([expect.stringMatching(/^invalid-version /)]);
  });
});
