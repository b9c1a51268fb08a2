/**
 * A server in process brought to its idle release (`lsp/memory.ts`), for the tests of what comes
 * after it: the reclaimer's timers and clock are faked, the in-memory streams and the server's
 * `setImmediate` turns are not.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientCapabilities } from "vscode-languageserver";
import { afterEach, beforeEach, vi } from "vitest";
import { FOLLOW_UP_MS, IDLE_MS } from "../../server/src/lsp/memory";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "./lspClient";

/** A session the real Pi 1.6 wrote: a conversation whose resumed context reads several lines. */
export const IDLE_SESSION = readFileSync(join(__dirname, "../parity/fixtures/written-16-compaction.jsonl"), "utf8");

/**
 * For each test of the calling `describe`: the reclaimer's timers and clock faked, and a server in
 * process for a client of `capabilities` (a pulling one unless said), initialized (`server()`),
 * disposed of after the test.
 */
export function withIdleServer(capabilities: ClientCapabilities = PULL_CAPABILITIES): { server: () => LspTestClient } {
  let client: LspTestClient | undefined;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    client = startInProcess();
    await client.initialize(capabilities);
  });
  afterEach(() => {
    client?.dispose();
    vi.useRealTimers();
  });
  return { server: () => client! };
}

/** Lets the in-memory streams and the server's `setImmediate` turns run (they are not faked). */
export async function settle(): Promise<void> {
  for (let k = 0; k < 20; k++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Opens `uri` (`text`, `IDLE_SESSION` unless given) on `client`'s initialized server, pulls its complete list (returned; or waits for its
 * publish, `pushed`), and waits until the follow-up collection has let the kept contexts and values
 * go: a close schedules the idle collections, so another document is opened and closed.
 */
export async function openAndRelease(client: LspTestClient, uri: string, pushed = false, text = IDLE_SESSION) {
  await client.open(uri, text);
  const items = pushed ? (await client.waitForDiagnostics(uri, (p) => p.version === 1)).diagnostics : await client.pullItems(uri);
  await client.open("file:///other.jsonl", IDLE_SESSION);
  await client.close("file:///other.jsonl");
  await settle();
  vi.advanceTimersByTime(IDLE_MS + FOLLOW_UP_MS);
  await settle();
  return items;
}
