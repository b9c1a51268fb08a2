/**
 * The first open of a large session over stdio, where the lines are parsed on a worker while the
 * `didOpen` arrives (`io/parsePool.ts`): the diagnostics are the ones the same text gets through
 * a full-text change, which the server parses on its main thread.
 */

import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, spawnServer } from "../helpers/lspClient";

let clients: LspTestClient[] = [];

/** The hostile-session generator (an ES module: imported, not required). */
let hostile: Awaited<ReturnType<typeof loadHostile>>;
const loadHostile = () => import("../helpers/hostile.mjs");

beforeAll(async () => {
  hostile = await loadHostile();
  await ensureBuilt();
});

afterEach(async () => {
  for (const c of clients) await c.dispose();
  clients = [];
});

/** A session of more than the value cache's 8 M characters, with faults of every kind in it. */
function largeSession(): string {
  const lines = [`\ufeff{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}`];
  const filler = "w".repeat(900);
  let parent = "s";
  for (let i = 0; i < 9500; i++) {
    const id = `e${i}`;
    lines.push(
      `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"${filler}","timestamp":1772445602000}}`,
    );
    parent = id;
  }
  for (let seed = 1; seed <= 4; seed++)
    lines.push(
      ...hostile
        .makeGen(hostile.seeded(seed))
        .session({ oddIds: seed % 2 === 0, entries: 200 })
        .split("\n"),
    );
  lines.push(`{"type":"message","id":"crlf","parentId":"e3","timestamp":"bad"}\r`, "{broken", "");
  return lines.join("\n");
}

describe("a large first open over stdio", () => {
  it("gives the diagnostics the same text gets through a full-text change", async () => {
    // The worker is opt-in, and skipped on a busy machine: asked for here, with a core stated free,
    // so that the test is about it however busy the machine.
    const c = spawnServer(["--stdio"], { env: { PI_SESSION_LSP_THREADS: "2", PI_SESSION_LSP_FREE_CORES: "1" } });
    clients.push(c);
    await c.initialize(PULL_CAPABILITIES, { initializationOptions: { piSession: { fadeInactive: false } } });
    const text = largeSession();
    expect(text.length).toBeGreaterThan(8_500_000);
    await c.open("file:///w/opened.jsonl", text);
    const opened = await c.pullItems("file:///w/opened.jsonl");
    await c.open("file:///w/changed.jsonl", "");
    await c.change("file:///w/changed.jsonl", [{ text }]);
    const changed = await c.pullItems("file:///w/changed.jsonl");
    expect(opened.length).toBeGreaterThan(20);
    expect(JSON.stringify(opened).replaceAll("opened.jsonl", "X")).toBe(JSON.stringify(changed).replaceAll("changed.jsonl", "X"));
  });
});
