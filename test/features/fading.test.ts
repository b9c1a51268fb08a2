/**
 * Fading: hint diagnostics with the Unnecessary tag on entries that are not in the context Pi builds
 * when it resumes. Each fixture is a small session built from Pi-shaped lines; expectations are
 * written as `line: message` pairs (0-based lines).
 */

import { describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeFadingHints, NOT_IN_CONTEXT } from "../../server/src/features/fading";
import { HEADER, assistant, assistantCalling, compaction, label, modelChange, session, toolResult, user } from "../helpers/piLines";

const doc = (text: string) => new SessionDocument("file:///fading.jsonl", "jsonl", 1, text);

const PREFIX = "Not in the context Pi builds when it resumes: ";

/** The faded lines as `line: reason` (the common prefix removed). */
function faded(text: string, maxFaded?: number): string[] {
  const d = doc(text);
  const diagnostics = computeFadingHints(d, maxFaded === undefined ? {} : { maxFaded });
  for (const x of diagnostics) checkShape(d, x);
  return diagnostics.map((x) => {
    const message = x.message as string;
    return `${x.range.start.line}: ${message.startsWith(PREFIX) ? message.slice(PREFIX.length) : message}`;
  });
}

/** Every fading diagnostic is a hint, tagged Unnecessary, and covers exactly its lines: from the start of the first to the end of the last. */
function checkShape(d: SessionDocument, x: Diagnostic): void {
  expect(x.severity).toBe(4);
  expect(x.tags).toEqual([1]);
  expect(x.code).toBe(NOT_IN_CONTEXT);
  expect(x.source).toBe("pi-session");
  expect(x.range.start).toEqual({ line: x.range.start.line, character: 0 });
  expect(x.range.end).toEqual({ line: x.range.end.line, character: d.lines[x.range.end.line]!.length });
  const lines = x.range.end.line - x.range.start.line + 1;
  if (lines > 1) expect(x.message).toContain(`; lines ${x.range.start.line + 1}–${x.range.end.line + 1} (${lines} entries)`);
}

/** A system message entry, as Pi 1.x writes them. */
function system(id: string, parent: string, text: string): string {
  return `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:10:00.000Z","message":{"role":"system","content":${JSON.stringify(text)},"timestamp":1772446200000}}`;
}

/** A context edit that removes its target (`replacement: null`). */
function removal(id: string, parent: string, targetId: string): string {
  return `{"type":"context_edit","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:11:00.000Z","targetId":"${targetId}","replacement":null}`;
}

