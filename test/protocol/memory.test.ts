/**
 * The server gives memory back once idle: after a close (or a large open, or a large answer) and a quiet moment it
 * runs two full collections and a follow-up one later, drops the line values it keeps when no
 * document is left open, and keeps only the last used while documents stay open; at the follow-up
 * it lets the semantic layer's kept contexts go too.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { scratchInts } from "../../server/src/core/base/entryArrays";
import { renewableWeakMap } from "../../server/src/core/base/weakTables";
import { activeContext } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { cachedChars, forgetValues, rememberValue, trimValues } from "../../server/src/core/line/values";
import type { ContextAnswer } from "../../server/src/features/api";
import {
  FOLLOW_UP_MS,
  IDLE_MS,
  IDLE_VALUE_CHARS,
  LARGE_ANSWER_CHARS,
  LARGE_DOCUMENT_CHARS,
  MemoryReclaimer,
  REDERIVE_QUIET_MS,
} from "../../server/src/lsp/memory";
import { answerContext } from "../../server/src/lsp/requests/contextAnswer";
import type { ServerState } from "../../server/src/lsp/state";
import { MAPPED_MESSAGE_CHARS } from "../../server/src/lsp/stdin";

const SESSION = [
  JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000ff", timestamp: "2026-03-02T10:00:00.000Z", cwd: "/p" }),
  JSON.stringify({
    type: "message",
    id: "u1",
    parentId: null,
    timestamp: "2026-03-02T10:00:01.000Z",
    message: { role: "user", content: "Hello", timestamp: 1 },
  }),
];

/** A rederivation that only counts how often it ran, and goes on with no work left. */
function countingRederive(): { run: () => undefined; count: () => number } {
  let runs = 0;
  return {
    run: () => {
      runs++;
      return undefined;
    },
    count: () => runs,
  };
}

