/**
 * The providers' documented validation the fake provider applies (test/pi/wire/validate.mjs), rule
 * by rule: each refuses the body that breaks it with the provider's status and error text, and
 * accepts the same body mended. The wire verdicts (wireVerdicts.test.ts) rest on these rules.
 */

import { beforeAll, describe, expect, it } from "vitest";

type Validate = typeof import("../pi/wire/validate.mjs", { with: { "resolution-mode": "import" }});
type Images = typeof import("../pi/wire/images.mjs", { with: { "resolution-mode": "import" }});

let v: Validate;
let images: Images;
beforeAll(async () => {
  v = await import("../pi/wire/validate.mjs");
  images = await import("../pi/wire/images.mjs");
});

/** The first bytes of a PNG of `width` x `height` px (signature and IHDR), as base64: all a size check reads. */
function png(width: number, height: number): string {
  const b = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0]);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString("base64");
}

const rule = (api: string, body: unknown) => {
  const r = v.validateRequest(api, body);
  return r.ok ? "ok" : r.rule;
};

describe("anthropic-messages", () => {
  const call = {
    role: "assistant",
    content: [
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "read", input: {} },
    ],
  };
  const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }] };
  const user = (text: string) => ({ role: "user", content: text });
  const image = (data: string, media_type = "image/png") => ({ type: "image", source: { type: "base64", media_type, data } });
  const body = (...messages: unknown[]) => ({ model: "claude-sonnet-4-5", max_tokens: 10, messages });

  it("accepts a healthy conversation, consecutive user turns, an empty final assistant message and an assistant first", () => {
    expect(rule("anthropic-messages", body(user("hi"), call, result, user("go on"), user("Continue.")))).toBe("ok");
    expect(rule("anthropic-messages", body(user("hi"), { role: "assistant", content: [] }))).toBe("ok");
    expect(rule("anthropic-messages", body({ role: "assistant", content: "earlier" }, user("hi")))).toBe("ok");
  });

  it("refuses a tool result that does not answer a call of the message before it, with Anthropic's words", () => {
    const r = v.validateRequest("anthropic-messages", body(user("run ls"), result, user("go on")));
    expect(r).toMatchObject({
      ok: false,
      status: 400,
      type: "invalid_request_error",
      rule: "anthropic-tool-result-without-tool-use",
      at: "messages.1.content.0",
    });
    expect(r.ok ? "" : r.message).toBe(
      "messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    );
    // A result after the user message that interrupted its call (Pi answered the call first).
    const placeholder = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "No result provided", is_error: true }] };
    expect(rule("anthropic-messages", body(user("hi"), call, placeholder, user("stop"), result))).toBe("anthropic-tool-result-without-tool-use");
  });

  it("refuses a call whose result does not open the next message", () => {
    expect(rule("anthropic-messages", body(user("hi"), call, user("go on")))).toBe("anthropic-tool-use-without-tool-result");
    const textFirst = { role: "user", content: [{ type: "text", text: "here" }, ...result.content] };
    const r = v.validateRequest("anthropic-messages", body(user("hi"), call, textFirst));
    expect(r.ok ? "" : r.message).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("refuses empty content except in a final assistant message, and empty or blank text blocks", () => {
    expect(rule("anthropic-messages", body(user(""), user("hi")))).toBe("anthropic-non-empty-content");
    expect(rule("anthropic-messages", body(user("hi"), { role: "assistant", content: [] }, user("go on")))).toBe("anthropic-non-empty-content");
    expect(rule("anthropic-messages", body({ role: "user", content: [{ type: "text", text: "" }] }))).toBe("anthropic-text-non-empty");
    expect(rule("anthropic-messages", body({ role: "user", content: [{ type: "text", text: " \n" }] }))).toBe("anthropic-text-non-whitespace");
    expect(rule("anthropic-messages", body({ role: "system", content: "x" }))).toBe("anthropic-role");
    expect(rule("anthropic-messages", body())).toBe("anthropic-messages-required");
  });

  it("applies the documented image limits: count, dimensions, many-image dimensions, size and format", () => {
    const many = (n: number, last = png(1, 1)) => ({
      role: "user",
      content: [{ type: "text", text: "look" }, ...Array.from({ length: n - 1 }, () => image(png(1, 1))), image(last)],
    });
    expect(rule("anthropic-messages", body(many(100)))).toBe("ok");
    const r = v.validateRequest("anthropic-messages", body(many(101)));
    expect(r.ok ? "" : r.message).toBe("Too much media: 0 document pages + 101 images > 100");
    expect(rule("anthropic-messages", body(many(1, png(8000, 8000))))).toBe("ok");
    expect(rule("anthropic-messages", body(many(1, png(9000, 1200))))).toBe("anthropic-image-dimensions");
    expect(rule("anthropic-messages", body(many(20, png(2100, 1000))))).toBe("ok");
    expect(rule("anthropic-messages", body(many(21, png(2100, 1000))))).toBe("anthropic-image-dimensions-many");
    // A 9000 px image inside a tool result counts too.
    const inResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [image(png(1200, 9000))] }] };
    expect(rule("anthropic-messages", body(user("hi"), call, inResult))).toBe("anthropic-image-dimensions");
    const big = "A".repeat(5 * 1024 * 1024 + 4);
    expect(rule("anthropic-messages", body({ role: "user", content: [image(big)] }))).toBe("anthropic-image-bytes");
    expect(rule("anthropic-messages", body({ role: "user", content: [image(png(1, 1), "image/bmp")] }))).toBe("anthropic-image-media-type");
  });

  it("answers a body over 32 MB with 413 request_too_large", () => {
    const r = v.validateRequest("anthropic-messages", body(user("x".repeat(32 * 1024 * 1024))));
    expect(r).toMatchObject({ ok: false, status: 413, type: "request_too_large", rule: "anthropic-request-size" });
  });
});

