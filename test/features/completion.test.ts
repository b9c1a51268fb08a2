/**
 * Completion on `$0` cursor fixtures: entry types and roles, field names, entry ids (ordering and
 * the cap), open tool calls, new-entry snippets on a blank line (fresh ids with a colliding
 * random, the parent, the time), lines being typed (not yet valid JSON), lines with nothing to
 * complete, CRLF and surrogate pairs before the cursor.
 */

import { describe, expect, it } from "vitest";
import type { CompletionItem, CompletionList, TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/document";
import { scanLine } from "../../server/src/core/scan";
import { computeCompletion, MAX_ID_ITEMS } from "../../server/src/features/completion";
import { documentWithCursor, textOf } from "../helpers/cursor";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"Fix 🧪 the test","timestamp":1772445602000}}`;
const CALLS = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}},{"type":"toolCall","id":"toolu_02","name":"bash","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772445603000}}`;
const RESULT1 = `{"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2026-03-02T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1772445605000}}`;
const LABEL = `{"type":"label","id":"a0000005","parentId":"a0000004","timestamp":"2026-03-02T10:00:06.000Z","targetId":"a0000002","label":"start"}`;

const NOW = new Date("2026-11-29T14:00:00.000Z");
/** A deterministic random: the digits of `hex`, one per call (as i/16), then zeros. */
function digits(hex: string): () => number {
  let i = 0;
  return () => (i < hex.length ? parseInt(hex[i++]!, 16) / 16 : 0);
}
/** A fixed clock and a fresh deterministic random for each request. */
const options = () => ({ now: () => NOW, random: digits("beefcafe") });

function complete(source: string, opts = options()): { list: CompletionList; doc: SessionDocument } {
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

  it("offers quoted types right after the colon", () => {
    const { list } = complete(lines(HEADER, `{"type":$0`));
    expect(edit(list.items[0]!).newText).toBe('"message"');
  });

  it("offers roles inside a message role, also on a line still being typed", () => {
    const { list, doc } = complete(
      lines(HEADER, MODEL, `{"type":"message","id":"x1","parentId":"a0000001","timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"$0"`),
    );
    expect(labels(list)).toEqual(expect.arrayContaining(["user", "assistant", "toolResult", "bashExecution", "system"]));
    const toolResult = list.items.find((i) => i.label === "toolResult")!;
    expect((toolResult.documentation as { value: string }).value).toMatch(/To the model/);
    expect(textOf(doc, edit(toolResult).range)).toBe("");
  });
});

describe("field names", () => {
  it("offers the missing fields of the entry type at a key position", () => {
    const { list } = complete(lines(HEADER, MODEL, `{"type":"label","id":"x1",$0}`));
    expect(labels(list)).toEqual(["parentId", "timestamp", "targetId", "label"]);
    const target = list.items.find((i) => i.label === "targetId")!;
    expect(target.insertTextFormat).toBe(2);
    expect(edit(target).newText).toBe('"targetId":"${1:targetId}"');
    // parentId defaults to the entry above, timestamp to now.
    expect(edit(list.items[0]!).newText).toBe('"parentId":"${1:a0000001}"');
    expect(edit(list.items[1]!).newText).toBe('"timestamp":"${1:2026-11-29T14:00:00.000Z}"');
  });

  it("adds a comma when a member follows, and replaces a key being typed", () => {
    const before = complete(lines(HEADER, `{"type":"model_change",$0 "id":"x1"}`)).list;
    expect(edit(before.items.find((i) => i.label === "provider")!).newText).toBe('"provider":"${1:provider}",');
    const { list, doc } = complete(lines(HEADER, `{"type":"model_change","id":"x1","pro$0"}`));
    const provider = list.items.find((i) => i.label === "provider")!;
    expect(textOf(doc, edit(provider).range)).toBe('"pro"');
    expect(provider.filterText).toBe('"provider"');
  });

  it("offers only the key name when a colon already follows it", () => {
    const { list } = complete(lines(HEADER, `{"type":"model_change","id":"x1","mo$0":"m"}`));
    expect(edit(list.items.find((i) => i.label === "modelId")!).newText).toBe('"modelId"');
  });

  it("offers the message field with a choice of the roles Pi stores", () => {
    const { list } = complete(lines(HEADER, `{"type":"message","id":"x1","parentId":null,"timestamp":"2026-03-02T10:00:09.000Z",$0}`));
    expect(labels(list)).toEqual(["message"]);
    expect(edit(list.items[0]!).newText).toBe('"message":{"role":"${1|user,assistant,toolResult,bashExecution,custom,system|}"$0\\}');
  });

  it("offers the role's fields inside the message object, with message timestamps in ms", () => {
    const { list } = complete(
      lines(HEADER, `{"type":"message","id":"x1","parentId":null,"timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"toolResult",$0}}`),
    );
    expect(labels(list)).toEqual(["toolCallId", "toolName", "content", "isError", "timestamp"]);
    expect(edit(list.items.find((i) => i.label === "timestamp")!).newText).toBe(`"timestamp":\${1:${NOW.getTime()}}`);
    expect(edit(list.items.find((i) => i.label === "isError")!).newText).toBe('"isError":${1|false,true|}');
  });
});

