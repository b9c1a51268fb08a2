/**
 * Completion: what a snapshot cannot say well. Every new-entry snippet, its placeholders filled,
 * is a line Pi could have written; a colliding random id is drawn again; the real clock and
 * randomness are used by default; the id list is capped; type items carry documentation; and the
 * tolerant line scanner. Every other completion case (types, roles, fields, ids, tool calls,
 * lines being typed, nothing to complete, CRLF, surrogate pairs, a byte order mark) is one fixture
 * file in test/fixtures/completion (see test/features/snapshots.test.ts).
 */

import { describe, expect, it } from "vitest";
import type { CompletionItem, CompletionList, TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { readTypedLine } from "../../server/src/core/line/typedLine";
import { type CompletionOptions, computeCompletion } from "../../server/src/features/completion";
import { MAX_ID_ITEMS } from "../../server/src/features/completion/common";
import { documentWithCursor, textOf } from "../helpers/cursor";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"Fix 🧪 the test","timestamp":1772445602000}}`;
const CALLS = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}},{"type":"toolCall","id":"toolu_02","name":"bash","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772445603000}}`;

const NOW = new Date("2026-11-29T14:00:00.000Z");
/** A deterministic random: the digits of `hex`, one per call (as i/16), then zeros. */
function digits(hex: string): () => number {
  let i = 0;
  return () => (i < hex.length ? parseInt(hex[i++]!, 16) / 16 : 0);
}
/** A fixed clock and a fresh deterministic random for each request. */
const options = () => ({ now: () => NOW, random: digits("beefcafe") });

function complete(source: string, opts: CompletionOptions = options()): { list: CompletionList; doc: SessionDocument } {
  const { doc, position } = documentWithCursor(source);
  return { list: computeCompletion(doc, position, opts), doc };
}
const labels = (list: CompletionList): string[] => list.items.map((i) => i.label);
const edit = (item: CompletionItem): TextEdit => item.textEdit as TextEdit;
const lines = (...ls: string[]): string => `${ls.join("\n")}\n`;

describe("entry types and roles", () => {
  it("offers every entry type, with docs, inside the type value", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, `{"type":"la$0","id":"x1","parentId":"a0000001","timestamp":"2026-03-02T10:00:09.000Z"}`));
    expect(labels(list)).toContain("label");
    expect(labels(list)).toContain("branch_summary");
    const label = list.items.find((i) => i.label === "label")!;
    expect(label.detail).toMatch(/bookmark/);
    expect((label.documentation as { value: string }).value).toMatch(/Since/);
    // The edit replaces the string's content, not its quotes.
    expect(textOf(doc, edit(label).range)).toBe("la");
    expect(edit(label).newText).toBe("label");
  });
});

describe("entry ids", () => {
  const many = (n: number): string[] =>
    Array.from(
      { length: n },
      (_, i) =>
        `{"type":"custom","id":"e${String(i).padStart(7, "0")}","parentId":${i === 0 ? "null" : `"e${String(i - 1).padStart(7, "0")}"`},"timestamp":"2026-03-02T10:00:01.000Z","customType":"x"}`,
    );

  it("caps the list and says so", () => {
    const entries = many(MAX_ID_ITEMS + 50);
    const { list } = complete(lines(HEADER, ...entries, `{"type":"label","id":"z1","parentId":"$0"}`));
    expect(list.items).toHaveLength(MAX_ID_ITEMS);
    expect(list.isIncomplete).toBe(true);
    expect(new Set(labels(list)).size).toBe(MAX_ID_ITEMS);
  });
});