describe("openai-completions", () => {
  const call = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }] };
  const tool = { role: "tool", tool_call_id: "call_1", content: "x" };
  const user = (content: unknown) => ({ role: "user", content });
  const body = (...messages: unknown[]) => ({ model: "gpt-4o", messages });

  it("accepts a healthy conversation and an empty string", () => {
    expect(rule("openai-completions", body({ role: "system", content: "Be brief." }, user("hi"), call, tool, user(""), user("go on")))).toBe("ok");
  });

  it("refuses a tool message that answers no tool_calls entry before it, with OpenAI's words and spelling", () => {
    const r = v.validateRequest("openai-completions", body(user("run ls"), tool));
    expect(r.ok ? "" : r.message).toBe("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
    expect(rule("openai-completions", body(user("hi"), call, tool, user("stop"), tool))).toBe("openai-tool-without-tool-calls");
    expect(rule("openai-completions", body(user("hi"), call, { ...tool, tool_call_id: "call_2" }))).toBe("openai-tool-without-tool-calls");
  });

  it("refuses tool_calls not all answered by the tool messages right after", () => {
    const r = v.validateRequest("openai-completions", body(user("hi"), call, user("go on")));
    expect(r.ok ? "" : r.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
    );
    expect(rule("openai-completions", body(user("hi"), call))).toBe("openai-tool-calls-without-tool");
  });

  it("refuses empty arrays, an assistant message with neither content nor calls, and images outside user messages", () => {
    expect(rule("openai-completions", body())).toBe("openai-messages-required");
    expect(rule("openai-completions", body(user([])))).toBe("openai-content-empty-array");
    expect(rule("openai-completions", body(user("hi"), { role: "assistant", content: null }))).toBe("openai-assistant-content");
    const picture = { type: "image_url", image_url: { url: `data:image/png;base64,${png(1, 1)}` } };
    expect(rule("openai-completions", body(user([picture])))).toBe("ok");
    expect(rule("openai-completions", body(user("hi"), { role: "assistant", content: [picture] }))).toBe("openai-image-role");
    expect(rule("openai-completions", body(user(Array.from({ length: 501 }, () => picture))))).toBe("openai-image-count");
    expect(rule("openai-completions", body(user([{ type: "image_url", image_url: { url: "data:image/bmp;base64,AAAA" } }])))).toBe("openai-image-media-type");
  });
});

describe("openai-responses", () => {
  const call = { type: "function_call", call_id: "call_1", name: "read", arguments: "{}" };
  const output = { type: "function_call_output", call_id: "call_1", output: "x" };
  const user = (text: string) => ({ role: "user", content: [{ type: "input_text", text }] });
  const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" };
  const body = (...input: unknown[]) => ({ model: "gpt-5.1", store: false, input });

  it("accepts a healthy input, an output anywhere after its call, and a reasoning item before its call", () => {
    expect(rule("openai-responses", body(user("hi"), reasoning, call, output, user("go on")))).toBe("ok");
    expect(rule("openai-responses", body(user("hi"), call, user("stop"), output))).toBe("ok");
  });

  it("refuses an output without its call and a call without its output, with OpenAI's words", () => {
    const r = v.validateRequest("openai-responses", body(user("run ls"), output));
    expect(r.ok ? "" : r.message).toBe("No tool call found for function call output with call_id call_1.");
    const s = v.validateRequest("openai-responses", body(user("hi"), call, user("go on")));
    expect(s.ok ? "" : s.message).toBe("No tool output found for function call call_1.");
  });

  it("refuses a reasoning item without its following item, or without its content when nothing is stored", () => {
    const r = v.validateRequest("openai-responses", body(user("hi"), reasoning, user("go on")));
    expect(r.ok ? "" : r.message).toBe("Item 'rs_1' of type 'reasoning' was provided without its required following item.");
    expect(rule("openai-responses", body(user("hi"), { type: "reasoning", id: "rs_2", summary: [] }, call, output))).toBe("responses-reasoning-not-stored");
    expect(rule("openai-responses", body({ role: "user", content: [] }))).toBe("responses-content-empty-array");
  });
});

describe("image dimensions", () => {
  it("reads PNG, GIF, JPEG and WebP headers", () => {
    expect(images.imageDimensions(Buffer.from(png(9000, 1200), "base64"))).toEqual({ width: 9000, height: 1200 });
    expect(images.imageDimensions(Buffer.from("GIF89a\x10\x00\x20\x00", "latin1"))).toEqual({ width: 16, height: 32 });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0x2c, 0x02, 0x58, 3, 0, 0, 0]);
    expect(images.imageDimensions(jpeg)).toEqual({ width: 600, height: 300 });
    const webp = Buffer.alloc(30);
    webp.write("RIFF", 0, "latin1");
    webp.write("WEBPVP8X", 8, "latin1");
    webp.writeUIntLE(2999, 24, 3);
    webp.writeUIntLE(99, 27, 3);
    expect(images.imageDimensions(webp)).toEqual({ width: 3000, height: 100 });
    expect(images.imageDimensions(Buffer.from("not an image"))).toBeUndefined();
  });
});
