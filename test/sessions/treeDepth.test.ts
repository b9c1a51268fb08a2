/**
 * `/tree` on a session nested 3,000 branch points deep: every row's drawing is as long as its
 * indent, and rows of one shape share one drawing. Before, each row's drawing was built character by
 * character with a search of its gutters for every character, which on the 40 MB benchmark session
 * (50,000 entries, 40,000 rows a hundred levels deep) took 5.7 s of CPU and 735 MB, and on this file
 * would take minutes.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildTreeView } from "../../server/src/core/disk/tree";
import { readSkeleton } from "../../server/src/io/skeletonReader";

const DEPTH = 3000;
const dir = mkdtempSync(join(tmpdir(), "pi-tree-depth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A chain c0 … c3000 where every c(k-1) also has a tip t(k) beside c(k); the leaf is the last chain entry. */
function nestedSession(): string {
  const t0 = Date.parse("2026-03-02T10:00:00.000Z");
  const entry = (id: string, parentId: string | null, k: number) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: new Date(t0 + k * 1000).toISOString(),
      message: { role: "user", content: `step ${id}`, timestamp: t0 + k * 1000 },
    });
  const lines = [
    JSON.stringify({ type: "session", version: 3, id: "019e1000-0000-7000-8000-000000000001", timestamp: new Date(t0).toISOString(), cwd: "/home/dev/p" }),
  ];
  lines.push(entry("c0", null, 0));
  for (let k = 1; k <= DEPTH; k++) lines.push(entry(`t${k}`, `c${k - 1}`, 2 * k));
  for (let k = 1; k <= DEPTH; k++) lines.push(entry(`c${k}`, `c${k - 1}`, 2 * k + 1));
  return `${lines.join("\n")}\n`;
}

describe("tree on a deeply nested session", () => {
  it("draws each row to its indent, the active branch first at every branch point", () => {
    const file = join(dir, "nested.jsonl");
    writeFileSync(file, nestedSession());
    const view = buildTreeView(readSkeleton(file, "1.x"));
    expect(view.rows.length).toBe(2 * DEPTH + 1);
    expect(view.rows.every((r) => /^(│ {2}| {3})*([├└][─⊟] )?$/.test(r.prefix))).toBe(true);
    // The leaf is the last chain entry, reached through DEPTH branch points, each one level deeper.
    const leaf = view.rows[view.selectedIndex]!;
    expect(leaf.active).toBe(true);
    expect(leaf.prefix.length).toBe(3 * DEPTH);
    expect(leaf.prefix.endsWith("├─ ")).toBe(true);
    // Every tip hangs last under its branch point, one level below it.
    const tips = view.rows.filter((r) => !r.active);
    expect(tips.length).toBe(DEPTH);
    expect(tips.every((r) => r.prefix.endsWith("└─ "))).toBe(true);
  });
});
