// The per-object caches whose tables the idle server makes anew (core/base/weakTables.ts): a
// WeakMap's table keeps its size after its keys die, so the caches keyed by a large session's
// messages and parses would keep tables sized for it after it is closed.
import { describe, expect, it, vi } from "vitest";
import { releaseKept, releasedTable } from "../../server/src/core/session/semantics/memo";
import { renewableWeakMap, renewWeakTables } from "../../server/src/core/base/weakTables";

describe("renewableWeakMap", () => {
  it("loses every entry, live key or not, when the tables are renewed, and is written again afterwards", () => {
    const table = renewableWeakMap<object, number>();
    const key = {};
    table.set(key, 1);
    expect(table.get(key)).toBe(1);
    renewWeakTables();
    expect(table.has(key)).toBe(false);
    expect(table.get(key)).toBeUndefined();
    table.set(key, 2);
    expect(table.get(key)).toBe(2);
  });

  it("is not emptied by releaseKept, and a releasedTable is not emptied by renewWeakTables", () => {
    const renewable = renewableWeakMap<object, string>();
    const released = releasedTable<object, string>();
    const key = {};
    renewable.set(key, "renewable");
    released.set(key, "released");
    releaseKept();
    expect(renewable.get(key)).toBe("renewable");
    expect(released.has(key)).toBe(false);
    released.set(key, "released");
    renewWeakTables();
    expect(released.get(key)).toBe("released");
    expect(renewable.has(key)).toBe(false);
  });

  it("holds the caches keyed by a session's messages and line parses", async () => {
    // Loaded afresh through a variable path, as the server loads them: each module makes its table at its load.
    const load = (path: string): Promise<unknown> => import(path);
    vi.resetModules();
    const fresh = (await load("../../server/src/core/base/weakTables")) as typeof import("../../server/src/core/base/weakTables");
    const before = fresh.renewableTableCount();
    for (const path of [
      "../../server/src/core/base/depth",
      "../../server/src/lsp/encodedAnswer",
      "../../server/src/features/contextMarkdown",
      "../../server/src/features/entryTitle",
      "../../server/src/core/pi/provider/apiConversion",
    ])
      await load(path);
    // One table each: message depths, message JSON, rendered Markdown, entry titles, conversions.
    expect(fresh.renewableTableCount() - before).toBe(5);
    vi.resetModules();
  });
});
