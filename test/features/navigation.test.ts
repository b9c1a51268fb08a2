/**
 * Definition, references, highlights and links, on `$0` cursor fixtures.
 * Results are shown as `line:text` of what each location covers, so expectations read as the
 * session does.
 */

import { describe, expect, it } from "vitest";
import type { Location } from "vscode-languageserver";
import type { SessionDocument } from "../../server/src/core/session/document";
import { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "../../server/src/features/navigation";
import { documentWithCursor, textOf } from "../helpers/cursor";

const H = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null, text = "hi") =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":1772445601000}}`;
const assistantCalling = (id: string, parent: string, call: string) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"${call}","name":"read","arguments":{"path":"a.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772445602000}}`;
const toolResult = (id: string, parent: string, call: string) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"${call}","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1772445603000}}`;

function shown(doc: SessionDocument, locations: readonly Location[]): string[] {
  return locations.map((l) => `${l.range.start.line}:${textOf(doc, l.range)}`);
}

function definition(source: string): string[] {
  const { doc, position } = documentWithCursor(source);
  return shown(doc, computeDefinition(doc, position));
}

describe("go to definition", () => {
  it("follows parentId to the parent's id", () => {
    expect(definition([H, user("a1", null), user("a2", "a1").replace('"parentId":"a1"', '"parentId":"a$01"')].join("\n"))).toEqual(['1:"a1"']);
  });

  it("follows targetId, fromId and firstKeptEntryId", () => {
    const label = '{"type":"label","id":"l1","parentId":"a2","timestamp":"2026-03-02T10:00:04.000Z","targetId":"a$01","label":"checkpoint"}';
    const summary = '{"type":"branch_summary","id":"s1","parentId":"a1","timestamp":"2026-03-02T10:00:05.000Z","fromId":"a$02","summary":"Tried x."}';
    const compaction =
      '{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-02T10:00:05.000Z","summary":"S","firstKeptEntryId":"a$02","tokensBefore":10}';
    expect(definition([H, user("a1", null), user("a2", "a1"), label].join("\n"))).toEqual(['1:"a1"']);
    expect(definition([H, user("a1", null), user("a2", "a1"), summary].join("\n"))).toEqual(['2:"a2"']);
    expect(definition([H, user("a1", null), user("a2", "a1"), compaction].join("\n"))).toEqual(['2:"a2"']);
  });

  it('goes nowhere for fromId "root" and for a dangling id, without an error', () => {
    const summary = '{"type":"branch_summary","id":"s1","parentId":null,"timestamp":"2026-03-02T10:00:05.000Z","fromId":"ro$0ot","summary":"Tried x."}';
    expect(definition([H, summary].join("\n"))).toEqual([]);
    expect(definition([H, user("a1", "mis$0sing")].join("\n"))).toEqual([]);
  });

  it("lands on the last entry holding a duplicated id, as Pi resolves it", () => {
    expect(definition([H, user("a1", null), user("a1", null, "again"), user("a2", "a$01")].join("\n"))).toEqual(['2:"a1"']);
  });

  it("follows a tool result to the toolCall block on its path, not one on another branch", () => {
    const source = [
      H,
      user("u1", null),
      assistantCalling("a1", "u1", "toolu_1"),
      assistantCalling("b1", "u1", "toolu_1"),
      toolResult("r1", "a1", "tool$0u_1"),
    ].join("\n");
    const { doc, position } = documentWithCursor(source);
    const [location] = computeDefinition(doc, position);
    expect(location?.range.start.line).toBe(2);
    expect(textOf(doc, location!.range)).toBe('"toolu_1"');
    // The block's own "id", not the entry's.
    expect(location!.range.start.character).toBeGreaterThan(doc.lines[2]!.indexOf("toolCall"));
  });

  it("gives no location for a tool result whose call is not on its path", () => {
    expect(definition([H, user("u1", null), assistantCalling("a1", "u1", "toolu_1"), toolResult("r1", "u1", "tool$0u_1")].join("\n"))).toEqual([]);
  });

  it("links the header's parentSession to that file", () => {
    const header = H.replace('"cwd"', '"parentSession":"/home/dev/.pi/agent/sessions/--home-dev-p--/old.jsonl","cwd"');
    const { doc, position } = documentWithCursor([header.replace("old.jsonl", "o$0ld.jsonl"), user("a1", null)].join("\n"));
    expect(computeDefinition(doc, position)).toEqual([
      { uri: "file:///home/dev/.pi/agent/sessions/--home-dev-p--/old.jsonl", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
    ]);
    const links = computeDocumentLinks(doc);
    expect(links).toHaveLength(1);
    expect(textOf(doc, links[0]!.range)).toBe('"/home/dev/.pi/agent/sessions/--home-dev-p--/old.jsonl"');
    expect(links[0]!.target).toBe("file:///home/dev/.pi/agent/sessions/--home-dev-p--/old.jsonl");
  });

  it("counts UTF-16 columns after emoji and CJK text, and ignores CRLF endings", () => {
    const emoji = user("a1", null, "修复 😀😀 test");
    const line = `{"type":"message","message":{"role":"user","content":"🙂 日本","timestamp":1},"id":"a2","parentId":"a$01","timestamp":"2026-03-02T10:00:01.000Z"}`;
    expect(definition([H, emoji, line].join("\r\n"))).toEqual(['1:"a1"']);
  });

  it("ends on a parent cycle", () => {
    expect(definition([H, user("a1", "a2"), user("a2", "a$01")].join("\n"))).toEqual(['1:"a1"']);
  });
});

describe("references and highlights", () => {
  const session = [
    H,
    user("a1", null),
    user("a2", "a1"),
    user("b2", "a1", "branch"),
    '{"type":"label","id":"l1","parentId":"a2","timestamp":"2026-03-02T10:00:04.000Z","targetId":"a1","label":"start"}',
    '{"type":"branch_summary","id":"s1","parentId":"a1","timestamp":"2026-03-02T10:00:05.000Z","fromId":"a1","summary":"Tried x."}',
  ];

  it("finds every place naming an id, from the declaration or from any reference", () => {
    for (const cursorLine of [1, 2]) {
      const lines = [...session];
      lines[cursorLine] = cursorLine === 1 ? lines[1]!.replace('"id":"a1"', '"id":"a$01"') : lines[2]!.replace('"parentId":"a1"', '"parentId":"a$01"');
      const { doc, position } = documentWithCursor(lines.join("\n"));
      expect(shown(doc, computeReferences(doc, position, true))).toEqual(['1:"a1"', '2:"a1"', '3:"a1"', '4:"a1"', '5:"a1"', '5:"a1"']);
      expect(shown(doc, computeReferences(doc, position, false))).toEqual(['2:"a1"', '3:"a1"', '4:"a1"', '5:"a1"', '5:"a1"']);
    }
  });

  it("highlights the declaration as written and references as read", () => {
    const lines = [...session];
    lines[1] = lines[1]!.replace('"id":"a1"', '"id":"a$01"');
    const { doc, position } = documentWithCursor(lines.join("\n"));
    const kinds = computeDocumentHighlights(doc, position).map((h) => `${h.range.start.line}:${h.kind}`);
    expect(kinds).toEqual(["1:3", "2:2", "3:2", "4:2", "5:2", "5:2"]);
  });

  it("pairs a tool call and its results", () => {
    const source = [H, user("u1", null), assistantCalling("a1", "u1", "toolu_$07"), toolResult("r1", "a1", "toolu_7"), toolResult("r2", "a1", "toolu_8")].join(
      "\n",
    );
    const { doc, position } = documentWithCursor(source);
    expect(shown(doc, computeReferences(doc, position, true))).toEqual(['2:"toolu_7"', '3:"toolu_7"']);
    expect(computeDocumentHighlights(doc, position).map((h) => h.kind)).toEqual([3, 2]);
  });

  it("finds both holders of a duplicated id as declarations", () => {
    const { doc, position } = documentWithCursor([H, user("a1", null), user("a1", null), user("a2", "a$01")].join("\n"));
    expect(shown(doc, computeReferences(doc, position, true))).toEqual(['1:"a1"', '2:"a1"', '3:"a1"']);
  });

  it("answers nothing on a blank or malformed line", () => {
    const { doc, position } = documentWithCursor([H, "{not json$0", ""].join("\n"));
    expect(computeReferences(doc, position, true)).toEqual([]);
    expect(computeDefinition(doc, position)).toEqual([]);
  });
});
