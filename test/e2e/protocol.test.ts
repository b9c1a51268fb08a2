/**
 * The protocol's rules over stdio, and the edit loop: requests before `initialize` and after
 * `shutdown`, cancelled requests, pulled result ids that stay true when versions go backwards,
 * pushes sent only when the list changed and coalesced over a burst of edits, a client that
 * declares no snippet support, and a stream that goes wrong.
 */

import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CancellationTokenSource, type CompletionList, ResponseError } from "vscode-languageserver/node";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, spawnServer } from "../helpers/lspClient";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const user = (id: string, parent: string | null, text: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"${text}","timestamp":1772445602000}}`;
const SESSION = `${HEADER}\n${user("a1", null, "hello")}\n${user("a2", "missing", "again")}\n`;
const CHECKER_ONLY = { initializationOptions: { piSession: { fadeInactive: false } } };

let clients: LspTestClient[] = [];
function start(): LspTestClient {
  const c = spawnServer();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  await ensureBuilt();
});

afterEach(async () => {
  for (const c of clients) await c.dispose();
  clients = [];
});

async function errorCode(work: Promise<unknown>): Promise<number | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    return error instanceof ResponseError ? error.code : -1;
  }
}

describe("the lifecycle the protocol asks for", () => {
  it("refuses a request before initialize with ServerNotInitialized", async () => {
    const c = start();
    expect(await errorCode(c.request("textDocument/hover", { textDocument: { uri: "file:///x.jsonl" }, position: { line: 0, character: 0 } }))).toBe(-32002);
  });

  it("refuses a request after shutdown with InvalidRequest", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    await c.request("shutdown", undefined);
    expect(await errorCode(c.request("workspace/symbol", { query: "" }))).toBe(-32600);
  });
});

describe("cancellation", () => {
  it("answers requests cancelled while queued with RequestCancelled, and a hover behind them runs", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    const lines = [HEADER];
    for (let i = 0; i < 20_000; i++) lines.push(user(`e${i}`, i === 0 ? null : `e${i - 1}`, `message ${i}`.padEnd(200, "x")));
    const uri = "file:///e2e/big.jsonl";
    await c.open(uri, `${lines.join("\n")}\n`);
    const sources = Array.from({ length: 5 }, () => new CancellationTokenSource());
    const formats = sources.map((s) =>
      c.connection.sendRequest("textDocument/formatting", { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }, s.token),
    );
    for (const s of sources) s.cancel();
    const hover = c.request("textDocument/hover", { textDocument: { uri }, position: { line: 1, character: 3 } });
    const codes = await Promise.all(formats.map((f) => errorCode(f)));
    // Every cancelled request is answered RequestCancelled; at most the first had already started.
    expect(codes.filter((code) => code === -32800).length).toBeGreaterThanOrEqual(4);
    expect(await hover).not.toBeNull();
  });
});

describe("pulled diagnostics", () => {
  it("answers unchanged only for the same list, whatever the versions do", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    const uri = "file:///e2e/pull.jsonl";
    await c.open(uri, SESSION);
    const first = await c.pullDiagnostics(uri);
    expect(first.kind).toBe("full");
    const id = (first as { resultId: string }).resultId;
    // An edit inside a message's text changes no diagnostic: the client's list stays right.
    await c.replace(uri, "hello", "hello there");
    expect(await c.pullDiagnostics(uri, id)).toEqual({ kind: "unchanged", resultId: id });
    // Reopened with a lower version and different faults: the old result id must not match.
    await c.close(uri);
    await c.open(uri, `${HEADER}\n${user("a1", "gone", "hello")}\n`, "jsonl", 1);
    const reopened = await c.pullDiagnostics(uri, id);
    expect(reopened.kind).toBe("full");
    expect((reopened as { items: { message: string }[] }).items.some((d) => d.message.includes('"gone"'))).toBe(true);
  });
});

describe("pushed diagnostics", () => {
  it("computes once for a burst of edits and publishes the last version", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    const uri = "file:///e2e/burst.jsonl";
    await c.open(uri, SESSION);
    await c.waitForDiagnostics(uri);
    const mark = c.mark();
    // Twenty edits, as fast typing sends them, each changing the fault's message: written in one
    // piece, so that they reach the server within its debounce on a busy machine too.
    const version = c.changeAtOnce(uri, 20, () => c.replacementOf(uri, '"missing', '"missingx'));
    const last = await c.waitForDiagnostics(uri, (p) => p.version === version, { since: mark });
    expect(last.diagnostics.map((d) => d.message)).toEqual([expect.stringContaining(`"missing${"x".repeat(20)}"`)]);
    expect(c.published.slice(mark).filter((p) => p.uri === uri).length).toBeLessThanOrEqual(3);
  });

  it("publishes nothing new when an edit leaves the list as it was", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    const uri = "file:///e2e/same.jsonl";
    await c.open(uri, SESSION);
    await c.waitForDiagnostics(uri);
    const mark = c.mark();
    // An edit on a line after the fault moves no range and changes no message.
    await c.change(uri, [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: `${user("a3", "a2", "more")}\n` }]);
    const changed = await c.replace(uri, "more", "most");
    // A fault that does change the list is published, so the quiet before it was the server's choice.
    await c.replace(uri, '"a2","timestamp"', '"nope","timestamp"');
    const next = await c.waitForDiagnostics(uri, (p) => p.diagnostics.length === 2, { since: mark });
    const between = c.published.slice(mark).filter((p) => p.uri === uri && p !== next);
    expect(between.some((p) => p.version === changed)).toBe(false);
  });
});

describe("clients and streams", () => {
  it("sends plain text completions to a client without snippet support", async () => {
    const c = start();
    await c.initialize({
      ...PULL_CAPABILITIES,
      textDocument: { ...PULL_CAPABILITIES.textDocument, completion: { completionItem: { snippetSupport: false } } },
    });
    const uri = "file:///e2e/plain.jsonl";
    await c.open(uri, `${SESSION}\n`);
    const list = await c.request<CompletionList>("textDocument/completion", { textDocument: { uri }, position: { line: 3, character: 0 } });
    expect(list.items.length).toBeGreaterThan(0);
    for (const item of list.items) {
      expect(item.insertTextFormat).toBe(1);
      expect(() => JSON.parse((item.textEdit as { newText: string }).newText)).not.toThrow();
    }
  });

  it("says on stderr when a message cannot be read, instead of going deaf in silence", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    c.writeRaw("Content-Length: twelve\r\n\r\n{}");
    await c.waitUntil(() => (c.stderr().includes("could not read a message") ? true : undefined), "the server's note on stderr");
    expect(c.stderr()).toMatch(/could not read a message from the client: Content-Length value must be a number/);
  });
});
