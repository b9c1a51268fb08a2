/**
 * Races around the provisional list of an edit after the idle release (`lsp/diagnostics.ts`): a
 * setting changed, the document closed and reopened, the reclaimer's rederivation started by a
 * hover, edits that straddle the quiet wait, pulls that come late, edits at the end as Pi makes them
 * while it runs (an entry appended or replaced, a truncated line, the last line removed). Whatever the order, the list
 * the client ends with equals what a fresh server gives for the same text and settings.
 *
 * In-process, with the reclaimer's timers and clock faked; the clients declare no
 * `workspace.configuration`, so that the server takes settings from `didChangeConfiguration`.
 */

import type { Diagnostic } from "vscode-languageserver";
import { describe, expect, it, vi } from "vitest";
import { openAndRelease, settle, withIdleServer } from "../helpers/idleRelease";
import { type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, seededRandom, startInProcess } from "../helpers/lspClient";

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

/** One edit at the end of the client's text, as Pi or a person makes it. */
async function endEdit(client: LspTestClient, random: () => number, n: number): Promise<void> {
  const lines = client.text(URI).split("\n");
  // The text ends with a newline: the last line is the empty piece after it.
  const last = lines.length - 2;
  const id = /"id":"([^"]*)"/.exec(lines[last]!)?.[1] ?? "nowhere";
  const entry = (parent: string) =>
    `{"type":"message","id":"z${n}","parentId":"${parent}","timestamp":"2026-03-02T10:01:0${n % 10}.000Z","message":{"role":"user","content":"more ${n}","timestamp":1}}`;
  const end = { line: lines.length - 1, character: 0 };
  const kind = Math.floor(random() * 4);
  if (kind === 0) await client.change(URI, [{ range: { start: end, end }, text: `${entry(id)}\n` }]);
  else if (kind === 1) await client.change(URI, [{ range: { start: { line: last, character: 0 }, end }, text: `${entry(random() < 0.5 ? "nowhere" : id)}\n` }]);
  else if (kind === 2) await client.change(URI, [{ range: { start: end, end }, text: `${entry(id).slice(0, 60)}\n` }]);
  else if (last > 1) await client.change(URI, [{ range: { start: { line: last, character: 0 }, end }, text: "" }]);
}

describe("edits at the end after the idle release, pushed", () => {
  const { server } = withIdleServer({ ...PUSH_CAPABILITIES, workspace: {} });
  for (const seed of [1, 2, 3]) {
    it(`end on a fresh server's list (seed ${seed})`, async () => {
      const client = server();
      const random = seededRandom(seed);
      await openAndRelease(client, URI, true);
      for (let k = 0; k < 6; k++) {
        await endEdit(client, random, k);
        await wait(random() < 0.5 ? 100 : 1200);
      }
      await wait(1500);
      expect(lastPublished(client).diagnostics).toEqual(await freshList(client.text(URI)));
    });
  }
});
