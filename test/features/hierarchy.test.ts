/**
 * Type and call hierarchy over the session tree, on `$0` cursor fixtures.
 * Items are shown as `line:name`, ranges as `line:text` of what they cover, so expectations read
 * as the session does.
 */

import { describe, expect, it } from "vitest";
import type { CallHierarchyItem, Range, TypeHierarchyItem } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { entryTitle } from "../../server/src/features/entryTitle";
import {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  resolveHierarchyItem,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
  type HierarchyItem,
} from "../../server/src/features/hierarchy";
import { documentWithCursor, textOf } from "../helpers/cursor";

const H = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const ts = (second: number) => `2026-03-02T10:${String(Math.floor(second / 60)).padStart(2, "0")}:${String(second % 60).padStart(2, "0")}.000Z`;
const link = (parent: string | null) => (parent === null ? "null" : JSON.stringify(parent));
const user = (id: string, parent: string | null, text: string, second = 1) =>
  `{"type":"message","id":"${id}","parentId":${link(parent)},"timestamp":"${ts(second)}","message":{"role":"user","content":${JSON.stringify(text)},"timestamp":1772445601000}}`;
const assistant = (id: string, parent: string, text: string, second = 2) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"${ts(second)}","message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(text)}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1772445602000}}`;

/** `line:name` of each item. */
function names(items: readonly { name: string; range: Range }[]): string[] {
  return items.map((i) => `${i.range.start.line}:${i.name}`);
}

function texts(doc: SessionDocument, ranges: readonly Range[]): string[] {
  return ranges.map((r) => `${r.start.line}:${textOf(doc, r)}`);
}

/** The document and the single item prepared at the cursor. */
function prepare(source: string): { doc: SessionDocument; item: HierarchyItem } {
  const { doc, position } = documentWithCursor(source);
  const items = prepareHierarchy(doc, position);
  expect(items).toHaveLength(1);
  return { doc, item: items[0]! };
}

describe("prepareHierarchy", () => {
  it("names the entry on the cursor's line and selects its id", () => {
    const { doc, item } = prepare(
      [H, user("a1", null, "Fix the failing test in parser.ts please, it broke yesterday"), assistant("b1", "a1", "Looking$0.")].join("\n"),
    );
    expect(item.name).toBe('assistant: "Looking."');
    expect(item.range).toEqual({ start: { line: 2, character: 0 }, end: { line: 2, character: doc.lines[2]!.length } });
    expect(textOf(doc, item.selectionRange)).toBe('"b1"');
    expect(item.detail).toBe("b1 · line 3 · active path");
    expect(item.data).toEqual({ uri: "file:///fixture.jsonl", version: 1, entryId: "b1", line: 2 });
    // The item is valid as both LSP item types.
    const asCall: CallHierarchyItem = item;
    const asType: TypeHierarchyItem = item;
    expect(asCall.kind).toBe(asType.kind);
  });

  it("works anywhere on the line, including after emoji and CJK text", () => {
    const line = user("a1", null, "修正してください 🙂 the test");
    const at = line.indexOf("🙂") + 2; // between the two halves' end and the space
    const { doc, item } = prepare([H, `${line.slice(0, at)}$0${line.slice(at)}`].join("\n"));
    expect(item.name).toBe('user: "修正してください 🙂 the test"');
    expect(textOf(doc, item.selectionRange)).toBe('"a1"');
  });

  it("keeps ranges inside the line in a CRLF file", () => {
    const { doc, item } = prepare([H, user("a1", null, "hi"), assistant("b1", "a1", "there$0")].join("\r\n"));
    expect(doc.lines[2]!.endsWith("}")).toBe(true);
    expect(textOf(doc, item.range)).toBe(doc.lines[2]);
    expect(names(typeHierarchySupertypes(doc, item))).toEqual(['1:user: "hi"']);
    expect(texts(doc, callHierarchyOutgoingCalls(doc, item)[0]!.fromRanges)).toEqual(['2:"a1"']);
  });

  it("titles long user text like the outline does", () => {
    const { item } = prepare([H, user("a1", null, "Fix the failing test in parser.ts please,\n it broke yesterday$0")].join("\n"));
    expect(item.name).toBe('user: "Fix the failing test in parser.ts please…"');
  });

  it("has nothing on the header, a blank line or past the end", () => {
    const { doc, position } = documentWithCursor([H.replace("session", "ses$0sion"), user("a1", null, "hi"), ""].join("\n"));
    expect(prepareHierarchy(doc, position)).toEqual([]);
    expect(prepareHierarchy(doc, { line: 2, character: 0 })).toEqual([]);
    expect(prepareHierarchy(doc, { line: 99, character: 0 })).toEqual([]);
  });
});

