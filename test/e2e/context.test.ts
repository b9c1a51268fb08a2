/**
 * Context lenses, the show-context command and the `piSession/buildContext` request over stdio, on
 * a compacted session the real Pi wrote: the context the compiled server answers is the one the real
 * Pi built (test/parity/expected), for Pi 1.6.0 and, on request, Pi 0.74.2.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseError, type CodeLens, type InitializeResult } from "vscode-languageserver/node";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, sleep, spawnServer, startInProcess } from "../helpers/lspClient";

const uri = "file:///work/sessions/written-16-compaction.jsonl";
const text = readFileSync(join(__dirname, "../parity/fixtures/written-16-compaction.jsonl"), "utf8");
const golden = (pi: string): unknown =>
  (JSON.parse(readFileSync(join(__dirname, `../parity/expected/written-16-compaction.${pi}.json`), "utf8")) as { context: unknown }).context;

interface ContextResult {
  context: { messages: unknown[]; thinkingLevel: unknown; model: unknown } | null;
  stats: {
    messages: number;
    byRole: Record<string, number>;
    estimatedTokens: number;
    model: string | null;
    thinkingLevel: unknown;
    compaction: { id: string } | null;
    leaf: { id: string; line: number } | null;
  };
  markdown?: string;
}

let client: LspTestClient;
let init: InitializeResult;

beforeAll(async () => {
  await ensureBuilt();
  client = spawnServer();
  init = await client.initialize({ ...PULL_CAPABILITIES, workspace: { ...PULL_CAPABILITIES.workspace, codeLens: { refreshSupport: true } } });
  await client.open(uri, text);
});

afterAll(async () => {
  const exit = await client.shutdownAndExit();
  expect(exit.code).toBe(0);
});

async function expectInvalidParams(work: Promise<unknown>): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResponseError);
  expect((error as ResponseError<unknown>).code).toBe(-32602);
}

describe("context lenses over stdio", () => {
  it("announces lenses with resolve, and the show-context, compare and export commands", () => {
    expect(init.capabilities.codeLensProvider).toEqual({ resolveProvider: true });
    expect(init.capabilities.executeCommandProvider).toEqual({ commands: ["piSession.showContext", "piSession.compareBranches", "piSession.exportMarkdown"] });
  });

  it("lists lenses on the header and the compactions, then resolves them", async () => {
    const lenses = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri } });
    expect(lenses.map((l) => l.range.start.line)).toEqual([0, 12, 18, 21]);
    expect(lenses.every((l) => l.command === undefined && l.data !== undefined)).toBe(true);
    const header = await client.request<CodeLens>("codeLens/resolve", lenses[0]);
    expect(header.command).toEqual({
      title: "context: 6 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5 · thinking low · after compaction",
      command: "piSession.showContext",
      arguments: [uri, null],
    });
    const compaction = await client.request<CodeLens>("codeLens/resolve", lenses[1]);
    expect(compaction.command!.title).toBe("summarises 7 entries (lines 2–8) · 18,230 tokens before · keeps from line 9");
  });

  it("runs the lens's command and answers the context the real Pi built", async () => {
    const [lens] = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri } });
    const { command } = await client.request<CodeLens>("codeLens/resolve", lens);
    const result = await client.request<ContextResult>("workspace/executeCommand", { command: command!.command, arguments: command!.arguments });
    expect(result.context).toEqual(golden("1.6.0"));
    expect(JSON.stringify(result.context)).toBe(JSON.stringify(golden("1.6.0")));
    expect(result.stats.leaf).toEqual({ id: "e8204a4e", line: 23 });
    expect(result.stats.compaction?.id).toBe("d184b77c");
  });

  it("answers piSession/buildContext like Pi 1.6.0, and like Pi 0.74.2 when asked", async () => {
    const modern = await client.request<ContextResult>("piSession/buildContext", { uri });
    expect(modern.context).toEqual(golden("1.6.0"));
    expect(JSON.stringify(modern.context)).toBe(JSON.stringify(golden("1.6.0")));
    expect(modern.stats).toMatchObject({ messages: modern.context!.messages.length, model: "anthropic/claude-sonnet-4-5", thinkingLevel: "low" });
    const old = await client.request<ContextResult>("piSession/buildContext", { uri, flavor: "0.74" });
    expect(JSON.stringify(old.context)).toBe(JSON.stringify(golden("0.74.2")));
    expect(old.context).not.toEqual(modern.context);
  });

  it("builds from any entry by id, and renders Markdown when asked", async () => {
    const branch = await client.request<ContextResult>("piSession/buildContext", { uri, leafId: "0bc69f73" });
    expect(branch.stats.leaf).toEqual({ id: "0bc69f73", line: 11 });
    expect(branch.stats.compaction).toBeNull();
    const md = await client.request<ContextResult>("piSession/buildContext", { uri, format: "markdown" });
    expect(typeof md.markdown).toBe("string");
  });

  it("refuses an unknown entry, an unknown document and an unknown command with InvalidParams", async () => {
    await expectInvalidParams(client.request("piSession/buildContext", { uri, leafId: "nope" }));
    await expectInvalidParams(client.request("piSession/buildContext", { uri: "file:///nope.jsonl" }));
    await expectInvalidParams(client.request("workspace/executeCommand", { command: "piSession.showContext", arguments: ["file:///nope.jsonl", null] }));
    await expectInvalidParams(client.request("workspace/executeCommand", { command: "piSession.other", arguments: [] }));
  });

  it("asks a client that supports it to refresh lenses after an edit, and resolves stale lenses neutrally", async () => {
    const lenses = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri } });
    const before = client.serverRequests.filter((r) => r.method === "workspace/codeLens/refresh").length;
    // A line inserted at the top of the entries moves every lens down by one.
    await client.change(uri, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }]);
    // The refresh is debounced: wait for it, however long the machine takes.
    const refreshes = () => client.serverRequests.filter((r) => r.method === "workspace/codeLens/refresh").length;
    await client.waitUntil(() => (refreshes() > before ? true : undefined), "workspace/codeLens/refresh");
    expect(client.serverRequests.filter((r) => r.method === "workspace/codeLens/refresh").length).toBe(before + 1);
    const stale = await client.request<CodeLens>("codeLens/resolve", lenses[1]);
    expect(stale.command).toEqual({ title: "(out of date)", command: "" });
    const fresh = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri } });
    expect(fresh.map((l) => l.range.start.line)).toEqual([0, 13, 19, 22]);
    expect((await client.request<CodeLens>("codeLens/resolve", fresh[1])).command!.title).toBe(
      "summarises 7 entries (lines 3–9) · 18,230 tokens before · keeps from line 10",
    );
  });
});

describe("lens refresh is only sent to clients that support it", () => {
  it("sends no workspace/codeLens/refresh without refreshSupport", async () => {
    const plain = startInProcess();
    try {
      await plain.initialize(PULL_CAPABILITIES);
      await plain.open(uri, text);
      await plain.change(uri, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }]);
      await sleep(400);
      expect(plain.serverRequests.filter((r) => r.method === "workspace/codeLens/refresh")).toEqual([]);
      const lenses = await plain.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri } });
      expect(lenses.map((l) => l.range.start.line)).toEqual([0, 13, 19, 22]);
    } finally {
      plain.dispose();
    }
  });
});

describe("fading and inlay hints over stdio", () => {
  it("fades what is not in the context by default, and stops when piSession.fadeInactive is false", async () => {
    // A client without workspace/configuration: settings come with didChangeConfiguration.
    const c = spawnServer();
    try {
      await c.initialize({ textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } });
      await c.open(uri, text);
      const faded = (await c.pullItems(uri)).filter((d) => d.code === "not-in-context");
      expect(faded.length).toBeGreaterThan(0);
      expect(faded.every((d) => d.severity === 4 && d.tags?.includes(1))).toBe(true);
      await c.notifyServer("workspace/didChangeConfiguration", { settings: { piSession: { fadeInactive: false } } });
      // The settings change changes the result id, so the pull is a full report without hints.
      const after = await c.pullDiagnostics(uri);
      expect(after.kind).toBe("full");
      expect((after as { items: { code?: unknown }[] }).items.some((d) => d.code === "not-in-context")).toBe(false);
    } finally {
      expect((await c.shutdownAndExit()).code).toBe(0);
    }
  });

  it("answers inlay hints for the requested range only", async () => {
    const lines = text.split("\n");
    const hints = (await client.connection.sendRequest("textDocument/inlayHint", {
      textDocument: { uri },
      range: { start: { line: 2, character: 0 }, end: { line: 5, character: 0 } },
    })) as { position: { line: number }; label: string }[];
    expect(hints.length).toBeGreaterThan(0);
    expect(hints.every((h) => h.position.line >= 2 && h.position.line <= 5)).toBe(true);
    expect(hints.some((h) => h.label.startsWith("← "))).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
  });
});
