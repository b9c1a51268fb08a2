/**
 * The server's reader of the client's stream (`server/src/lsp/messageReader.ts`, issue 12): the
 * `Content-Length` framing of the library's reader, small and large messages in any chunking, the
 * same errors, and a large `didOpen` whose lines reach the document without being split again;
 * then the whole server over this reader, whose diagnostics on a session of several megabytes
 * equal those of the same server over the library's reader.
 */

import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createConnection,
  createProtocolConnection,
  type Message,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver/node";
import { splitLines } from "../../server/src/core/line/split";
import { SessionMessageReader, STREAMED_BODY_BYTES, takeSplitText } from "../../server/src/lsp/messageReader";
import { startServer } from "../../server/src/lsp/server";
import { LspTestClient, PULL_CAPABILITIES, seededRandom } from "../helpers/lspClient";

const frame = (message: unknown, header = "") => {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n${header}\r\n`, "ascii"), body]);
};

/** Writes `bytes` to a reader in random chunks and collects what it reports. */
function readAll(bytes: Buffer, random: () => number) {
  const stream = new PassThrough();
  const reader = new SessionMessageReader(stream);
  const messages: Message[] = [];
  const errors: string[] = [];
  reader.onError((e) => errors.push(e.message));
  reader.listen((m) => messages.push(m));
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * (random() < 0.5 ? 10 : 200_000));
    stream.write(bytes.subarray(at, at + size));
    at += size;
  }
  return { messages, errors };
}

/** A session of `entries` entries, about 1 KB a line, with a curly quote (two-byte text) and CRLF endings here and there. */
function session(entries: number): string {
  const lines = ['{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}'];
  let parent: string | null = null;
  for (let i = 0; i < entries; i++) {
    const id = `e${i.toString(16).padStart(7, "0")}`;
    const text = `Line ${i}: ${"word ".repeat(180)}${i % 97 === 0 ? "it\u2019s" : ""}\n"quoted"`;
    lines.push(
      JSON.stringify({
        type: "message",
        id,
        parentId: parent,
        timestamp: "2026-03-02T10:00:01.000Z",
        message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }] },
      }),
    );
    parent = i % 50 === 7 ? "dangling" : id;
  }
  return lines.map((l, i) => l + (i % 13 === 0 ? "\r\n" : "\n")).join("");
}

describe("SessionMessageReader", () => {
  it("reads small and large messages in any chunking, as sent", () => {
    const random = seededRandom(4);
    const big = session(1500);
    expect(Buffer.byteLength(big)).toBeGreaterThan(STREAMED_BODY_BYTES);
    const sent: Message[] = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } } as Message,
      {
        jsonrpc: "2.0",
        method: "textDocument/didOpen",
        params: { textDocument: { uri: "file:///a.jsonl", languageId: "jsonl", version: 1, text: big } },
      } as Message,
      { jsonrpc: "2.0", id: 2, method: "textDocument/diagnostic", params: { textDocument: { uri: "file:///a.jsonl" } } } as Message,
      {
        jsonrpc: "2.0",
        method: "textDocument/didChange",
        params: { textDocument: { uri: "file:///a.jsonl", version: 2 }, contentChanges: [{ text: big.slice(10) }] },
      } as Message,
    ];
    for (let round = 0; round < 5; round++) {
      const bytes = Buffer.concat(sent.map((m, i) => frame(m, i === 1 ? "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" : "")));
      const { messages, errors } = readAll(bytes, random);
      expect(errors).toEqual([]);
      expect(messages).toEqual(sent);
    }
  });

  it("hands a large didOpen's lines to the document once, equal to splitLines of its text", () => {
    const big = session(1200);
    const { messages } = readAll(
      frame({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri: "file:///b", languageId: "jsonl", version: 1, text: big } } }),
      seededRandom(9),
    );
    const text = (messages[0] as unknown as { params: { textDocument: { text: string } } }).params.textDocument.text;
    expect(text).toBe(big);
    expect(takeSplitText(big.slice(0, -1))).toBeUndefined();
    expect(takeSplitText(text)).toEqual(splitLines(big));
    expect(takeSplitText(text)).toBeUndefined();
  });

  it("reports the library's errors and goes on reading", () => {
    const ok = { jsonrpc: "2.0", method: "x", params: {} };
    const bad = [
      Buffer.from("Content-Type: text/plain\r\n\r\n", "ascii"),
      Buffer.from("Content-Length: abc\r\n\r\n", "ascii"),
      Buffer.from("no colon here\r\n\r\n", "ascii"),
      Buffer.concat([Buffer.from("Content-Length: 5\r\n\r\n", "ascii"), Buffer.from("{nope", "ascii")]),
      Buffer.concat([
        Buffer.from(`Content-Length: ${STREAMED_BODY_BYTES + 10}\r\n\r\n`, "ascii"),
        Buffer.from(`["${"a\\n".repeat(STREAMED_BODY_BYTES / 3)}`.padEnd(STREAMED_BODY_BYTES + 10, "b"), "ascii"),
      ]),
    ];
    const { messages, errors } = readAll(Buffer.concat([frame(ok), ...bad.flatMap((b) => [b, frame(ok)])]), seededRandom(2));
    expect(messages).toEqual(Array.from({ length: bad.length + 1 }, () => ok));
    expect(errors).toHaveLength(bad.length);
    expect(errors[0]).toMatch(/Content-Length/);
    expect(errors[1]).toMatch(/must be a number/);
    expect(errors[2]).toMatch(/separate key and value/);
    expect(errors[3]).toMatch(/JSON/);
    expect(errors[4]).toMatch(/JSON/);
  });
});

/** The server in-process over `reader`, as a test client sees it. */
function serverOver(makeReader: (stream: PassThrough) => SessionMessageReader | StreamMessageReader): LspTestClient {
  const clientToServer = new PassThrough();
  const serverToClient = new PassThrough();
  const serverConnection = createConnection(ProposedFeatures.all, makeReader(clientToServer), new StreamMessageWriter(serverToClient));
  startServer(serverConnection);
  const connection = createProtocolConnection(new StreamMessageReader(serverToClient), new StreamMessageWriter(clientToServer));
  return new LspTestClient(connection, { exited: new Promise(() => undefined), stderr: () => "", stop: () => serverConnection.dispose() });
}

describe("the server over SessionMessageReader", () => {
  it("gives the diagnostics of the library's reader for a session of several megabytes, and edits it the same way", async () => {
    const text = session(4000);
    const results: unknown[] = [];
    for (const makeReader of [(s: PassThrough) => new SessionMessageReader(s), (s: PassThrough) => new StreamMessageReader(s)]) {
      const c = serverOver(makeReader);
      await c.initialize(PULL_CAPABILITIES);
      await c.open("file:///big.jsonl", text);
      const opened = await c.pullItems("file:///big.jsonl");
      await c.change("file:///big.jsonl", [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 1 } }, text: "" }]);
      const edited = await c.pullItems("file:///big.jsonl");
      results.push({ opened, edited });
      c.dispose();
    }
    const [streamed, library] = results as { opened: unknown[]; edited: unknown[] }[];
    expect(streamed!.opened.length).toBeGreaterThan(10);
    expect(streamed).toEqual(library);
  });
});
