/**
 * An idle server's two-byte lines stored as ropes of one-byte pieces (`lsp/lineStorage.ts`): the
 * same characters, so the document's text and every answer stay as they were.
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { computeHover } from "../../server/src/features/hover";
import { CHARS_PER_RUN, compactLines, MAX_SHARED_RUN, MIN_ROPE_CHARS, oneByteRope, Scratch } from "../../server/src/lsp/lineStorage";

/** A seeded random string of `length` characters, mostly ASCII and Latin-1, with `high` characters above U+00FF (surrogate pairs among them). */
function randomText(seed: number, length: number, high: number): string {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x;
  };
  const chars: string[] = [];
  for (let i = 0; i < length; i++) chars.push(String.fromCharCode(next() % 3 === 0 ? 0x80 + (next() % 0x80) : 0x20 + (next() % 0x5f)));
  const highs = ["—", "✓", "“", "”", "😀", "\ud800", "\udfff", "中"];
  for (let k = 0; k < high; k++) chars[next() % length] = highs[next() % highs.length]!;
  return chars.join("");
}

describe("oneByteRope", () => {
  it("gives the same characters, code unit for code unit", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const text = randomText(seed, 6 * CHARS_PER_RUN + seed * 7, 1 + (seed % 5));
      const rope = oneByteRope(text);
      expect(rope).toBeDefined();
      expect(rope!.length).toBe(text.length);
      expect(rope).toBe(text);
    }
  });

  it("gives the same characters for texts made ropes through one scratch, which shares their short two-byte runs", () => {
    const scratch = new Scratch();
    const long = "中文".repeat(MAX_SHARED_RUN);
    const texts: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const base = randomText(seed, 4 * CHARS_PER_RUN + seed, 1 + (seed % 3));
      texts.push(seed % 4 === 0 ? `${base}${long}${base.slice(0, 50)}` : base);
    }
    const ropes = texts.map((text) => oneByteRope(text, scratch));
    for (let i = 0; i < texts.length; i++) expect(ropes[i]).toBe(texts[i]);
  });

  it("leaves a text alone that has no character above U+00FF", () => {
    expect(oneByteRope("é".repeat(1000))).toBeUndefined();
    expect(oneByteRope("a".repeat(1000))).toBeUndefined();
  });

  it("leaves a text alone that has more than one two-byte run per CHARS_PER_RUN characters", () => {
    const dense = "中a".repeat(CHARS_PER_RUN);
    expect(oneByteRope(dense)).toBeUndefined();
    const sparse = `${"a".repeat(CHARS_PER_RUN - 1)}中`.repeat(4);
    expect(oneByteRope(sparse)).toBe(sparse);
  });
});

const T = (s: number) => `2026-03-02T10:00:${String(s).padStart(2, "0")}.000Z`;
const filler = "x".repeat(Math.max(MIN_ROPE_CHARS, 4 * CHARS_PER_RUN));

function session(): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000aa", timestamp: T(0), cwd: "/p" })];
  let parent: string | null = null;
  for (let i = 1; i <= 20; i++) {
    const id = `e${i}`;
    const text = i % 3 === 0 ? `Step ${i} — done ✓ ${filler} “quoted” é` : i % 3 === 1 ? `Plain ${i} ${filler}` : `Emoji 😀 ${i} ${filler}`;
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: T(i), message: { role: "user", content: text, timestamp: i } }));
    parent = id;
  }
  // A line that does not parse keeps its own text: it is left as it is.
  lines.push(`{"type":"message","id":"broken — ${filler}`);
  return `${lines.join("\n")}\n`;
}

describe("compactLines", () => {
  it("keeps the document's text and every answer, and does each line once", () => {
    const doc = new SessionDocument("file:///rope.jsonl", "jsonl", 1, session());
    const text = doc.getText();
    const lines = doc.lines.slice();
    const answers = () =>
      JSON.stringify({
        diagnostics: computeDiagnostics(doc),
        symbols: computeDocumentSymbols(doc, { maxSymbols: 1000 }),
        hover: computeHover(doc, { line: 3, character: 20 }),
      });
    const before = answers();
    // Entries 2, 3, 5, 6, ..., 20 hold two-byte characters; 1, 4, 7, ... are one-byte; the broken line is not a value.
    expect(compactLines(doc)).toBe(13);
    expect(compactLines(doc)).toBe(0);
    expect(doc.lines).toEqual(lines);
    for (let i = 0; i < doc.lines.length; i++) {
      const parsed = doc.parsed[i]!;
      if (parsed.kind === "value") expect((parsed as unknown as { text: string }).text).toBe(lines[i]);
    }
    expect(doc.getText()).toBe(text);
    expect(answers()).toBe(before);
    // An edit after the compaction edits the same characters.
    const line = 3;
    const at = lines[line]!.indexOf("done");
    doc.update([{ range: { start: { line, character: at }, end: { line, character: at + 4 } }, text: "finished" }], 2);
    const edited = new SessionDocument("file:///fresh.jsonl", "jsonl", 1, text.replace("Step 3 — done", "Step 3 — finished"));
    expect(doc.getText()).toBe(edited.getText());
    expect(JSON.stringify(computeDiagnostics(doc))).toBe(JSON.stringify(computeDiagnostics(edited)));
  });

  it("refuses to store a text of another length, or for a line that is not a value", () => {
    const doc = new SessionDocument("file:///refuse.jsonl", "jsonl", 1, session());
    const last = doc.lines.length - 2;
    expect(doc.storeLineAs(1, `${doc.lines[1]}x`)).toBe(false);
    expect(doc.storeLineAs(last, doc.lines[last]!)).toBe(false);
    expect(doc.lines[last]).toContain("broken");
  });
});