describe("fading entries out of the context", () => {
  it("fades side branches, naming the line the active path ends on", () => {
    const text = session(
      HEADER, //                                  0
      modelChange("m1", null), //                 1
      user("u1", "m1", "Fix the test."), //       2
      assistant("a1", "u1", "Abandoned."), //     3 side branch
      user("x1", "a1", "And then?"), //           4 side branch
      assistant("a2", "u1", "Fixed."), //         5
      user("u2", "a2", "Thanks."), //             6
    );
    expect(faded(text)).toEqual(["3: on another branch (the active path ends on line 7); lines 4–5 (2 entries)"]);
  });

  it("fades what the last compaction summarised, and keeps its kept range, labels and settings", () => {
    const text = session(
      HEADER, //                                   0
      modelChange("m1", null), //                  1 compacted
      user("u1", "m1", "Fix the test."), //        2 compacted
      assistant("a1", "u1", "Looking."), //        3 compacted
      user("u2", "a1", "Go on."), //               4 kept (firstKeptEntryId)
      label("l1", "u2", "u1", "start"), //         5 kept
      assistant("a2", "l1", "Done."), //           6 kept
      compaction("c1", "a2", "u2", 12000), //      7
      user("u3", "c1", "Next."), //                8
    );
    expect(faded(text)).toEqual(["1: summarised by the compaction on line 8; lines 2–4 (3 entries)"]);
  });

  it("fades a system message in the kept range, which Pi 1.x drops", () => {
    const text = session(
      HEADER,
      user("u1", null, "Fix the test."), //        1 compacted
      user("u2", "u1", "Go on."), //               2 kept
      system("s1", "u2", "Be brief."), //          3 dropped by Pi 1.x
      assistant("a2", "s1", "Done."), //           4 kept
      compaction("c1", "a2", "u2", 12000), //      5
      user("u3", "c1", "Next."), //                6
    );
    expect(faded(text)).toEqual([
      "1: summarised by the compaction on line 6",
      "3: a system message Pi 1.x drops before the compaction on line 6 (Pi 0.73/0.74 keeps it)",
    ]);
  });

  it("fades a message that the last context edit naming it removes", () => {
    const text = session(
      HEADER,
      user("u1", null, "Read it."),
      assistantCalling("a1", "u1", ["read"]),
      toolResult("r1", "a1", "toolu_a1_0", "read"), // 3 removed
      removal("e1", "r1", "r1"),
      assistant("a2", "e1", "Done."),
    );
    expect(faded(text)).toEqual(["3: removed by the context_edit on line 5 (Pi 1.x)"]);
  });

  it("says why for duplicates and entries cut off by a cycle", () => {
    const text = session(
      HEADER,
      user("u1", null, "Fix the test."), //        1 shadowed by line 3
      user("c1", "c2", "In a cycle."), //          2
      user("u1", null, "Again."), //               3
      user("c2", "c1", "In a cycle too."), //      4
      assistant("a1", "u1", "Done."), //           5
    );
    expect(faded(text)).toEqual([
      "1: a later entry with the same id (line 4) takes its place in Pi's index, which cuts it off from the tree",
      "2: in or below a parent cycle, which the active path does not reach",
      "4: in or below a parent cycle, which the active path does not reach",
    ]);
  });

  it("fades nothing when the leaf runs into a parent cycle, and does not hang", () => {
    const text = session(HEADER, user("u1", null, "Fix."), assistant("a1", "u1", "Side."), user("c1", "c2", "x"), user("c2", "c1", "y"));
    expect(faded(text)).toEqual([]);
    const self = session(HEADER, user("u1", null, "Fix."), user("s", "s", "Self."));
    expect(faded(self)).toEqual([]);
  });

  it("fades nothing in a file Pi does not resume as is: no header, a v1 header, no entries", () => {
    const branched = [user("u1", null, "Fix."), assistant("a1", "u1", "Side."), assistant("a2", "u1", "Main.")];
    expect(faded(session(...branched))).toEqual([]);
    expect(faded(session('{"type":"session","id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}', ...branched))).toEqual([]);
    expect(faded(session(HEADER))).toEqual([]);
    expect(faded("")).toEqual([]);
    // The same entries under a v3 header do fade.
    expect(faded(session(HEADER, ...branched))).toEqual(["2: on another branch (the active path ends on line 4)"]);
  });

  it("covers the line without its CRLF ending, whatever precedes it", () => {
    const text = `${[HEADER, user("u1", null, "Fix 🧪 the 𝄞 test."), assistant("a1", "u1", "Side 😀."), assistant("a2", "u1", "Main.")].join("\r\n")}\r\n`;
    const d = doc(text);
    const [x] = computeFadingHints(d);
    expect(x!.range).toEqual({ start: { line: 2, character: 0 }, end: { line: 2, character: assistant("a1", "u1", "Side 😀.").length } });
    expect(d.lines[2]!.endsWith("}")).toBe(true);
  });

  it("marks a run of consecutive entries faded for one reason once, however long", () => {
    const side = Array.from({ length: 20 }, (_, i) => assistant(`s${i}`, "u1", `Side ${i}.`));
    const text = session(HEADER, user("u1", null, "Fix."), ...side, assistant("a1", "u1", "Main."));
    expect(faded(text)).toEqual(["2: on another branch (the active path ends on line 23); lines 3–22 (20 entries)"]);
  });

  it("splits runs where the reason changes, even on consecutive lines", () => {
    const text = session(
      HEADER, //                                  0
      user("u1", null, "Fix."), //                1 compacted
      assistant("x1", "u1", "Side."), //          2 side branch
      assistant("a1", "u1", "Main."), //          3 kept
      compaction("c1", "a1", "a1", 100), //       4
      user("u2", "c1", "Next."), //               5
    );
    expect(faded(text)).toEqual(["1: summarised by the compaction on line 5", "2: on another branch (the active path ends on line 6)"]);
  });

  it("caps the number of runs and says how many entries were left out", () => {
    // Side entries between main-path entries: every side entry is a run of its own.
    const lines = [HEADER, user("m0", null, "Fix.")];
    for (let i = 1; i <= 20; i++) lines.push(assistant(`s${i}`, `m${i - 1}`, `Side ${i}.`), user(`m${i}`, `m${i - 1}`, `Main ${i}.`));
    const text = session(...lines);
    const out = faded(text, 5);
    expect(out).toHaveLength(6);
    expect(out.slice(0, 5).map((x) => x.split(":")[0])).toEqual(["2", "4", "6", "8", "10"]);
    expect(out[5]).toBe(
      "12: 15 more entries are not in the context Pi builds when it resumes, from this line on; only the first 5 runs of faded lines are marked.",
    );
    expect(faded(text, 0)).toEqual([
      "2: 20 more entries are not in the context Pi builds when it resumes, from this line on; only the first 0 runs of faded lines are marked.",
    ]);
    expect(faded(text)).toHaveLength(20);
  });

  it("gives a 50,000-entry compacted prefix one hint", () => {
    const lines = [HEADER, user("e0", null, "start")];
    for (let i = 1; i < 50_000; i++) lines.push(i % 2 ? assistant(`e${i}`, `e${i - 1}`, `reply ${i}`) : user(`e${i}`, `e${i - 1}`, `ask ${i}`));
    lines.push(compaction("c", "e49999", "e49990", 99000), user("last", "c", "go"));
    const d = doc(session(...lines));
    const out = computeFadingHints(d);
    expect(out.map((x) => [x.range.start.line, x.range.end.line, x.message])).toEqual([
      [1, 49_990, `${PREFIX}summarised by the compaction on line 50002; lines 2–49991 (49,990 entries)`],
    ]);
  });

  it("caps the hints on a 50,000-entry session whose every other entry is a side branch", () => {
    const lines = [HEADER, user("m0", null, "start")];
    for (let i = 1; i < 25_000; i++) lines.push(assistant(`s${i}`, `m${i - 1}`, `side ${i}`), user(`m${i}`, `m${i - 1}`, `ask ${i}`));
    const out = computeFadingHints(doc(session(...lines)));
    expect(out).toHaveLength(5001);
    expect(out[5000]!.message as string).toMatch(/^19,999 more entries/);
  });
});
