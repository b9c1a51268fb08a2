/**
 * Ids that are not strings, followed exactly as Pi follows them: `byId` is a `Map` keyed by
 * whatever `id` holds, a parent is looked up only when `parentId` is truthy, and a last entry whose
 * id is `null` means "before the first entry". The expected messages were recorded from the real
 * `SessionManager.open` + `buildSessionContext` of Pi 0.74.2 and 1.6.0 (identical for these files).
 */

import { describe, expect, it } from "vitest";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";

const H = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const m = (id: unknown, parent: unknown, text: string, withId = true) =>
  JSON.stringify({
    type: "message",
    ...(withId ? { id } : {}),
    parentId: parent,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });

const CASES: { name: string; lines: string[]; pi: string[] }[] = [
  { name: "numeric ids", lines: [H, m(1, null, "one"), m(2, 1, "two")], pi: ["one", "two"] },
  { name: "a string parentId does not find a numeric id", lines: [H, m(1, null, "one"), m(2, "1", "two")], pi: ["two"] },
  { name: "a last entry with id null resumes empty", lines: [H, m("a", null, "one"), m(null, "a", "two")], pi: [] },
  { name: "an object parentId finds nothing", lines: [H, m("a", null, "one"), m("b", {}, "two")], pi: ["two"] },
  { name: "boolean ids", lines: [H, m(true, null, "one"), m("b", true, "two")], pi: ["one", "two"] },
  { name: "a parentId of 0 is a root", lines: [H, m(0, null, "one"), m("b", 0, "two")], pi: ["two"] },
  { name: "a last entry without an id", lines: [H, m("a", null, "one"), m(undefined, "a", "two", false)], pi: ["one", "two"] },
];

describe("non-string ids, as Pi keys them", () => {
  for (const c of CASES) {
    it(`${c.name}: the context equals the real Pi's`, () => {
      const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${c.lines.join("\n")}\n`);
      for (const flavor of ["1.x", "0.74"] as const) {
        const result = buildContext(doc.analysis, { flavor });
        if (!result.ok) throw new Error(`no context: ${result.failure.kind}`);
        expect(result.build.context.messages.map((x) => (x as { content: unknown }).content)).toEqual(c.pi);
      }
    });
  }

  it("does not call a child of a numeric id dangling", () => {
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${[H, m(1, null, "one"), m(2, 1, "two")].join("\n")}\n`);
    expect(computeDiagnostics(doc).map((d) => d.code)).not.toContain("dangling-parent");
    expect(doc.analysis.parent[1]).toBe(doc.analysis.entries[0]);
  });
});
