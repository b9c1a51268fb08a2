/**
 * The server gives memory back once idle: after a close (or a large open) and a quiet moment it
 * runs one full collection and, when no document is left open, drops the line values it keeps.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cachedChars, forgetValues, rememberValue } from "../../server/src/core/values";
import { LARGE_DOCUMENT_CHARS, MemoryReclaimer } from "../../server/src/lsp/memory";

describe("MemoryReclaimer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    forgetValues();
    rememberValue({ text: '{"type":"message"}' }, { type: "message" });
  });
  afterEach(() => {
    vi.useRealTimers();
    forgetValues();
  });

  it("drops the kept line values once the last document is closed and the server is idle", () => {
    const reclaimer = new MemoryReclaimer(() => 0);
    reclaimer.closed();
    expect(cachedChars()).toBeGreaterThan(0);
    vi.advanceTimersByTime(1499);
    expect(cachedChars()).toBeGreaterThan(0);
    vi.advanceTimersByTime(1);
    expect(cachedChars()).toBe(0);
  });

  it("keeps them while a document is open, and waits for typing to pause", () => {
    let open = 1;
    const reclaimer = new MemoryReclaimer(() => open);
    reclaimer.changed(LARGE_DOCUMENT_CHARS);
    vi.advanceTimersByTime(1000);
    reclaimer.changed(10);
    vi.advanceTimersByTime(1000);
    expect(cachedChars()).toBeGreaterThan(0);
    open = 0;
    reclaimer.closed();
    // The close re-arms the wait: nothing happens until 1.5 s after it.
    vi.advanceTimersByTime(1400);
    expect(cachedChars()).toBeGreaterThan(0);
    vi.advanceTimersByTime(200);
    expect(cachedChars()).toBe(0);
    reclaimer.dispose();
  });

  it("does nothing for a small document's open", () => {
    const reclaimer = new MemoryReclaimer(() => 0);
    reclaimer.changed(LARGE_DOCUMENT_CHARS - 1);
    vi.advanceTimersByTime(10_000);
    expect(cachedChars()).toBeGreaterThan(0);
  });
});
