// What each provider API refuses, applied to a request body as the provider would receive it: the
// fake provider of the wire harness answers a refused body with the provider's own status and error,
// and the wire verdicts (verdicts.mjs) compare these verdicts with our diagnostics'.
//
//   validateRequest(api, body, { bytes }?) -> { ok: true } | { ok: false, status, type, message, rule, at }
//
// for `anthropic-messages`, `openai-completions` and `openai-responses`. Each rule names its source:
// the provider's documentation for the constraint, and for its answer the error text the provider is
// known to return (quoted from bug reports of users who met it, where the documentation gives none).
// Only documented constraints are applied; what a provider accepts and silently changes (Anthropic
// combines consecutive turns of one role; OpenAI resizes large images) is accepted here too. The
// first refused rule is returned, in the order the rules are listed for each API.
//
// Not applied: Anthropic's "first message must use the user role" (the error users met in 2024,
// 'messages: first message must use the "user" role'), which the current Messages API reference no
// longer states; a request may start with an assistant turn when a session's first entries are lost
// (fault-cut-entry-middle). Roles need not alternate in any of the three: Anthropic combines
// consecutive turns of one role, and OpenAI's APIs take any order of user and assistant messages.
// Nor Anthropic's "Requests which include tool_use or tool_result blocks must define tools."
// (anthropics/anthropic-sdk-python#494, in 2024's tools beta): the question is the session's, and
// Pi declares its tools on every request but when it runs with --no-tools, as the wire harness does.
//
// Plain ESM without dependencies: the fake provider, the tests and verdicts.mjs import it as it is.

import { dataUrlImage, inlineImage } from "./images.mjs";

const MB = 1024 * 1024;

/** Anthropic's limits. Sources: "Images and vision" and "Request size limits" of Anthropic's API documentation. */
export const ANTHROPIC_LIMITS = {
  /** "Up to 100 images per request" for the API (600 for models with a 1M-token window; Pi's catalogue says 100 for claude-sonnet-4-5). */
  maxImages: 100,
  /** "Images larger than 8000x8000 px will be rejected." */
  maxDimension: 8000,
  /** "If you submit more than 20 images in one API request, this limit is 2000x2000 px." */
  manyImages: 20,
  maxDimensionMany: 2000,
  /** "Maximum image size: 5 MB per image" (API). */
  maxImageBytes: 5 * MB,
  /** "Messages API: 32 MB" per request; larger requests get 413 `request_too_large`. */
  maxRequestBytes: 32 * MB,
  /** The formats "Images and vision" lists as supported. */
  mediaTypes: ["image/jpeg", "image/png", "image/gif", "image/webp"],
};

/** OpenAI's limits. Source: OpenAI's "Images and vision" guide, "Image input requirements". */
export const OPENAI_LIMITS = {
  /** "Up to 20MB per image". */
  maxImageBytes: 20 * MB,
  /** "Up to 500 individual images per request". */
  maxImages: 500,
  /** "Up to 50 MB image bytes per request". */
  maxImageBytesPerRequest: 50 * MB,
  /** PNG, JPEG, WEBP and non-animated GIF. */
  mediaTypes: ["image/png", "image/jpeg", "image/jpg", "image/webp", "image/gif"],
};

const OK = Object.freeze({ ok: true });

