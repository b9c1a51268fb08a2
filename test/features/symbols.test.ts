/**
 * The outline (document symbols): what a snapshot cannot say well (ranges and kinds on a straight
 * chain, a 300-turn conversation, the cap at every size, a 50,000-deep chain, CRLF, surrogate-safe
 * previews) and sibling order against the real Pi. Expected outlines are written as indented text
 * trees, one symbol a line (`name — detail` where the detail matters). Every other outline case
 * (branches, faults, cycles, duplicates) is one fixture file in test/fixtures/outline (see
 * test/features/snapshots.test.ts).
 */

import { describe, expect, it } from "vitest";
import type { DocumentSymbol } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { singleLine } from "../../server/src/core/base/text";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { textOf } from "../helpers/cursor";
import {
  HEADER,
  assistant,
  assistantCalling,
  compaction,
  contextEdit,
  custom,
  label,
  modelChange,
  session,
  sessionInfo,
  thinkingChange,
  toolResult,
  usage,
  user,
} from "../helpers/piLines";

const doc = (text: string) => new SessionDocument("file:///outline.jsonl", "jsonl", 1, text);

function outline(text: string, maxSymbols = 5000) {
  return computeDocumentSymbols(doc(text), { maxSymbols });
}

/** The outline as an indented text tree; iterative, so a 50,000-symbol level is fine. */
function render(symbols: readonly DocumentSymbol[], withDetail = false): string {
  const out: string[] = [];
  const stack: [DocumentSymbol, number][] = symbols.map((s) => [s, 0] as [DocumentSymbol, number]).reverse();
  while (stack.length > 0) {
    const [s, depth] = stack.pop()!;
    out.push(`${"  ".repeat(depth)}${s.name}${withDetail && s.detail ? ` — ${s.detail}` : ""}`);
    for (let i = (s.children?.length ?? 0) - 1; i >= 0; i--) stack.push([s.children![i]!, depth + 1]);
  }
  return out.join("\n");
}

const tree = (...lines: string[]) => lines.join("\n");

/** Every symbol of the outline, depth first. */
function all(symbols: readonly DocumentSymbol[]): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  const stack = [...symbols].reverse();
  while (stack.length > 0) {
    const s = stack.pop()!;
    out.push(s);
    for (let i = (s.children?.length ?? 0) - 1; i >= 0; i--) stack.push(s.children![i]!);
  }
  return out;
}

