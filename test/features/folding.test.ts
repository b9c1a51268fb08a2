/**
 * Folding ranges. Expected ranges are written as an indented tree of `first-last kind` lines
 * (0-based lines, nested ranges indented under the range that contains them), with the collapsed
 * text in parentheses where there is one.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FoldingRange } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeFoldingRanges } from "../../server/src/features/folding";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { HEADER, assistant, assistantCalling, compaction, modelChange, session, toolResult, user } from "../helpers/piLines";

const doc = (text: string) => new SessionDocument("file:///folding.jsonl", "jsonl", 1, text);

function folding(text: string, maxRanges?: number): FoldingRange[] {
  return computeFoldingRanges(doc(text), maxRanges === undefined ? {} : { maxRanges });
}

/** The ranges as a tree; throws on ranges that are empty, unsorted or crossing. */
function render(ranges: readonly FoldingRange[]): string {
  const out: string[] = [];
  const open: FoldingRange[] = [];
  let previous: FoldingRange | undefined;
  for (const r of ranges) {
    if (!(r.startLine < r.endLine)) throw new Error(`empty range ${r.startLine}-${r.endLine}`);
    if (previous && (r.startLine < previous.startLine || (r.startLine === previous.startLine && r.endLine > previous.endLine))) throw new Error("not sorted");
    while (open.length > 0 && open[open.length - 1]!.endLine < r.startLine) open.pop();
    const top = open[open.length - 1];
    if (top && r.endLine > top.endLine) throw new Error(`${r.startLine}-${r.endLine} crosses ${top.startLine}-${top.endLine}`);
    out.push(`${"  ".repeat(open.length)}${r.startLine}-${r.endLine} ${r.kind ?? "turn"}${r.collapsedText ? ` (${r.collapsedText})` : ""}`);
    open.push(r);
    previous = r;
  }
  return out.join("\n");
}

const tree = (...lines: string[]) => lines.join("\n");

describe("turns", () => {
  it("fold from a user message to the line before the next one, without trailing blank lines", () => {
    const text = session(
      HEADER, //                                            0
      modelChange("m1", null), //                           1
      user("u1", "m1", "Fix the failing test."), //         2
      assistantCalling("a1", "u1", ["read"]), //            3
      toolResult("r1", "a1", "toolu_a1_0", "read"), //      4
      assistant("a2", "r1", "Fixed."), //                   5
      "", //                                                6
      user("u2", "a2", "Thanks. Commit it."), //            7
      assistant("a3", "u2", "Committed."), //              8
      "", //                                                9
    );
    expect(render(folding(text))).toBe(tree("2-5 turn", "7-8 turn"));
  });

  it("make no range of a single line", () => {
    const text = session(HEADER, user("u1", null, "One."), user("u2", "u1", "Two."), assistant("a2", "u2", "Yes."));
    expect(render(folding(text))).toBe(tree("2-3 turn"));
  });
});

describe("runs off the active path", () => {
  it("fold as regions, with the turns inside them nested", () => {
    const text = session(
      HEADER, //                                                  0
      user("u1", null, "Parse the dates.", 1), //                 1
      assistant("a1", "u1", "With a regex or a parser?", 2), //   2
      user("u2", "a1", "Use a regex.", 3), //                     3 off
      assistant("a2", "u2", "Done.", 4), //                       4 off
      user("u3", "a2", "Handle time zones.", 5), //               5 off
      assistant("a4", "u3", "That gets hard.", 6), //             6 off
      user("u5", "a1", "Use a parser instead.", 7), //            7
      assistant("a5", "u5", "Done, with date-fns.", 8), //        8 leaf
    );
    expect(render(folding(text))).toBe(tree("1-2 turn", "3-6 region (4 entries off the active path)", "  3-4 turn", "  5-6 turn", "7-8 turn"));
  });

  it("shorten turns so that no two ranges cross", () => {
    const text = session(
      HEADER, //                                                  0
      user("u1", null, "Parse the dates.", 1), //                 1
      assistant("a1", "u1", "Which format?", 2), //               2
      assistant("a2", "a1", "Trying ISO first.", 3), //           3 off
      user("u2", "a2", "No, RFC 2822.", 4), //                    4 off
      assistant("a3", "u2", "Switching.", 5), //                  5 off
      assistant("a4", "a1", "Trying RFC 2822.", 6), //            6
      user("u3", "a4", "Good.", 7), //                            7
      assistant("a5", "u3", "Done.", 8), //                       8 leaf
    );
    // In file order the turns are 1-3 and 4-6; 1-3 would end inside the run, 4-6 would leave it.
    expect(render(folding(text))).toBe(tree("1-2 turn", "3-5 region (3 entries off the active path)", "  4-5 turn", "7-8 turn"));
  });

  it("are not made when the leaf is in a cycle (there is no active path)", () => {
    const text = session(HEADER, user("u1", null, "Hi."), assistant("a1", "u1", "Hello."), user("x1", "y1", "Loop."), assistant("y1", "x1", "Loop."));
    expect(render(folding(text))).toBe(tree("1-2 turn", "3-4 turn"));
  });
});