describe("MemoryReclaimer", () => {
  let collections = 0;
  const collect = () => {
    collections++;
  };
  beforeEach(() => {
    vi.useFakeTimers();
    forgetValues();
    collections = 0;
    rememberValue({ text: '{"type":"message"}' }, { type: "message" });
  });
  afterEach(() => {
    vi.useRealTimers();
    forgetValues();
  });

  it("drops the kept line values once the last document is closed and the server is idle", () => {
    const reclaimer = new MemoryReclaimer(() => 0, collect);
    reclaimer.closed();
    expect(cachedChars()).toBeGreaterThan(0);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(cachedChars()).toBeGreaterThan(0);
    expect(collections).toBe(0);
    vi.advanceTimersByTime(1);
    expect(cachedChars()).toBe(0);
    // One collection frees, the second compacts what the first left.
    expect(collections).toBe(2);
    reclaimer.dispose();
  });

  it("lets the analysis's scratch arrays go once the last document is closed, and keeps them while one is open", () => {
    const slot = scratchInts();
    const scratch = slot.take(10);
    const open = new MemoryReclaimer(() => 1, collect);
    open.closed();
    vi.advanceTimersByTime(IDLE_MS);
    expect(slot.take(10)).toBe(scratch);
    open.dispose();
    const none = new MemoryReclaimer(() => 0, collect);
    none.closed();
    vi.advanceTimersByTime(IDLE_MS);
    expect(slot.take(10)).not.toBe(scratch);
    none.dispose();
  });

  it("makes the per-object caches' tables anew once the last document is closed, and keeps them while one is open", () => {
    const table = renewableWeakMap<object, string>();
    const key = {};
    table.set(key, "kept");
    const open = new MemoryReclaimer(() => 1, collect);
    open.closed();
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    expect(table.get(key)).toBe("kept");
    open.dispose();
    const none = new MemoryReclaimer(() => 0, collect);
    none.closed();
    vi.advanceTimersByTime(IDLE_MS);
    expect(table.has(key)).toBe(false);
    none.dispose();
  });

  it("collects once more a while later, when V8 finds the allocation rate low enough to shrink its young generation", () => {
    const reclaimer = new MemoryReclaimer(() => 1, collect);
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(IDLE_MS);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(FOLLOW_UP_MS - 1);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(1);
    // The follow-up collects twice too: the second moves every object together (the kept contexts went).
    expect(collections).toBe(4);
    vi.advanceTimersByTime(60_000);
    expect(collections).toBe(4);
  });

  it("lets the semantic layer's kept contexts go at the follow-up, not before", () => {
    const doc = new SessionDocument("file:///idle.jsonl", "jsonl", 1, `${SESSION.join("\n")}\n`);
    const context = activeContext(doc.analysis);
    const reclaimer = new MemoryReclaimer(() => 1, collect);
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(IDLE_MS);
    expect(activeContext(doc.analysis)).toBe(context);
    vi.advanceTimersByTime(FOLLOW_UP_MS);
    const again = activeContext(doc.analysis);
    expect(again).not.toBe(context);
    expect(again).toEqual(context);
    reclaimer.dispose();
  });

  it("derives what the release let go again once a message after it is followed by a pause, and lets it go again once idle", () => {
    const rederive = countingRederive();
    const reclaimer = new MemoryReclaimer(() => 1, collect, undefined, rederive.run);
    // No release yet: messages derive nothing.
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    reclaimer.activity();
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    expect(collections).toBe(4);
    expect(rederive.count()).toBe(0);
    // Released: a burst of messages puts the work off until it pauses, then it runs once.
    for (let k = 0; k < 5; k++) {
      reclaimer.activity();
      vi.advanceTimersByTime(REDERIVE_QUIET_MS - 1);
    }
    expect(rederive.count()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(rederive.count()).toBe(1);
    reclaimer.activity();
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederive.count()).toBe(1);
    // What was derived goes at the next idle release, after which a message derives it once more.
    vi.advanceTimersByTime(IDLE_MS);
    expect(collections).toBe(6);
    vi.advanceTimersByTime(FOLLOW_UP_MS);
    expect(collections).toBe(8);
    reclaimer.changed(0);
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederive.count()).toBe(2);
    reclaimer.dispose();
  });

  it("takes the work up again at the next pause when an edit ended it early, and not once it got to the end", async () => {
    const answers = [false, true];
    let rederived = 0;
    const reclaimer = new MemoryReclaimer(
      () => 1,
      collect,
      undefined,
      () => Promise.resolve(answers[rederived++]!),
    );
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    reclaimer.activity();
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederived).toBe(1);
    // The first work answers that it was ended early: the next pause starts it again.
    await Promise.resolve();
    await Promise.resolve();
    reclaimer.changed(0);
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederived).toBe(2);
    // The second got to the end: more activity derives nothing until the next release.
    await Promise.resolve();
    await Promise.resolve();
    reclaimer.changed(0);
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederived).toBe(2);
    reclaimer.dispose();
  });

  it("derives nothing again once no document is open", () => {
    let open = 1;
    const rederive = countingRederive();
    const reclaimer = new MemoryReclaimer(() => open, collect, undefined, rederive.run);
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    open = 0;
    reclaimer.activity();
    vi.advanceTimersByTime(REDERIVE_QUIET_MS);
    expect(rederive.count()).toBe(0);
    reclaimer.dispose();
  });

  it("derives nothing and schedules nothing once disposed (a request after shutdown)", () => {
    const derived: number[] = [];
    const reclaimer = new MemoryReclaimer(
      () => 1,
      collect,
      undefined,
      () => {
        derived.push(collections);
        return undefined;
      },
    );
    // Released after a close, then shut down; a message after that derives nothing.
    reclaimer.closed();
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    expect(collections).toBe(4);
    reclaimer.dispose();
    reclaimer.activity();
    vi.advanceTimersByTime(REDERIVE_QUIET_MS + IDLE_MS + FOLLOW_UP_MS);
    expect(derived).toEqual([]);
    expect(collections).toBe(4);
  });

  it("puts the follow-up off while typing goes on", () => {
    const reclaimer = new MemoryReclaimer(() => 1, collect);
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(IDLE_MS);
    vi.advanceTimersByTime(FOLLOW_UP_MS - 100);
    reclaimer.changed(1);
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(IDLE_MS);
    expect(collections).toBe(4);
    reclaimer.dispose();
  });

  it("keeps the values used last while a document is open, and waits for typing to pause", () => {
    let open = 1;
    const reclaimer = new MemoryReclaimer(() => open, collect);
    for (let i = 0; i < 3; i++) rememberValue({ text: "x".repeat(IDLE_VALUE_CHARS / 2) }, { i });
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(1000);
    reclaimer.changed(10);
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(0);
    vi.advanceTimersByTime(IDLE_MS);
    // The oldest values went; those used last stay, within the idle budget.
    expect(collections).toBe(2);
    expect(cachedChars()).toBeGreaterThan(0);
    expect(cachedChars()).toBeLessThanOrEqual(IDLE_VALUE_CHARS);
    open = 0;
    reclaimer.closed();
    // The close re-arms the wait: nothing happens until 1.5 s after it.
    vi.advanceTimersByTime(IDLE_MS - 100);
    expect(cachedChars()).toBeGreaterThan(0);
    vi.advanceTimersByTime(200);
    expect(cachedChars()).toBe(0);
    reclaimer.dispose();
  });

  it("collects after a large answer once typing pauses, which an edit alone does not ask for", () => {
    const reclaimer = new MemoryReclaimer(() => 1, collect);
    reclaimer.changed(0);
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(0);
    reclaimer.answeredLarge();
    vi.advanceTimersByTime(IDLE_MS / 2);
    reclaimer.changed(0);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(collections).toBe(0);
    vi.advanceTimersByTime(IDLE_MS);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(FOLLOW_UP_MS);
    expect(collections).toBe(4);
    reclaimer.dispose();
  });

  it("does nothing for a small document's open", () => {
    const reclaimer = new MemoryReclaimer(() => 0, collect);
    reclaimer.changed(LARGE_DOCUMENT_CHARS - 1);
    vi.advanceTimersByTime(10_000);
    expect(cachedChars()).toBeGreaterThan(0);
    expect(collections).toBe(0);
  });
});

