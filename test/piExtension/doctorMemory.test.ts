/**
 * Pi's process has no idle collection (`lsp/memory.ts` is the server's): what the doctor's analysis
 * leaves in the process-wide value store (`core/line/values.ts`) stays until the next analysis. The
 * values are keyed by the parsed lines of a document the doctor has dropped, so none can be read
 * again: each run must let them all go. A large session's first parse holds the values of the path
 * Pi resumes (`core/line/heldValues.ts`); behind a compaction the context reads none above the
 * entry it keeps first, and those were held until another large session was read (23 MB on the bench's
 * 43 MB session with a compaction at its end).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedChars, forgetValues, heldLines, setValueBudget } from "../../server/src/core/line/values";
import { diagnose } from "../../server/src/piExtension/doctorSession";

const message = (id: string, parent: string | null, role: "user" | "assistant", text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-03-02T10:00:01.000Z",
    message:
      role === "user"
        ? { role, content: text, timestamp: 1 }
        : { role, content: [{ type: "text", text }], provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "stop", timestamp: 2 },
  });

/** A header, 40 messages, a compaction that keeps only the last of them, and one message after it. */
function compactedSession(): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "0197a0b0-0000-7000-8000-000000000001", timestamp: "2026-03-02T10:00:00.000Z", cwd: "/w" })];
  let parent: string | null = null;
  for (let i = 0; i < 40; i++) {
    const id = `m${String(i).padStart(7, "0")}`;
    lines.push(message(id, parent, i % 2 === 0 ? "user" : "assistant", `message ${i} ${"words ".repeat(40)}`));
    parent = id;
  }
  lines.push(
    JSON.stringify({
      type: "compaction",
      id: "c0000001",
      parentId: parent,
      timestamp: "2026-03-02T11:00:00.000Z",
      summary: "earlier",
      firstKeptEntryId: parent,
      tokensBefore: 9000,
    }),
  );
  lines.push(message("u0000001", "c0000001", "user", "after the compaction"));
  return `${lines.join("\n")}\n`;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-doctor-memory-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  forgetValues();
  setValueBudget(undefined);
});

describe("the doctor inside Pi", () => {
  it("keeps no parsed value once its report is made, held or cached, for a large session behind a compaction and a small one", () => {
    const text = compactedSession();
    const path = join(dir, "compacted.jsonl");
    writeFileSync(path, text);
    // A budget under the text's length makes it a large document, whose resumed path's values are held.
    setValueBudget(Math.floor(text.length / 2));
    const large = diagnose(path, 1 << 20);
    expect(large.ok).toBe(true);
    expect(heldLines()).toBe(0);
    expect(cachedChars()).toBe(0);
    setValueBudget(undefined);
    writeFileSync(path, `${text}${message("u0000002", "u0000001", "user", "one more")}\n`);
    const small = diagnose(path, 1 << 20);
    expect(small.ok).toBe(true);
    expect(heldLines()).toBe(0);
    expect(cachedChars()).toBe(0);
  });
});
