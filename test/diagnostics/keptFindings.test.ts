/**
 * The request findings kept through the idle release (`keptAcrossRelease`) hold only while no line
 * the resumed contexts read is edited (`contextInputLines`): here, lines those contexts read that an
 * edit can change without changing the structure, each compared with the same text opened afresh.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { computeDiagnostics } from "../../server/src/features/diagnostics";

const header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
const user = (id: string, parent: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-03-02T10:00:01.000Z",
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  });
const assistant = (id: string, parent: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-03-02T10:00:02.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "stop",
      timestamp: 2,
    },
  });
const compaction = (id: string, parent: string, firstKept: string) =>
  JSON.stringify({
    type: "compaction",
    id,
    parentId: parent,
    timestamp: "2026-03-02T10:00:03.000Z",
    summary: "s",
    firstKeptEntryId: firstKept,
    tokensBefore: 10,
  });

/** Replaces line `line` of `doc` with `text` (a new version), after an idle release. */
function editAfterRelease(doc: SessionDocument, line: number, text: string): void {
  releaseKept();
  forgetValues();
  const end = { line: doc.lspLine(line), character: doc.lines[line]!.length };
  doc.update([{ range: { start: { line: doc.lspLine(line), character: 0 }, end }, text }], doc.version + 1);
}

function expectFresh(doc: SessionDocument): void {
  expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument(doc.uri, "jsonl", 1, doc.getText())));
}

describe("request findings kept through the idle release", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("go when a compacted message entry loses its message, which Pi reads on the whole path", () => {
    // Line 3's message is a string: Pi summarised it away and sends nothing of it, but reads
    // `entry.message.role` of every message entry on the path, and throws once it is null.
    const odd = (message: unknown) => JSON.stringify({ type: "message", id: "m3", parentId: "a2", timestamp: "2026-03-02T10:00:01.000Z", message });
    const lines = [
      header,
      user("u1", null, "first"),
      assistant("a2", "u1"),
      odd("x"),
      user("u4", "m3", ""),
      assistant("a5", "u4"),
      compaction("c6", "a5", "u4"),
      user("u7", "c6", "next"),
    ];
    const doc = new SessionDocument("file:///compacted.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    expectFresh(doc);
    editAfterRelease(doc, 3, odd(null));
    expectFresh(doc);
    editAfterRelease(doc, 3, odd("y"));
    expectFresh(doc);
  });
});
