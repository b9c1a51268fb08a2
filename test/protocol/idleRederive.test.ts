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

import { describe, expect, it, vi } from "vitest";
import { cachedChars } from "../../server/src/core/line/values";
import { REDERIVE_QUIET_MS } from "../../server/src/lsp/memory";
import { openAndRelease, settle, withIdleServer } from "../helpers/idleRelease";

describe("deriving again after the idle release, over the protocol", () => {
  const { server } = withIdleServer();

  /** The server with one document open and its complete list made, idle until the release. */
  async function released(): Promise<string> {
    const uri = "file:///idle-rederive.jsonl";
    await openAndRelease(server(), uri);
    expect(cachedChars()).toBe(0);
    return uri;
  }

  it("derives again once a request on the open document is followed by a pause", async () => {
    const uri = await released();
    // A hover on the header reads that line alone; the contexts read the conversation's lines.
    await server().request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 3 } });
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
      await server().request("workspace/diagnostic", { previousResultIds: [] });
      await settle();
      vi.advanceTimersByTime(2000);
      await settle();
      if (cachedChars() > 0) rederived++;
    }
    expect(rederived).toBe(0);
  });
});
