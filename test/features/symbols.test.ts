/**
 * The outline (document symbols). Expected outlines are written as indented text trees, one symbol
 * a line (`name — detail` where the detail matters), so that they read like the editor's outline.
 */

import { describe, expect, it } from "vitest";
import type { DocumentSymbol } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/document";
import { singleLine } from "../../server/src/features/entryTitle";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { textOf } from "../helpers/cursor";
import {
  HEADER,
  assistant,
  assistantCalling,
  branchSummary,
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
  const before = (a: { line: number; character: number }, b: { line: number; character: number }) => a.line < b.line || (a.line === b.line && a.character <= b.character);
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

  it("is one level: successive entries are siblings", () => {
    expect(render(outline(text).symbols)).toBe(
      tree(
        "session: Parser fixes",
        "model: anthropic/claude-sonnet-4-5",
        "thinking: high",
        'user: "Fix the failing test in src/parser.ts, p…"',
        "assistant: toolCall read, bash",
        "toolResult: read",
        "toolResult: bash",
        'assistant: "The test expected a trailing newline."',
        "label: checkpoint-1",
        "session name: Parser fixes",
        "compaction (48,210 tokens)",
        "custom: todo-state",
        "usage: cache_warm",
        "context edit → r1",
        "future_thing",
      ),
    );
    expect(outline(text).truncated).toBe(false);
  });

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
    // Kinds: header File, model Property, user Event, assistant Function, toolResult Field, compaction Package.
    expect(symbols.map((s) => s.kind).slice(0, 6)).toEqual([1, 7, 7, 24, 12, 8]);
    expect(symbols[10]!.kind).toBe(4);
  });
});

describe("branches", () => {
  it("nests two branches after their branch point, oldest first, each named after its first entry", () => {
    const text = session(
      HEADER,
      user("u1", null, "Suggest a name for a date utility module.", 1),
      assistant("a1", "u1", "How about `dateKit`?", 2),
      // The later branch comes first in the file: branches follow timestamps, as in Pi's tree.
      user("u3", "a1", "Try another name.", 20),
      assistant("a3", "u3", "`when`.", 21),
      user("u2", "a1", "Shorter, please.", 10),
      assistant("a2", "u2", "`dk`.", 11),
    );
    expect(render(outline(text).symbols, true)).toBe(
      tree(
        "session — 019cadfd-8900-79df-9839-64c588162ed6 · /home/dev/project",
        'user: "Suggest a name for a date utility module…" — u1',
        'assistant: "How about `dateKit`?" — a1',
        'branch 1 of 2: user: "Shorter, please." — 2 entries · on the active path',
        '  user: "Shorter, please." — u2',
        '  assistant: "`dk`." — a2 · leaf',
        'branch 2 of 2: user: "Try another name." — 2 entries · off the active path',
        '  user: "Try another name." — u3',
        '  assistant: "`when`." — a3',
      ),
    );
  });

  it("nests branches of branches, and a container spans the lines of its entries", () => {
    const text = session(
      HEADER,
      user("u1", null, "Plan the refactor.", 1),
      assistant("a1", "u1", "Three steps.", 2),
      user("u2", "a1", "Start with step one.", 3),
      assistant("a2", "u2", "Done with one.", 4),
      user("u4", "a2", "Now step two.", 5),
      user("u5", "a2", "Skip to step three.", 6),
      assistant("a5", "u5", "Done with three.", 7),
      user("u3", "a1", "Start with step three.", 8),
      branchSummary("b1", "u1", "a5", "Tried the steps in order.", 9),
    );
    const { symbols } = outline(text);
    expect(render(symbols)).toBe(
      tree(
        "session",
        'user: "Plan the refactor."',
        'branch 1 of 2: assistant: "Three steps."',
        '  assistant: "Three steps."',
        '  branch 1 of 2: user: "Start with step one."',
        '    user: "Start with step one."',
        '    assistant: "Done with one."',
        '    branch 1 of 2: user: "Now step two."',
        '      user: "Now step two."',
        '    branch 2 of 2: user: "Skip to step three."',
        '      user: "Skip to step three."',
        '      assistant: "Done with three."',
        '  branch 2 of 2: user: "Start with step three."',
        '    user: "Start with step three."',
        'branch 2 of 2: branch summary: "Tried the steps in order."',
        '  branch summary: "Tried the steps in order."',
      ),
    );
    const first = symbols[2]!;
    expect(first.detail).toBe("7 entries · off the active path");
    expect(first.range.start.line).toBe(2);
    expect(first.range.end.line).toBe(8);
    expect(first.kind).toBe(3); // Namespace
  });
});

