/**
 * A fake model provider for the wire harness: an HTTP server on 127.0.0.1 (random port) that
 * records every request (path, headers without credentials, JSON body) and answers each with the
 * smallest streamed reply that pi-ai 1.6 parses as a finished assistant turn, so that Pi's run
 * ends normally after one request.
 */

import { createServer } from "node:http";
import { errorBody, validateRequest } from "./validate.mjs";

/** Headers that carry a credential; they are never recorded. */
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"]);

const REPLY_TEXT = "ok";

function sse(events) {
  return events
    .map(([event, data]) => `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`)
    .join("");
}

/** Anthropic Messages: message_start, one text block, message_delta with the stop reason. */
function anthropicReply(model) {
  const usage = { input_tokens: 1, output_tokens: 1 };
  return sse([
    ["message_start", { type: "message_start", message: { id: "msg_wire", type: "message", role: "assistant", model, content: [], stop_reason: null, usage } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: REPLY_TEXT } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** OpenAI Chat Completions: one content delta, a finish reason with usage, then [DONE]. */
function completionsReply(model) {
  const base = { id: "chatcmpl-wire", object: "chat.completion.chunk", created: 0, model };
  return sse([
    [undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: REPLY_TEXT }, finish_reason: null }] }],
    [undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }],
    [undefined, "[DONE]"],
  ]);
}

/** OpenAI Responses: created, one message item with its text, completed with usage. */
function responsesReply(model) {
  const item = {
    id: "msg_wire",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: REPLY_TEXT, annotations: [] }],
  };
  const response = {
    id: "resp_wire",
    object: "response",
    created_at: 0,
    model,
    status: "completed",
    output: [item],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
  return sse([
    ["response.created", { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [] } }],
    [
      "response.output_item.added",
      { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress", content: [] } },
    ],
    [
      "response.content_part.added",
      {
        type: "response.content_part.added",
        sequence_number: 2,
        output_index: 0,
        item_id: item.id,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      },
    ],
    [
      "response.output_text.delta",
      { type: "response.output_text.delta", sequence_number: 3, output_index: 0, item_id: item.id, content_index: 0, delta: REPLY_TEXT },
    ],
    ["response.output_item.done", { type: "response.output_item.done", sequence_number: 4, output_index: 0, item }],
    ["response.completed", { type: "response.completed", sequence_number: 5, response }],
  ]);
}

/** Which API a request path speaks, from the endpoint pi-ai's clients append to the base URL. */
export function apiOfPath(path) {
  if (path.endsWith("/messages")) return "anthropic-messages";
  if (path.endsWith("/chat/completions")) return "openai-completions";
  if (path.endsWith("/responses")) return "openai-responses";
  return undefined;
}

/**
 * Starts the server. `requests` collects `{path, headers, body}` in arrival order; a body that is
 * not JSON is kept as `{unparsed: text}`. Anything else than the three endpoints gets a 404, which
 * is recorded too. With `validate`, each body first goes through the API's documented validation
 * (validate.mjs): a refused one is answered with the provider's status and error body, and its
 * verdict is recorded on the request as `refused`.
 */
export async function startFakeProvider({ validate = false } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        body = { unparsed: text };
      }
      const headers = {};
      for (const [name, value] of Object.entries(req.headers)) if (!SECRET_HEADERS.has(name)) headers[name] = value;
      const path = (req.url ?? "").split("?")[0];
      requests.push({ path, method: req.method, headers, body, bytes: Buffer.byteLength(text) });
      const api = apiOfPath(path);
      const model = typeof body?.model === "string" ? body.model : "wire";
      if (req.method !== "POST" || api === undefined) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no such endpoint: ${path}` } }));
        return;
      }
      const verdict = validate ? validateRequest(api, body) : { ok: true };
      if (!verdict.ok) {
        requests[requests.length - 1].refused = { status: verdict.status, rule: verdict.rule, message: verdict.message };
        res.writeHead(verdict.status, { "content-type": "application/json" });
        res.end(JSON.stringify(errorBody(api, verdict)));
        return;
      }
      const reply = api === "anthropic-messages" ? anthropicReply(model) : api === "openai-completions" ? completionsReply(model) : responsesReply(model);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(reply);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
