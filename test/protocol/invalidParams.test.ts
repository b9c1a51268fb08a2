/**
 * Requests whose params do not have the shape the LSP specification gives them (a position that is
 * missing, not an object, or not two non-negative integers; params that are null) are answered
 * with the JSON-RPC error InvalidParams (-32602), as the specification asks, and log nothing: they
 * are the client's mistake, not a failure of the server.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const USER = `{"type":"message","id":"a0000002","parentId":null,"timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1772445602000}}`;
const URI = "untitled:invalid-params.jsonl";
const textDocument = { uri: URI };
const position = { line: 1, character: 20 };
const range = { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } };

let client: LspTestClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

async function started(): Promise<LspTestClient> {
  client = startInProcess();
  await client.initialize(PULL_CAPABILITIES);
  await client.open(URI, `${HEADER}\n${USER}\n`);
  return client;
}

/** The error code a request is answered with, or "answered" when it succeeds. */
async function outcome(c: LspTestClient, method: string, params: unknown): Promise<number | string> {
  try {
    await c.request(method, params);
    return "answered";
  } catch (error) {
    return (error as { code?: number }).code ?? String(error);
  }
}

const BAD_POSITIONS: [string, unknown][] = [
  ["missing", undefined],
  ["a string", "1:20"],
  ["null", null],
  ["a number", 5],
  ["without character", { line: 1 }],
  ["with a negative line", { line: -1, character: 0 }],
  ["with a fractional character", { line: 1, character: 0.5 }],
  ["with a string line", { line: "1", character: 0 }],
];

const POSITION_REQUESTS: [string, (position: unknown) => unknown][] = [
  ["textDocument/hover", (p) => ({ textDocument, position: p })],
  ["textDocument/definition", (p) => ({ textDocument, position: p })],
  ["textDocument/references", (p) => ({ textDocument, position: p, context: { includeDeclaration: true } })],
  ["textDocument/documentHighlight", (p) => ({ textDocument, position: p })],
  ["textDocument/completion", (p) => ({ textDocument, position: p })],
  ["textDocument/prepareRename", (p) => ({ textDocument, position: p })],
  ["textDocument/rename", (p) => ({ textDocument, position: p, newName: "x" })],
  ["textDocument/prepareCallHierarchy", (p) => ({ textDocument, position: p })],
  ["textDocument/prepareTypeHierarchy", (p) => ({ textDocument, position: p })],
];

describe("requests with malformed params", () => {
  it("are refused with InvalidParams when a position is malformed, and log nothing", async () => {
    const c = await started();
    for (const [method, make] of POSITION_REQUESTS) {
      for (const [what, bad] of BAD_POSITIONS) {
        expect(await outcome(c, method, make(bad)), `${method} with a position ${what}`).toBe(-32602);
      }
      // The same request with a good position is answered (or refused for its own reason, a rename).
      expect(["answered", -32602], method).toContain(await outcome(c, method, make(position)));
    }
    expect(c.logs.filter((l) => l.type === 1 || /at .*\(.*:\d+:\d+\)/.test(l.message))).toEqual([]);
  });

  it("are refused with InvalidParams when the params are null or lack their document", async () => {
    const c = await started();
    const methods = [
      ...POSITION_REQUESTS.map(([m]) => m),
      "textDocument/documentSymbol",
      "textDocument/foldingRange",
      "textDocument/documentLink",
      "textDocument/codeLens",
      "textDocument/inlayHint",
      "textDocument/codeAction",
      "textDocument/formatting",
      "textDocument/diagnostic",
    ];
    for (const method of methods) {
      expect(await outcome(c, method, null), `${method} with null params`).toBe(-32602);
      expect(await outcome(c, method, { textDocument: "x", position, range, context: { diagnostics: [] } }), `${method} with a string textDocument`).toBe(
        -32602,
      );
    }
    expect(await outcome(c, "textDocument/inlayHint", { textDocument, range: "0-2" })).toBe(-32602);
    expect(await outcome(c, "textDocument/codeAction", { textDocument, range: { start: position }, context: { diagnostics: [] } })).toBe(-32602);
    expect(await outcome(c, "textDocument/codeAction", { textDocument, range, context: null })).toBe(-32602);
    expect(await outcome(c, "textDocument/references", { textDocument, position, context: null })).toBe(-32602);
    expect(await outcome(c, "textDocument/rename", { textDocument, position, newName: 5 })).toBe(-32602);
    expect(await outcome(c, "workspace/symbol", null)).toBe(-32602);
    expect(await outcome(c, "workspace/symbol", { query: 5 })).toBe(-32602);
    expect(await outcome(c, "callHierarchy/incomingCalls", { item: null })).toBe(-32602);
    expect(await outcome(c, "typeHierarchy/subtypes", null)).toBe(-32602);
    expect(await outcome(c, "codeLens/resolve", null)).toBe(-32602);
    expect(await outcome(c, "codeLens/resolve", { range: 3 })).toBe(-32602);
    expect(await outcome(c, "codeAction/resolve", null)).toBe(-32602);
    expect(await outcome(c, "workspace/executeCommand", null)).toBe(-32602);
    expect(c.logs.filter((l) => l.type === 1 || /at .*\(.*:\d+:\d+\)/.test(l.message))).toEqual([]);
    // Well-formed requests on the same server are still answered.
    expect(await outcome(c, "textDocument/hover", { textDocument, position })).toBe("answered");
    expect(await outcome(c, "textDocument/inlayHint", { textDocument, range })).toBe("answered");
    expect(await outcome(c, "workspace/symbol", { query: "" })).toBe("answered");
  });
});
