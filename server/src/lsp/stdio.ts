/**
 * The server on standard input and output, with a reader (`messageReader.ts`, which decodes a large
 * message while it arrives) and a writer that say when the stream goes wrong (a bad
 * `Content-Length`, a message that never ends) instead of leaving the server deaf and silent, and a
 * connection strategy that answers a request the client cancels while it is still queued at once,
 * without running it.
 */

import { createConnection, LSPErrorCodes, type Message, ProposedFeatures, type ResponseMessage, StreamMessageWriter } from "vscode-languageserver/node";
import { SessionMessageReader } from "./messageReader";
import { startServer } from "./server";
import { encodeMessage, standardInput } from "./stdin";

export function startStdioServer(): void {
  const log = (text: string) => process.stderr.write(`pi-session-lsp: ${text}\n`);
  // The reader gets each chunk as it is read (a flowing stream), so it knows what the next read can hold.
  let reader: SessionMessageReader | undefined;
  const input = standardInput(() => reader?.missing ?? 0);
  reader = new SessionMessageReader(input);
  // Encoded as the library does, a large answer into memory that is given back (`encodeMessage`).
  const contentTypeEncoder = { name: "application/json", encode: (message: Message) => Promise.resolve(encodeMessage(message)) };
  const writer = new StreamMessageWriter(process.stdout, { charset: "utf-8", contentTypeEncoder });
  reader.onError((error) => log(`could not read a message from the client: ${error.message}`));
  reader.onPartialMessage((info) => log(`still waiting, after ${info.waitingTime} ms, for the rest of a message (is its Content-Length right?)`));
  writer.onError(([error]) => log(`could not write a message to the client: ${error.message}`));
  const cancelUndispatched = (message: Message): ResponseMessage | undefined => {
    const id = (message as { id?: number | string | null }).id;
    if (id === undefined) return undefined;
    return { jsonrpc: "2.0", id, error: { code: LSPErrorCodes.RequestCancelled, message: "the request was cancelled before it ran" } };
  };
  const server = startServer(createConnection(ProposedFeatures.all, reader, writer, { cancelUndispatched }));
  // The client closing its end of stdin ends the server, cleanly only after a `shutdown`.
  const end = () => process.exit(server.shutDown ? 0 : 1);
  input.on("end", end);
  input.on("close", end);
}
