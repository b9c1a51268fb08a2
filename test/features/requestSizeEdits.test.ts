/**
 * The request's size is counted once per provider message object (`messageBytes`), on the claim that
 * no message is changed once built and that a request made again after an edit keeps the objects of
 * the messages it shares with the last one. Random edits of a session over Anthropic's 32 MB limit
 * (results shrunk and grown inside their lines, which the findings update from the last count;
 * lines added and removed off and on the path, which build or carry the request again; idle
 * releases, which let the messages go) must each leave the size finding a fresh document finds.
 */

import { expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { activeContext } from "../../server/src/core/pi/activeContext";
import { providerRequestOf } from "../../server/src/features/providerView";
import { releaseInProcess } from "../helpers/freshAnswers";
import { seededRandom } from "../helpers/lspClient";

const MB = 1 << 20;

/** A header, a user message, then `count` tool calls each answered by a result of 1 MB: 34 pass 32 MB at the 33rd result. */
function bigSession(count: number): string {
  const lines = [
    '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}',
    '{"type":"message","id":"u0","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"user","content":"go","timestamp":1}}',
  ];
  let parent = "u0";
  for (let i = 0; i < count; i++) {
    const t = `2026-03-02T10:01:${String(i % 60).padStart(2, "0")}.000Z`;
    lines.push(
      `{"type":"message","id":"c${i}","parentId":"${parent}","timestamp":"${t}","message":{"role":"assistant","content":[{"type":"toolCall","id":"call${i}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`,
      `{"type":"message","id":"r${i}","parentId":"c${i}","timestamp":"${t}","message":{"role":"toolResult","toolCallId":"call${i}","toolName":"read","content":[{"type":"text","text":"${"x".repeat(MB)}"}],"isError":false,"timestamp":1}}`,
    );
    parent = `r${i}`;
  }
  return `${lines.join("\n")}\n`;
}

const tooLarge = (doc: SessionDocument) =>
  computeDiagnostics(doc)
    .filter((d) => d.code === "request-too-large")
    .map((d) => `${d.range.start.line}: ${d.message}`);

const ANTHROPIC_MAX = 33_554_432;

/**
 * Where the request of `text` passes Anthropic's limit, counted here without `messageBytes`: the
 * line of the message that crosses it, or undefined.
 */
function crossingLine(text: string): number | undefined {
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, text);
  const built = activeContext(doc.analysis);
  if (!built.ok) throw new Error("no context");
  const result = providerRequestOf(built.build, "1.x");
  if (!result.ok) throw new Error("no request");
  let bytes = 0;
  for (let k = 0; k < result.request.messages.length; k++) {
    bytes += Buffer.byteLength(JSON.stringify(result.request.messages[k]), "utf8");
    if (bytes > ANTHROPIC_MAX) return result.request.sources[k]!.line;
  }
  return undefined;
}

/** An edit inside line `line` at the start of its result's text: `cut` characters removed, `text` put in. */
function editResult(doc: SessionDocument, line: number, cut: number, text: string): void {
  const at = doc.lines[line]!.indexOf('"text":"') + 8;
  doc.update([{ range: { start: { line, character: at }, end: { line, character: at + cut } }, text }], doc.version + 1);
}

it("a request brought under the limit, then past it again by edits inside a result, is counted from the last count and the edited message", () => {
  // 32 results of 1 MB and their JSON pass 32 MB at the last one.
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, bigSession(32));
  const lines = () =>
    computeDiagnostics(doc)
      .filter((d) => d.code === "request-too-large")
      .map((d) => d.range.start.line);
  const resultLine = (i: number) => 2 + 2 * i + 1;
  expect(lines()).toEqual([resultLine(31)]);
  expect(crossingLine(doc.getText())).toBe(resultLine(31));
  // 600 KB out of the sixth result: under the limit, the request counted (every message's bytes kept).
  editResult(doc, resultLine(5), 600_000, "");
  expect(lines()).toEqual([]);
  expect(crossingLine(doc.getText())).toBeUndefined();
  // 300 KB into the seventh, then 400 KB more: each an update of the last count by the edited message's bytes, the second past the limit.
  editResult(doc, resultLine(6), 0, "y".repeat(300_000));
  expect(lines()).toEqual([]);
  editResult(doc, resultLine(6), 0, "y".repeat(400_000));
  expect(crossingLine(doc.getText())).toBe(resultLine(31));
  expect(lines()).toEqual([resultLine(31)]);
});

