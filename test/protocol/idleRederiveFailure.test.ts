/**
 * A failure inside the rederivation after the idle release (`lsp/server.ts`) costs nothing but
 * itself: it is logged once, and the server goes on answering, the document's diagnostics included.
 * The failure is made by replacing the facade's `rederiveRequestDiagnosticsSteps` for this file.
 */

import { describe, expect, it, vi } from "vitest";
import { REDERIVE_QUIET_MS } from "../../server/src/lsp/memory";
import { openAndRelease, settle, withIdleServer } from "../helpers/idleRelease";

vi.mock("../../server/src/features/api", async (original) => ({
  ...(await original<typeof import("../../server/src/features/api")>()),
  // biome-ignore lint/correctness/useYield: a rederivation that fails at its first step.
  *rederiveRequestDiagnosticsSteps() {
    throw new Error("a failure inside the rederivation");
  },
}));

describe("a failure while deriving again after the idle release", () => {
  const { server } = withIdleServer();

  it("is logged once, and the server goes on answering", async () => {
    const client = server();
    const uri = "file:///idle-failure.jsonl";
    const before = await openAndRelease(client, uri);
    for (let k = 0; k < 3; k++) {
      await client.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 3 } });
      await settle();
      vi.advanceTimersByTime(REDERIVE_QUIET_MS);
      await settle();
    }
    const failures = client.errorLogs().filter((m) => m.includes("deriving the kept contexts again failed"));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain("a failure inside the rederivation");
    expect(await client.pullItems(uri)).toEqual(before);
  });
});