describe("answerContext's idle collections", () => {
  /** How many answers of about `chars` characters of JSON asked for the idle collections. */
  const largeAnswers = (chars: number): number => {
    let asked = 0;
    const state = {
      documents: new Map([["file:///s.jsonl", new SessionDocument("file:///s.jsonl", "jsonl", 1, SESSION.join("\n"))]]),
      guard: { safe: <R>(_what: string, _fallback: R, work: () => R): R => work() },
      memory: { answeredLarge: () => asked++ },
    } as unknown as ServerState;
    const messages = Array.from({ length: Math.ceil(chars / 64) }, (_, i) => ({ role: "user", content: `message ${i}`.padEnd(35, ".") }));
    const answer = { ok: true, result: { context: { messages }, stats: {} } } as unknown as ContextAnswer;
    const encoded = answerContext(state, "test", "file:///s.jsonl", () => answer);
    expect(encoded!.chars).toBeGreaterThanOrEqual(chars);
    expect(encoded!.chars).toBeLessThan(chars + 200);
    return asked;
  };

  it("are asked for by an answer of a megabyte, not by one only long enough for the mapped message memory", () => {
    expect(largeAnswers(4 * MAPPED_MESSAGE_CHARS)).toBe(0);
    expect(largeAnswers(LARGE_ANSWER_CHARS / 2)).toBe(0);
    expect(largeAnswers(LARGE_ANSWER_CHARS)).toBe(1);
  });
});

describe("trimValues", () => {
  afterEach(() => forgetValues());

  it("lets the least recently used values go down to the limit", () => {
    forgetValues();
    const lines = [0, 1, 2, 3].map((i) => ({ text: String(i).repeat(100) }));
    for (const line of lines) rememberValue(line, { line: 1 });
    trimValues(250);
    expect(cachedChars()).toBe(200);
  });
});
