/**
 * Races around the provisional list of an edit after the idle release (`lsp/diagnostics.ts`): a
 * setting changed, the document closed and reopened, the reclaimer's rederivation started by a
 * hover, edits that straddle the quiet wait, pulls that come late. Whatever the order, the list
 * the client ends with equals what a fresh server gives for the same text and settings.
 *
 * In-process, with the reclaimer's timers and clock faked; the clients declare no
 * `workspace.configuration`, so that the server takes settings from `didChangeConfiguration`.
 */

import type { Diagnostic } from "vscode-languageserver";
import { describe, expect, it, vi } from "vitest";
import { COMPLETE_AFTER_QUIET_MS } from "../../server/src/lsp/diagnostics";
import { IDLE_SESSION, openAndRelease, settle, withIdleServer } from "../helpers/idleRelease";
import { type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const URI = "file:///provisional.jsonl";
const NEWEST_USER = '"timestamp":"2026-03-02T10:00:49.040Z","message":{"role":"user","content":"Thanks!"';
const EDITED_USER = '"timestamp":"not a time","message":{"role":"user","content":""';

async function freshList(text: string, fade = true): Promise<Diagnostic[]> {
  const client = startInProcess();
  try {
    await client.initialize(PUSH_CAPABILITIES, fade ? {} : { initializationOptions: { piSession: { fadeInactive: false } } });
    await client.open("file:///fresh.jsonl", text);
    return (await client.waitForDiagnostics("file:///fresh.jsonl", (p) => p.version === 1)).diagnostics;
  } finally {
    client.dispose();
  }
}
const lastPublished = (client: LspTestClient) => client.published.filter((p) => p.uri === URI).at(-1)!;
async function wait(ms: number) {
  for (let t = 0; t < ms; t += 50) {
    vi.advanceTimersByTime(50);
    await settle();
  }
}

describe("races around the provisional list, pushed", () => {
  const { server } = withIdleServer({ ...PUSH_CAPABILITIES, workspace: {} });
  it("a settings change during the quiet wait", async () => {
    const client = server();
    await openAndRelease(client, URI, true);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    await client.waitForDiagnostics(URI, (p) => p.version === 2);
    await wait(100);
    await client.notifyServer("workspace/didChangeConfiguration", { settings: { piSession: { fadeInactive: false } } });
    await wait(1000);
    expect(lastPublished(client).diagnostics).toEqual(await freshList(client.text(URI), false));
  });
  it("close and reopen during the quiet wait", async () => {
    const client = server();
    await openAndRelease(client, URI, true);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    await client.waitForDiagnostics(URI, (p) => p.version === 2);
    await wait(100);
    const text = client.text(URI);
    await client.close(URI);
    await client.open(URI, text);
    await wait(1000);
    expect(lastPublished(client).diagnostics).toEqual(await freshList(text));
  });
  it("a hover then an edit, the reclaimer's rederivation and the complete list racing", async () => {
    const client = server();
    await openAndRelease(client, URI, true);
    await client.request("textDocument/hover", { textDocument: { uri: URI }, position: { line: 3, character: 3 } });
    await wait(200);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    await wait(100);
    await client.replace(URI, '"not a time"', '"not a timeY"');
    await wait(1000);
    expect(lastPublished(client).diagnostics).toEqual(await freshList(client.text(URI)));
    // Next edit after the pause: complete at once.
    const mark = client.mark();
    await client.replace(URI, '"not a timeY"', '"not a timeZ"');
    await settle();
    // The complete list was made: the edit is answered complete, at once (or not sent, when equal).
    const after = client.published.slice(mark).filter((p) => p.uri === URI);
    const shown = after.length > 0 ? after.at(-1)!.diagnostics : lastPublished(client).diagnostics;
    expect(shown).toEqual(await freshList(client.text(URI)));
  });
  it("edits bracketing the complete list, many rounds", async () => {
    const client = server();
    await openAndRelease(client, URI, true);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    for (let k = 0; k < 6; k++) {
      await wait(200 + 20 * k);
      await client.replace(URI, '"not a time', `"not a time${k}`);
    }
    await wait(1000);
    expect(lastPublished(client).diagnostics).toEqual(await freshList(client.text(URI)));
  });
});

describe("races around the provisional list, pulled with refresh", () => {
  const { server } = withIdleServer({ ...PULL_CAPABILITIES, workspace: { diagnostics: { refreshSupport: true } } });
  it("an edit not pulled during the wait, then a pull", async () => {
    const client = server();
    await openAndRelease(client, URI);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    const first = await client.pullDiagnostics(URI);
    await wait(100);
    await client.replace(URI, '"not a time"', '"not a timeX"');
    await wait(600);
    const second = await client.pullDiagnostics(URI, first.kind === "full" ? first.resultId : undefined);
    await wait(600);
    const third = await client.pullDiagnostics(URI, second.kind === "full" ? second.resultId : (second as { resultId: string }).resultId);
    const items = third.kind === "full" ? third.items : second.kind === "full" ? second.items : [];
    expect(items).toEqual(await freshList(client.text(URI)));
  });
  it("a settings change during the wait", async () => {
    const client = server();
    await openAndRelease(client, URI);
    await client.replace(URI, NEWEST_USER, EDITED_USER);
    const first = await client.pullDiagnostics(URI);
    await wait(100);
    await client.notifyServer("workspace/didChangeConfiguration", { settings: { piSession: { fadeInactive: false } } });
    await wait(50);
    const second = await client.pullDiagnostics(URI, first.kind === "full" ? first.resultId : undefined);
    await wait(600);
    const rid = second.kind === "full" ? second.resultId : (second as { resultId: string }).resultId;
    const third = await client.pullDiagnostics(URI, rid);
    const items = third.kind === "full" ? third.items : second.kind === "full" ? second.items : [];
    expect(items).toEqual(await freshList(client.text(URI), false));
  });
});
