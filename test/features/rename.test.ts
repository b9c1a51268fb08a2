/**
 * Rename of entry ids and tool call ids on `$0` cursor fixtures: prepareRename on the id and on
 * every kind of reference, the edits across every reference kind (checked by applying them and
 * re-reading the result), the refusals, and positions after CRLF endings and surrogate pairs.
 */

import { describe, expect, it } from "vitest";
import type { WorkspaceEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeRename, isRenameRefusal, prepareRename, type RenameRefusal } from "../../server/src/features/rename";
import { documentWithCursor, textOf } from "../helpers/cursor";

const H = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null, text = "hi") =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":1772445601000}}`;
const assistantCalling = (id: string, parent: string, call: string) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"${call}","name":"read","arguments":{"path":"a.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772445602000}}`;
const toolResult = (id: string, parent: string, call: string) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"${call}","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1772445603000}}`;
const label = (id: string, parent: string, target: string) =>
  `{"type":"label","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:04.000Z","targetId":"${target}","label":"checkpoint"}`;
const contextEdit = (id: string, parent: string, target: string) =>
  `{"type":"context_edit","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:04.500Z","targetId":"${target}","replacement":null}`;
const summary = (id: string, parent: string, from: string) =>
  `{"type":"branch_summary","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:05.000Z","fromId":"${from}","summary":"Tried x."}`;
const compaction = (id: string, parent: string, firstKept: string) =>
  `{"type":"compaction","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:06.000Z","summary":"S","firstKeptEntryId":"${firstKept}","tokensBefore":10}`;

/** Every reference kind names "a1": parentId, targetId of a label and of a context edit, fromId, firstKeptEntryId. */
const SESSION = [
  H,
  user("a1", null),
  user("a2", "a1"),
  label("l1", "a2", "a1"),
  contextEdit("e1", "l1", "a1"),
  summary("s1", "e1", "a1"),
  compaction("c1", "s1", "a1"),
  user("a3", "c1"),
];

/** `lines` (LF, final newline) with the marker after the `nth` occurrence of `after` on line `index`. */
function marked(lines: readonly string[], index: number, after: string, nth = 1, eol = "\n"): string {
  return lines.map((l, i) => (i === index ? mark(l, after, nth) : l)).join(eol) + eol;
}

function mark(line: string, after: string, nth = 1): string {
  let i = -1;
  for (let k = 0; k < nth; k++) {
    i = line.indexOf(after, i + 1);
    if (i < 0) throw new Error(`"${after}" is not in the line ${nth} times`);
  }
  return `${line.slice(0, i + after.length)}$0${line.slice(i + after.length)}`;
}

function apply(doc: SessionDocument, edit: WorkspaceEdit | RenameRefusal): string {
  if (isRenameRefusal(edit)) throw new Error(`refused: ${edit.error}`);
  const edits = edit.changes?.[doc.uri] ?? [];
  return TextDocument.applyEdits(TextDocument.create(doc.uri, "jsonl", 1, doc.getText()), edits);
}

function rename(source: string, newName: string): string {
  const { doc, position } = documentWithCursor(source);
  return apply(doc, computeRename(doc, position, newName));
}

function refusal(source: string, newName: string): string {
  const { doc, position } = documentWithCursor(source);
  const result = computeRename(doc, position, newName);
  if (!isRenameRefusal(result)) throw new Error("expected a refusal");
  return result.error;
}

const EXPECTED = `${SESSION.map((l, i) => (i === 0 ? l : l.replaceAll('"a1"', '"first"'))).join("\n")}\n`;

describe("prepareRename", () => {
  it("answers the id between its quotes, with the id as placeholder, on the id and on every reference kind", () => {
    const places: [number, string, number][] = [
      [1, '"id":"a', 1],
      [2, '"parentId":"a', 1],
      [3, '"targetId":"a', 1],
      [4, '"targetId":"a', 1],
      [5, '"fromId":"a', 1],
      [6, '"firstKeptEntryId":"a', 1],
    ];
    for (const [line, after, nth] of places) {
      const { doc, position } = documentWithCursor(marked(SESSION, line, after, nth));
      const result = prepareRename(doc, position);
      if (isRenameRefusal(result)) throw new Error(result.error);
      expect(result.placeholder).toBe("a1");
      expect(textOf(doc, result.range)).toBe("a1");
    }
  });

  it("works at both ends of the quoted value", () => {
    for (const after of ['"parentId":', '"parentId":"a1"']) {
      const { doc, position } = documentWithCursor(marked(SESSION, 2, after));
      const result = prepareRename(doc, position);
      expect(isRenameRefusal(result) ? result.error : result.placeholder).toBe("a1");
    }
  });

  it("refuses positions that name no entry id", () => {
    const cases = [
      marked(SESSION, 0, '"id":"01'), // the header's session id
      marked(SESSION, 1, '"role":"u'), // a role
      marked(SESSION, 1, '"content":"h'), // text
      marked([H, user("a1", "gh")], 1, '"parentId":"g'), // a dangling parent
      marked([H, user("a1", null), summary("s1", "a1", "root")], 2, '"fromId":"ro'), // the "root" sentinel
    ];
    for (const source of cases) {
      const { doc, position } = documentWithCursor(source);
      const result = prepareRename(doc, position);
      expect(isRenameRefusal(result)).toBe(true);
    }
    const { doc, position } = documentWithCursor(marked([H, user("a1", "gh")], 1, '"parentId":"g'));
    expect((prepareRename(doc, position) as RenameRefusal).error).toMatch(/names no entry/);
  });
});

describe("computeRename", () => {
  it("renames the id and every reference kind, from the declaration", () => {
    expect(rename(marked(SESSION, 1, '"id":"a'), "first")).toBe(EXPECTED);
  });

  it("gives the same edit from each reference kind", () => {
    for (const [line, after] of [
      [2, '"parentId":"a'],
      [3, '"targetId":"a'],
      [4, '"targetId":"a'],
      [5, '"fromId":"a'],
      [6, '"firstKeptEntryId":"a'],
    ] as const) {
      expect(rename(marked(SESSION, line, after), "first")).toBe(EXPECTED);
    }
  });

  it("leaves a file that checks as cleanly as before", () => {
    const text = rename(marked(SESSION, 1, '"id":"a'), "first");
    const before = computeDiagnostics(new SessionDocument("file:///a.jsonl", "jsonl", 1, `${SESSION.join("\n")}\n`));
    const after = computeDiagnostics(new SessionDocument("file:///a.jsonl", "jsonl", 1, text));
    expect(after.map((d) => d.code)).toEqual(before.map((d) => d.code));
  });

  it("renames every holder of a duplicated id", () => {
    const lines = [H, user("a1", null), user("a1", null, "again"), user("a2", "a1")];
    expect(rename(marked(lines, 3, '"parentId":"a'), "b")).toBe(`${lines.map((l, i) => (i === 0 ? l : l.replaceAll('"a1"', '"b"'))).join("\n")}\n`);
  });

  it("writes the new name as JSON, escaping what JSON needs", () => {
    const text = rename(marked([H, user("a1", null), user("a2", "a1")], 1, '"id":"a'), "é/😀 x");
    expect(text).toContain('"id":"é/😀 x","parentId":null');
    expect(text).toContain('"parentId":"é/😀 x"');
  });

  it("reads a declared id written with escapes", () => {
    const lines = [H, user("a1", null).replace('"id":"a1"', '"id":"\\u0061\\u0031"'), user("a2", "a1")];
    const { doc, position } = documentWithCursor(marked(lines, 2, '"parentId":"a'));
    const prepared = prepareRename(doc, position);
    expect(isRenameRefusal(prepared) ? prepared.error : prepared.placeholder).toBe("a1");
    expect(apply(doc, computeRename(doc, position, "z"))).toBe(`${[H, user("z", null), user("a2", "z")].join("\n")}\n`);
  });

  it('refuses an empty id, quotes, backslashes, control characters, an existing id and "root"', () => {
    const source = marked(SESSION, 1, '"id":"a');
    expect(refusal(source, "")).toMatch(/cannot be empty/);
    expect(refusal(source, 'a"b')).toMatch(/quote/);
    expect(refusal(source, "a\\b")).toMatch(/backslash/);
    expect(refusal(source, "a\nb")).toMatch(/control character \(U\+000A\)/);
    expect(refusal(source, "a\u0000")).toMatch(/control character \(U\+0000\)/);
    expect(refusal(source, "a\u007f")).toMatch(/control character/);
    expect(refusal(source, "a2")).toMatch(/already exists \(line 3\)/);
    expect(refusal(source, "root")).toMatch(/"root"/);
  });

  it("refuses a position that names no entry id", () => {
    expect(refusal(marked(SESSION, 1, '"role":"u'), "x")).toMatch(/not on an entry id/);
    expect(refusal(marked([H, user("a1", "gh")], 1, '"parentId":"g'), "x")).toMatch(/names no entry/);
  });

  it("answers an empty edit for the same name", () => {
    const { doc, position } = documentWithCursor(marked(SESSION, 1, '"id":"a'));
    expect(computeRename(doc, position, "a1")).toEqual({ changes: { [doc.uri]: [] } });
  });

  it("keeps CRLF endings and positions after surrogate pairs", () => {
    const lines = [H, user("a1", null, "🧪😀 é"), user("a2", "a1", "𝄞"), label("l1", "a2", "a1")];
    // The cursor sits after emoji on its own line: columns are UTF-16 units.
    const withEmoji = lines.map((l, i) => (i === 2 ? l.replace('"type":"message"', '"note":"😀😀","type":"message"') : l));
    const source = marked(withEmoji, 2, '"parentId":"a', 1, "\r\n");
    const cursorLine = source.split("\r\n")[2]!;
    expect(cursorLine.indexOf("😀")).toBeLessThan(cursorLine.indexOf("$0"));
    const { doc, position } = documentWithCursor(source);
    expect(doc.eols.at(2)).toBe("\r\n");
    const prepared = prepareRename(doc, position);
    if (isRenameRefusal(prepared)) throw new Error(prepared.error);
    expect(textOf(doc, prepared.range)).toBe("a1");
    const text = rename(source, "α1");
    expect(text).toBe(`${withEmoji.map((l, i) => (i === 0 ? l : l.replaceAll('"a1"', '"α1"'))).join("\r\n")}\r\n`);
  });

  it("works after emoji earlier on the same line", () => {
    const line = user("a2", "a1").replace('"type":"message"', '"note":"😀🧪𝄞","type":"message"');
    const source = marked([H, user("a1", null), line], 2, '"parentId":"a');
    const { doc, position } = documentWithCursor(source);
    const prepared = prepareRename(doc, position);
    if (isRenameRefusal(prepared)) throw new Error(prepared.error);
    expect(textOf(doc, prepared.range)).toBe("a1");
    expect(apply(doc, computeRename(doc, position, "b"))).toBe(`${[H, user("b", null), line.replace('"parentId":"a1"', '"parentId":"b"')].join("\n")}\n`);
  });
});

describe("tool call rename", () => {
  const lines = [H, user("u1", null), assistantCalling("a1", "u1", "toolu_1"), toolResult("r1", "a1", "toolu_1"), assistantCalling("a2", "r1", "toolu_2")];
  const expected = `${lines.map((l) => l.replaceAll('"toolu_1"', '"call_9"')).join("\n")}\n`;

  it("renames the toolCall block and its results, from either side", () => {
    expect(rename(marked(lines, 2, '"id":"tool'), "call_9")).toBe(expected);
    expect(rename(marked(lines, 3, '"toolCallId":"tool'), "call_9")).toBe(expected);
  });

  it("refuses a name another tool call has", () => {
    expect(refusal(marked(lines, 2, '"id":"tool'), "toolu_2")).toMatch(/tool call with this id already exists \(line 5\)/);
  });
});
