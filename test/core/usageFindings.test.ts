/**
 * The findings on an assistant's `usage` (`core/line/findings.ts`): a line whose usage is well formed
 * is settled by one load of each field by its name (`usageValid`), and every other shape still gets
 * the finding on each field, in the order of the fields' lists.
 */

import { describe, expect, it } from "vitest";
import { parseLine } from "../../server/src/core/line/parse";
import type { ParsedLine } from "../../server/src/core/line/facts";

const T = "2026-03-02T10:00:00.000Z";

function assistantWith(usage: unknown): string {
  return JSON.stringify({
    type: "message",
    id: "a1",
    parentId: null,
    timestamp: T,
    message: { role: "assistant", content: [], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: 1 },
  });
}

function messages(p: ParsedLine): string[] {
  return p.kind === "value" ? p.findings.map((f) => f.message.split(". ")[0]!) : [];
}

describe("usage findings", () => {
  it("finds nothing in a usage of numbers, with or without its cost", () => {
    const counts = { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10 };
    expect(messages(parseLine(assistantWith(counts)))).toEqual([]);
    expect(messages(parseLine(assistantWith({ ...counts, cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 } })))).toEqual([]);
    expect(messages(parseLine(assistantWith({})))).toEqual([]);
  });

  it("names every field that is not a number, counts first, then the cost's", () => {
    const usage = { totalTokens: null, input: "1", cost: { total: true, cacheWrite: {} } };
    expect(messages(parseLine(assistantWith(usage)))).toEqual([
      '`usage.input` should be a number, not the string "1"',
      "`usage.totalTokens` should be a number, not null",
      "`usage.cost.cacheWrite` should be a number, not an object",
      "`usage.cost.total` should be a number, not boolean true",
    ]);
  });

  it("says a cost that is not an object is wrong, whatever it is", () => {
    for (const [cost, what] of [
      [null, "null"],
      [[1], "an array"],
      ["x", 'the string "x"'],
      [2, "number 2"],
    ] as const)
      expect(messages(parseLine(assistantWith({ input: 1, cost })))).toEqual([`\`usage.cost\` should be an object, not ${what}`]);
  });
});