describe("entry ids", () => {
  const many = (n: number): string[] =>
    Array.from(
      { length: n },
      (_, i) =>
        `{"type":"custom","id":"e${String(i).padStart(7, "0")}","parentId":${i === 0 ? "null" : `"e${String(i - 1).padStart(7, "0")}"`},"timestamp":"2026-03-02T10:00:01.000Z","customType":"x"}`,
    );

  it("puts the leaf first, then entries by distance from the cursor, above winning ties", () => {
    const entries = many(9);
    entries[4] = `{"type":"label","id":"e0000004","parentId":"e0000003","timestamp":"2026-03-02T10:00:01.000Z","targetId":"$0","label":"x"}`;
    const { list, doc } = complete(lines(HEADER, ...entries));
    expect(labels(list)).toEqual(["e0000008", "e0000003", "e0000005", "e0000002", "e0000006", "e0000001", "e0000007", "e0000000"]);
    expect(list.isIncomplete).toBe(false);
    const first = list.items[0]!;
    expect(first.detail).toBe("custom: x");
    expect((first.documentation as { value: string }).value).toMatch(/^Line 10 · the current leaf/);
    expect(textOf(doc, edit(first).range)).toBe("");
  });

  it("never offers the entry itself or, for a parent, one of its descendants", () => {
    const entries = many(6);
    entries[2] = entries[2]!.replace('"parentId":"e0000001"', '"parentId":"$0e0000001"');
    expect(labels(complete(lines(HEADER, ...entries)).list)).toEqual(["e0000001", "e0000000"]);
    // A label may name any entry but itself.
    const label = `{"type":"label","id":"e0000006","parentId":"e0000005","timestamp":"2026-03-02T10:00:01.000Z","targetId":"$0","label":"x"}`;
    expect(labels(complete(lines(HEADER, ...entries.slice(0, 6).map((l) => l.replace("$0", "")), label)).list)).toEqual([
      "e0000005",
      "e0000004",
      "e0000003",
      "e0000002",
      "e0000001",
      "e0000000",
    ]);
  });

  it("filters by what is typed and replaces the whole string content", () => {
    const { list, doc } = complete(
      lines(
        HEADER,
        MODEL,
        USER,
        `{"type":"message","id":"b1","parentId":"a00$0zz","timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"user","content":"x","timestamp":1}}`,
      ),
    );
    expect(labels(list)).toEqual(["a0000002", "a0000001"]);
    expect(textOf(doc, edit(list.items[0]!).range)).toBe("a00zz");
  });

  it("completes firstKeptEntryId and fromId, but not a field that names no entry", () => {
    expect(
      labels(
        complete(
          lines(
            HEADER,
            MODEL,
            USER,
            `{"type":"compaction","id":"c1","parentId":"a0000002","timestamp":"2026-03-02T10:00:09.000Z","summary":"s","firstKeptEntryId":"$0","tokensBefore":1}`,
          ),
        ).list,
      ),
    ).toEqual(["a0000002", "a0000001"]);
    expect(
      labels(
        complete(
          lines(
            HEADER,
            MODEL,
            USER,
            `{"type":"branch_summary","id":"c1","parentId":"a0000002","timestamp":"2026-03-02T10:00:09.000Z","fromId":"$0","summary":"s"}`,
          ),
        ).list,
      ),
    ).toEqual(["a0000002", "a0000001"]);
    expect(
      complete(lines(HEADER, MODEL, `{"type":"custom","id":"c1","parentId":null,"timestamp":"2026-03-02T10:00:09.000Z","customType":"$0"}`)).list.items,
    ).toEqual([]);
  });

  it("caps the list and says so", () => {
    const entries = many(MAX_ID_ITEMS + 50);
    const { list } = complete(lines(HEADER, ...entries, `{"type":"label","id":"z1","parentId":"$0"}`));
    expect(list.items).toHaveLength(MAX_ID_ITEMS);
    expect(list.isIncomplete).toBe(true);
    expect(new Set(labels(list)).size).toBe(MAX_ID_ITEMS);
  });
});