describe("faults", () => {
  it("starts a top-level run at every root, an orphan saying which parent is missing", () => {
    const text = session(
      HEADER,
      modelChange("m1", null),
      // Pi 0.73 left this parent dangling when it dropped a label from a branched session.
      user("u1", "48de2e44", "Mention the bug fix too."),
      assistant("a1", "u1", "Added it."),
    );
    expect(render(outline(text).symbols, true)).toBe(
      tree(
        "session — 019cadfd-8900-79df-9839-64c588162ed6 · /home/dev/project",
        "model: anthropic/claude-sonnet-4-5 — m1 · off the active path",
        'user: "Mention the bug fix too." — u1 · orphan: parent 48de2e44 not found',
        'assistant: "Added it." — a1 · leaf',
      ),
    );
  });

  it("lists entries in or below a parent cycle last, under one symbol", () => {
    const text = session(
      HEADER,
      user("u1", null, "Hello."),
      assistant("a1", "u1", "Hi."),
      user("x1", "y1", "In a cycle."),
      assistant("y1", "x1", "Me too."),
      user("z1", "y1", "Below it."),
      user("u2", "a1", "Still here."),
    );
    expect(render(outline(text).symbols, true)).toBe(
      tree(
        "session — 019cadfd-8900-79df-9839-64c588162ed6 · /home/dev/project",
        'user: "Hello." — u1',
        'assistant: "Hi." — a1',
        'user: "Still here." — u2 · leaf',
        "parent cycle (3 entries) — not reachable from any root; Pi hangs walking them",
        '  user: "In a cycle." — x1 · in the cycle',
        '  assistant: "Me too." — y1 · in the cycle',
        '  user: "Below it." — z1 · below the cycle',
      ),
    );
  });

  it("shows both holders of a duplicate id where Pi's index puts them", () => {
    const text = session(
      HEADER,
      user("u1", null, "First.", 1),
      assistant("a1", "u1", "One.", 2),
      user("u2", "a1", "Second.", 3),
      // The same id again: children of "a1" now resolve to this entry, as in Pi's byId.
      assistant("a1", "u1", "One, again.", 4),
      user("u3", "a1", "Third.", 5),
    );
    expect(render(outline(text).symbols, true)).toBe(
      tree(
        "session — 019cadfd-8900-79df-9839-64c588162ed6 · /home/dev/project",
        'user: "First." — u1',
        'branch 1 of 2: assistant: "One." — 1 entry · off the active path',
        '  assistant: "One." — a1 · duplicate id, shadowed by line 5',
        'branch 2 of 2: assistant: "One, again." — 3 entries · on the active path',
        '  assistant: "One, again." — a1 · duplicate id',
        // "Second." was written under the first a1, but Pi resolves its parent to the last one.
        '  branch 1 of 2: user: "Second." — 1 entry · off the active path',
        '    user: "Second." — u2',
        '  branch 2 of 2: user: "Third." — 1 entry · on the active path',
        '    user: "Third." — u3 · leaf',
      ),
    );
  });

  it("does not name an invalid header after the session, and survives lines that are not objects", () => {
    const text = session('{"type":"session","version":3,"id":42,"timestamp":"2026-03-02T10:00:00.001Z","cwd":"/p"}', user("u1", null, "Hi."), "[1,2]", "true");
    expect(render(outline(text).symbols)).toBe(tree("session (invalid header)", 'user: "Hi."', "(not an object)", "(not an object)"));
  });
});

describe("the cap", () => {
  const lines = [HEADER, user("u0", null, "Start.", 1)];
  for (let b = 1; b <= 5; b++) {
    lines.push(user(`b${b}`, "u0", `Branch ${b}.`, 10 * b));
    lines.push(assistant(`c${b}`, `b${b}`, `Answer ${b}.`, 10 * b + 1));
  }
  const text = session(...lines);

  it("stops at maxSymbols, says so, and keeps the outline well formed", () => {
    const full = outline(text);
    expect(full.truncated).toBe(false);
    expect(all(full.symbols)).toHaveLength(17);
    for (let max = 0; max < 17; max++) {
      const { symbols, truncated } = outline(text, max);
      const every = all(symbols);
      expect(truncated).toBe(true);
      expect(every.length).toBeLessThanOrEqual(max);
      expect(every.length).toBeGreaterThanOrEqual(max - 1); // a container only comes with its first entry
      // The truncated outline is the full outline cut short in reading order.
      expect(render(full.symbols).startsWith(render(symbols))).toBe(true);
      for (const s of every) {
        expect(contains(s.range, s.selectionRange)).toBe(true);
        if (s.children) expect(s.children.length).toBeGreaterThan(0);
      }
    }
    expect(render(outline(text, 6).symbols)).toBe(tree("session", 'user: "Start."', 'branch 1 of 5: user: "Branch 1."', '  user: "Branch 1."', '  assistant: "Answer 1."'));
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

  it("is one level, without a stack overflow, and fast", () => {
    const t = performance.now();
    const { symbols, truncated } = computeDocumentSymbols(d, { maxSymbols: 60_000 });
    const ms = performance.now() - t;
    expect(truncated).toBe(false);
    expect(symbols).toHaveLength(50_001);
    expect(symbols.every((s) => s.children === undefined)).toBe(true);
    expect(symbols[50_000]!.name).toBe('assistant: "Reply 49999."');
    expect(ms).toBeLessThan(2000);
  });

  it("stops at the default cap of the server", () => {
    const { symbols, truncated } = computeDocumentSymbols(d, { maxSymbols: 5000 });
    expect(truncated).toBe(true);
    expect(symbols).toHaveLength(5000);
  });
});

describe("text", () => {
  it("handles CRLF files: ranges stop before the carriage return", () => {
    const text = [HEADER, user("u1", null, "Hi."), assistant("a1", "u1", "Hello.")].join("\r\n") + "\r\n";
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

  it("finds the id after text with emoji when the line is not in Pi's key order", () => {
    const line = '{"message":{"role":"user","content":"😀 中文 first","timestamp":1},"type":"message","timestamp":"2026-03-02T10:00:01.000Z","parentId":null,"id":"u1"}';
    const d = doc(session(HEADER, line));
    const { symbols } = computeDocumentSymbols(d, { maxSymbols: 10 });
    expect(symbols[1]!.name).toBe('user: "😀 中文 first"');
    expect(textOf(d, symbols[1]!.selectionRange)).toBe('"u1"');
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