describe("new entries on a blank line", () => {
  it("offers each common kind as one compact line, with a fresh id, the entry above as parent and the time", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, USER, "$0", CALLS));
    expect(labels(list)).toEqual(["user message", "assistant reply", "tool result", "label", "model change", "compaction", "branch summary"]);
    const user = edit(list.items[0]!);
    expect(user.range).toEqual({ start: { line: 3, character: 0 }, end: { line: 3, character: 0 } });
    expect(user.newText).toBe(
      `{"type":"message","id":"beefcafe","parentId":"a0000002","timestamp":"2026-11-29T14:00:00.000Z","message":{"role":"user","content":"\${1:text}","timestamp":${NOW.getTime()}\\}\\}`,
    );
    // Every snippet, with its placeholders filled by their defaults, is a line Pi could have written.
    for (const item of list.items) {
      const line = expandSnippet(edit(item).newText);
      const value = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(value).slice(0, 4)).toEqual(["type", "id", "parentId", "timestamp"]);
      expect(JSON.stringify(value)).toBe(line);
      expect(value.id).toBe("beefcafe");
      expect(value.parentId).toBe("a0000002");
      const fresh = new SessionDocument("file:///x.jsonl", "jsonl", 1, doc.getText().replace("\n\n", `\n${line}\n`));
      expect(fresh.parsed[3]!.kind === "value" && fresh.parsed[3]!.findings).toEqual([]);
    }
  });

  it("draws again when the random id already exists in the file", () => {
    const taken = `{"type":"custom","id":"beefcafe","parentId":"a0000002","timestamp":"2026-03-02T10:00:03.000Z","customType":"x"}`;
    const { list } = complete(lines(HEADER, MODEL, USER, taken, "$0"), { now: () => NOW, random: digits("beefcafe0123abcd") });
    const value = JSON.parse(expandSnippet(edit(list.items[0]!).newText)) as Record<string, unknown>;
    expect(value.id).toBe("0123abcd");
    expect(value.parentId).toBe("beefcafe");
  });

  it("uses the leaf as parent when no entry is above, and the real clock and randomness by default", () => {
    const { doc, position } = documentWithCursor(lines(HEADER, "$0", MODEL, USER));
    const before = Date.now();
    const value = JSON.parse(expandSnippet(edit(computeCompletion(doc, position).items[4]!).newText)) as Record<string, unknown>;
    expect(value.parentId).toBe("a0000002");
    expect(value.id).toMatch(/^[0-9a-f]{8}$/);
    expect(Date.parse(value.timestamp as string)).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe("readTypedLine", () => {
  it("reads keys and values after the cursor until the text stops being JSON", () => {
    const scan = readTypedLine(`{"type":"label","targetId":"","id":"x","label":`, 28)!;
    expect(scan.at).toMatchObject({ kind: "string", isKey: false, path: ["targetId"] });
    expect(scan.type).toBe("label");
    expect([...scan.topKeys]).toEqual(["type", "targetId", "id", "label"]);
  });
});

/** A snippet with every placeholder replaced by its default (the first choice) and escapes removed. */
function expandSnippet(snippet: string): string {
  let out = "";
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i]!;
    if (c === "\\") {
      out += snippet[++i];
    } else if (c === "$" && snippet[i + 1] === "{") {
      const close = snippet.indexOf("}", i);
      const body = snippet.slice(i + 2, close);
      const colon = body.indexOf(":");
      const bar = body.indexOf("|");
      out += bar >= 0 && (colon < 0 || bar < colon) ? body.slice(bar + 1, body.lastIndexOf("|")).split(",")[0] : body.slice(colon + 1);
      i = close;
    } else if (c === "$") {
      while (/\d/.test(snippet[i + 1] ?? "")) i++;
    } else {
      out += c;
    }
  }
  return out;
}

describe("clients without snippets (snippetSupport: false, as Eglot without yasnippet and ALE)", () => {
  const plain = () => ({ ...options(), snippets: false });
  /** The line after applying an item's edit to the document, as the client would. */
  const applied = (doc: SessionDocument, item: CompletionItem): string => {
    const e = edit(item);
    const text = doc.getText();
    const lineStart = text.split("\n").slice(0, e.range.start.line).join("\n").length + (e.range.start.line > 0 ? 1 : 0);
    const start = lineStart + e.range.start.character;
    const end = lineStart + e.range.end.character;
    const after = text.slice(0, start) + e.newText + text.slice(end);
    return after.split("\n")[e.range.start.line]!;
  };

  it("inserts every new entry as plain text that is one valid JSON object, with real values", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, CALLS, "$0"), plain());
    expect(list.items.length).toBeGreaterThan(5);
    for (const item of list.items) {
      expect(item.insertTextFormat).toBe(1);
      expect(edit(item).newText).not.toMatch(/\$\{?\d|\\\}/);
      expect(item.insertText).toBe(edit(item).newText);
      const value = JSON.parse(applied(doc, item)) as Record<string, unknown>;
      expect(value.parentId).toBe("a0000003");
    }
    const result = JSON.parse(applied(doc, list.items.find((i) => i.label === "tool result")!)) as { message: { toolCallId: string } };
    expect(result.message.toolCallId).toBe("toolu_01");
  });

  it("inserts fields with their default values, so the line stays valid JSON", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, `{"type":"label","id":"x1",$0"x":1}`), plain());
    for (const item of list.items) {
      expect(item.insertTextFormat).toBe(1);
      expect(() => JSON.parse(applied(doc, item))).not.toThrow();
    }
    // Real values: a label's target is the entry above, not the word "targetId".
    expect(edit(list.items.find((i) => i.label === "targetId")!).newText).toBe('"targetId":"a0000001",');
    const model = complete(lines(HEADER, MODEL, `{"type":"model_change","id":"x1",$0"x":1}`), plain()).list;
    expect(edit(model.items.find((i) => i.label === "provider")!).newText).toBe('"provider":"anthropic",');
    expect(edit(model.items.find((i) => i.label === "modelId")!).newText).toBe('"modelId":"claude-sonnet-4-5",');
    const thinking = complete(lines(HEADER, MODEL, `{"type":"thinking_level_change","id":"x1",$0"x":1}`), plain()).list;
    expect(edit(thinking.items.find((i) => i.label === "thinkingLevel")!).newText).toBe('"thinkingLevel":"medium",');
  });

  it("still sends snippets to clients that take them", () => {
    const { list } = complete(lines(HEADER, MODEL, "$0"));
    expect(list.items.every((i) => i.insertTextFormat === 2)).toBe(true);
  });
});

