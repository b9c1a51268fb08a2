/**
 * A compaction whose kept range starts before an earlier compaction on the same path
 * (test/fixtures/diagnostics/compaction-kept-range-holds-older-compaction.txt, a file Pi calls
 * clean and the diagnostics fixture checks stays so): Pi's `buildSessionContext` pushes the last
 * compaction's summary first, then the kept entries through `appendMessage`, which turns only
 * `message`, `custom_message` and `branch_summary` entries into messages, so the older compaction
 * inside the kept range sends nothing (docs/session-format.md §5.4 of the shared docs; the same for
 * Pi 0.74 and 1.x). Both the document's build and `context`'s shortcut over the file's bytes send
 * exactly one summary, the second one.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContext, type ContextResult } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { scannedContext } from "../../server/src/core/pi/scannedContext";
import { parseFixture } from "../helpers/fixture";

const { text } = parseFixture(readFileSync(join(__dirname, "../fixtures/diagnostics/compaction-kept-range-holds-older-compaction.txt"), "utf8"));

function summary(m: unknown): string {
  const r = m as { role: string; content?: unknown; summary?: string };
  if (r.role === "compactionSummary") return `summary: ${r.summary!.split("\n")[1]}`;
  return `${r.role}: ${typeof r.content === "string" ? r.content : (r.content as { text: string }[])[0]!.text}`;
}

function messagesOf(result: ContextResult | undefined): string[] {
  if (!result?.ok) throw new Error("the context should build");
  return result.build.context.messages.map(summary);
}

const EXPECTED = [
  "summary: Second summary: add(), subtract() and multiply() work.",
  // Kept from c21a9e04, before the first compaction, which is selected but sends nothing.
  "assistant: add() subtracted; fixed.",
  "user: Now add subtract().",
  "assistant: Added subtract().",
  "user: Then multiply().",
  "assistant: Added multiply().",
  "user: Run the tests.",
];

describe("an older compaction inside the last compaction's kept range", () => {
  for (const flavor of ["1.x", "0.74"] as const) {
    it(`sends only the last summary (Pi ${flavor}), from the document and from the file's bytes`, () => {
      const a = new SessionDocument("file:///older-compaction.jsonl", "jsonl", 1, text).analysis;
      const built = buildContext(a, { flavor });
      expect(built.ok && built.build.selected.map((e) => e.type)).toEqual([
        "compaction",
        "message",
        "message",
        "message",
        "compaction",
        "message",
        "message",
        "message",
      ]);
      expect(messagesOf(built)).toEqual(EXPECTED);
      expect(messagesOf(scannedContext(Buffer.from(text, "utf8"), { flavor, leafId: undefined }))).toEqual(EXPECTED);
    });
  }
});