describe("compactions", () => {
  const text = session(
    HEADER, //                                                 0
    modelChange("m1", null), //                                1
    user("u1", "m1", "Read the parser."), //                   2
    assistant("a1", "u1", "Read it."), //                      3
    user("u2", "a1", "Find the bug."), //                      4
    assistant("a2", "u2", "Found it."), //                     5
    user("u3", "a2", "Fix it."), //                            6
    assistant("a3", "u3", "Fixed."), //                        7
    compaction("c1", "a3", "u3", 48210), //                    8
    user("u4", "c1", "Run the tests."), //                     9
    assistant("a4", "u4", "They pass."), //                   10
    user("u5", "a4", "Commit."), //                           11
    assistant("a5", "u5", "Committed."), //                   12
    compaction("c2", "a5", "u5", 61000), //                   13
    user("u6", "c2", "Push."), //                             14
    assistant("a6", "u6", "Pushed."), //                      15
  );

  it("fold what each compaction summarised: from the previous kept boundary to before its own", () => {
    expect(render(folding(text))).toBe(
      tree(
        "1-5 region (5 entries summarised by the compaction on line 9)",
        "  2-3 turn",
        "  4-5 turn",
        "6-10 region (5 entries summarised by the compaction on line 14)",
        "  6-8 turn",
        "  9-10 turn",
        "11-13 turn",
        "14-15 turn",
      ),
    );
  });

  it("still fold after a compaction below a parent cycle (which has no history to fold)", () => {
    // Walking up from k1 runs around the cycle x, y forever: k1 must be skipped before the walk, or
    // the walk spends the budget all walks share and the later compaction c1 loses its fold.
    const cyclic = session(
      HEADER,
      user("x", "y", "In a cycle.", 1),
      user("y", "x", "Me too.", 2),
      compaction("k1", "x", "x", 10, 3),
      user("u1", null, "One.", 4),
      assistant("a1", "u1", "1.", 5),
      user("u2", "a1", "Two.", 6),
      assistant("a2", "u2", "2.", 7),
      compaction("c1", "a2", "u2", 1000, 8),
      user("u3", "c1", "Three.", 9),
    );
    expect(render(folding(cyclic))).toContain("4-5 region (2 entries summarised by the compaction on line 9)");
  });

  it("summarise everything before them when the kept entry is not on their path", () => {
    const dangling = session(
      HEADER,
      user("u1", null, "One."),
      assistant("a1", "u1", "1."),
      user("u2", "a1", "Two."),
      compaction("c1", "u2", "gone", 1000),
      user("u3", "c1", "Three."),
    );
    // The turn of "Two." would run from inside the region to the compaction: it cannot fold.
    expect(render(folding(dangling))).toBe(tree("1-3 region (3 entries summarised by the compaction on line 5)", "  1-2 turn"));
  });

  it("come first when the number of ranges is capped", () => {
    expect(render(folding(text, 3))).toBe(
      tree("1-5 region (5 entries summarised by the compaction on line 9)", "  2-3 turn", "6-10 region (5 entries summarised by the compaction on line 14)"),
    );
    expect(folding(text, 0)).toEqual([]);
  });
});

describe("on sessions the real Pi wrote", () => {
  const dir = join(__dirname, "../parity/fixtures");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();

  it("folding ranges are valid, sorted and well nested, and the outline is well formed", () => {
    for (const file of files) {
      const d = doc(readFileSync(join(dir, file), "utf8"));
      expect(() => render(computeFoldingRanges(d)), file).not.toThrow();
      const { symbols } = computeDocumentSymbols(d, { maxSymbols: 5000 });
      const stack = [...symbols];
      while (stack.length > 0) {
        const s = stack.pop()!;
        expect(s.name.length, file).toBeGreaterThan(0);
        expect(s.selectionRange.start.line >= s.range.start.line && s.selectionRange.end.line <= s.range.end.line, file).toBe(true);
        if (s.children) stack.push(...s.children);
      }
    }
  });

  it("a compaction written by Pi folds the history it summarised", () => {
    const d = doc(readFileSync(join(dir, "written-16-compaction.jsonl"), "utf8"));
    const regions = computeFoldingRanges(d).filter((r) => r.collapsedText?.includes("summarised"));
    expect(regions.length).toBeGreaterThan(0);
    const a = d.analysis;
    for (const r of regions) {
      const line = Number(/line (\d+)/.exec(r.collapsedText!)![1]) - 1;
      const kept = a.byId.get(String(a.entryAtLine[line]!.parsed.object!.firstKeptEntryId))!;
      expect(r.endLine).toBeLessThan(kept.line);
    }
  });
});

describe("line endings and faults", () => {
  it("folds the same lines in a CRLF file", () => {
    const lines = [
      HEADER,
      modelChange("m1", null),
      user("u1", "m1", "Fix 😀 修复."),
      assistant("a1", "u1", "Done."),
      user("u2", "a1", "Next."),
      assistant("a2", "u2", "OK."),
    ];
    const lf = render(folding(`${lines.join("\n")}\n`));
    expect(lf).toBe(tree("2-3 turn", "4-5 turn"));
    expect(render(folding(`${lines.join("\r\n")}\r\n`))).toBe(lf);
  });

  it("stays valid with duplicate ids, a dangling parent and a cycle", () => {
    const text = session(
      HEADER,
      user("u1", null, "One."),
      assistant("a1", "u1", "Yes."),
      user("u1", "a1", "Same id again."),
      assistant("a2", "missing", "Orphan."),
      user("c1", "c2", "Cycle."),
      user("c2", "c1", "Cycle."),
      user("u9", "u1", "Last."),
    );
    expect(() => render(folding(text))).not.toThrow();
    expect(folding(text).every((r) => r.startLine >= 0 && r.endLine <= 8)).toBe(true);
  });
});
