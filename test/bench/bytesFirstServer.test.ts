/**
 * The bytes-first floor of the open (bench/bytesFirstServer.mjs) does the work it claims, so that
 * the benchmark's row is honest: over stdio, on a session with every structural fault, it answers
 * the first pull with each of them on its line, a dangling parent and a duplicate id at the range
 * our server gives them, and it does so whether its text is scanned while it arrives (a message of
 * 1 MB or more) or at its end, and however the client escaped it.
 */

import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, REPO_ROOT, spawnServer } from "../helpers/lspClient";

const FLOOR = join(REPO_ROOT, "bench", "bytesFirstServer.mjs");

/** A session with one of each structural fault, and `filler` characters (some not ASCII) in a long message. */
function session(filler: number): string {
  const long = 'tool output é "quoted" \\ / '.repeat(Math.ceil(filler / 28)).slice(0, filler);
  return [
    JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
    JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: long } }),
    '{"type":"message","id":"b","parentId":"a"',
    JSON.stringify({ type: "message", id: "c", parentId: "nowhere", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: "ü" } }),
    JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:03.000Z", message: { role: "user", content: "again" } }),
    JSON.stringify({ type: "message", id: "x", parentId: "y", timestamp: "2026-01-01T00:00:04.000Z", message: { role: "user", content: "x" } }),
    JSON.stringify({ type: "message", id: "y", parentId: "x", timestamp: "2026-01-01T00:00:05.000Z", message: { role: "user", content: "y" } }),
    "",
  ].join("\n");
}

let clients: LspTestClient[] = [];
afterEach(() => {
  for (const c of clients) c.dispose();
  clients = [];
});

beforeAll(async () => {
  await ensureBuilt();
});

async function firstAnswer(text: string, bin: string, args: string[] = ["--stdio"]): Promise<Diagnostic[]> {
  const client = spawnServer(args, { bin, env: { PI_SESSION_LSP_STAGED_OPEN_CHARS: "0" } });
  clients.push(client);
  await client.initialize(PULL_CAPABILITIES);
  await client.open("file:///w/s.jsonl", text);
  return client.pullItems("file:///w/s.jsonl");
}

const lines = (items: Diagnostic[], code: string) => items.filter((d) => d.code === code).map((d) => d.range.start.line);

describe("bench/bytesFirstServer.mjs", () => {
  for (const [name, filler, args] of [
    ["a small message, scanned at its end", 200, ["--stdio"]],
    ["a 1.2 MB message, scanned while it arrives", 1_200_000, ["--stdio"]],
    ["a 1.2 MB message, scanned at its end", 1_200_000, ["--stdio", "--scan-at-end"]],
  ] as const) {
    it(`answers every structural fault on its line: ${name}`, async () => {
      const items = await firstAnswer(session(filler), FLOOR, [...args]);
      expect(lines(items, "malformed-line")).toEqual([2]);
      expect(lines(items, "dangling-parent")).toEqual([3]);
      expect(lines(items, "duplicate-id")).toEqual([4]);
      expect(lines(items, "cycle")).toHaveLength(1);
      expect(lines(items, "bad-header")).toEqual([]);
      expect(items).toHaveLength(4);
      // The malformed line's message is JSON.parse's own, from a decode of that line.
      expect(items.find((d) => d.code === "malformed-line")?.message).toMatch(/^Pi skips this line: .*JSON/);
    });
  }

  it("gives a dangling parent and a duplicate id the ranges our server gives them", async () => {
    const text = session(1_200_000);
    const floor = await firstAnswer(text, FLOOR);
    const ours = await firstAnswer(text, join(REPO_ROOT, "bin", "pi-session-lsp.js"));
    const range = (items: Diagnostic[], code: string) => items.find((d) => d.code === code)?.range;
    expect(range(floor, "dangling-parent")).toEqual(range(ours, "dangling-parent"));
    expect(range(ours, "dangling-parent")).toBeDefined();
    // Ours reports the id Pi keeps the later entry of on the later line too.
    const ourDuplicate = ours.find((d) => d.range.start.line === 4 && /duplicate/.test(String(d.code)));
    expect(ourDuplicate?.range).toEqual(range(floor, "duplicate-id"));
  });

  it("reads a header that is not a session's, and every escape a client may write", async () => {
    const client = spawnServer(["--stdio"], { bin: FLOOR });
    clients.push(client);
    await client.initialize(PULL_CAPABILITIES);
    const text = [
      '{"type":"message","id":"h"}',
      '{"type":"message","id":"a/b","parentId":"gone/away"}',
      "\f\u00a0",
      '{"type":"message","id":"a/b","parentId":null}',
      '{"type":"message","id":"c","\\u0069d":"a/b","parentId":null}',
    ].join("\n");
    // Written as Neovim writes it: every "/" escaped.
    const message = JSON.stringify({
      jsonrpc: "2.0",
      method: "textDocument/didOpen",
      params: { textDocument: { uri: "file:///w/t.jsonl", languageId: "jsonl", version: 1, text } },
    }).replaceAll("/", "\\/");
    client.writeRaw(`Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
    const items = await client.pullItems("file:///w/t.jsonl");
    expect(lines(items, "bad-header")).toEqual([0]);
    // The escaped parentId is left to the line's own parse, which finds it dangling all the same.
    expect(lines(items, "dangling-parent")).toEqual([1]);
    // A line of whitespace to trim() is blank, not malformed; an id under an escaped key is the line's last.
    expect(lines(items, "malformed-line")).toEqual([]);
    expect(lines(items, "duplicate-id")).toEqual([3, 4]);
    // A value the scan left to the line's parse is given its line's range, never a negative column.
    for (const d of items) expect(d.range.start.character, d.code as string).toBeGreaterThanOrEqual(0);
    expect(items.find((d) => d.code === "dangling-parent")?.range.end.character).toBe(text.split("\n")[1]?.length);
  });
});
