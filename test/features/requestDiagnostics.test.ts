/**
 * The request diagnostics beyond the annotated fixtures (test/fixtures/diagnostics): the rule
 * follows the API of the model Pi resumes with, sizes too large for a fixture (a 32 MB request),
 * image headers, and that what they report is what the provider view shows.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { imageSize, messageBytes } from "../../server/src/features/imageDiagnostics";

const fixture = (name: string) => readFileSync(join(__dirname, "../parity/fixtures", `${name}.jsonl`), "utf8");
const diagnose = (text: string) => computeDiagnostics(new SessionDocument("file:///t.jsonl", "jsonl", 1, text));
const codes = (text: string) => diagnose(text).map((d) => String(d.code));

/** A session of 40 tool results of 1 MB each: Anthropic takes 32 MB, so the request passes it at the 33rd. */
function bigResults(): string {
  const lines = fixture("fault-open-tool-call").trimEnd().split("\n").slice(0, 8);
  let parent = "a0000007";
  for (let i = 0; i < 40; i++) {
    const call = `toolu_big${i}`;
    const t = `2026-03-02T10:01:${String(i).padStart(2, "0")}.000Z`;
    lines.push(
      `{"type":"message","id":"c${i}","parentId":"${parent}","timestamp":"${t}","message":{"role":"assistant","content":[{"type":"toolCall","id":"${call}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`,
      `{"type":"message","id":"r${i}","parentId":"c${i}","timestamp":"${t}","message":{"role":"toolResult","toolCallId":"${call}","toolName":"read","content":[{"type":"text","text":"${"x".repeat(1 << 20)}"}],"isError":false,"timestamp":1}}`,
    );
    parent = `r${i}`;
  }
  return `${lines.join("\n")}\n`;
}

/** The fixture with its model_change and assistant messages naming another model. */
function asModel(text: string, provider: string, model: string, api: string): string {
  return text
    .replaceAll('"provider":"anthropic","modelId":"claude-sonnet-4-5"', `"provider":"${provider}","modelId":"${model}"`)
    .replaceAll('"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"', `"api":"${api}","provider":"${provider}","model":"${model}"`);
}

