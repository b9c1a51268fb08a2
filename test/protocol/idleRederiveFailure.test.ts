/**
 * A failure inside the rederivation after the idle release (`lsp/server.ts`) costs nothing but
 * itself: it is logged once, and the server goes on answering, the document's diagnostics included.
 * The failure is made by replacing the facade's `rederiveRequestDiagnosticsSteps` for this file.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FOLLOW_UP_MS, IDLE_MS, REDERIVE_QUIET_MS } from "../../server/src/lsp/memory";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";

vi.mock("../../server/src/features/api", async (original) => ({
  ...(await original<typeof import("../../server/src/features/api")>()),
  // biome-ignore lint/correctness/useYield: a rederivation that fails at its first step.
  *rederiveRequestDiagnosticsSteps() {
    throw new Error("a failure inside the rederivation");
  },
}));

const SESSION = readFileSync(join(__dirname, "../parity/fixtures/written-16-compaction.jsonl"), "utf8");

/** Lets the in-memory streams and the server's `setImmediate` turns run (they are not faked). */
const settle = async () => {
  for (let k = 0; k < 20; k++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a failure while deriving again after the idle release", () => {
  let client: LspTestClient;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    client.dispose();
    vi.useRealTimers();
  });

  it("is logged once, and the server goes on answering", async () => {
    client = startInProcess();
    await client.initialize(PULL_CAPABILITIES);
    const uri = "file:///idle-failure.jsonl";
    await client.open(uri, SESSION);
    const before = await client.pullItems(uri);
    await client.open("file:///other.jsonl", SESSION);
    await client.close("file:///other.jsonl");
    await settle();
    vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
    await settle();
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