describe("type hierarchy", () => {
  it("a root has no supertype and its children as subtypes", () => {
    const { doc, item } = prepare([H, user("a1", null, "$0hi"), assistant("b1", "a1", "hello")].join("\n"));
    expect(typeHierarchySupertypes(doc, item)).toEqual([]);
    expect(names(typeHierarchySubtypes(doc, item))).toEqual(['2:assistant: "hello"']);
  });

  it("a branch point has its branches as subtypes, sorted by time then file order", () => {
    const { doc, item } = prepare(
      [
        H,
        user("a1", null, "start", 1),
        assistant("b1", "a1$0", "first", 2),
        user("late", "b1", "later branch", 50),
        user("early", "b1", "earlier branch", 10),
        user("tie", "b1", "same time as early", 10),
      ].join("\n"),
    );
    expect(item.name).toBe('assistant: "first"');
    expect(names(typeHierarchySubtypes(doc, item))).toEqual(['4:user: "earlier branch"', '5:user: "same time as early"', '3:user: "later branch"']);
    expect(names(typeHierarchySupertypes(doc, item))).toEqual(['1:user: "start"']);
    // Each subtype leads back to the branch point.
    for (const child of typeHierarchySubtypes(doc, item)) expect(names(typeHierarchySupertypes(doc, child))).toEqual(['2:assistant: "first"']);
  });

  it("orders subtypes as the real Pi's getTree does, a timestamp Date reads in another form included", () => {
    // Pi 0.74.2 and 1.6.0 give u1's children of this session in the order b3, b4, b1, b2.
    const { doc, item } = prepare(
      [
        H,
        user("u1", null, "Pick$0 one.", 1),
        user("b1", "u1", "Same time, first in the file.", 5),
        user("b2", "u1", "Same time, second in the file.", 5),
        user("b3", "u1", "Read by Date, earliest.", 50).replace(ts(50), "Mon, 02 Mar 2026 10:00:03 GMT"),
        user("b4", "u1", "Between.", 4),
      ].join("\n"),
    );
    expect(typeHierarchySubtypes(doc, item).map((i) => (i.data as { entryId: string }).entryId)).toEqual(["b3", "b4", "b1", "b2"]);
  });

  // Pi's comparator gives NaN against an unreadable time, and its sort then keeps file order
  // (checked with the real Pi 0.74.2 and 1.6.0: getTree).
  it("a timestamp Date cannot read leaves its siblings in file order, as Pi's sort does", () => {
    const { doc, item } = prepare(
      [H, user("a1", null, "root$0"), user("x", "a1", "bad time").replace(ts(1), "yesterday"), user("y", "a1", "good", 30)].join("\n"),
    );
    expect(names(typeHierarchySubtypes(doc, item))).toEqual(['2:user: "bad time"', '3:user: "good"']);
  });

  it("a dangling parentId has no supertype", () => {
    const { doc, item } = prepare([H, user("a1", null, "hi"), user("a2", "zz", "orphan$0")].join("\n"));
    expect(typeHierarchySupertypes(doc, item)).toEqual([]);
    expect(item.detail).toBe("a2 · line 3 · active path · dangling parentId");
    expect(callHierarchyOutgoingCalls(doc, item)).toEqual([]);
  });

  it("a duplicated id resolves to its last holder, as in Pi", () => {
    const source = [H, user("a1", null, "first holder$0"), user("a1", null, "second holder", 3), assistant("b1", "a1", "child of the id")];
    const { doc, item } = prepare(source.join("\n"));
    // The first holder keeps its own identity, but no child resolves to it.
    expect(item.detail).toBe("a1 · line 2 · duplicate id, shadowed");
    expect(resolveHierarchyItem(doc, item)?.line).toBe(1);
    expect(typeHierarchySubtypes(doc, item)).toEqual([]);
    expect(callHierarchyIncomingCalls(doc, item)).toEqual([]);
    const last = prepareHierarchy(doc, { line: 2, character: 5 })[0]!;
    expect(names(typeHierarchySubtypes(doc, last))).toEqual(['3:assistant: "child of the id"']);
    const child = prepareHierarchy(doc, { line: 3, character: 5 })[0]!;
    expect(names(typeHierarchySupertypes(doc, child))).toEqual(['2:user: "second holder"']);
  });

  it("a parent cycle still resolves, one step at a time, without hanging", () => {
    const { doc, item } = prepare([H, user("a1", "b1", "in the cycle$0"), assistant("b1", "a1", "also in it"), user("c1", "c1", "its own parent")].join("\n"));
    expect(item.detail).toBe("a1 · line 2 · in a parent cycle");
    let current = item;
    const seen: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const up = typeHierarchySupertypes(doc, current);
      expect(up).toHaveLength(1);
      current = up[0]!;
      if (i < 4) seen.push(names([current])[0]!);
    }
    expect(seen).toEqual(['2:assistant: "also in it"', '1:user: "in the cycle"', '2:assistant: "also in it"', '1:user: "in the cycle"']);
    expect(names(typeHierarchySubtypes(doc, item))).toEqual(['2:assistant: "also in it"']);
    const self = prepareHierarchy(doc, { line: 3, character: 3 })[0]!;
    expect(names(typeHierarchySupertypes(doc, self))).toEqual(['3:user: "its own parent"']);
    expect(names(typeHierarchySubtypes(doc, self))).toEqual(['3:user: "its own parent"']);
  });
});

