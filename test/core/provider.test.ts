/**
 * The provider pipeline's parts on their own: pi-ai's catalogue as Pi looks models up, Pi's
 * `convertToLlm`, and pi-ai's `transformMessages` (placeholders, dropped turns, held system
 * messages, images, other models' thinking), and that none of them throws on any JSON.
 * test/parity/provider.test.ts checks the whole against the real Pi on the corpus.
 */

import { describe, expect, it } from "vitest";
import { catalogSize, findModel } from "../../server/src/core/pi/provider/catalog";
import { BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX, convertToLlm } from "../../server/src/core/pi/provider/convertToLlm";
import { NO_RESULT_TEXT, transformMessages, type TransformModel } from "../../server/src/core/pi/provider/transformMessages";
import { seededRandom } from "../helpers/lspClient";

const SONNET: TransformModel = { provider: "anthropic", id: "claude-sonnet-4-5", api: "anthropic-messages", input: ["text", "image"] };
const TEXT_ONLY: TransformModel = { provider: "deepseek", id: "deepseek-v4-pro", api: "openai-completions", input: ["text"] };

const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  stopReason: "stop",
  ...extra,
});
const call = (id: string) => ({ type: "toolCall", id, name: "bash", arguments: { command: "ls" } });
const result = (id: string) => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: "a b" }], isError: false });
const user = (text: string) => ({ role: "user", content: text });

describe("pi-ai's catalogue", () => {
  it("holds each version's built-in models", () => {
    expect(catalogSize("0.74")).toBe(935);
    expect(catalogSize("1.6")).toBe(1698);
  });

  it("finds a model by exact provider and id, with pi-ai 1.6's input limits", () => {
    const sonnet = findModel("1.6", "anthropic", "claude-sonnet-4-5");
    expect(sonnet).toMatchObject({ api: "anthropic-messages", input: ["text", "image"], contextWindow: 200000, maxImagesPerRequest: 100 });
    expect(findModel("0.74", "anthropic", "claude-sonnet-4-5")?.maxImagesPerRequest).toBeUndefined();
    expect(findModel("1.6", "anthropic", "Claude-Sonnet-4-5")).toBeUndefined();
    expect(findModel("1.6", null, ["x"])).toBeUndefined();
    expect(findModel("1.6", "deepseek", "deepseek-v4-pro")?.input).toEqual(["text"]);
  });

  it('reads a provider\'s section only: ids that start with "@", names that could match across rows', () => {
    // Cloudflare's model ids start with "@", as provider lines do in the table; the section goes on after them.
    expect(findModel("1.6", "cloudflare-workers-ai", "@cf/deepseek-ai/deepseek-v4-pro-0813")).toMatchObject({
      provider: "cloudflare-workers-ai",
      reasoning: true,
    });
    // The first and the last provider of the table, the model of another provider, names that are not providers.
    expect(findModel("0.74", "amazon-bedrock", "amazon.nova-lite-v1:0")?.maxTokens).toBe(8192);
    expect(findModel("1.6", "amazon-bedrock", "amazon.nova-lite-v1:0")?.maxTokens).toBe(10000);
    expect(findModel("1.6", "zai-coding-cn", "glm-5.3-highspeed")?.contextWindow).toBe(1000000);
    expect(findModel("1.6", "amazon-bedrock", "claude-sonnet-4-5")).toBeUndefined();
    expect(findModel("1.6", "anthropic\n@amazon-bedrock", "amazon.nova-lite-v1:0")).toBeUndefined();
    expect(findModel("1.6", "amazon-bedrock", "amazon.nova-lite-v1:0\t2")).toBeUndefined();
    expect(findModel("1.6", "", "claude-sonnet-4-5")).toBeUndefined();
    expect(findModel("1.6", "no-such-provider", "x")).toBeUndefined();
  });
});

describe("convertToLlm", () => {
  it("turns Pi's own roles into user messages and leaves unknown ones out", () => {
    const converted = convertToLlm(
      [
        { role: "bashExecution", command: "npm test", output: "", exitCode: 2, cancelled: false, truncated: false, timestamp: 1 },
        { role: "bashExecution", command: "secret", output: "x", excludeFromContext: true, timestamp: 2 },
        { role: "custom", customType: "hint", content: "Keep it short.", display: true, timestamp: 3 },
        { role: "branchSummary", summary: "Tried vitest.", fromId: "a", timestamp: 4 },
        { role: "compactionSummary", summary: "Fixed add().", tokensBefore: 9, timestamp: 5 },
        { role: "artifact", title: "plot.png" },
        { role: "system", content: "Be brief." },
      ],
      "1.x",
    );
    expect(converted.ok).toBe(true);
    if (!converted.ok) return;
    expect(converted.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Ran `npm test`\n(no output)\n\nCommand exited with code 2" }], timestamp: 1 },
      { role: "user", content: [{ type: "text", text: "Keep it short." }], timestamp: 3 },
      { role: "user", content: [{ type: "text", text: `${BRANCH_SUMMARY_PREFIX}Tried vitest.</summary>` }], timestamp: 4 },
      { role: "user", content: [{ type: "text", text: `${COMPACTION_SUMMARY_PREFIX}Fixed add().\n</summary>` }], timestamp: 5 },
      { role: "system", content: "Be brief." },
    ]);
    expect(converted.from).toEqual([0, 2, 3, 4, 6]);
    expect(converted.leftOut).toEqual([
      { index: 1, why: "excluded-bash" },
      { index: 5, why: "unknown-role" },
    ]);
  });

  it("drops system messages for Pi 0.73/0.74, which has no system role", () => {
    const converted = convertToLlm([{ role: "system", content: "x" }, user("hi")], "0.74");
    expect(converted.ok && converted.messages).toEqual([user("hi")]);
    expect(converted.ok && converted.leftOut).toEqual([{ index: 0, why: "system-0.74" }]);
  });

  it("reports where Pi's conversion throws instead of throwing", () => {
    expect(convertToLlm([user("a"), null], "1.x")).toMatchObject({ ok: false, index: 1 });
    // A summary whose string conversion fails, as `+` fails in Pi.
    expect(convertToLlm([{ role: "compactionSummary", summary: { toString: 1, valueOf: 1 } }], "1.x")).toMatchObject({ ok: false, index: 0 });
  });
});

