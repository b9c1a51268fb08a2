/**
 * Pi's lines and the client's lines: a lone "\r" is a line break to an LSP client and whitespace
 * (or a string error) inside one line to Pi. Every position the server reports must name, in the
 * client's text model, the token it means.
 */

import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { PositionMap } from "../../server/src/core/line/positions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeDefinition } from "../../server/src/features/navigation";

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const USER = '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}';

describe("positions with a lone carriage return", () => {
  it("maps Pi positions to client positions and back", () => {
    const map = PositionMap.of(["ab\rcd\ref", "xyz", "1\r2"]);
    expect(map.lspLineCount(3)).toBe(6);
    expect(map.toLsp(0, 1)).toEqual({ line: 0, character: 1 });
    expect(map.toLsp(0, 2)).toEqual({ line: 0, character: 2 });
    expect(map.toLsp(0, 3)).toEqual({ line: 1, character: 0 });
    expect(map.toLsp(0, 8)).toEqual({ line: 2, character: 2 });
    expect(map.toLsp(1, 2)).toEqual({ line: 3, character: 2 });
    expect(map.toLsp(2, 2)).toEqual({ line: 5, character: 0 });
    const length = (line: number) => ["ab\rcd\ref", "xyz", "1\r2"][line]!.length;
    expect(map.toPi({ line: 1, character: 1 }, 3, length)).toEqual({ line: 0, character: 4 });
    // Past the end of a client line: the end of that line, before its "\r".
    expect(map.toPi({ line: 1, character: 99 }, 3, length)).toEqual({ line: 0, character: 5 });
    expect(map.toPi({ line: 3, character: 1 }, 3, length)).toEqual({ line: 1, character: 1 });
    expect(map.toPi({ line: 5, character: 1 }, 3, length)).toEqual({ line: 2, character: 3 });
    expect(map.toPi({ line: 9, character: 0 }, 3, length)).toEqual({ line: 2, character: 3 });
  });

  it("puts a diagnostic after a lone \\r on the token, in the client's lines", () => {
    const entry =
      '{"type":"message",\r"id":"a2","parentId":"missing","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","timestamp":2}}';
    const text = `${HEADER}\n${USER}\n${entry}\n`;
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
    const reference = TextDocument.create("file:///s.jsonl", "jsonl", 1, text);
    const dangling = computeDiagnostics(doc).find((d) => d.code === "dangling-parent");
    expect(dangling?.range.start.line).toBe(3);
    expect(reference.getText(dangling!.range)).toBe('"missing"');
  });

  it("reads a position after a lone \\r as the client means it", () => {
    const child = '{"type":"message","id":"a2",\r"parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","timestamp":2}}';
    const text = `${HEADER}\n${USER}\n${child}\n`;
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
    const reference = TextDocument.create("file:///s.jsonl", "jsonl", 1, text);
    // The client's line 3 starts after the "\r": `"parentId":"a1"` is at character 12.
    const [location] = computeDefinition(doc, { line: 3, character: 13 });
    expect(reference.getText(location!.range)).toBe('"a1"');
    expect(location!.range.start.line).toBe(1);
  });

  it("keeps the server's text equal to the client's after edits that add and remove lone \\r", () => {
    const text = `${HEADER}\n${USER}\n`;
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
    const reference = TextDocument.create("file:///s.jsonl", "jsonl", 1, text);
    const edits = [
      { range: { start: { line: 1, character: 18 }, end: { line: 1, character: 18 } }, text: "\r" },
      { range: { start: { line: 2, character: 3 }, end: { line: 2, character: 3 } }, text: "\r\r" },
      { range: { start: { line: 1, character: 0 }, end: { line: 3, character: 1 } }, text: "" },
      { range: { start: { line: 1, character: 5 }, end: { line: 1, character: 5 } }, text: "\n\r\n\r" },
    ];
    for (const [i, edit] of edits.entries()) {
      doc.update([edit], i + 2);
      TextDocument.update(reference, [edit], i + 2);
      expect(doc.getText()).toBe(reference.getText());
      expect(doc.lspLineCount).toBe(reference.lineCount);
    }
  });
});
