/**
 * The server wired to its idle release and what comes after it (`lsp/memory.ts`): what the release
 * let go is derived again once the editor works on an open document, and not for the requests a
 * client sends on its own while nobody works (VS Code's client pulls `workspace/diagnostic` two
 * seconds after each answer, for as long as it is open), which would otherwise derive it again
 * and let it go again every few seconds, for as long as the editor stays open.
 *
 * In-process, with the reclaimer's timers and clock faked; whether the release's contexts were
 * built again is seen in the line values they parse (`cachedChars`), which the release forgets.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cachedChars } from "../../server/src/core/line/values";
import { FOLLOW_UP_MS, IDLE_MS, REDERIVE_QUIET_MS } from "../../server/src/lsp/memory";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";

/** A session the real Pi 1.6 wrote: a conversation whose resumed context reads several lines. */
const SESSION = readFileSync(join(__dirname, "../parity/fixtures/written-16-compaction.jsonl"), "utf8");

/** Lets the in-memory streams and the server's `setImmediate` turns run (they are not faked). */
const settle = async () => {
  for (let k = 0; k < 20; k++) await new Promise((resolve) => setImmediate(resolve));
};

describe("deriving again after the idle release, over the protocol", () => {
  let client: LspTestClient;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    client.dispose();
    vi.useRealTimers();
  });

  /** A server with one document open and its complete list made, idle until the release. */
  async function released(): Promise<string> {
    client = startInProcess();
    await client.initialize(PULL_CAPABILITIES);
    const uri = "file:///idle-rederive.jsonl";
    await client.open(uri, SESSION);
    await client.pullItems(uri);
    // A close schedules the idle collections; the follow-up lets the kept contexts and values go.
    await client.open("file:///other.jsonl", SESSION);
    await client.close("file:///other.jsonl");
    await settle();
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    await settle();
    expect(cachedChars()).toBe(0);
    return uri;
  }

  it("derives again once a request on the open document is followed by a pause", async () => {
    const uri = await released();
    // A hover on the header reads that line alone; the contexts read the conversation's lines.
    await client.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 3 } });
    await settle();
    const read = cachedChars();
    vi.advanceTimersByTime(REDERIVE_QUIET_MS - 1);
    await settle();
    expect(cachedChars()).toBe(read);
    vi.advanceTimersByTime(1);
    await settle();
    expect(cachedChars()).toBeGreaterThan(read);
  });

  it("derives nothing again for the workspace pulls an idle client sends every two seconds", async () => {
    await released();
    let rederived = 0;
    for (let pull = 0; pull < 30; pull++) {
      await client.request("workspace/diagnostic", { previousResultIds: [] });
      await settle();
      vi.advanceTimersByTime(2000);
      await settle();
      if (cachedChars() > 0) rederived++;
    }
    expect(rederived).toBe(0);
  });
});
