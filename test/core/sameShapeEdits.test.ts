/**
 * Edits that change a fact of a line's structure but not the tree (a timestamp, a role, a tool call
 * or result id, the id a label, edit or compaction names), which make the analysis from the
 * previous one with every entry in its place (`Resplice.replaced` in `resplice.ts`): the path is
 * kept with the new entries in it, and the selection, the faded hints and the unmatched tool
 * results are carried when the facts they read are unchanged. Every answer must equal a fresh
 * document's: the tree, the diagnostics (complete, as a first batch, and the provisional list but
 * for the request's findings), the contexts and the editor's answers, with idle releases between edits.
 */

import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { contextSelection } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { respliceOf, sameShape } from "../../server/src/core/session/resplice";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { unmatchedToolResults } from "../../server/src/features/diagnostics/toolResultCalls";
import { editorAnswers } from "../helpers/editorAnswers";
import { expectAnswersFresh, releaseInProcess } from "../helpers/freshAnswers";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

/** A session of 2 to 10 entries of the kinds whose facts the edits change, on one or two branches, with a final newline. */
function randomSession(random: () => number): string {
  const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
  const count = 2 + Math.floor(random() * 9);
  const some = (i: number) => `"e${Math.floor(random() * i)}"`;
  for (let i = 0; i < count; i++) {
    const parent = i === 0 ? "null" : random() < 0.8 ? `"e${i - 1}"` : some(i);
    const head = `"id":"e${i}","parentId":${parent},"timestamp":"2025-01-01T00:00:0${i % 10}.000Z"`;
    const r = random();
    if (r < 0.2)
      lines.push(
        `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"toolCall","id":"t${i % 3}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`,
      );
    else if (r < 0.4)
      lines.push(
        `{"type":"message",${head},"message":{"role":"toolResult","toolCallId":"t${i % 3}","toolName":"read","content":[{"type":"text","text":"o"}],"isError":false,"timestamp":1}}`,
      );
    else if (r < 0.5 && i > 1) lines.push(`{"type":"compaction",${head},"summary":"s","firstKeptEntryId":${some(i)},"tokensBefore":10}`);
    else if (r < 0.55 && i > 0) lines.push(`{"type":"label",${head},"targetId":${some(i)},"label":"x"}`);
    else if (r < 0.6 && i > 0) lines.push(`{"type":"context_edit",${head},"targetId":${some(i)},"replacement":null}`);
    else lines.push(`{"type":"message",${head},"message":{"role":"${random() < 0.2 ? "system" : "user"}","content":"u","timestamp":1}}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Replacements of one fact of a line that leave its id, parent and type as they were. */
const FACT_EDITS: readonly [RegExp, (random: () => number) => string][] = [
  [/"timestamp":"[^"]*"/, () => '"timestamp":"not a time"'],
  [/"timestamp":"[^"]*"/, (random) => `"timestamp":"2024-06-0${1 + Math.floor(random() * 9)}T00:00:00.000Z"`],
  [/"role":"[a-zA-Z]*"/, (random) => `"role":"${["user", "system", "assistant", "toolResult"][Math.floor(random() * 4)]}"`],
  [/"toolCallId":"[^"]*"/, (random) => `"toolCallId":"t${Math.floor(random() * 4)}"`],
  [/"type":"toolCall","id":"[^"]*"/, (random) => `"type":"toolCall","id":"t${Math.floor(random() * 4)}"`],
  [/"(targetId|firstKeptEntryId)":"[^"]*"/, (random) => `"$1":"e${Math.floor(random() * 8)}"`],
  [/"content":"/, () => '"content":"x'],
];

/** One fact edit of a line, the last one twice in three times: says what it did. */
function factEdit(doc: SessionDocument, random: () => number): string {
  let at = doc.lineCount - 1;
  while (at > 0 && doc.lines[at]!.length === 0) at--;
  if (random() < 1 / 3) at = 1 + Math.floor(random() * (doc.lineCount - 2));
  const text = doc.lines[at] ?? "";
  const [pattern, to] = FACT_EDITS[Math.floor(random() * FACT_EDITS.length)]!;
  const after = text.replace(pattern, to(random));
  if (after === text) return "none";
  doc.update([{ range: { start: { line: at, character: 0 }, end: { line: at, character: text.length } }, text: after }], doc.version + 1);
  return `line ${at}: ${pattern.source}`;
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

it("random edits of a line's facts that keep the tree answer as a fresh document, carried or not", () => {
  const random = seededRandom(Number(process.env.SEED ?? 52));
  let compared = 0;
  let sameTree = 0;
  for (let round = 0; round < 300; round++) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, randomSession(random));
    const log: string[] = [];
    for (let step = 0; step < 10; step++) {
      const between = random();
      if (between < 0.25) releaseInProcess(log);
      else if (between < 0.6) computeDiagnostics(doc);
      else if (between < 0.8) editorAnswers(doc);
      // Now and then an edit of the tree, which carries what the edits of facts carried.
      log.push(random() < 0.15 ? `tree ${randomEdit(doc, random)}` : factEdit(doc, random));
      if (random() < 0.2) continue;
      if (respliceOf(doc.analysis)?.replaced) sameTree++;
      const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      const where = `round ${round}, step ${step}: ${log.join(", ")}\n${doc.getText()}`;
      // The editor's answers asked before the diagnostics half the time, as a client may.
      const early = random() < 0.5;
      expectAnswersFresh(doc, fresh, where, () => early && expect(editorAnswers(doc), where).toEqual(editorAnswers(fresh)));
      compared++;
    }
  }
  expect(sameTree).toBeGreaterThan(compared / 3);
});

/** A header, a user message and a tool result under it that answers no call. */
const UNMATCHED_RESULT = [
  '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
  '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"u","timestamp":1}}',
  '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"nowhere","toolName":"read","content":[],"isError":false,"timestamp":1}}',
];

it("keeps the path with the new leaf in it when the leaf's timestamp is made unreadable, and a structural edit after it still answers as a fresh document", () => {
  const text = [
    ...UNMATCHED_RESULT,
    '{"type":"message","id":"c","parentId":"a","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"v","timestamp":1}}',
    "",
  ].join("\n");
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, text);
  computeDiagnostics(doc);
  editorAnswers(doc);
  const before = doc.analysis.activePath;
  releaseKept();
  const last = doc.lines[3]!;
  const from = last.indexOf("2025-01-01T00:00:03.000Z");
  doc.update([{ range: { start: { line: 3, character: from }, end: { line: 3, character: from + 24 } }, text: "not a time" }], 2);
  const a = doc.analysis;
  expect(respliceOf(a)?.replaced?.map((e) => e.line)).toEqual([3]);
  expect(a.activePath).not.toBe(before);
  expect(a.activePath.map((e) => e.line)).toEqual([1, 3]);
  expect(a.activePath[1]).toBe(a.entries[2]);
  const fresh = () => new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
  expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(fresh()));
  expect(computeDiagnostics(doc).some((d) => d.code === "unmatched-tool-result" && d.range.start.line === 2)).toBe(true);
  expect(editorAnswers(doc)).toEqual(editorAnswers(fresh()));
  // The result's line removed: the tool results' calls are carried from the structure the edit made.
  doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: "" }], 3);
  expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(fresh()));
  expect(editorAnswers(doc)).toEqual(editorAnswers(fresh()));
});

it("keeps no chain of replaced structures: a structure's record of the one before it goes once an edit replaces it", () => {
  const text = [
    '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
    '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"u","timestamp":1}}',
    '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"v","timestamp":1}}',
    "",
  ].join("\n");
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, text);
  expect(doc.analysis.entries).toHaveLength(2);
  const stamp = (seconds: number, version: number) => {
    const from = doc.lines[2]!.indexOf('"timestamp":"') + 13;
    doc.update(
      [{ range: { start: { line: 2, character: from }, end: { line: 2, character: from + 24 } }, text: `2025-01-01T00:00:0${seconds}.000Z` }],
      version,
    );
    return doc.analysis;
  };
  const first = stamp(3, 2);
  // The record stands while its structure is the document's, whatever the step.
  expect(sameShape(first, () => true)?.replaced?.map((e) => e.line)).toEqual([2]);
  const second = stamp(4, 3);
  expect(second.structure).not.toBe(first.structure);
  expect(sameShape(second, () => true)?.previousStructure).toBe(first.structure);
  // The replaced structure's record is gone: it would hold the structure before it, and so on.
  expect(sameShape(first, () => true)).toBeUndefined();
  expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText())));
});

it("carries the selection and the unmatched tool results when first asked at a later step of the structure an edit that kept the tree made", () => {
  const text = [...UNMATCHED_RESULT, ""].join("\n");
  const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, text);
  const selection = contextSelection(doc.analysis);
  const unmatched = unmatchedToolResults(doc.analysis);
  // The result's timestamp made unreadable: an edit that keeps the tree, read at once (the first step of the new structure).
  const at = doc.lines[2]!.indexOf("2025");
  doc.update([{ range: { start: { line: 2, character: at }, end: { line: 2, character: at + 4 } }, text: "XXXX" }], 2);
  const first = doc.analysis;
  expect(respliceOf(first)?.replaced).toHaveLength(1);
  // A space typed between tokens of another line: the same structure, a later step, where the values are first asked.
  doc.update([{ range: { start: { line: 1, character: 1 }, end: { line: 1, character: 1 } }, text: " " }], 3);
  const later = doc.analysis;
  expect(later.structure).toBe(first.structure);
  expect(respliceOf(later)).toBeUndefined();
  // Carried, not made again: the same marks, and the result named by its successor.
  expect(contextSelection(later).state).toBe(selection.state);
  const carried = unmatchedToolResults(later);
  expect(carried.map((u) => u.entry)).toEqual([later.entries[1]]);
  expect(carried[0]!.entry).not.toBe(unmatched[0]!.entry);
  expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText())));
});
