/**
 * Hover: the hard cases that a snapshot cannot say well (surrogate pairs before the cursor, CRLF,
 * a 400 KB line, a 50,000-deep chain, lines with no hover, a byte order mark), the context
 * selection behind "in the built context", and time formatting. Every other hover case is one
 * fixture file in test/fixtures/hover (see test/features/snapshots.test.ts).
 *
 * Fixtures are session lines with a `$0` marker; `mark(line, after)` puts the marker right after
 * the first occurrence of `after`, so a fixture reads as the session does.
 */

import { describe, expect, it } from "vitest";
import type { Hover } from "vscode-languageserver";
import type { SessionDocument } from "../../server/src/core/session/document";
import { ContextState, contextSelection, isInContext } from "../../server/src/core/pi/activeContext";
import { SessionDocument as Doc } from "../../server/src/core/session/document";
import { computeHover, MAX_HOVER_CHARS } from "../../server/src/features/hover";
import { duration, timeInWords } from "../../server/src/features/hover/time";
import { documentWithCursor, textOf } from "../helpers/cursor";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix 🧪 the 𝄞 test, é"}],"timestamp":1772445602000}}`;
const CALL = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.300Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"src/😀.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":2244,"output":627,"cacheRead":2000,"cacheWrite":580,"totalTokens":5451,"cost":{"input":0.006732,"output":0.009405,"cacheRead":0.0006,"cacheWrite":0.002175,"total":0.018912}},"stopReason":"toolUse","timestamp":1772445603100}}`;
const RESULT = `{"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2026-03-02T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"export const add = (a, b) => a - b; // 🐛"}],"isError":false,"timestamp":1772445605000}}`;
const LABEL = `{"type":"label","id":"a0000005","parentId":"a0000004","timestamp":"2026-03-02T10:00:06.000Z","targetId":"a0000002","label":"start"}`;
const COMPACTION = `{"type":"compaction","id":"a0000006","parentId":"a0000005","timestamp":"2026-03-02T10:00:07.000Z","summary":"Read the file.","firstKeptEntryId":"a0000003","tokensBefore":1200}`;
const REPLY = `{"type":"message","id":"a0000007","parentId":"a0000006","timestamp":"2026-03-02T10:03:19.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The *sign* is wrong: use <code>a + b</code>."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":30,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1772445606000}}`;
/** A branch off the user message: not on the active path. */
const SIDE = `{"type":"message","id":"b0000001","parentId":"a0000002","timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"An abandoned answer."}],"api":"anthropic-messages","provider":"anthropic","model":"gpt-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1772445609000}}`;

const LINES = [HEADER, MODEL, USER, CALL, RESULT, LABEL, COMPACTION, SIDE, REPLY];

/** `line` with the cursor marker right after the first occurrence of `after`. */
function mark(line: string, after: string): string {
  const i = line.indexOf(after);
  if (i < 0) throw new Error(`"${after}" is not in the line`);
  return `${line.slice(0, i + after.length)}$0${line.slice(i + after.length)}`;
}

/** The session `lines` (LF, final newline) with line `index` marked after `after`. */
function fixture(lines: readonly string[], index: number, after: string): string {
  return `${lines.map((l, i) => (i === index ? mark(l, after) : l)).join("\n")}\n`;
}

function hoverOf(source: string): { hover: Hover | null; doc: SessionDocument } {
  const { doc, position } = documentWithCursor(source);
  return { hover: computeHover(doc, position), doc };
}

/** The hover's Markdown and the text its range covers. */
function hover(source: string): { md: string; token: string } {
  const { hover: h, doc } = hoverOf(source);
  if (!h?.range) throw new Error("no hover, or a hover without a range");
  const md = (h.contents as { kind: string; value: string }).value;
  expect((h.contents as { kind: string }).kind).toBe("markdown");
  return { md, token: textOf(doc, h.range) };
}

describe("time formatting", () => {
  it("formats durations and dates", () => {
    expect(timeInWords(Date.UTC(2026, 2, 2, 10, 0, 5))).toBe("Monday 2 March 2026, 10:00:05 UTC");
    expect([850, 2345, 252_000, 3_900_000, 183_600_000].map(duration)).toEqual(["850 ms", "2.3 s", "4 min 12 s", "1 h 5 min", "2 d 3 h"]);
  });

  it("a local-time timestamp Pi still reads (the answer depends on the machine's zone, so no snapshot)", () => {
    const loose = REPLY.replace("2026-03-02T10:03:19.000Z", "2026-03-02 10:03");
    expect(hover(fixture([...LINES.slice(0, 8), loose], 8, '"timestamp":"2026')).md).toContain("Not in the form Pi writes");
  });
});

describe("positions and bounds", () => {
  it("surrogate pairs (emoji, CJK) before the cursor on the same line", () => {
    const line = `{"type":"message","message":{"role":"user","content":"日本語のテスト 😀🧪 𝄞 done","timestamp":1772445840000},"id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z"}`;
    const ref = hover(fixture([...LINES, line], 9, '"parentId":"a0'));
    expect(ref.token).toBe('"a0000007"');
    expect(ref.md).toContain("**parentId** `a0000007` → **message · assistant**");
    const time = hover(fixture([...LINES, line], 9, '"timestamp":"2026'));
    expect(time.token).toBe('"2026-03-02T10:04:00.000Z"');
    const entry = hover(fixture([...LINES, line], 9, "😀"));
    expect(entry.token).toBe('"日本語のテスト 😀🧪 𝄞 done"');
    expect(entry.md).toContain("> 日本語のテスト 😀🧪 𝄞 done");
  });

  it("CRLF files", () => {
    const source = `${LINES.map((l, i) => (i === 4 ? mark(l, '"parentId":"a0') : l)).join("\r\n")}\r\n`;
    const ref = hover(source);
    expect(ref.token).toBe('"a0000003"');
    expect(ref.md).toContain("→ **message · assistant**");
    // The last token before a "\r\n": the header's cwd value.
    const cwd = hover(`${LINES.map((l, i) => (i === 0 ? mark(l, '"cwd":"/ho') : l)).join("\r\n")}\r\n`);
    expect(cwd.token).toBe('"/home/dev/project"');
    expect(cwd.md).toContain("- **Entries:** 8");
    const leaf = hover(`${LINES.map((l, i) => (i === 8 ? mark(l, "The *si") : l)).join("\r\n")}\r\n`);
    expect(leaf.md).toContain("on it: the leaf, where Pi resumes");
  });

  it("a 400 KB line stays under the bound", () => {
    const big = `${"x".repeat(200_000)} 😀 ${"y ".repeat(100_000)}`;
    const line = RESULT.replace("export const add = (a, b) => a - b; // 🐛", big)
      .replace('"id":"a0000004"', '"id":"c1"')
      .replace('"parentId":"a0000003"', '"parentId":"a0000007"');
    expect(line.length).toBeGreaterThan(400_000);
    const lines = [...LINES, line];
    const inText = hover(fixture(lines, 9, "xxxxxxxxxx"));
    expect(inText.md.length).toBeLessThan(MAX_HOVER_CHARS);
    expect(inText.md.length).toBeLessThan(1000);
    expect(inText.md).toMatch(/> x{160}…/);
    const after = hover(fixture(lines, 9, '"isErr'));
    expect(after.token).toBe('"isError"');
    expect(after.md.length).toBeLessThan(1000);
    // A reference to that entry previews it clipped too.
    const child = `{"type":"label","id":"c2","parentId":"c1","timestamp":"2026-03-02T10:04:00.000Z","targetId":"c1","label":"${"L".repeat(5000)}"}`;
    const ref = hover(fixture([...lines, child], 10, '"targetId":"c'));
    expect(ref.md).toContain("→ **message · toolResult**");
    expect(ref.md.length).toBeLessThan(1000);
    const labelled = hover(fixture([...lines, child], 9, '"toolNa'));
    expect(labelled.md).toContain("- **Label:** `LLLL");
    expect(labelled.md.length).toBeLessThan(1000);
    // A huge id is clipped wherever it is shown.
    const hugeId = MODEL.replace('"id":"a0000001"', `"id":"${"i".repeat(300_000)}"`);
    const idHover = hover(fixture([HEADER, hugeId], 1, '"id":"ii'));
    expect(idHover.md.length).toBeLessThan(1000);
  });

  it("a 50,000-deep chain: depth without a recursive walk", () => {
    const lines = [HEADER];
    for (let i = 0; i < 50_000; i++) {
      lines.push(`{"type":"custom","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2026-03-02T10:00:00.000Z","customType":"s"}`);
    }
    const { md } = hover(fixture(lines, 50_000, '"customTy'));
    expect(md).toContain("- **Tree:** depth 49,999 · no children (a branch tip) · parent on line 50000");
    expect(md).toContain("on it: the leaf, where Pi resumes");
    const header = hover(fixture(lines, 0, '"cw'));
    expect(header.md).toContain("- **Entries:** 50,000 · 1 branch (leaves) · 1 root");
  });

  it("no hover on blank, malformed or non-object lines", () => {
    expect(hoverOf(`${HEADER}\n  $0  \n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n$0\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n{"type":"mess$0age","id":\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\nnu$0ll\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n[1, 2$0]\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n${MODEL}\n$0`).hover).toBeNull();
  });

  it("after a byte order mark", () => {
    const { md, token } = hover(`\uFEFF${mark(HEADER, '"cwd":"/ho')}\n${MODEL}\n`);
    expect(token).toBe('"/home/dev/project"');
    expect(md).toContain("**Session**");
  });
});

describe("isInContext (section 5.3)", () => {
  const doc = (lines: string[]) => new Doc("file:///t.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);

  it("without a compaction: the whole active path", () => {
    const d = doc(LINES.filter((l) => l !== COMPACTION).map((l) => l.replace('"parentId":"a0000006"', '"parentId":"a0000005"')));
    const a = d.analysis;
    expect(a.entries.map((e) => isInContext(a, e))).toEqual([true, true, true, true, true, false, true]);
  });

  it("with a compaction: the compaction, the kept range, what follows", () => {
    const a = doc(LINES).analysis;
    const selection = contextSelection(a);
    expect(a.entries.map((e) => selection.state[e.index])).toEqual([2, 2, 1, 1, 1, 1, 0, 1]);
    expect(selection.compaction?.id).toBe("a0000006");
    expect(selection.keptFrom?.id).toBe("a0000003");
    expect(contextSelection(a)).toBe(selection); // memoised per analysis
  });

  it("a missing firstKeptEntryId keeps nothing before; system messages before it are dropped by 1.x", () => {
    const sys = `{"type":"message","id":"s1","parentId":"a0000001","timestamp":"2026-03-02T10:00:01.500Z","message":{"role":"system","content":"Be brief.","timestamp":1772445601500}}`;
    const lines = [
      HEADER,
      MODEL,
      sys,
      USER.replace('"parentId":"a0000001"', '"parentId":"s1"'),
      CALL,
      RESULT,
      LABEL,
      COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"a0000001"'),
    ];
    const a = doc(lines).analysis;
    expect(a.entries.map((e) => contextSelection(a).state[e.index])).toEqual([1, ContextState.DroppedSystem, 1, 1, 1, 1, 1]);
    const gone = doc([
      HEADER,
      MODEL,
      USER,
      CALL,
      COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"zzz"').replace('"parentId":"a0000005"', '"parentId":"a0000003"'),
    ]).analysis;
    expect(gone.entries.map((e) => isInContext(gone, e))).toEqual([false, false, false, true]);
  });
});

describe("hover on entries without text", () => {
  it("quotes nothing for an empty branch summary, on the entry and on a reference to it", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}';
    const summary = '{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","fromId":"root","summary":""}';
    const child =
      '{"type":"message","id":"u1","parentId":"b$01","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1}}';
    const { doc, position } = documentWithCursor([header, summary, child].join("\n"));
    const value = (computeHover(doc, position)?.contents as { value: string } | undefined)?.value;
    expect(value).toContain("b1");
    expect(value).not.toMatch(/^>\s*$/m);
    const onEntry = (computeHover(doc, { line: 1, character: 5 })?.contents as { value: string } | undefined)?.value;
    expect(onEntry).not.toMatch(/^>\s*$/m);
  });
});