function refuse(status, type, rule, at, message) {
  return { ok: false, status, type, message, rule, at };
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const blocksOf = (content) => (Array.isArray(content) ? content : []);

/**
 * Validates `body` (the parsed JSON a client posts) against what `api` documents. `options.bytes`
 * is the body's size as sent, for a body recorded cut short; by default its JSON's.
 */
export function validateRequest(api, body, options = {}) {
  if (!isObject(body)) return refuse(400, "invalid_request_error", "json-body", "", "The request body is not a JSON object.");
  switch (api) {
    case "anthropic-messages":
      return anthropic(body, options.bytes ?? bodyBytes(body));
    case "openai-completions":
      return completions(body);
    case "openai-responses":
      return responses(body);
    default:
      throw new Error(`validateRequest: no rules for the API ${api}`);
  }
}

/**
 * The JSON error body the provider answers a refused request with: Anthropic's
 * `{"type":"error","error":{"type","message"}}` ("Errors" of its API reference), OpenAI's
 * `{"error":{"message","type","param","code"}}` ("Error codes" of its API reference).
 */
export function errorBody(api, verdict) {
  if (api === "anthropic-messages") return { type: "error", error: { type: verdict.type, message: verdict.message } };
  return { error: { message: verdict.message, type: verdict.type, param: verdict.at || null, code: null } };
}

/** The body's size as sent: its JSON text in UTF-8. */
export function bodyBytes(body) {
  return Buffer.byteLength(JSON.stringify(body), "utf8");
}

// ---- Anthropic Messages --------------------------------------------------------------------------

function anthropic(body, size) {
  // Anthropic, "Request size limits": 32 MB for the Messages API, answered with 413 request_too_large
  // (the message Pi's users met: earendil-works/pi#401).
  if (size > ANTHROPIC_LIMITS.maxRequestBytes) return refuse(413, "request_too_large", "anthropic-request-size", "", "Request exceeds the maximum size");
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return refuse(400, "invalid_request_error", "anthropic-messages-required", "messages", "messages: at least one message is required");
  }
  for (let i = 0; i < messages.length; i++) {
    // Messages API reference: a message's `role` is "user" or "assistant" (the system prompt is the top-level `system`).
    const role = messages[i]?.role;
    if (role !== "user" && role !== "assistant") {
      return refuse(400, "invalid_request_error", "anthropic-role", `messages.${i}.role`, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
  }
  return anthropicContent(messages) ?? anthropicTools(messages) ?? anthropicImages(messages) ?? OK;
}

/**
 * Messages API reference: "all messages must have non-empty content except for the optional final
 * assistant message", the API's own words (anthropics/claude-code#6774); and a text block must hold
 * text: "text content blocks must be non-empty" (mckaywrigley/chatbot-ui#1656), "text content
 * blocks must contain non-whitespace text".
 */
function anthropicContent(messages) {
  for (let i = 0; i < messages.length; i++) {
    const { role, content } = messages[i];
    const finalAssistant = i === messages.length - 1 && role === "assistant";
    const empty = content === "" || (Array.isArray(content) && content.length === 0) || content === undefined || content === null;
    if (empty && !finalAssistant) {
      return refuse(
        400,
        "invalid_request_error",
        "anthropic-non-empty-content",
        `messages.${i}`,
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    for (const [k, block] of blocksOf(content).entries()) {
      if (block?.type !== "text") continue;
      const at = `messages.${i}.content.${k}.text`;
      if (typeof block.text !== "string" || block.text === "") {
        return refuse(400, "invalid_request_error", "anthropic-text-non-empty", at, `${at}: text content blocks must be non-empty`);
      }
      if (block.text.trim() === "") {
        return refuse(400, "invalid_request_error", "anthropic-text-non-whitespace", at, `${at}: text content blocks must contain non-whitespace text`);
      }
    }
  }
  return undefined;
}

/**
 * Anthropic, "Implement tool use" (handling tool results): tool_result blocks must immediately
 * follow the assistant message with their tool_use blocks, in the next user message, and come first
 * in its content, before any text. The API checks this per message, as its answers name them:
 * "unexpected `tool_use_id` found in `tool_result` blocks: ID. Each `tool_result` block must have a
 * corresponding `tool_use` block in the previous message." (anthropics/claude-code#18947) and
 * "`tool_use` ids were found without `tool_result` blocks immediately after: ID. Each `tool_use`
 * block must have a corresponding `tool_result` block in the next message." (anthropics/claude-code#5989,
 * Kilo-Org/kilocode#5163), or "Did not find 1 `tool_result` block(s) at the beginning of this
 * message. Messages following `tool_use` blocks must begin with a matching number of `tool_result`
 * blocks." (anthropics/claude-code#37); the combining of consecutive turns the reference describes
 * does not make a result that follows a user message acceptable.
 */
function anthropicTools(messages) {
  const toolUses = (m) =>
    blocksOf(m?.content)
      .filter((b) => b?.type === "tool_use")
      .map((b) => b.id);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "user") {
      const calls = new Set(i > 0 && messages[i - 1].role === "assistant" ? toolUses(messages[i - 1]) : []);
      for (const [k, block] of blocksOf(m.content).entries()) {
        if (block?.type !== "tool_result" || calls.has(block.tool_use_id)) continue;
        const at = `messages.${i}.content.${k}`;
        const message = `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        return refuse(400, "invalid_request_error", "anthropic-tool-result-without-tool-use", at, message);
      }
      continue;
    }
    const ids = toolUses(m);
    const next = messages[i + 1];
    if (ids.length === 0 || next === undefined) continue;
    // Only the tool_result blocks that open the next message answer the calls ("must come FIRST").
    const answered = new Set();
    for (const block of next.role === "user" ? blocksOf(next.content) : []) {
      if (block?.type !== "tool_result") break;
      answered.add(block.tool_use_id);
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      const message = `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      return refuse(400, "invalid_request_error", "anthropic-tool-use-without-tool-result", `messages.${i}`, message);
    }
  }
  return undefined;
}

/** Every base64 image of a message list, in tool results too, with its path. */
function anthropicImageBlocks(messages) {
  const out = [];
  const visit = (blocks, at) => {
    for (const [k, block] of blocksOf(blocks).entries()) {
      if (block?.type === "image" && block.source?.type === "base64") out.push({ source: block.source, at: `${at}.${k}.image.source` });
      else if (block?.type === "tool_result") visit(block.content, `${at}.${k}.content`);
    }
  };
  for (const [i, m] of messages.entries()) visit(m?.content, `messages.${i}.content`);
  return out;
}

/**
 * Anthropic, "Images and vision": at most 100 images per API request, each at most 5 MB and
 * 8000x8000 px (2000x2000 px when a request has more than 20), in one of four formats. The API's
 * answers: "Too much media: 0 document pages + 101 images > 100" (anthropics/claude-code#19822),
 * "At least one of the image dimensions exceed max allowed size: 8000 pixels" (#11576), "... for
 * many-image requests: 2000 pixels" (#9375), "image exceeds 5 MB maximum".
 */
function anthropicImages(messages) {
  const images = anthropicImageBlocks(messages);
  const L = ANTHROPIC_LIMITS;
  if (images.length > L.maxImages) {
    return refuse(
      400,
      "invalid_request_error",
      "anthropic-image-count",
      "messages",
      `Too much media: 0 document pages + ${images.length} images > ${L.maxImages}`,
    );
  }
  const many = images.length > L.manyImages;
  for (const { source, at } of images) {
    if (!L.mediaTypes.includes(source.media_type)) {
      const message = `${at}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      return refuse(400, "invalid_request_error", "anthropic-image-media-type", `${at}.media_type`, message);
    }
    const image = inlineImage(source.media_type, String(source.data ?? ""));
    if (image.base64Bytes > L.maxImageBytes) {
      const message = `${at}.base64: image exceeds 5 MB maximum: ${image.base64Bytes} bytes > ${L.maxImageBytes} bytes`;
      return refuse(400, "invalid_request_error", "anthropic-image-bytes", `${at}.base64`, message);
    }
    const d = image.dimensions;
    const max = many ? L.maxDimensionMany : L.maxDimension;
    if (d && (d.width > max || d.height > max)) {
      const message = `${at}.base64.data: At least one of the image dimensions exceed max allowed size${many ? " for many-image requests" : ""}: ${max} pixels`;
      return refuse(400, "invalid_request_error", many ? "anthropic-image-dimensions-many" : "anthropic-image-dimensions", `${at}.base64.data`, message);
    }
  }
  return undefined;
}

// ---- OpenAI Chat Completions ---------------------------------------------------------------------

function emptyArray(at) {
  return `Invalid '${at}': empty array. Expected an array with minimum length 1, but got an empty array instead.`;
}

function completions(body) {
  const messages = body.messages;
  // Chat Completions reference: `messages` is required, "A list of messages comprising the conversation so far".
  if (!Array.isArray(messages) || messages.length === 0) {
    return refuse(400, "invalid_request_error", "openai-messages-required", "messages", emptyArray("messages"));
  }
  return completionsContent(messages) ?? completionsTools(messages) ?? openaiImages(completionsImages(messages)) ?? OK;
}

/**
 * Chat Completions reference: an array `content` has "minimum length 1"; an assistant message's
 * `content` is "Required unless `tool_calls` or `function_call` is specified"; image parts are
 * user content ("Image URLs are only allowed for messages with role 'user'").
 */
function completionsContent(messages) {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (Array.isArray(m?.content) && m.content.length === 0) {
      return refuse(400, "invalid_request_error", "openai-content-empty-array", `messages[${i}].content`, emptyArray(`messages[${i}].content`));
    }
    if (m?.role === "assistant" && (m.content === null || m.content === undefined) && !(Array.isArray(m.tool_calls) && m.tool_calls.length > 0)) {
      return refuse(
        400,
        "invalid_request_error",
        "openai-assistant-content",
        `messages[${i}].content`,
        "Invalid value for 'content': expected a string, got null.",
      );
    }
    if (m?.role !== "user" && blocksOf(m?.content).some((p) => p?.type === "image_url")) {
      const message = `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${m?.role}' contains an image URL.`;
      return refuse(400, "invalid_request_error", "openai-image-role", `messages[${i}]`, message);
    }
  }
  return undefined;
}

/**
 * OpenAI, "Function calling" and the Chat Completions reference: a `tool` message is "a response to
 * a preceding message with 'tool_calls'" and names one of its `tool_call_id`s; an assistant message
 * with `tool_calls` must be followed by tool messages answering each of them. The API's answers:
 * "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with
 * 'tool_calls'." (OpenAI's spelling; miurla/morphic#136, smarter-sh/smarter#264) and "An assistant
 * message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The
 * following tool_call_ids did not have response messages: ID" (microsoft/promptflow#3130).
 */
function completionsTools(messages) {
  let open; // The ids of the assistant message the current run of tool messages answers.
  let openAt = -1;
  const unanswered = () => (open ? [...open.pending] : []);
  for (let i = 0; i <= messages.length; i++) {
    const m = messages[i];
    if (m?.role === "tool") {
      if (!open?.ids.has(m.tool_call_id)) {
        const message = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
        return refuse(400, "invalid_request_error", "openai-tool-without-tool-calls", `messages.[${i}].role`, message);
      }
      open.pending.delete(m.tool_call_id);
      continue;
    }
    const missing = unanswered();
    if (missing.length > 0) {
      const message = `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`;
      return refuse(400, "invalid_request_error", "openai-tool-calls-without-tool", `messages.[${openAt}].role`, message);
    }
    open = undefined;
    if (m?.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const ids = m.tool_calls.map((c) => c?.id);
      open = { ids: new Set(ids), pending: new Set(ids) };
      openAt = i;
    }
  }
  return undefined;
}

function completionsImages(messages) {
  const out = [];
  messages.forEach((m, i) => {
    for (const [k, part] of blocksOf(m?.content).entries()) {
      if (part?.type === "image_url") out.push({ url: part.image_url?.url, at: `messages[${i}].content[${k}].image_url` });
    }
  });
  return out;
}

/**
 * OpenAI, "Images and vision", image input requirements: PNG, JPEG, WEBP or non-animated GIF, "up
 * to 20MB per image", "up to 500 individual images per request", "up to 50 MB image bytes per
 * request". Larger pictures are resized, not refused.
 */
function openaiImages(images) {
  const L = OPENAI_LIMITS;
  if (images.length > L.maxImages) {
    return refuse(400, "invalid_request_error", "openai-image-count", images[L.maxImages].at, `Too many images in request. Max is ${L.maxImages}.`);
  }
  let total = 0;
  for (const { url, at } of images) {
    const image = dataUrlImage(url);
    if (!image) continue;
    if (!L.mediaTypes.includes(image.mediaType)) {
      return refuse(
        400,
        "invalid_request_error",
        "openai-image-media-type",
        at,
        `Invalid '${at}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...').`,
      );
    }
    if (image.bytes > L.maxImageBytes) {
      return refuse(
        400,
        "invalid_request_error",
        "openai-image-bytes",
        at,
        `Invalid '${at}': the image is ${image.bytes} bytes, over the 20 MB limit per image.`,
      );
    }
    total += image.bytes;
    if (total > L.maxImageBytesPerRequest) {
      return refuse(
        400,
        "invalid_request_error",
        "openai-image-bytes-per-request",
        at,
        `The request's images total more than 50 MB (${total} bytes at '${at}').`,
      );
    }
  }
  return undefined;
}

// ---- OpenAI Responses ----------------------------------------------------------------------------

function responses(body) {
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (!Array.isArray(input))
    return refuse(400, "invalid_request_error", "responses-input", "input", "Invalid 'input': expected a string or an array of items.");
  return responsesItems(input, body.store) ?? openaiImages(responsesImages(input)) ?? OK;
}

/**
 * OpenAI, "Function calling" (Responses) and "Reasoning": a `function_call_output` answers the
 * `function_call` with its `call_id` earlier in the input, and each `function_call` of the input
 * needs its output; a reasoning item is followed by the item it was produced with, and without
 * `store` it must carry its `encrypted_content` (items are not kept). The API's answers: "No tool
 * call found for function call output with call_id ID." (continuedev/continue#10092), "No tool
 * output found for function call ID." (tjardoo/openai-client#124), "Item 'ID' of type 'reasoning'
 * was provided without its required following item." (continuedev/continue#8933, vercel/ai#7099),
 * "Item with id 'ID' not found. Items are not persisted when `store` is set to false.". A message's
 * content array has minimum length 1, as in Chat Completions.
 */
function responsesItems(input, store) {
  const calls = new Set();
  const outputs = new Set();
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    const type = item?.type ?? (item?.role !== undefined ? "message" : undefined);
    if (type === "message" && Array.isArray(item.content) && item.content.length === 0) {
      return refuse(400, "invalid_request_error", "responses-content-empty-array", `input[${i}].content`, emptyArray(`input[${i}].content`));
    }
    if (type === "function_call") calls.add(item.call_id);
    if (type === "function_call_output") {
      if (!calls.has(item.call_id)) {
        return refuse(
          400,
          "invalid_request_error",
          "responses-output-without-call",
          "input",
          `No tool call found for function call output with call_id ${item.call_id}.`,
        );
      }
      outputs.add(item.call_id);
    }
    if (type === "reasoning") {
      if (store === false && typeof item.encrypted_content !== "string") {
        const message = `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
        return refuse(404, "invalid_request_error", "responses-reasoning-not-stored", `input[${i}]`, message);
      }
      const next = input[i + 1];
      const following =
        next?.type === "function_call" || (next?.type === "message" && next.role === "assistant") || (next?.type === undefined && next?.role === "assistant");
      if (!following) {
        return refuse(
          400,
          "invalid_request_error",
          "responses-reasoning-without-following",
          "input",
          `Item '${item.id}' of type 'reasoning' was provided without its required following item.`,
        );
      }
    }
  }
  for (const id of calls) {
    if (!outputs.has(id))
      return refuse(400, "invalid_request_error", "responses-call-without-output", "input", `No tool output found for function call ${id}.`);
  }
  return undefined;
}

function responsesImages(input) {
  const out = [];
  input.forEach((item, i) => {
    for (const [k, part] of blocksOf(item?.content).entries()) {
      if (part?.type === "input_image") out.push({ url: part.image_url, at: `input[${i}].content[${k}].image_url` });
    }
    // Tool output may carry images too (function_call_output with an array output).
    for (const [k, part] of blocksOf(item?.output).entries()) {
      if (part?.type === "input_image") out.push({ url: part.image_url, at: `input[${i}].output[${k}].image_url` });
    }
  });
  return out;
}
