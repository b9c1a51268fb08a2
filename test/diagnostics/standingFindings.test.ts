/**
 * `standingFinding` (a provider request finding kept through the idle release, as it stands after
 * the edits since) on hand-made line maps: a finding moves with its line, keeps its characters and
 * extent, and is dropped when its line, the end of its range, a related location's line or a line
 * its message names (in each form the request findings write: "line 12", "line 12's", "(line 12)",
 * "lines 3–5", "lines 3, 5 and 7") was edited or moved.
 */

import type { Diagnostic } from "vscode-languageserver";
import { describe, expect, it } from "vitest";
import type { StaleLines } from "../../server/src/core/session/semantics/memo";
import { standingFinding } from "../../server/src/features/diagnostics/standingFindings";

/** The map of an edit that replaced lines `start` to `end - delta` with `end - start` lines, plus lines edited in place since (new numbers). */
function splice(start: number, end: number, delta: number, editedNow: number[] = []): StaleLines {
  return {
    now: (line) => {
      if (line >= start && line < end - delta) return undefined;
      const moved = line < start ? line : line + delta;
      return editedNow.includes(moved) ? undefined : moved;
    },
    unmoved: delta === 0,
  };
}

const finding = (line: number, message: string, extra: Partial<Diagnostic> = {}): Diagnostic => ({
  range: { start: { line, character: 3 }, end: { line, character: 9 } },
  message,
  code: "tool-call-without-result",
  ...extra,
});

describe("standingFinding", () => {
  it("moves a finding below the edit with its line, its characters as they were", () => {
    const moved = standingFinding(finding(10, "No result follows this tool call before the end of the context"), splice(4, 6, 1));
    expect(moved?.range).toEqual({ start: { line: 11, character: 3 }, end: { line: 11, character: 9 } });
    // Above the edit: the finding itself.
    const d = finding(2, "x");
    expect(standingFinding(d, splice(4, 6, 1))).toEqual(d);
  });

  it("drops a finding on a line replaced or edited since, or whose range ends on one", () => {
    expect(standingFinding(finding(4, "x"), splice(4, 6, 1))).toBeUndefined();
    expect(standingFinding(finding(10, "x"), splice(4, 6, 1, [11]))).toBeUndefined();
    const spanning = finding(3, "x", { range: { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } } });
    expect(standingFinding(spanning, splice(4, 5, 0))).toBeUndefined();
  });

  it("drops a finding whose message names a line moved or edited, in each form the request findings write", () => {
    const lines = splice(6, 7, -1);
    for (const message of [
      "No result follows this tool call before the next user message (line 9): Pi sends a synthetic error result",
      "The context edit on line 9 replaces this user message with one that has no text.",
      "Change line 9's replacement if the model should see it.",
      "a user message (line 2) comes between the call (line 9) and this result",
      "the compaction on line 2 keeps the entries from this result on but summarises its call (line 9) away",
      "lines 2–9",
      "lines 2, 3 and 9",
    ])
      expect(standingFinding(finding(1, message), lines), message).toBeUndefined();
    // A span names the lines inside it too: line 4 alone edited in place.
    expect(standingFinding(finding(1, "lines 3–5 are one run"), splice(3, 4, 0)), "lines 3–5").toBeUndefined();
    expect(standingFinding(finding(1, "lines 6–8 are one run"), splice(3, 4, 0)), "lines 6–8").toEqual(finding(1, "lines 6–8 are one run"));
    // Lines above the edit, named, stay where they were: the finding stands.
    const d = finding(1, "a user message (line 2) comes between the call (line 3) and this result");
    expect(standingFinding(d, lines)).toEqual(d);
  });

  it("moves related information with its lines, and drops a finding pointing at a line edited", () => {
    const related = [
      { location: { uri: "file:///s.jsonl", range: { start: { line: 8, character: 1 }, end: { line: 8, character: 4 } } }, message: "the call" },
    ];
    const moved = standingFinding(finding(10, "x", { relatedInformation: related }), splice(2, 4, 2));
    expect(moved?.relatedInformation?.[0]?.location.range).toEqual({ start: { line: 10, character: 1 }, end: { line: 10, character: 4 } });
    expect(moved?.range.start.line).toBe(12);
    expect(standingFinding(finding(10, "x", { relatedInformation: related }), splice(8, 9, 0))).toBeUndefined();
  });
});