function contains(outer: DocumentSymbol["range"], inner: DocumentSymbol["range"]): boolean {
  const before = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(outer.start, inner.start) && before(inner.end, outer.end);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("outline of a straight chain", () => {
  const text = session(
    HEADER,
    modelChange("m1", null),
    thinkingChange("t1", "m1", "high"),
    user("u1", "t1", "Fix the failing test in src/parser.ts, please.\nIt fails since yesterday."),
    assistantCalling("a1", "u1", ["read", "bash"]),
    toolResult("r1", "a1", "toolu_a1_0", "read"),
    toolResult("r2", "r1", "toolu_a1_1", "bash"),
    assistant("a2", "r2", "The test expected a trailing newline."),
    label("l1", "a2", "a2", "checkpoint-1"),
    sessionInfo("s1", "l1", "Parser fixes"),
    compaction("c1", "s1", "a2", 48210),
    custom("x1", "c1", "todo-state"),
    usage("g1", "x1", "cache_warm"),
    contextEdit("e1", "g1", "r1"),
    '{"type":"future_thing","id":"f1","parentId":"e1","timestamp":"2026-03-02T11:00:00.000Z"}',
  );

  it("gives ids as details, the id value as selection and the whole line as range", () => {
    const d = doc(text);
    const { symbols } = computeDocumentSymbols(d, { maxSymbols: 100 });
    expect(symbols[0]!.detail).toBe("019cadfd-8900-79df-9839-64c588162ed6 · /home/dev/project");
    expect(symbols[1]!.detail).toBe("m1");
    expect(symbols.at(-1)!.detail).toBe("f1 · leaf");
    for (const s of symbols) {
      expect(textOf(d, s.selectionRange)).toMatch(/^"[^"]+"$/);
      expect(s.range.start).toEqual({ line: s.selectionRange.start.line, character: 0 });
      expect(s.range.end.character).toBe(d.lines[s.range.end.line]!.length);
    }
    expect(textOf(d, symbols[3]!.selectionRange)).toBe('"u1"');
    // Kinds that read as groups: header File, settings Property, every message Event, compaction Module.
    expect(symbols.map((s) => s.kind).slice(0, 6)).toEqual([1, 7, 7, 24, 24, 24]);
    expect(symbols[10]!.kind).toBe(2);
  });
});

/** How deep the outline nests: 1 when every symbol is at the top level. */
function depthOf(symbols: readonly DocumentSymbol[]): number {
  let max = 0;
  const stack: [DocumentSymbol, number][] = symbols.map((s) => [s, 1] as [DocumentSymbol, number]);
  while (stack.length > 0) {
    const [s, depth] = stack.pop()!;
    if (depth > max) max = depth;
    for (const child of s.children ?? []) stack.push([child, depth + 1]);
  }
  return max;
}

describe("branches", () => {
  it("keeps a long conversation with a side branch at every turn flat: only the side branches nest", () => {
    const lines = [HEADER];
    let parent: string | null = null;
    for (let t = 0; t < 300; t++) {
      lines.push(user(`u${t}`, parent, `Prompt ${t}.`, 10 * t + 1));
      // A retried answer, abandoned, which itself was retried once.
      lines.push(assistant(`x${t}`, `u${t}`, `First try ${t}.`, 10 * t + 2));
      lines.push(user(`y${t}`, `x${t}`, `No, again ${t}.`, 10 * t + 3));
      lines.push(user(`z${t}`, `x${t}`, `Or this ${t}.`, 10 * t + 4));
      lines.push(assistant(`a${t}`, `u${t}`, `Reply ${t}.`, 10 * t + 5));
      parent = `a${t}`;
    }
    const { symbols, truncated } = outline(session(...lines), 10_000);
    expect(truncated).toBe(false);
    expect(all(symbols)).toHaveLength(1 + 300 * 7);
    // Three levels: the conversation, a side branch, a side branch of it.
    expect(depthOf(symbols)).toBe(3);
    const topEntries = symbols.filter((s) => !s.children).map((s) => s.name);
    expect(topEntries).toHaveLength(1 + 600);
    expect(topEntries.slice(1, 5)).toEqual(['user: "Prompt 0."', 'assistant: "Reply 0."', 'user: "Prompt 1."', 'assistant: "Reply 1."']);
    expect(symbols.at(-1)!.detail).toBe("a299 · leaf · branch 2 of 2");
    expect(render(symbols.slice(0, 5))).toBe(
      tree(
        "session",
        'user: "Prompt 0."',
        'branch 1 of 2: assistant: "First try 0."',
        '  assistant: "First try 0."',
        '  branch 1 of 2: user: "No, again 0."',
        '    user: "No, again 0."',
        '  user: "Or this 0."',
        'assistant: "Reply 0."',
        'user: "Prompt 1."',
      ),
    );
  });
});

/**
 * Sibling order, checked against the real Pi: `getTree` of Pi 0.74.2 and 1.6.0, run on this very
 * session, puts u1's children in the order b3, b4, b1, b2: by `new Date(timestamp)`, equal times in
 * file order (a stable sort), and b3's RFC 2822 time, which `Date` reads, where that time falls.
 * The outline numbers branches in that order (the cases without b3 are fixtures in
 * test/fixtures/outline/siblings-*).
 */
describe("sibling order as Pi's getTree", () => {
  const rfc = (id: string, text: string, time: string) => user(id, "u1", text, 50).replace(/"timestamp":"[^"]+"/, `"timestamp":"${time}"`);
  const text = session(
    HEADER,
    user("u1", null, "Pick one.", 1),
    user("b1", "u1", "Same time, first in the file.", 5),
    user("b2", "u1", "Same time, second in the file.", 5),
    rfc("b3", "Read by Date, earliest.", "Mon, 02 Mar 2026 10:00:03 GMT"),
    user("b4", "u1", "Between.", 4),
    label("l1", "b4", "u1", "x", 9),
  );
  /** The ids of u1's children in the outline's branch order (`branch N of 4`). */
  const order = () => {
    const numbered: [number, string][] = [];
    for (const s of outline(text).symbols) {
      const side = /^branch (\d+) of \d+:/.exec(s.name);
      const inline = /^(\S+) · branch (\d+) of \d+/.exec(s.detail ?? "");
      if (side) numbered.push([Number(side[1]), s.children![0]!.detail!]);
      else if (inline) numbered.push([Number(inline[2]), inline[1]!]);
    }
    return numbered.sort((x, y) => x[0] - y[0]).map(([, id]) => id);
  };

  // The outline once sorted a timestamp that is not in Pi's exact form last, while Pi and the type
  // hierarchy read it with Date; core/session/semantics/siblings.ts is now the one sibling order.
  it("orders a sibling whose timestamp Date reads (not in Pi's form) by that time", () => {
    expect(order()).toEqual(["b3", "b4", "b1", "b2"]);
  });

  it("keeps siblings with equal times in file order", () => {
    const ids = order();
    expect(ids.indexOf("b1") + 1).toBe(ids.indexOf("b2"));
    expect(ids.indexOf("b4")).toBeLessThan(ids.indexOf("b1"));
  });
});

describe("the cap", () => {
  // u0 has three branches; the active path takes the second; the first has a branch point of its own.
  const text = session(
    HEADER,
    user("u0", null, "Start.", 1),
    user("b1", "u0", "Branch 1.", 10),
    assistant("c1", "b1", "Answer 1.", 11),
    user("d1", "c1", "Deeper 1.", 12),
    user("d2", "c1", "Deeper 2.", 13),
    user("b3", "u0", "Branch 3.", 30),
    assistant("c3", "b3", "Answer 3.", 31),
    user("b2", "u0", "Branch 2.", 20),
    assistant("c2", "b2", "Answer 2.", 21),
    user("e2", "c2", "Thanks.", 22),
  );
  const fullText = tree(
    "session",
    'user: "Start." — u0 · 3 branches, branch 2 (active path) continues inline',
    'branch 1 of 3: user: "Branch 1." — 4 entries · off the active path',
    '  user: "Branch 1." — b1',
    '  assistant: "Answer 1." — c1 · 2 branches, branch 2 (latest) continues inline',
    '  branch 1 of 2: user: "Deeper 1." — 1 entry · off the active path',
    '    user: "Deeper 1." — d1',
    '  user: "Deeper 2." — d2 · branch 2 of 2',
    'branch 3 of 3: user: "Branch 3." — 2 entries · off the active path',
    '  user: "Branch 3." — b3',
    '  assistant: "Answer 3." — c3',
    'user: "Branch 2." — b2 · branch 2 of 3',
    'assistant: "Answer 2." — c2',
    'user: "Thanks." — e2 · leaf',
  );

  it("stops at maxSymbols, says so, and keeps the outline well formed", () => {
    const full = outline(text);
    expect(full.truncated).toBe(false);
    expect(render(full.symbols, true).replace(/ — [0-9a-f-]{36} · \/home\/dev\/project/, "")).toBe(fullText);
    const fullLines = render(full.symbols, true).split("\n");
    expect(fullLines).toHaveLength(14);
    for (let max = 0; max <= 14; max++) {
      const { symbols, truncated } = outline(text, max);
      const every = all(symbols);
      expect(truncated).toBe(max < 14);
      expect(every.length).toBeLessThanOrEqual(max);
      expect(every.length).toBeGreaterThanOrEqual(max - 1); // a container only comes with its first entry
      // The truncated outline is the full outline cut short in reading order, details included.
      expect(render(symbols, true).split("\n").filter(Boolean)).toEqual(fullLines.slice(0, every.length));
      for (const s of every) {
        expect(contains(s.range, s.selectionRange)).toBe(true);
        if (s.children) expect(s.children.length).toBeGreaterThan(0);
      }
    }
  });

  it("never adds a container without its first entry, and continues inline only after the side branches", () => {
    // 5 symbols fit, but the nested container would be the 6th without its entry.
    expect(render(outline(text, 6).symbols)).toBe(
      tree("session", 'user: "Start."', 'branch 1 of 3: user: "Branch 1."', '  user: "Branch 1."', '  assistant: "Answer 1."'),
    );
    expect(outline(text, 6).truncated).toBe(true);
    // Cut in the inline branch: everything above it, side branches included, is there.
    expect(render(outline(text, 12).symbols)).toBe(
      tree(
        "session",
        'user: "Start."',
        'branch 1 of 3: user: "Branch 1."',
        '  user: "Branch 1."',
        '  assistant: "Answer 1."',
        '  branch 1 of 2: user: "Deeper 1."',
        '    user: "Deeper 1."',
        '  user: "Deeper 2."',
        'branch 3 of 3: user: "Branch 3."',
        '  user: "Branch 3."',
        '  assistant: "Answer 3."',
        'user: "Branch 2."',
      ),
    );
  });
});

describe("a 50,000-entry chain, 50,000 deep", () => {
  const lines = [HEADER];
  for (let i = 0; i < 50_000; i++) {
    const parent = i === 0 ? null : `e${i - 1}`;
    lines.push(i % 2 === 0 ? user(`e${i}`, parent, `Prompt ${i}.`, i) : assistant(`e${i}`, parent, `Reply ${i}.`, i));
  }
  const d = doc(session(...lines));
  d.analysis;

  it("is one level, without a stack overflow", () => {
    const { symbols, truncated } = computeDocumentSymbols(d, { maxSymbols: 60_000 });
    expect(truncated).toBe(false);
    expect(symbols).toHaveLength(50_001);
    expect(symbols.every((s) => s.children === undefined)).toBe(true);
    expect(symbols[50_000]!.name).toBe('assistant: "Reply 49999."');
  });

  it("stops at the default cap of the server", () => {
    const { symbols, truncated } = computeDocumentSymbols(d, { maxSymbols: 5000 });
    expect(truncated).toBe(true);
    expect(symbols).toHaveLength(5000);
  });
});

describe("text", () => {
  it("handles CRLF files: ranges stop before the carriage return", () => {
    const text = `${[HEADER, user("u1", null, "Hi."), assistant("a1", "u1", "Hello.")].join("\r\n")}\r\n`;
    const d = doc(text);
    const { symbols } = computeDocumentSymbols(d, { maxSymbols: 100 });
    expect(render(symbols)).toBe(tree("session", 'user: "Hi."', 'assistant: "Hello."'));
    for (const s of symbols) {
      expect(s.range.end.character).toBe(d.lines[s.range.end.line]!.length);
      expect(d.lines[s.range.end.line]!.endsWith("\r")).toBe(false);
    }
    expect(textOf(d, symbols[2]!.selectionRange)).toBe('"a1"');
  });

  it("clips previews on code point boundaries, never inside a surrogate pair", () => {
    const text = session(
      HEADER,
      user("u1", null, `${"x".repeat(39)}😀 and more`),
      user("u2", "u1", `${"y".repeat(38)}😀😀 and more`),
      user("u3", "u2", "🎉".repeat(50)),
      user("u4", "u3", "  Résumé:\n\n\tlire 中文 ✓  "),
      label("l1", "u4", "u1", "🚀 launch"),
    );
    const { symbols } = outline(text);
    expect(render(symbols)).toBe(
      tree(
        "session",
        `user: "${"x".repeat(39)}😀…"`,
        `user: "${"y".repeat(38)}😀😀…"`,
        `user: "${"🎉".repeat(40)}…"`,
        'user: "Résumé: lire 中文 ✓"',
        "label: 🚀 launch",
      ),
    );
    for (const s of all(symbols)) expect(s.name).not.toMatch(LONE_SURROGATE);
  });

  it("singleLine collapses whitespace and counts code points", () => {
    expect(singleLine("  a\n\nb\tc  ", 40)).toBe("a b c");
    expect(singleLine("abcdef", 3)).toBe("abc…");
    expect(singleLine("ab  cd", 3)).toBe("ab…");
    expect(singleLine("😀😀😀", 2)).toBe("😀😀…");
    expect(singleLine("abc   ", 3)).toBe("abc");
    expect(singleLine("\ud83d lone", 40)).toBe("\ud83d lone");
    expect(singleLine("   ", 5)).toBe("");
  });
});