describe("what Vim-style clients insert (Neovim 0.7's omni completion, ALE: the word before the cursor is replaced, the edit's start ignored)", () => {
  /** The line with `text` put over `range`, as a client that honours the edit's range does. */
  const byRange = (line: string, e: TextEdit): string => line.slice(0, e.range.start.character) + e.newText + line.slice(e.range.end.character);
  /** The line as Vim's omni completion leaves it: the word before the cursor replaced by the item's text. */
  const byWord = (line: string, cursor: number, text: string): string => {
    const word = /[A-Za-z0-9_]*$/.exec(line.slice(0, cursor))![0];
    return line.slice(0, cursor - word.length) + text + line.slice(cursor);
  };
  const cases = [
    `{"type":"model_change","id":"x1","parentId":"a0000001",$0`,
    `{"type":"model_change","id":"x1","parentId":"a0000001","$0`,
    `{"type":"model_change","id":"x1","parentId":"a0000001","pro$0`,
    `{"type":"message","id":"x1","parentId":"a0000001","timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"user","co$0`,
    `{"type":"mo$0`,
    `{"type":"message","id":"x1","parentId":"a0$0`,
  ];
  for (const source of cases) {
    it(`inserts the same as the edit says, and keeps every item whose text starts with the word typed: ${source}`, () => {
      const { list, doc } = complete(lines(HEADER, MODEL, source), { ...options(), snippets: false });
      expect(list.items.length).toBeGreaterThan(0);
      const cursor = source.indexOf("$0");
      const line = doc.lines[2]!;
      const word = /[A-Za-z0-9_]*$/.exec(line.slice(0, cursor))![0];
      for (const item of list.items) {
        const e = edit(item);
        expect(e.range.end.character, item.label).toBe(cursor);
        expect(byWord(line, cursor, e.newText), item.label).toBe(byRange(line, e));
      }
      // Vim keeps the items whose text starts with the word; the one named so is among them.
      const kept = list.items.filter((i) => edit(i).newText.startsWith(word));
      expect(kept.length).toBeGreaterThan(0);
    });
  }

  it("closes the string of a value not closed yet, so that the value is whole JSON", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, `{"type":"mo$0`));
    const item = list.items.find((i) => i.label === "model_change")!;
    expect(textOf(doc, edit(item).range)).toBe("mo");
    expect(edit(item).newText).toBe('model_change"');
    const ids = complete(lines(HEADER, MODEL, `{"type":"message","id":"x1","parentId":"a0$0`)).list;
    expect(ids.items.map((i) => edit(i).newText)).toEqual(['a0000001"']);
  });

  it("leaves a closed string's quote to the string", () => {
    const { list } = complete(lines(HEADER, MODEL, `{"type":"mo$0"}`));
    expect(edit(list.items.find((i) => i.label === "model_change")!).newText).toBe("model_change");
  });
});

describe("snippets a client fills in by itself", () => {
  it("sends a value chosen from a few as a placeholder holding the first, never a choice Neovim leaves empty", () => {
    const { list } = complete(lines(HEADER, MODEL, `{"type":"message","id":"x1","parentId":"a0000001","timestamp":"2026-03-02T10:00:09.000Z","message":{$0`));
    const role = list.items.find((i) => i.label === "role")!;
    expect(role.insertTextFormat).toBe(2);
    expect(edit(role).newText).toBe('"role":"${1:user}"');
    for (const item of complete(lines(HEADER, MODEL, CALLS, "$0")).list.items) expect(edit(item).newText, item.label).not.toMatch(/\$\{\d+\|/);
  });
});