describe("call hierarchy", () => {
  const session = [
    H,
    user("a1", null, "start", 1),
    assistant("t1", "a1", "the target", 2), // line 2
    user("k1", "t1", "continue", 3), // line 3: child of t1
    `{"type":"compaction","id":"c1","parentId":"k1","timestamp":"${ts(4)}","summary":"S","firstKeptEntryId":"t1","tokensBefore":48210}`, // line 4
    `{"type":"branch_summary","id":"s1","parentId":"t1","timestamp":"${ts(5)}","fromId":"t1","summary":"Tried another way."}`, // line 5: child and reference
    `{"type":"label","id":"l1","parentId":"c1","timestamp":"${ts(6)}","targetId":"t1","label":"checkpoint-1"}`, // line 6
    `{"type":"context_edit","id":"e1","parentId":"l1","timestamp":"${ts(7)}","targetId":"t1","replacement":null}`, // line 7
    `{"type":"label","id":"l2","parentId":"e1","timestamp":"${ts(8)}","targetId":"gone","label":"x"}`, // line 8: dangling target
  ];

  it("incoming calls are the children at their parentId, then the entries that name this one", () => {
    const source = [...session];
    source[2] = source[2]!.replace('"id":"t1"', '"id":"t$01"');
    const { doc, item } = prepare(source.join("\n"));
    const calls = callHierarchyIncomingCalls(doc, item);
    expect(calls.map((c) => ({ from: names([c.from])[0], at: texts(doc, c.fromRanges) }))).toEqual([
      { from: '3:user: "continue"', at: ['3:"t1"'] },
      { from: '5:branch summary: "Tried another way."', at: ['5:"t1"', '5:"t1"'] },
      { from: "4:compaction (48,210 tokens)", at: ['4:"t1"'] },
      { from: "6:label: checkpoint-1", at: ['6:"t1"'] },
      { from: "7:context edit → t1 (remove)", at: ['7:"t1"'] },
    ]);
    // The branch summary's two ranges are its parentId and its fromId.
    const both = calls[1]!.fromRanges.map((r) => doc.lines[5]!.slice(0, r.start.character).match(/"(\w+)":$/)?.[1]);
    expect(both).toEqual(["parentId", "fromId"]);
  });

  it("outgoing calls are the parent, then the entry this one names", () => {
    const { doc } = prepare(session.join("\n").replace("checkpoint-1", "checkpoint$0-1"));
    const label = prepareHierarchy(doc, { line: 6, character: 0 })[0]!;
    const out = callHierarchyOutgoingCalls(doc, label);
    expect(out.map((c) => ({ to: names([c.to])[0], at: texts(doc, c.fromRanges) }))).toEqual([
      { to: "4:compaction (48,210 tokens)", at: ['6:"c1"'] },
      { to: '2:assistant: "the target"', at: ['6:"t1"'] },
    ]);
    // A branch summary whose fromId is its parent (Pi 0.73) names it once, with both ranges.
    const summary = prepareHierarchy(doc, { line: 5, character: 0 })[0]!;
    expect(callHierarchyOutgoingCalls(doc, summary).map((c) => ({ to: names([c.to])[0], at: texts(doc, c.fromRanges) }))).toEqual([
      { to: '2:assistant: "the target"', at: ['5:"t1"', '5:"t1"'] },
    ]);
    // A dangling target is left out; the parent remains.
    const dangling = prepareHierarchy(doc, { line: 8, character: 0 })[0]!;
    expect(callHierarchyOutgoingCalls(doc, dangling).map((c) => names([c.to])[0])).toEqual(["7:context edit → t1 (remove)"]);
  });

  it("a root has no outgoing calls and a leaf no incoming ones", () => {
    const { doc, item } = prepare([H, user("a1", null, "$0only")].join("\n"));
    expect(callHierarchyOutgoingCalls(doc, item)).toEqual([]);
    expect(callHierarchyIncomingCalls(doc, item)).toEqual([]);
  });
});