describe("request diagnostics", () => {
  it("name the rule of the API Pi sends to", () => {
    const text = asModel(fixture("fault-tool-result-after-aborted-call"), "google", "gemini-2.5-pro", "google-generative-ai");
    const orphan = diagnose(text).find((d) => d.code === "orphaned-tool-result");
    expect(orphan?.message).toContain("to google/gemini-2.5-pro without its call");
    expect(orphan?.message).toContain("The Gemini API documents that a function response turn must come right after the function call turn it answers");
  });

  it("leave a late result alone for OpenAI's Responses API, which pairs by call_id, but not a dropped call", () => {
    const late = asModel(fixture("fault-tool-result-after-user"), "openai", "gpt-5.1", "openai-responses");
    expect(codes(late)).not.toContain("orphaned-tool-result");
    const dropped = asModel(fixture("fault-tool-result-after-aborted-call"), "openai", "gpt-5.1", "openai-responses");
    expect(diagnose(dropped).find((d) => d.code === "orphaned-tool-result")?.message).toContain(
      "OpenAI's Responses API documents that a function_call_output must answer",
    );
  });

  it("speak of the provider in general for a model pi-ai's catalogue lacks", () => {
    const text = asModel(fixture("fault-tool-result-after-aborted-call"), "acme", "acme-1", "acme-api");
    expect(diagnose(text).find((d) => d.code === "orphaned-tool-result")?.message).toContain("to acme/acme-1 without its call");
  });

  it("flag a request over the model's body limit on the message that crosses it", () => {
    const found = diagnose(bigResults()).filter((d) => d.code === "request-too-large");
    expect(found).toHaveLength(1);
    expect(found[0]!.range.start.line).toBe(8 + 2 * 31 + 1);
    expect(found[0]!.message).toContain("passes 33,554,432 bytes, the largest body pi-ai's catalogue gives for anthropic/claude-sonnet-4-5");
  });

  it("count the request's size again after edits of the tree and of a line as a fresh document does", () => {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, bigResults());
    const tooLarge = (d: SessionDocument) => computeDiagnostics(d).filter((x) => x.code === "request-too-large");
    expect(tooLarge(doc).map((d) => d.range.start.line)).toEqual([8 + 2 * 31 + 1]);
    // A result above the crossing loses 600 KB (an edit inside its line): the crossing moves one result down.
    const line = 8 + 2 * 5 + 1;
    const at = doc.lines[line]!.indexOf("xxxx");
    doc.update([{ range: { start: { line, character: at }, end: { line, character: at + 600_000 } }, text: "" }], 2);
    // A line added off the path (a label), an edit of the tree.
    doc.update(
      [
        {
          range: { start: { line: 8, character: 0 }, end: { line: 8, character: 0 } },
          text: '{"type":"label","id":"l1","parentId":"a0000007","timestamp":"2026-03-02T10:00:59.000Z","targetId":"a0000007","label":"x"}\n',
        },
      ],
      3,
    );
    const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
    expect(tooLarge(doc)).toEqual(tooLarge(fresh));
    expect(tooLarge(doc).map((d) => d.range.start.line)).toEqual([1 + 8 + 2 * 32 + 1]);
  });

  it("count each provider message's bytes once per message object, as its UTF-8 JSON", () => {
    const message = { role: "user", content: [{ type: "text", text: "héllo ✓ \u0000" }] };
    const expected = Buffer.byteLength(JSON.stringify(message), "utf8");
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      expect(messageBytes(message)).toBe(expected);
      expect(messageBytes(message)).toBe(expected);
      expect(stringify).toHaveBeenCalledTimes(1);
      // An equal message is another object, counted on its own.
      expect(messageBytes(structuredClone(message))).toBe(expected);
      expect(stringify).toHaveBeenCalledTimes(2);
    } finally {
      stringify.mockRestore();
    }
  });

  it("read image sizes from the first bytes of PNG, GIF, WebP and JPEG", () => {
    const b64 = (bytes: number[]) => Buffer.from(bytes).toString("base64");
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      Buffer.from("IHDR"),
      Buffer.from([0, 0, 0x23, 0x28, 0, 0, 0x04, 0xb0]),
    ]);
    expect(imageSize(png.toString("base64"))).toEqual({ width: 9000, height: 1200 });
    expect(imageSize(Buffer.concat([Buffer.from("GIF89a"), Buffer.from([0x40, 0x1f, 0x10, 0x00])]).toString("base64"))).toEqual({ width: 8000, height: 16 });
    const jpeg = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x07, 0xd0, 0x0b, 0xb8, 0x03];
    expect(imageSize(b64(jpeg))).toEqual({ width: 3000, height: 2000 });
    const webp = Buffer.concat([
      Buffer.from("RIFF"),
      Buffer.alloc(4),
      Buffer.from("WEBPVP8X"),
      Buffer.alloc(8),
      Buffer.from([0x3f, 0x1f, 0x00, 0x0f, 0x00, 0x00]),
    ]);
    expect(imageSize(webp.toString("base64"))).toEqual({ width: 8000, height: 16 });
    expect(imageSize("not an image")).toBeUndefined();
    expect(imageSize("")).toBeUndefined();
  });

  it("give the issue's example an error on its tool result that names Anthropic's rule", () => {
    const found = diagnose(fixture("fault-tool-result-after-aborted-call"));
    expect(found.map((d) => `${d.range.start.line}:${String(d.code)}`)).toEqual(["3:orphaned-tool-result"]);
    expect(found[0]!.severity).toBe(1);
    expect(found[0]!.message).toMatch(/Anthropic's Messages API documents that each tool_result block must answer a tool_use block/);
    // It names the tool result (its call's id) and says why Pi sends it alone.
    expect(found[0]!.message).toContain('Pi sends this tool result for "toolu_01"');
    expect(found[0]!.message).toContain('stopped with "aborted"');
  });
});
