/**
 * How a line's record holds its facts compactly (`core/line/record.ts`) and how the analysis' entries
 * read them through it (`core/session/analysis.ts`): whatever the storage, every fact reads as parsed, packs
 * for another thread as before, and follows an edit.
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { CachedValueLine, unpackedLine } from "../../server/src/core/line/record";
import { parseLine } from "../../server/src/core/line/parse";
import type { ParsedLine, ValueLine } from "../../server/src/core/line/facts";

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

function value(text: string): CachedValueLine {
  const parsed = parseLine(text);
  if (!(parsed instanceof CachedValueLine)) throw new Error("not a value line");
  return parsed;
}

/** Every fact a feature reads of a value line, as plain data. */
function facts(p: ValueLine) {
  return {
    kind: p.kind,
    type: p.type,
    role: p.role,
    id: p.id,
    parentId: p.parentId,
    idKey: p.idKey,
    parentKey: p.parentKey,
    time: p.time,
    model: p.model,
    thinkingLevel: p.thinkingLevel,
    toolCallIds: p.toolCallIds,
    toolResultId: p.toolResultId,
    reference: p.reference,
    findings: p.findings,
    falsy: p.falsy,
    isObject: p.isObject,
    looksLikePi: p.looksLikePi,
    noMessage: p.noMessage,
  };
}

describe("a line's rare facts", () => {
  it("give a tool result's call id back when it is the only one, and pack it as an object for another thread", () => {
    const parsed = value(result);
    expect(parsed.kind).toBe("value");
    expect(parsed.toolResultId).toBe("toolu_01");
    expect(parsed.toolCallIds).toBeUndefined();
    expect(parsed.model).toBeUndefined();
    expect(parsed.reference).toBeUndefined();
    expect(parsed.findings).toEqual([]);
    expect(parsed.role).toBe("toolResult");
    const packed = CachedValueLine.packed(parsed);
    expect(packed.rare).toEqual({ toolResultId: "toolu_01" });
    // What crosses threads is a structured clone; the line made of it reads the same.
    expect(facts(unpackedLine(result, structuredClone(packed)))).toEqual(facts(parsed));
  });

  it("keep every fact of a tool result that has others too", () => {
    // A number id is held apart (`idKey`), and an entry type not in the schema names its type there too.
    const odd = line({ type: "custom_thing", id: 7, parentId: "a1", timestamp: T, message: { role: "toolResult", toolCallId: "toolu_01" } });
    const parsed = value(odd);
    expect(parsed.toolResultId).toBeUndefined();
    const other = value(line({ type: "message", id: 7, parentId: "a1", timestamp: T, message: { role: "toolResult", toolCallId: "toolu_02" } }));
    expect(other.toolResultId).toBe("toolu_02");
    expect(other.idKey).toBe(7);
    expect(other.id).toBeUndefined();
    expect(other.findings.length).toBeGreaterThan(0);
    expect(CachedValueLine.packed(other).rare).toEqual({ idKey: 7, toolResultId: "toolu_02", findings: other.findings });
    expect(facts(unpackedLine(odd, structuredClone(CachedValueLine.packed(parsed))))).toEqual(facts(parsed));
  });

  it("read the same for a call and its result parsed one after the other", () => {
    const a = value(call);
    const r = value(result);
    expect(a.toolCallIds).toEqual(["toolu_01"]);
    expect(r.toolResultId).toBe(a.toolCallIds![0]);
    // Unpacked lines (another thread's parses) read the same too.
    const ua = unpackedLine(call, structuredClone(CachedValueLine.packed(a)));
    const ur = unpackedLine(result, structuredClone(CachedValueLine.packed(r)));
    expect(facts(ua)).toEqual(facts(a));
    expect(facts(ur)).toEqual(facts(r));
  });

  it("give an assistant message's model, with and without tool calls, and its other facts, packed as before", () => {
    const answer = line({
      type: "message",
      id: "a2",
      parentId: "r1",
      timestamp: T,
      message: { role: "assistant", provider: "anthropic", model: "claude", content: [{ type: "text", text: "done" }] },
    });
    const withCall = value(call);
    const plain = value(answer);
    expect(withCall.model).toEqual({ provider: "anthropic", modelId: "claude" });
    expect(withCall.toolCallIds).toEqual(["toolu_01"]);
    expect(plain.model).toEqual({ provider: "anthropic", modelId: "claude" });
    expect(plain.toolCallIds).toBeUndefined();
    expect(plain.toolResultId).toBeUndefined();
    // Lines naming the same model share its object, whatever form their facts take.
    expect(plain.model).toBe(withCall.model);
    expect(CachedValueLine.packed(withCall).rare).toMatchObject({ model: withCall.model, toolCallIds: "toolu_01" });
    for (const [text, parsed] of [
      [call, withCall],
      [answer, plain],
    ] as const) {
      expect(facts(unpackedLine(text, structuredClone(CachedValueLine.packed(parsed))))).toEqual(facts(parsed));
    }
  });

  it("mark a text stored another way on the line only, not in what it packs", () => {
    const doc = new SessionDocument("file:///stored.jsonl", "jsonl", 1, `${header}\n${result}\n`);
    const parsed = doc.parsed[1] as CachedValueLine;
    expect(parsed.textStored).toBe(false);
    expect(doc.storeLineAs(1, `${doc.lines[1]}`)).toBe(true);
    expect(parsed.textStored).toBe(true);
    const again = unpackedLine(result, CachedValueLine.packed(parsed)) as CachedValueLine;
    expect(again.textStored).toBe(false);
    expect(facts(again)).toEqual(facts(parsed));
    expect(CachedValueLine.packed(parsed).bits).toBe(CachedValueLine.packed(value(result)).bits);
  });
});

describe("a line's time", () => {
  it("reads as parsed and crosses threads as it was, whether it packs or not", () => {
    const stamps = [
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:08.191Z",
      "1970-01-01T00:00:08.192Z",
      "1969-12-31T23:59:59.999Z",
      "0000-01-01T00:00:00.000Z",
      T,
      "2026-12-31T23:59:59.999Z",
      "2527-06-23T06:20:44.415Z",
      "2527-06-23T06:20:44.416Z",
      "9999-12-31T23:59:59.999Z",
    ];
    for (const timestamp of stamps) {
      const text = line({ type: "message", id: "t1", parentId: null, timestamp, message: { role: "user", content: "hi", timestamp: 1 } });
      const parsed = value(text);
      expect(parsed.time).toBe(Date.parse(timestamp));
      const packed = CachedValueLine.packed(parsed);
      expect(packed.time).toBe(Date.parse(timestamp));
      expect(facts(unpackedLine(text, structuredClone(packed)))).toEqual(facts(parsed));
    }
    // A line without a timestamp has no time, and keeps none across threads.
    const untimed = line({ type: "custom", id: "u1", parentId: null, customType: "x" });
    expect(value(untimed).time).toBeUndefined();
    expect(unpackedLine(untimed, structuredClone(CachedValueLine.packed(value(untimed)))).time).toBeUndefined();
  });
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
