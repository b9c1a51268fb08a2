/**
 * A structural edit keeps the entries below it (`resplice.ts`), and an edit inside a line swaps its
 * entry's parse in place (`reanalyze.ts`): after both, with no context asked for between them, the
 * context carried from the analysis before the structural edit would compare each entry's parse
 * with itself and keep the messages as they were before the typing. The resumed context and its
 * provider request must equal a fresh document's, also in random sequences of both kinds of edit
 * with the analysis made between them (as an outline or folding request makes it) and no context
 * asked for, which the other edit tests, comparing after nearly every edit, did not make.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { activeContext, activeContext074, contextInputLines } from "../../server/src/core/pi/activeContext";
import { contextCarry } from "../../server/src/core/pi/contextCarry";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";
import { SessionDocument } from "../../server/src/core/session/document";
import { providerRequestOf } from "../../server/src/features/providerView";
import { editInContext } from "../helpers/contextEdits";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");

// The provider's placeholder results are dated when their request is built.
beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});
const FIXTURE = join(FIXTURES, "written-16-conversation.jsonl");

/** Compares both Pi versions' kept context and provider request of `doc` with a fresh document's; gives how many were built. */
function compareWithFresh(doc: SessionDocument, where: string): number {
  const fresh = new SessionDocument(doc.uri, "jsonl", doc.version, doc.getText());
  let compared = 0;
  for (const [flavor, kept] of [
    ["1.x", activeContext],
    ["0.74", activeContext074],
  ] as const) {
    const built = kept(doc.analysis);
    const scratch = buildContext(fresh.analysis, { flavor });
    expect(built.ok, `${where}, ${flavor}`).toBe(scratch.ok);
    if (!built.ok || !scratch.ok) continue;
    expect(JSON.stringify(built.build.context), `${where}, ${flavor}`).toEqual(JSON.stringify(scratch.build.context));
    const request = providerRequestOf(built.build, flavor);
    const expected = buildProviderRequest(scratch.build, { flavor, now: Date.now });
    expect(request.ok && JSON.stringify(request.request.messages), `${where}, ${flavor}`).toEqual(expected.ok && JSON.stringify(expected.request.messages));
    compared++;
  }
  return compared;
}

it("the context after a structural edit and then typing in a line below it holds what was typed", () => {
  const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, readFileSync(FIXTURE, "utf8"));
  expect(activeContext(doc.analysis).ok && activeContext074(doc.analysis).ok).toBe(true);
  // A line broken after the first entry (a blank line follows it): its entry is made again from
  // the same parse, every entry below is kept and moved.
  const end = { line: 1, character: doc.lines[1]!.length };
  doc.update([{ range: { start: end, end }, text: "\n" }], 2);
  expect(doc.analysis.entries.length).toBeGreaterThan(0); // Analysed, with no context asked for.
  const line = doc.lines.map((l, i) => (l.includes('"text":"') ? i : -1)).reduce((x, y) => Math.max(x, y));
  const at = doc.lines[line]!.indexOf('"text":"') + 8;
  doc.update([{ range: { start: { line, character: at }, end: { line, character: at } }, text: "typed " }], 3);
  expect(compareWithFresh(doc, "typed")).toBe(2);
  const kept = activeContext(doc.analysis);
  expect(kept.ok && JSON.stringify(kept.build.context)).toContain("typed ");
});

it("the context is still carried over a structural edit when the typing after it is on a line the context does not read", () => {
  const text = readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8");
  const doc = new SessionDocument("file:///b.jsonl", "jsonl", 1, text);
  expect(activeContext(doc.analysis).ok).toBe(true);
  const end = { line: 1, character: doc.lines[1]!.length };
  doc.update([{ range: { start: end, end }, text: "\n" }], 2);
  const marked = contextInputLines(doc.analysis);
  const line = doc.lines.findIndex((l, i) => i > 2 && marked[i] === 0 && l.includes('"text":"'));
  expect(line).toBeGreaterThan(2);
  const at = doc.lines[line]!.indexOf('"text":"') + 8;
  doc.update([{ range: { start: { line, character: at }, end: { line, character: at } }, text: "typed " }], 3);
  const built = activeContext(doc.analysis);
  const scratch = buildContext(new SessionDocument("file:///b.jsonl", "jsonl", 3, doc.getText()).analysis, { flavor: "1.x" });
  if (!built.ok || !scratch.ok) throw new Error("no context");
  expect(contextCarry(built.build)?.samePath).toBe(true);
  expect(JSON.stringify(built.build.context)).toEqual(JSON.stringify(scratch.build.context));
});

it("random edits of the tree and inside lines, with the analysis made between them and no context asked for, keep the context and request equal a fresh document's", () => {
  const random = seededRandom(71);
  let compared = 0;
  for (const name of readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
    activeContext(doc.analysis);
    for (let step = 0; step < 12; step++) {
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        if (random() < 0.4) editInContext(doc, random);
        else randomEdit(doc, random);
        // What a request that reads the tree alone (an outline, folding ranges) leaves: an analysis, no context.
        if (random() < 0.5) expect(doc.analysis.entryAtLine.length).toBe(doc.lineCount);
      }
      compared += compareWithFresh(doc, `${name}, step ${step}`);
    }
  }
  expect(compared).toBeGreaterThan(500);
});

it("the context updated after typing, in a build carried with its predecessor's lists over entries that moved, drops a branch summary emptied", () => {
  const t = (n: number) => `"timestamp":"2025-01-01T00:00:0${n}.000Z"`;
  const user = (id: string, parent: string, n: number, text: string) =>
    `{"type":"message","id":"${id}","parentId":"${parent}",${t(n)},"message":{"role":"user","content":"${text}","timestamp":1}}`;
  const lines = [
    `{"type":"session","version":3,"id":"s",${t(0)},"cwd":"/"}`,
    `{"type":"message","id":"a","parentId":null,${t(1)},"message":{"role":"user","content":"hi","timestamp":1}}`,
    user("z", "a", 2, "side"),
    user("y", "a", 2, "side too"),
    `{"type":"model_change","id":"m","parentId":"a",${t(3)},"provider":"openai","modelId":"gpt-5"}`,
    `{"type":"branch_summary","id":"b","parentId":"m",${t(4)},"fromId":"z","summary":"sum"}`,
    user("c", "b", 5, "next"),
  ];
  const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
  const replace = (line: number, from: string, to: string) => {
    const text = doc.lines[line]!;
    doc.update([{ range: { start: { line, character: 0 }, end: { line, character: text.length } }, text: text.replace(from, to) }], doc.version + 1);
  };
  expect(compareWithFresh(doc, "opened")).toBe(2);
  // Typing in the last message: the update indexes where each entry's messages start.
  replace(6, '"next"', '"next!"');
  expect(compareWithFresh(doc, "typed")).toBe(2);
  // A line of the side branch deleted: the lines of the path are not edited, so the context is
  // carried with the very lists of the old build, whose entries now have other indexes.
  doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: "" }], doc.version + 1);
  const carried = activeContext(doc.analysis);
  expect(carried.ok && contextCarry(carried.build)?.samePath).toBe(true);
  expect(compareWithFresh(doc, "a side line deleted")).toBe(2);
  // The branch summary emptied: Pi no longer sends it.
  replace(4, '"summary":"sum"', '"summary":""');
  expect(compareWithFresh(doc, "the summary emptied")).toBe(2);
  const kept = activeContext(doc.analysis);
  expect(kept.ok && JSON.stringify(kept.build.context)).not.toContain("branchSummary");
});
