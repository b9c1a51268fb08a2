/**
 * The packed parses another thread sends (`core/line/packed.ts`) against `parseLine`: every line of
 * the parity corpus and of generated hostile sessions, plus lines made to break things, packed,
 * sent through a structured clone (what crossing threads does) and unpacked, give a `ParsedLine`
 * equal to `parseLine`'s in every `LineFacts` member, its findings and a malformed line's error.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type PackedBatch, packLines, unpackLines } from "../../server/src/core/line/packed";
import { OpaqueId } from "../../server/src/core/base/ids";
import { parseLine } from "../../server/src/core/line/parse";
import type { ParsedLine } from "../../server/src/core/line/facts";

/** The hostile-session generator (an ES module: imported, not required). */
let hostile: Awaited<ReturnType<typeof loadHostile>>;
const loadHostile = () => import("../helpers/hostile.mjs");

beforeAll(async () => {
  hostile = await loadHostile();
});

const FACTS = [
  "falsy",
  "isObject",
  "model",
  "thinkingLevel",
  "noMessage",
  "type",
  "id",
  "parentId",
  "idKey",
  "parentKey",
  "time",
  "toolCallIds",
  "toolResultId",
  "role",
  "reference",
  "looksLikePi",
  "findings",
] as const;

/** A value of the line as comparable data: nested values of hostile lines are too deep to compare whole. */
function shallow(value: unknown): unknown {
  if (value === null || typeof value !== "object" || value instanceof OpaqueId) return value;
  if (Array.isArray(value)) return { array: value.map((item) => (item !== null && typeof item === "object" ? "nested" : item)) };
  return { object: Object.entries(value).map(([key, item]) => [key, item !== null && typeof item === "object" ? "nested" : item]) };
}

/** Everything a feature can read of a parse, as plain data. */
function described(parsed: ParsedLine): unknown {
  if (parsed.kind === "blank") return { kind: "blank" };
  if (parsed.kind === "malformed") return { kind: "malformed", error: parsed.error };
  // The value itself is parsed again from the text either way.
  const facts: Record<string, unknown> = { kind: "value", text: (parsed as { text?: string }).text, hasObject: parsed.object !== undefined };
  for (const name of FACTS) facts[name] = shallow(parsed[name]);
  facts.model = parsed.model && { provider: shallow(parsed.model.provider), modelId: shallow(parsed.model.modelId) };
  facts.findings = parsed.findings;
  return facts;
}

function roundTrip(texts: string[]): ParsedLine[] {
  const batch = structuredClone(packLines(texts)) as PackedBatch;
  const into: ParsedLine[] = [];
  expect(unpackLines(batch, texts, 0, into)).toBe(true);
  return into;
}

function corpusLines(): string[] {
  const dir = join(__dirname, "..", "parity", "fixtures");
  const lines: string[] = [];
  for (const name of readdirSync(dir)) if (name.endsWith(".jsonl")) lines.push(...readFileSync(join(dir, name), "utf8").split("\n"));
  return lines;
}

function hostileLines(): string[] {
  const lines: string[] = [];
  for (let seed = 1; seed <= 6; seed++)
    lines.push(
      ...hostile
        .makeGen(hostile.seeded(seed))
        .session({ oddIds: seed % 2 === 0, entries: 150 })
        .split("\n"),
    );
  const message = (id: unknown, parent: unknown, extra = "") =>
    `{"type":"message","id":${JSON.stringify(id)},"parentId":${JSON.stringify(parent)},"timestamp":"2026-03-02T10:00:02.000Z"${extra},"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{}}],"provider":"p","model":"m"}}`;
  lines.push(
    '\ufeff{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}',
    `${message("a", null)}\r`,
    "\r",
    "   ",
    "",
    '\t{"type":"label","id":"l","parentId":"a","targetId":7,"timestamp":"x"}',
    message(1, 2),
    message(null, true),
    message("\ud800", "\udfff"),
    message("a", "b", `,"deep":${hostile.nested(5000, "1")}`),
    hostile.nested(20000),
    `{"type":"message","id":"big","parentId":null,"message":{"role":"user","content":"${"x".repeat(3_000_000)}"}}`,
    '{"type":"model_change","id":"m","parentId":null,"provider":{"a":1},"modelId":[1]}',
    '{"type":"thinking_level_change","id":"t","parentId":null,"thinkingLevel":{"x":[]}}',
    '{"type":"message","id":"n","parentId":null,"message":null}',
    '{"type":"__proto__","id":"__proto__","parentId":"constructor"}',
    "{",
    '{"a":1,}',
    "nope",
    "0",
    "false",
    '"string"',
    "[1,2]",
    "-",
    '{"type":"message","id":"r","parentId":null,"message":{"role":"toolResult","toolCallId":"c1","content":[]}}',
  );
  return lines;
}

describe("packed parses", () => {
  it("equal parseLine for every line of the parity corpus", () => {
    const texts = corpusLines();
    expect(texts.length).toBeGreaterThan(500);
    expect(roundTrip(texts).map(described)).toStrictEqual(texts.map((text) => described(parseLine(text))));
  });

  it("equal parseLine for hostile lines: odd ids, lone surrogates, deep nesting, huge and malformed lines", () => {
    const texts = hostileLines();
    const unpacked = roundTrip(texts);
    const parsed = texts.map((text) => parseLine(text));
    expect(new Set(parsed.map((p) => p.kind))).toEqual(new Set(["blank", "malformed", "value"]));
    expect(parsed.some((p) => p.kind === "value" && p.findings.length > 0)).toBe(true);
    expect(unpacked.map(described)).toStrictEqual(parsed.map(described));
  });

  it("share one model object between lines naming the same model, as parsed lines do", () => {
    const line = (id: string) =>
      `{"type":"message","id":"${id}","parentId":null,"message":{"role":"assistant","content":[],"provider":"shared-p","model":"shared-m"}}`;
    const [a, b] = roundTrip([line("a"), line("b")]);
    const here = parseLine(line("c"));
    expect(a!.kind === "value" && b!.kind === "value" && here.kind === "value").toBe(true);
    if (a!.kind === "value" && b!.kind === "value" && here.kind === "value") {
      expect(a!.model).toEqual({ provider: "shared-p", modelId: "shared-m" });
      expect(a!.model).toBe(b!.model);
      expect(here.model).toBe(a!.model);
    }
  });

  it("refuse a batch that does not fit the texts it is unpacked against", () => {
    const texts = ['{"id":"a"}', '{"id":"b"}'];
    const batch = packLines(texts);
    expect(unpackLines(batch, ['{"id":"a"}', '{"id":"bb"}'], 0, [])).toBe(false);
    expect(unpackLines(batch, texts, 1, [])).toBe(false);
    expect(unpackLines(batch, texts, 0, [])).toBe(true);
  });

  it('take the last batch of a text whose last line keeps a "\\r" that no "\\n" follows (the worker strips it)', () => {
    const lines = ['{"id":"a"}', '{"id":"b"}\r'];
    const batch = packLines(lines.map((line) => line.replace(/\r$/, "")));
    expect(unpackLines(batch, lines, 0, [])).toBe(true);
    // A "\r" inside the batch, not at the text's end, is still a misfit.
    expect(unpackLines(batch, [...lines, '{"id":"c"}'], 0, [])).toBe(false);
  });
});
