import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateTokens } from "../../server/src/core/pi/tokens";

const assistant = (usage: object, stopReason = "stop", text = "ok") => ({ role: "assistant", content: [{ type: "text", text }], usage, stopReason });

describe("token estimate (Pi's heuristic)", () => {
  it("counts a quarter token per character, rounded up, an image as 4,800 characters", () => {
    expect(estimateTokens({ role: "user", content: "12345" })).toBe(2);
    expect(
      estimateTokens({
        role: "user",
        content: [
          { type: "text", text: "abcd" },
          { type: "image", data: "x", mimeType: "image/png" },
        ],
      }),
    ).toBe(1201);
    expect(
      estimateTokens({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "toolCall", id: "c", name: "read", arguments: { path: "a" } },
        ],
      }),
    ).toBe(Math.ceil((3 + 4 + JSON.stringify({ path: "a" }).length) / 4));
    expect(estimateTokens({ role: "bashExecution", command: "ls", output: "a\nb" })).toBe(2);
    expect(estimateTokens({ role: "compactionSummary", summary: "x".repeat(9) })).toBe(3);
    expect(estimateTokens({ role: "system", content: "abcd", sections: { a: "abcd", b: null }, toolsAdded: [] })).toBe(Math.ceil((8 + 2) / 4));
  });

  it("never throws on malformed messages", () => {
    for (const m of [
      null,
      3,
      "x",
      [],
      {},
      { role: "assistant" },
      { role: "assistant", content: [null, { type: "text" }] },
      { role: "bashExecution" },
      { role: "mystery", content: "zzzz" },
    ]) {
      expect(estimateTokens(m)).toBeGreaterThanOrEqual(0);
    }
  });

  it("takes the last usable assistant usage and estimates what follows it", () => {
    const messages = [
      { role: "user", content: "x".repeat(400) },
      assistant({ totalTokens: 1000 }),
      { role: "user", content: "x".repeat(40) },
      assistant({ totalTokens: 0, input: 0, output: 0 }, "stop", "abcd"),
    ];
    expect(estimateContextTokens(messages)).toEqual({ tokens: 1000 + 10 + 1, usageTokens: 1000, trailingTokens: 11, lastUsageIndex: 1 });
  });

  it("skips aborted and errored replies, and sums the parts when totalTokens is missing", () => {
    const messages = [
      assistant({ input: 10, output: 5, cacheRead: 3, cacheWrite: 2 }),
      assistant({ totalTokens: 999 }, "aborted", "abcd"),
      assistant({ totalTokens: 999 }, "error", "abcd"),
    ];
    expect(estimateContextTokens(messages)).toEqual({ tokens: 20 + 1 + 1, usageTokens: 20, trailingTokens: 2, lastUsageIndex: 0 });
  });
});