describe("items after an edit", () => {
  const source = [H, user("a1", null, "root"), assistant("b1", "a1", "reply$0"), user("c1", "b1", "next", 3)].join("\n");

  it("follow their entry when lines move", () => {
    const { doc, item } = prepare(source);
    doc.update([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: `${user("z0", null, "inserted")}\n` }], 2);
    expect(resolveHierarchyItem(doc, item)?.line).toBe(3);
    expect(names(typeHierarchySupertypes(doc, item))).toEqual(['2:user: "root"']);
    expect(names(typeHierarchySubtypes(doc, item))).toEqual(['4:user: "next"']);
  });

  it("answer nothing once the entry is gone or its line holds another id", () => {
    const { doc, item } = prepare(source);
    const line2 = doc.lines[2]!;
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: line2.length } }, text: line2.replace('"b1"', '"b2"') }], 2);
    expect(resolveHierarchyItem(doc, item)).toBeUndefined();
    expect(typeHierarchySupertypes(doc, item)).toEqual([]);
    expect(typeHierarchySubtypes(doc, item)).toEqual([]);
    expect(callHierarchyIncomingCalls(doc, item)).toEqual([]);
    expect(callHierarchyOutgoingCalls(doc, item)).toEqual([]);
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: "" }], 3);
    expect(typeHierarchySupertypes(doc, item)).toEqual([]);
  });

  it("never throw on data that is not ours", () => {
    const { doc, item } = prepare(source);
    const bad: unknown[] = [
      undefined,
      null,
      42,
      "x",
      {},
      { line: -1, entryId: "b1" },
      { line: 2.5, entryId: "b1" },
      { line: 2, entryId: 7 },
      { line: "2", entryId: "b1" },
    ];
    for (const data of bad) {
      const other = { ...item, data } as unknown as HierarchyItem;
      expect(typeHierarchySupertypes(doc, other)).toEqual([]);
      expect(callHierarchyIncomingCalls(doc, other)).toEqual([]);
    }
    expect(typeHierarchySupertypes(doc, { ...item, uri: "file:///other.jsonl" })).toEqual([]);
    expect(typeHierarchySupertypes(doc, { ...item, data: { ...item.data, line: 999 } })).toHaveLength(1); // found by id
  });
});

describe("a 50,000-deep chain", () => {
  const depth = 50_000;
  const lines = [H];
  for (let i = 0; i < depth; i++)
    lines.push(i % 2 === 0 ? user(`e${i}`, i === 0 ? null : `e${i - 1}`, `turn ${i}`) : assistant(`e${i}`, `e${i - 1}`, `answer ${i}`));
  const doc = new SessionDocument("file:///deep.jsonl", "jsonl", 1, lines.join("\n"));

  // How fast is the benchmark's business (bench/inprocess.mjs); this pins that each answer is one level.
  it("prepares and expands one level, anywhere in the chain", () => {
    for (const line of [1, 25_000, depth]) {
      const item = prepareHierarchy(doc, { line, character: 10 })[0]!;
      expect(callHierarchyIncomingCalls(doc, item).length).toBeLessThanOrEqual(1);
      expect(callHierarchyOutgoingCalls(doc, item).length).toBeLessThanOrEqual(1);
      expect(item.name).toBe((line - 1) % 2 === 0 ? `user: "turn ${line - 1}"` : `assistant: "answer ${line - 1}"`);
      expect(names(typeHierarchySupertypes(doc, item))).toEqual(line === 1 ? [] : [`${line - 1}:${entryTitle(doc.analysis.entryAtLine[line - 1]!)}`]);
      expect(typeHierarchySubtypes(doc, item).map((i) => i.range.start.line)).toEqual(line === depth ? [] : [line + 1]);
    }
  });
});