describe("transformMessages", () => {
  const clock = () => {
    let t = 1000;
    return () => t++;
  };

  it("drops aborted turns but keeps their tool results, as pi-ai does", () => {
    const out = transformMessages([user("run ls"), assistant([call("t1")], { stopReason: "aborted" }), result("t1"), user("go on")], SONNET, "1.x", clock());
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "toolResult", "user"]);
    expect(out.dropped).toEqual([1]);
    expect(out.origin).toEqual([0, 2, 3]);
  });

  it("answers open tool calls with a synthetic result before the next user message", () => {
    const out = transformMessages([user("go"), assistant([call("t1"), call("t2")]), result("t2"), user("stop"), result("t1")], SONNET, "1.x", clock());
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.messages[3]).toEqual({
      role: "toolResult",
      toolCallId: "t1",
      toolName: "bash",
      content: [{ type: "text", text: NO_RESULT_TEXT }],
      isError: true,
      timestamp: 1000,
    });
    expect(out.placeholders).toEqual([{ at: 3, call: 1, toolCallId: "t1", toolName: "bash" }]);
    // The late result still follows the user message.
    expect(out.origin).toEqual([0, 1, 2, -1, 3, 4]);
  });

  it("holds a 1.x system message back until the open calls are answered", () => {
    const system = { role: "system", content: "rules" };
    const messages = [user("go"), assistant([call("t1")]), system, result("t1")];
    const v16 = transformMessages(messages, SONNET, "1.x", clock());
    expect(v16.ok && v16.origin).toEqual([0, 1, 3, 2]);
    expect(v16.ok && v16.held).toEqual([2]);
  });

  it("replaces images for a model that takes none, one placeholder per run", () => {
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    const out = transformMessages([{ role: "user", content: [{ type: "text", text: "look" }, image, image] }], TEXT_ONLY, "1.x", clock());
    expect(out.ok && out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "text", text: "(image omitted: model does not support images)" },
        ],
      },
    ]);
    expect(out.ok && out.imagesOmitted).toBe(2);
  });

  it("drops another model's thinking in 1.6 and turns it into text in 0.74", () => {
    const message = assistant([
      { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
      { type: "text", text: "ok", textSignature: "s" },
    ]);
    const other: TransformModel = { provider: "openai", id: "gpt-5.1", api: "openai-responses", input: ["text", "image"] };
    const v16 = transformMessages([message], other, "1.x", clock());
    const v074 = transformMessages([message], other, "0.74", clock());
    expect(v16.ok && (v16.messages[0] as { content: unknown }).content).toEqual([{ type: "text", text: "ok" }]);
    expect(v074.ok && (v074.messages[0] as { content: unknown }).content).toEqual([
      { type: "text", text: "hmm" },
      { type: "text", text: "ok" },
    ]);
    // The same model keeps both blocks as they are.
    expect(transformMessages([message], SONNET, "1.x", clock())).toMatchObject({ ok: true, messages: [message] });
  });

  it("fails where pi-ai throws: null content in 0.74, content that is not an array, thinking that is not a string", () => {
    expect(transformMessages([assistant(null as unknown as unknown[])], SONNET, "0.74", clock())).toMatchObject({ ok: false, index: 0 });
    expect(transformMessages([assistant(null as unknown as unknown[])], SONNET, "1.x", clock())).toMatchObject({ ok: true });
    expect(transformMessages([{ ...assistant([]), content: "text" }], SONNET, "1.x", clock())).toMatchObject({ ok: false });
    expect(transformMessages([assistant([{ type: "thinking", thinking: 5 }])], SONNET, "1.x", clock())).toMatchObject({ ok: false });
    expect(transformMessages([assistant([[null]])], SONNET, "1.x", clock())).toMatchObject({ ok: false });
    expect(transformMessages([result("x"), { role: "toolResult", content: 7 }], TEXT_ONLY, "1.x", clock())).toMatchObject({ ok: false, index: 1 });
  });

  it("never throws, whatever the messages hold", () => {
    const random = seededRandom(13);
    const values = [null, undefined, 0, 1, "", "x", true, [], [null], [[1]], {}, { type: "thinking", thinking: 3 }, { type: "image" }, call("t")];
    const pick = () => values[Math.floor(random() * values.length)];
    const roles = ["user", "assistant", "toolResult", "system", "custom", "bashExecution", "branchSummary", "compactionSummary", 7];
    for (let round = 0; round < 400; round++) {
      const messages: unknown[] = [];
      for (let i = 0; i < 6; i++) {
        const content = random() < 0.5 ? [pick(), pick()] : pick();
        messages.push({ role: roles[Math.floor(random() * roles.length)], content, stopReason: pick(), toolCallId: "t", summary: pick(), command: pick() });
      }
      for (const version of ["1.x", "0.74"] as const) {
        const converted = convertToLlm(messages, version);
        if (!converted.ok) continue;
        for (const model of [SONNET, TEXT_ONLY]) expect(() => transformMessages(converted.messages, model, version, clock())).not.toThrow();
      }
    }
  });
});