it("a request whose text passes the limit in UTF-8 bytes, though not in characters, is too large", () => {
  // 32 results of 1 MB, 600,000 ASCII characters of the sixth replaced by 350,000 "é" (two bytes
  // each): the file's characters (and 1 KB per message) stay under 32 MB, its bytes do not.
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, bigSession(32));
  editResult(doc, 2 + 2 * 5 + 1, 600_000, "é".repeat(350_000));
  expect(doc.textLength() + 1024 * 65).toBeLessThan(ANTHROPIC_MAX);
  const crossing = crossingLine(doc.getText());
  expect(crossing).toBe(2 + 2 * 31 + 1);
  expect(tooLarge(doc).map((d) => Number(d.split(":")[0]))).toEqual([crossing]);
  expect(tooLarge(new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText())).map((d) => Number(d.split(":")[0]))).toEqual([crossing]);
});

/** One random edit; says what it did. */
function edit(doc: SessionDocument, random: () => number): string {
  const results = doc.lines.map((l, k) => (l.includes('"role":"toolResult"') ? k : -1)).filter((k) => k >= 0);
  const line = results[Math.floor(random() * results.length)]!;
  const text = doc.lines[line]!;
  const at = text.indexOf('"text":"') + 8;
  const r = random();
  if (r < 0.35 && text.length - at > 700_000) {
    doc.update([{ range: { start: { line, character: at }, end: { line, character: at + 600_000 } }, text: "" }], doc.version + 1);
    return `line ${line} shrunk`;
  }
  if (r < 0.55) {
    doc.update([{ range: { start: { line, character: at }, end: { line, character: at } }, text: "y".repeat(200_000) }], doc.version + 1);
    return `line ${line} grown`;
  }
  if (r < 0.7) {
    // A label above the results: off the path, every line below it moves.
    const label = `{"type":"label","id":"l${doc.version}","parentId":"u0","timestamp":"2026-03-02T10:00:59.000Z","targetId":"u0","label":"x"}\n`;
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: label }], doc.version + 1);
    return "label inserted at line 2";
  }
  if (r < 0.85) {
    // The leaf's line removed: the path ends one entry higher (a call left open gets a synthetic result).
    const leaf = doc.lineCount - 2;
    doc.update([{ range: { start: { line: leaf, character: 0 }, end: { line: leaf + 1, character: 0 } }, text: "" }], doc.version + 1);
    return `line ${leaf} removed`;
  }
  // The result's line copied as the new leaf, under a new id: the path ends at it.
  const last = doc.lineCount - 1;
  const leaf = /"id":"([^"]*)"/.exec(doc.lines[last - 1]!)?.[1];
  const copy = text.replace(/"id":"[^"]*","parentId":"[^"]*"/, `"id":"k${doc.version}","parentId":"${leaf}"`);
  doc.update([{ range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } }, text: `${copy}\n` }], doc.version + 1);
  return `line ${line} copied as the leaf`;
}

it("the request's size counted per message object after random edits equals a fresh document's count", { timeout: 120_000 }, () => {
  const random = seededRandom(Number(process.env.SEED ?? 42));
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, bigSession(33));
  const log: string[] = [];
  let found = 0;
  let none = 0;
  for (let step = 0; step < 20; step++) {
    if (random() < 0.15) releaseInProcess(log);
    // Asked after most edits, so that the findings are updated or carried from the last ones; else built again later.
    if (random() < 0.8) tooLarge(doc);
    log.push(edit(doc, random));
    const now = tooLarge(doc);
    expect(now, log.join(", ")).toEqual(tooLarge(new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText())));
    // And where the request passes the limit, counted without the kept counts.
    expect(
      now.map((d) => Number(d.split(":")[0])),
      log.join(", "),
    ).toEqual([crossingLine(doc.getText())].filter((x) => x !== undefined));
    if (now.length > 0) found++;
    else none++;
  }
  expect(found).toBeGreaterThan(2);
  expect(none).toBeGreaterThan(2);
});