describe("entryTitle", () => {
  const title = (line: string) => entryTitle(new SessionDocument("file:///t.jsonl", "jsonl", 1, `${H}\n${line}`).analysis.entries[0]!);
  const base = '"id":"x","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z"';

  it("names every entry type the way the outline shows it", () => {
    expect(title(`{"type":"compaction",${base},"summary":"S","firstKeptEntryId":"a","tokensBefore":48210}`)).toBe("compaction (48,210 tokens)");
    expect(title(`{"type":"label",${base},"targetId":"a","label":"checkpoint-1"}`)).toBe("label: checkpoint-1");
    expect(title(`{"type":"label",${base},"targetId":"a","label":""}`)).toBe("label: (cleared)");
    expect(title(`{"type":"session_info",${base},"name":"  Refactor parser  "}`)).toBe("session name: Refactor parser");
    expect(title(`{"type":"model_change",${base},"provider":"anthropic","modelId":"claude-sonnet-4-5"}`)).toBe("model: anthropic/claude-sonnet-4-5");
    expect(title(`{"type":"thinking_level_change",${base},"thinkingLevel":"high"}`)).toBe("thinking: high");
    expect(title(`{"type":"branch_summary",${base},"fromId":"a","summary":"Tried the regex approach."}`)).toBe('branch summary: "Tried the regex approach."');
    expect(title(`{"type":"context_edit",${base},"targetId":"a","replacement":{"content":"x"}}`)).toBe("context edit → a");
    expect(title(`{"type":"usage",${base},"kind":"cache_warm","provider":"p","model":"m","usage":{}}`)).toBe("usage: cache_warm");
    expect(title(`{"type":"custom",${base},"customType":"todo-state"}`)).toBe("custom: todo-state");
    expect(title(`{"type":"mystery",${base}}`)).toBe("mystery");
    expect(title(`{${base}}`)).toBe("(no type)");
  });

  it("names messages by role with a bounded preview", () => {
    const msg = (m: object) => title(`{"type":"message",${base},"message":${JSON.stringify(m)}}`);
    expect(
      msg({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "toolCall", id: "c", name: "read", arguments: {} },
          { type: "toolCall", id: "d", name: "edit", arguments: {} },
        ],
      }),
    ).toBe("assistant: toolCall read, edit");
    expect(msg({ role: "toolResult", toolCallId: "c", toolName: "bash", content: [{ type: "text", text: "exit 1" }], isError: true })).toBe(
      "toolResult: bash (error)",
    );
    expect(msg({ role: "bashExecution", command: "npm test", output: "" })).toBe('bashExecution: "npm test"');
    expect(msg({ role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] })).toBe("user: (image)");
    expect(msg({ role: "user", content: "x".repeat(400_000) })).toBe(`user: "${"x".repeat(40)}…"`);
    expect(msg({ role: "user", content: `${"a".repeat(39)}🙂 and more` })).toBe(`user: "${"a".repeat(39)}🙂…"`);
  });
});

describe("a branch point with 100,000 children", () => {
  const lines = [H, user("root", null, "start")];
  for (let i = 0; i < 100_000; i++) lines.push(assistant(`c${i}`, "root", `try ${i}`));
  const doc = new SessionDocument("file:///wide.jsonl", "jsonl", 1, lines.join("\n"));

  it("lists 1,000 subtypes and incoming calls, then says how many more", () => {
    const item = prepareHierarchy(doc, { line: 1, character: 5 })[0]!;
    const subtypes = typeHierarchySubtypes(doc, item);
    expect(subtypes).toHaveLength(1001);
    expect(subtypes[1000]!.name).toBe("… 99,000 more children (the list stops at 1,000)");
    expect(subtypes[1000]!.data).toBeNull();
    expect(typeHierarchySubtypes(doc, subtypes[1000]!)).toEqual([]);
    const incoming = callHierarchyIncomingCalls(doc, item);
    expect(incoming).toHaveLength(1001);
    expect(incoming[1000]!.from.name).toMatch(/^… 99,000 more entries that name it/);
  });
});