describe("tool call ids", () => {
  it("offers the calls on the path that have no result yet, nearest first", () => {
    const later = `{"type":"message","id":"a0000006","parentId":"a0000005","timestamp":"2026-03-02T10:00:07.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_03","name":"edit","arguments":{}}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}}`;
    const result = `{"type":"message","id":"a0000007","parentId":"a0000006","timestamp":"2026-03-02T10:00:08.000Z","message":{"role":"toolResult","toolCallId":"$0","toolName":"edit","content":[],"isError":false,"timestamp":1}}`;
    const { list } = complete(lines(HEADER, MODEL, USER, CALLS, RESULT1, LABEL, later, result));
    expect(labels(list)).toEqual(["toolu_03", "toolu_02"]);
    expect(list.items[0]!.detail).toBe("toolCall edit");
  });

  it("follows the parentId of a line still being typed", () => {
    const { list } = complete(
      lines(
        HEADER,
        MODEL,
        USER,
        CALLS,
        `{"type":"message","id":"r2","parentId":"a0000003","timestamp":"2026-03-02T10:00:08.000Z","message":{"role":"toolResult","toolCallId":"$0`,
      ),
    );
    expect(labels(list)).toEqual(["toolu_01", "toolu_02"]);
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

  it("offers them for a word typed on an empty line, replacing it", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, `  comp$0`));
    expect(labels(list)).toContain("compaction");
    const item = list.items.find((i) => i.label === "compaction")!;
    expect(textOf(doc, edit(item).range)).toBe("  comp");
    expect(item.filterText).toBe("  compaction");
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

  it("offers the nearest open tool call in the tool result snippet", () => {
    const { list } = complete(lines(HEADER, MODEL, USER, CALLS, RESULT1, "$0"));
    const value = JSON.parse(expandSnippet(edit(list.items[2]!).newText)) as { message: Record<string, unknown> };
    expect(value.message.toolCallId).toBe("toolu_02");
    expect(value.message.toolName).toBe("bash");
  });

  it("offers a header in an empty file", () => {
    const { list } = complete("$0");
    expect(labels(list)).toEqual(["session header"]);
    const header = JSON.parse(expandSnippet(edit(list.items[0]!).newText)) as Record<string, unknown>;
    expect(header).toMatchObject({ type: "session", version: 3, timestamp: "2026-11-29T14:00:00.000Z", cwd: "/home/user/project" });
    expect(header.id).toBe("01a2279b-0300-7bee-bcaf-e00000000000");
  });

  it("offers nothing on a blank line before a valid header", () => {
    expect(complete(`$0\n${lines(HEADER, MODEL)}`).list.items).toEqual([]);
  });
});

describe("nothing to complete", () => {
  it.each([
    ["a malformed line", `not json $0`],
    ["a line broken before the cursor", `{"type" "label", "targetId":"$0"}`],
    ["a number", `{"type":"compaction","tokensBefore":12$0}`],
    ["after the root object", `{"type":"label"} $0`],
    ["after a value, where a comma is due", `{"type":"label" $0}`],
    ["a string that is not completed", `{"type":"label","label":"sta$0rt"}`],
    ["a nested object that is not the message", `{"type":"compaction","details":{$0}}`],
    ["the header", `{"type":"session","id":"$0"}`],
  ])("%s", (_name, line) => {
    expect(complete(lines(HEADER, MODEL, line)).list.items).toEqual([]);
  });
});

describe("positions", () => {
  it("uses UTF-16 columns after surrogate pairs", () => {
    const { list, doc } = complete(lines(HEADER, MODEL, `{"type":"label","label":"🧪𝄞","targetId":"a0$0"}`));
    expect(labels(list)).toEqual(["a0000001"]);
    expect(textOf(doc, edit(list.items[0]!).range)).toBe("a0");
  });

  it("works on CRLF files", () => {
    const source = [HEADER, MODEL, USER, `{"type":"label","label":"é🧪","targetId":"$0"}`, "$0"].join("\r\n");
    const first = source.indexOf("$0");
    const { doc, position } = documentWithCursor(source.slice(0, first + 2) + source.slice(first + 2).replace("$0", ""));
    const list = computeCompletion(doc, position, options());
    expect(labels(list)).toEqual(["a0000002", "a0000001"]);
    expect(textOf(doc, edit(list.items[0]!).range)).toBe("");
    // A blank line in a CRLF file: the snippet replaces the line, not its ending.
    const blank = documentWithCursor([HEADER, MODEL, USER, "$0", ""].join("\r\n"));
    const item = computeCompletion(blank.doc, blank.position, options()).items[0]!;
    expect(edit(item).range.end).toEqual({ line: 3, character: 0 });
  });

  it("skips a byte order mark on the first line", () => {
    const { list } = complete(`\ufeff{"type":$0`);
    expect(list.items[0]!.label).toBe("message");
  });
});

describe("scanLine", () => {
  it("reads keys and values after the cursor until the text stops being JSON", () => {
    const scan = scanLine(`{"type":"label","targetId":"","id":"x","label":`, 28)!;
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

describe("firstKeptEntryId candidates", () => {
  it("offer the compaction's ancestors first, nearest first, before the leaf and other branches", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}';
    const msg = (id: string, parent: string | null) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}`;
    const compaction =
      '{"type":"compaction","id":"c1","parentId":"a3","timestamp":"2026-03-02T10:00:05.000Z","summary":"S","firstKeptEntryId":"$0","tokensBefore":10}';
    const { doc, position } = documentWithCursor(
      [header, msg("a1", null), msg("a2", "a1"), msg("b2", "a1"), msg("a3", "a2"), compaction, msg("z9", "b2")].join("\n"),
    );
    const labels = computeCompletion(doc, position).items.map((i) => i.label);
    expect(labels.slice(0, 3)).toEqual(["a3", "a2", "a1"]);
    expect(labels).toContain("z9");
    expect(labels).not.toContain("c1");
  });
});

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
    expect(edit(list.items.find((i) => i.label === "targetId")!).newText).toBe('"targetId":"targetId",');
  });

  it("still sends snippets to clients that take them", () => {
    const { list } = complete(lines(HEADER, MODEL, "$0"));
    expect(list.items.every((i) => i.insertTextFormat === 2)).toBe(true);
  });
});
