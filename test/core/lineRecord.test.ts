/**
 * How a line's record holds its facts compactly (`core/lineRecord.ts`) and how the analysis' entries
 * read them through it (`core/analysis.ts`): whatever the storage, every fact reads as parsed, packs
 * for another thread as before, and follows an edit.
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/document";
import type { CachedValueLine } from "../../server/src/core/lineRecord";
import type { ParsedLine } from "../../server/src/core/parse";

const T = "2026-03-02T10:00:00.000Z";
const line = (value: unknown) => JSON.stringify(value);
const header = line({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000aa", timestamp: T, cwd: "/p" });
const call = line({
  type: "message",
  id: "a1",
  parentId: null,
  timestamp: T,
  message: { role: "assistant", provider: "anthropic", model: "claude", content: [{ type: "toolCall", id: "toolu_01", name: "read", arguments: {} }] },
});
const result = line({
  type: "message",
  id: "r1",
  parentId: "a1",
  timestamp: T,
  message: { role: "toolResult", toolCallId: "toolu_01", toolName: "read", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 1 },
});

describe("the analysis' entries", () => {
  it("read their ids and type through their parse, and the edited parse after an edit in place", () => {
    const doc = new SessionDocument("file:///entries.jsonl", "jsonl", 1, `${header}\n${call}\n${result}\n`);
    const analysis = doc.analysis;
    expect(analysis.entries.map((e) => [e.index, e.line, e.id, e.parentId, e.key, e.parentKey, e.type])).toEqual([
      [0, 1, "a1", null, "a1", null, "message"],
      [1, 2, "r1", "a1", "r1", "a1", "message"],
    ]);
    for (const entry of analysis.entries) expect(entry.parsed).toBe(doc.parsed[entry.line] as ParsedLine);
    // Typing inside the result keeps the structure: the entry is reused with the new parse.
    const at = doc.lines[2]!.indexOf('"ok"') + 1;
    doc.update([{ range: { start: { line: 2, character: at }, end: { line: 2, character: at } }, text: "still " }], 2);
    const next = doc.analysis;
    expect(next.entries[1]).toBe(analysis.entries[1]);
    expect(next.entries[1]!.parsed).toBe(doc.parsed[2] as ParsedLine);
    expect((next.entries[1]!.parsed as CachedValueLine).text).toContain("still ok");
    expect([next.entries[1]!.id, next.entries[1]!.parentKey, next.entries[1]!.type]).toEqual(["r1", "a1", "message"]);
  });
});
