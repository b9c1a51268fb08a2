/**
 * Small random trees of tool calls, tool results, compactions, labels and branch summaries, edited
 * the way a structural edit is carried over (`resplice.ts`, and what is carried with it: the tool
 * results' calls, the contexts and their requests): runs of lines rewritten in one edit as other
 * entries, some taking over the ids of the lines they replace and hung anywhere in the tree, parents
 * changed, lines inserted and deleted, typing inside lines, idle releases and clones between them.
 * After each edit the diagnostics, both Pi versions' contexts and their provider requests equal a
 * fresh document's. The parity fixtures' random edits change one line at a time; an id taken over
 * by another line moves a whole subtree under another parent, which they never made.
 */

import { expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { respliceOf } from "../../server/src/core/session/resplice";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { expectKeptContextsFresh } from "../helpers/keptContexts";
import { seededRandom } from "../helpers/lspClient";

const time = (n: number) => `"timestamp":"2025-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z"`;
const json = (v: string | null) => (v === null ? "null" : JSON.stringify(v));

/** One random entry under `parent`: a tool call or result (of four ids), a compaction, label or summary naming one of `ids`, or a user message. */
function randomEntry(random: () => number, id: string, parent: string | null, n: number, ids: readonly string[]): string {
  const head = `"id":${json(id)},"parentId":${json(parent)},${time(n)}`;
  const tool = `t${1 + Math.floor(random() * 2)}`;
  const named = () => json(ids[Math.floor(random() * ids.length)] ?? "root");
  const r = random();
  if (r < 0.35) {
    return `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"toolCall","id":"${tool}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
  }
  if (r < 0.7) {
    return `{"type":"message",${head},"message":{"role":"toolResult","toolCallId":"${tool}","toolName":"read","content":[{"type":"text","text":"o"}],"isError":false,"timestamp":1}}`;
  }
  if (r < 0.75) return `{"type":"compaction",${head},"summary":"s","firstKeptEntryId":${named()},"tokensBefore":5}`;
  if (r < 0.79) return `{"type":"label",${head},"targetId":${named()},"label":"l"}`;
  if (r < 0.83) return `{"type":"branch_summary",${head},"fromId":${named()},"summary":"b"}`;
  return `{"type":"message",${head},"message":{"role":"user","content":"u","timestamp":1}}`;
}

/** A session of 6 to 19 entries, each under the one before it or under a random earlier one. */
function randomSession(random: () => number): string {
  const lines = [`{"type":"session","version":3,"id":"s",${time(0)},"cwd":"/"}`];
  const ids: string[] = [];
  for (let i = 0, count = 6 + Math.floor(random() * 14); i < count; i++) {
    const parent = ids.length === 0 ? null : random() < 0.6 ? ids[ids.length - 1]! : ids[Math.floor(random() * ids.length)]!;
    lines.push(randomEntry(random, `e${i}`, parent, i + 1, ids));
    ids.push(`e${i}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Typing inside a line: a text changed or emptied, a summary emptied, another call answered, another kept entry. */
const TYPING: readonly [RegExp, (pick: () => string) => string][] = [
  [/"summary":"[^"]*"/, () => '"summary":""'],
  [/"summary":"[^"]*"/, () => '"summary":"again"'],
  [/"content":"[^"]*"/, () => '"content":""'],
  [/"text":"[^"]*"/, () => '"text":"t"'],
  [/"stopReason":"[^"]*"/, () => '"stopReason":"error"'],
  [/"model":"[^"]*"/, () => '"model":"claude-opus-4-1"'],
  [/"toolCallId":"[^"]*"/, () => '"toolCallId":"t2"'],
  [/"firstKeptEntryId":"[^"]*"/, (pick) => `"firstKeptEntryId":${json(pick())}`],
];

/** One random edit of `doc` (a new version); `fresh` makes ids no line holds yet. */
function randomTreeEdit(doc: SessionDocument, random: () => number, fresh: () => string): void {
  // The last line is the empty one after the final line ending.
  const n = doc.lineCount - 1;
  const ids = doc.lines.map((l) => /"id":"([^"]*)"/.exec(l)?.[1]).filter((x): x is string => x !== undefined && x !== "s");
  const pick = () => (random() < 0.1 ? "nowhere" : (ids[Math.floor(random() * ids.length)] ?? "nowhere"));
  const line = 1 + Math.floor(random() * Math.max(1, n - 1));
  const replace = (from: number, to: number, text: string) =>
    doc.update([{ range: { start: { line: from, character: 0 }, end: { line: to, character: 0 } }, text }], doc.version + 1);
  const kind = n < 3 ? 0.95 : random();
  if (kind < 0.5) {
    // A run of up to three lines rewritten as up to three entries, most taking over a replaced id,
    // in one edit that ends where the last line's text does (the line after it is not edited).
    const count = Math.min(n - line, 1 + Math.floor(random() * 3));
    const replaced = doc.lines
      .slice(line, line + count)
      .map((l) => /"id":"([^"]*)"/.exec(l)?.[1])
      .filter((x): x is string => x !== undefined);
    const made: string[] = [];
    for (let k = Math.floor(random() * 4); k > 0; k--) {
      const id = replaced.length > 0 && random() < 0.7 ? replaced.splice(Math.floor(random() * replaced.length), 1)[0]! : fresh();
      made.push(randomEntry(random, id, random() < 0.08 ? null : pick(), 30, ids));
    }
    const last = line + count - 1;
    if (made.length === 0) replace(line, line + count, "");
    else
      doc.update(
        [{ range: { start: { line, character: 0 }, end: { line: last, character: doc.lines[last]!.length } }, text: made.join("\n") }],
        doc.version + 1,
      );
  } else if (kind < 0.62) {
    const [pattern, to] = TYPING[Math.floor(random() * TYPING.length)]!;
    const text = doc.lines[line]!;
    doc.update([{ range: { start: { line, character: 0 }, end: { line, character: text.length } }, text: text.replace(pattern, to(pick)) }], doc.version + 1);
  } else if (kind < 0.85) {
    const text = doc.lines[line]!;
    const after = text.replace(/"parentId":("[^"]*"|null)/, `"parentId":${json(pick())}`);
    doc.update([{ range: { start: { line, character: 0 }, end: { line, character: text.length } }, text: after }], doc.version + 1);
  } else if (kind < 0.93) {
    replace(line, line + 1, "");
  } else {
    replace(line, line, `${randomEntry(random, fresh(), pick(), 40, ids)}\n`);
  }
}

it("random rewrites of small trees keep the diagnostics, contexts and requests equal to a fresh document's", () => {
  // Of the seeds tried, the first whose edits hang a tool call, kept, below the lowest relinked entry
  // of its result's path on another branch, which the carry of the results' calls missed (round 43).
  const random = seededRandom(6);
  let next = 0;
  const fresh = () => `w${next++}`;
  let compared = 0;
  let respliced = 0;
  for (let round = 0; round < 300; round++) {
    let doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, randomSession(random));
    computeDiagnostics(doc);
    for (let step = 0; step < 30; step++) {
      if (random() < 0.05) releaseKept();
      // A fix-all or a migrated view goes on from a copy, which analyses itself afresh.
      if (random() < 0.03) doc = doc.clone();
      randomTreeEdit(doc, random, fresh);
      // Now and then two edits before the next analysis, which then covers both.
      if (random() < 0.25) continue;
      if (respliceOf(doc.analysis)) respliced++;
      const where = `round ${round}, step ${step}:\n${doc.getText()}`;
      const other = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(other));
      expectKeptContextsFresh(doc, other, where);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(5000);
  // The structural edits were made from the previous analysis, not only afresh.
  expect(respliced).toBeGreaterThan(compared / 2);
});
