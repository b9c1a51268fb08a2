/**
 * Reading entries back from a skeleton (`io/skeletonReader.ts`). One assistant message may hold
 * thousands of tool calls, each answered by its own tool result row in `tree --all`: the message's
 * call map is built once, not once per row (which made `tree --all` quadratic in the calls).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyMaker } from "../../server/src/core/disk/keys";
import { EntryReader, readSkeleton } from "../../server/src/io/skeletonReader";

const CALLS = 3_000;
let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-skeleton-reader-"));
  path = join(dir, "calls.jsonl");
  const lines = [
    JSON.stringify({ type: "session", version: 3, id: "0197a0b0-0000-7000-8000-000000000001", timestamp: "2026-03-02T10:00:00.002Z", cwd: "/p" }),
    JSON.stringify({
      type: "message",
      id: "u0",
      parentId: null,
      timestamp: "2026-03-02T10:00:01.000Z",
      message: { role: "user", content: "go", timestamp: 1 },
    }),
  ];
  const content = Array.from({ length: CALLS }, (_, i) => ({ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `/f${i}` } }));
  lines.push(
    JSON.stringify({ type: "message", id: "a0", parentId: "u0", timestamp: "2026-03-02T10:00:02.000Z", message: { role: "assistant", content, timestamp: 2 } }),
  );
  let parent = "a0";
  for (let i = 0; i < CALLS; i++) {
    const message = { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: "ok" }], timestamp: 3 };
    lines.push(JSON.stringify({ type: "message", id: `r${i}`, parentId: parent, timestamp: "2026-03-02T10:00:03.000Z", message }));
    parent = `r${i}`;
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("EntryReader.toolCall", () => {
  it("finds every call of a message with thousands of them, building its call map once", () => {
    const reader = new EntryReader(path, readSkeleton(path, "1.x"));
    const keys = new KeyMaker();
    try {
      // Each result in the order `tree --all` prints them, and once more in reverse.
      for (const order of [1, -1]) {
        for (let k = 0; k < CALLS; k++) {
          const i = order === 1 ? k : CALLS - 1 - k;
          expect(reader.toolCall(`c${i}`, (v) => keys.key(v))).toEqual({ name: "read", arguments: { path: `/f${i}` } });
        }
      }
      expect(reader.toolCall("c-none", (v) => keys.key(v))).toBeUndefined();
      expect(reader.callMapsBuilt).toBe(1);
    } finally {
      reader.close();
    }
  });
});
