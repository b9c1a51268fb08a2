/**
 * The built context's JSON made ahead from remembered parts (server/src/lsp/encodedAnswer.ts) is
 * `JSON.stringify`'s, byte for byte: for every parity fixture, both Pi versions, both stages and
 * formats and a bounded window, before and after random edits inside the resumed context (which
 * update the builds in place and keep most message objects), and for answers of odd shapes. The
 * response written over stdio (`encodeMessage`) is the library's bytes for the same answer.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { type BuildContextParams, computeContextRequest } from "../../server/src/features/contextRequest";
import { EncodedAnswer, encodeContextAnswer } from "../../server/src/lsp/encodedAnswer";
import { forgetKeptJson, KEPT_LIST_CHARS } from "../../server/src/lsp/keptJson";
import { encodeMessage } from "../../server/src/lsp/stdin";
import { editInContext } from "../helpers/contextEdits";
import { heavy } from "../helpers/heavySession";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

/** How many parts kept as UTF-8 bytes `jsonOf` has decoded. */
let byteParts = 0;

/** The JSON made ahead for `answer`, its parts joined (a part kept as UTF-8 bytes decoded). */
const jsonOf = (answer: object) =>
  encodeContextAnswer(answer)
    .parts.map((part) => {
      if (typeof part === "string") return part;
      byteParts++;
      return Buffer.from(part).toString("utf8");
    })
    .join("");

const ASKS: Partial<BuildContextParams>[] = [
  {},
  { stage: "provider" },
  { flavor: "0.74", stage: "provider", format: "markdown" },
  { stage: "provider", messages: { start: -3 } },
  { context: false, stage: "provider" },
];

/** Every ask's answer on `doc` encoded ahead, and the same answer through `JSON.stringify`. */
function encodings(doc: SessionDocument): [string, string][] {
  const pairs: [string, string][] = [];
  for (const ask of ASKS) {
    const answer = computeContextRequest(doc, { uri: doc.uri, ...ask });
    if (answer.ok) pairs.push([jsonOf(answer.result), JSON.stringify(answer.result)]);
  }
  return pairs;
}

describe("encodeContextAnswer", () => {
  it.each([
    ["as recorded", (text: string) => text],
    // Images large enough that the messages' JSON is kept as bytes between answers (`keptJson.ts`).
    ["made heavy", (text: string) => heavy(text, { imageChars: KEPT_LIST_CHARS / 4, outputChars: 2000 })],
  ])("writes JSON.stringify's JSON for every fixture's answers %s, before and after edits inside the context", (how, made) => {
    forgetKeptJson();
    byteParts = 0;
    const random = seededRandom(33);
    let compared = 0;
    let edited = 0;
    for (const file of files) {
      const doc = new SessionDocument(`file:///${file}`, "jsonl", 1, made(readFileSync(join(FIXTURES, file), "utf8")));
      for (let round = 0; round < 4; round++) {
        for (const [ahead, plain] of encodings(doc)) {
          expect(ahead).toBe(plain);
          compared++;
        }
        for (let k = 0; k < 3; k++) if ((editInContext(doc, random) ?? -1) >= 0) edited++;
      }
    }
    expect(compared).toBeGreaterThan(files.length * 10);
    expect(edited).toBeGreaterThan(files.length);
    if (how === "made heavy") expect(byteParts).toBeGreaterThan(files.length);
  });

  it("writes odd answers as JSON.stringify does: holes, members without JSON, a context without messages", () => {
    const sparse: unknown[] = [{ role: "user" }];
    sparse[3] = "text";
    const answers = [
      { context: null, stats: { messages: 0 }, error: { kind: "cycle", message: "x", line: 1 } },
      { context: { messages: sparse, thinkingLevel: undefined, model: { "é\n\u2028": 1 } }, stats: {} },
      { context: { messages: [undefined, () => 1, null, 5, [1, [2]], { toJSON: () => undefined }] }, provider: { messages: "none" } },
      { context: { messages: "not a list", model: null }, provider: null, markdown: "😀 \ud800" },
      { context: [1, 2], provider: { model: undefined, messages: [{ a: undefined, b: [undefined] }] }, stats: undefined },
    ];
    for (const answer of answers) expect(jsonOf(answer)).toBe(JSON.stringify(answer));
  });

  it("reuses the JSON it wrote for a message object, which is never changed once built", () => {
    const message = { role: "user", content: "first" };
    expect(jsonOf({ context: { messages: [message] } })).toBe('{"context":{"messages":[{"role":"user","content":"first"}]}}');
    message.content = "changed";
    expect(jsonOf({ context: { messages: [message] } })).toContain('"content":"first"');
    expect(jsonOf({ context: { messages: [{ ...message }] } })).toContain('"content":"changed"');
  });
});

describe("encodeMessage of an answer encoded ahead", () => {
  it("writes the library's bytes for the response, and JSON.stringify writes the answer itself", () => {
    const answer = { context: { messages: [{ role: "user", content: "“quoted” ✓" }], model: null }, stats: { messages: 1 } };
    const encoded = encodeContextAnswer(answer);
    expect(encoded).toBeInstanceOf(EncodedAnswer);
    const expected = JSON.stringify({ jsonrpc: "2.0", id: 7, result: answer });
    expect(JSON.stringify({ jsonrpc: "2.0", id: 7, result: encoded })).toBe(expected);
    expect(encodeMessage({ jsonrpc: "2.0", id: 7, result: encoded }).toString("utf8")).toBe(expected);
    const large = { context: { messages: Array.from({ length: 20_000 }, (_, i) => ({ role: "user", content: `message ${i} — é` })) } };
    const response = { jsonrpc: "2.0", id: "x", result: encodeContextAnswer(large) };
    expect(encodeMessage(response).toString("utf8")).toBe(JSON.stringify({ jsonrpc: "2.0", id: "x", result: large }));
  });
});
