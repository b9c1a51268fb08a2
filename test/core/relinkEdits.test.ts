/**
 * The tree's links updated in place after a structural edit (`core/session/relink.ts`: the previous
 * analysis's arrays spliced, only the entries whose parent's holder changed looked up again, the
 * active path kept when none of its entries changed, the children and the tree's order made when
 * first read) equal a fresh document's, on what the other random edit tests never make: ids that
 * are numbers, `true`, an object or an array, and parents naming them; parents pointed at the entry
 * itself or below it (cycles made and broken); chains deeper than `isAncestor`'s short walk up,
 * asked about before and after the tree's order is made; the tree's order read at random moments
 * between edits; idle releases and clones. The diagnostics, both Pi versions' contexts and requests
 * and the editor's answers (outline, folding, lenses, faded hints, inlay hints, hovers) are compared too.
 */

import { expect, it } from "vitest";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import { SessionDocument } from "../../server/src/core/session/document";
import type { Entry } from "../../server/src/core/session/entry";
import { respliceOf } from "../../server/src/core/session/resplice";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { editorAnswers } from "../helpers/editorAnswers";
import { expectKeptContextsFresh } from "../helpers/keptContexts";
import { seededRandom } from "../helpers/lspClient";

/** An id as the edits write it: the JSON text of a string, number, `true`, an object or an array. */
type IdText = string;

const time = (n: number) => `"timestamp":"2025-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z"`;
const quoted = (id: string) => JSON.stringify(id);
/** The ids that are not strings, which Pi's map keys as they are (a number only under the same number). */
const ODD_IDS: readonly IdText[] = ["7", "1.5", "true", '{"a":1}', "[1]", "0"];
/** Matches an id or parentId value of any of the shapes written here. */
const ID_VALUE = '("[^"]*"|-?[\\d.]+|null|true|\\{"a":1\\}|\\[1\\])';

/** One entry: a tool call or result (of two ids), a compaction keeping its parent, or a user message. */
function entryLine(random: () => number, id: IdText, parent: IdText, n: number): string {
  const head = `"id":${id},"parentId":${parent},${time(n)}`;
  const tool = `t${1 + Math.floor(random() * 2)}`;
  const r = random();
  if (r < 0.3)
    return `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"toolCall","id":"${tool}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
  if (r < 0.6)
    return `{"type":"message",${head},"message":{"role":"toolResult","toolCallId":"${tool}","toolName":"read","content":[{"type":"text","text":"o"}],"isError":false,"timestamp":1}}`;
  if (r < 0.65) return `{"type":"compaction",${head},"summary":"s","firstKeptEntryId":${parent},"tokensBefore":5}`;
  return `{"type":"message",${head},"message":{"role":"user","content":"u","timestamp":1}}`;
}

/** A session of 4 to 15 entries, some with number ids; every tenth a chain of 300 to 600 (past the short walk of 256 steps). */
function randomSession(random: () => number, deep: boolean): string {
  const lines = [`{"type":"session","version":3,"id":"s",${time(0)},"cwd":"/"}`];
  const ids: IdText[] = [];
  const count = deep ? 300 + Math.floor(random() * 300) : 4 + Math.floor(random() * 12);
  for (let i = 0; i < count; i++) {
    const id = random() < 0.2 ? String(i + 100) : quoted(`e${i}`);
    const parent = ids.length === 0 ? "null" : random() < (deep ? 0.97 : 0.6) ? ids[ids.length - 1]! : ids[Math.floor(random() * ids.length)]!;
    lines.push(entryLine(random, id, parent, i + 1));
    ids.push(id);
  }
  return `${lines.join("\n")}\n`;
}

const idsIn = (lines: readonly string[]): IdText[] =>
  lines.map((l) => new RegExp(`"id":${ID_VALUE}`).exec(l)?.[1]).filter((x): x is string => x !== undefined && x !== '"s"');

/** One random structural edit of `doc` (a new version); `fresh` makes ids no line holds yet. */
function randomStructuralEdit(doc: SessionDocument, random: () => number, fresh: () => string): void {
  const at = 1 + Math.floor(random() * (doc.lineCount - 2));
  const ids = idsIn(doc.lines);
  const pick = (): IdText => {
    const r = random();
    if (r < 0.05) return "null";
    if (r < 0.1) return quoted("nowhere");
    if (r < 0.16) return ODD_IDS[Math.floor(random() * ODD_IDS.length)]!;
    return ids[Math.floor(random() * ids.length)] ?? quoted("nowhere");
  };
  const replace = (from: number, to: number, text: string) =>
    doc.update([{ range: { start: { line: from, character: 0 }, end: { line: to, character: 0 } }, text }], doc.version + 1);
  const old = doc.lines[at]!;
  const kind = random();
  if (kind < 0.35) {
    // A parent changed: now and then to the entry itself, a cycle of one.
    const own = idsIn([old])[0];
    replace(at, at + 1, `${old.replace(new RegExp(`"parentId":${ID_VALUE}`), `"parentId":${own && random() < 0.15 ? own : pick()}`)}\n`);
  } else if (kind < 0.5) {
    replace(at, at + 1, "");
  } else if (kind < 0.65) {
    const id = random() < 0.1 ? ODD_IDS[Math.floor(random() * ODD_IDS.length)]! : random() < 0.3 ? String(1000 + Number(fresh().slice(1))) : quoted(fresh());
    replace(at, at, `${entryLine(random, id, pick(), 40)}\n`);
  } else if (kind < 0.85) {
    // A run of lines rewritten in one edit, most new entries taking over a replaced id.
    const count = Math.min(doc.lineCount - 1 - at, 1 + Math.floor(random() * 3));
    const taken = idsIn(doc.lines.slice(at, at + count));
    const made: string[] = [];
    for (let k = Math.floor(random() * 4); k > 0; k--) {
      const id = taken.length > 0 && random() < 0.7 ? taken.splice(Math.floor(random() * taken.length), 1)[0]! : quoted(fresh());
      made.push(`${entryLine(random, id, pick(), 30)}\n`);
    }
    replace(at, at + count, made.join(""));
  } else {
    // A line broken in two (Enter typed inside it).
    const cut = 1 + Math.floor(random() * (old.length - 1));
    doc.update([{ range: { start: { line: at, character: cut }, end: { line: at, character: cut } }, text: "\n" }], doc.version + 1);
  }
}

const line = (e: Entry | undefined) => (e ? e.line : null);

/** The tree as data, by line; `isAncestor` asked first, before anything reads the tree's order. */
function treeData(a: SessionAnalysis, random: () => number) {
  const ancestors: boolean[] = [];
  for (let k = 0; k < 40 && a.entries.length > 0; k++) {
    const below = Math.floor(random() * a.entries.length);
    // Half the pairs an entry and one of its ancestors (or itself), near or far.
    let above = Math.floor(random() * a.entries.length);
    if (random() < 0.5) {
      above = below;
      for (let up = Math.floor(random() * 400); up > 0 && a.parent[above] && !a.reachesCycle[above]; up--) above = a.parent[above]!.index;
    }
    ancestors.push(a.isAncestor(a.entries[above]!, a.entries[below]!));
  }
  return {
    ancestors,
    entries: a.entries.map((e, k) => [k, e.index, e.line, e.key]),
    entryAtLine: Array.from(a.entryAtLine, (e) => (e ? [e.index, e.line] : null)),
    parent: a.parent.map(line),
    children: a.entries.map((e) => a.childrenOf(e).map(line)),
    roots: a.roots.map(line),
    leaf: [line(a.leaf), line(a.nullLeaf)],
    cycles: [a.cycles.map((c) => c.map(line)), [...a.cycleOf], [...a.reachesCycle], [...a.depth]],
    path: [a.activePath.map(line), [...a.onActivePath]],
  };
}

function expectSameAsFresh(doc: SessionDocument, random: () => number, where: string): void {
  const other = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
  const seed = random() * 1e9;
  expect(treeData(doc.analysis, seededRandom(seed)), where).toEqual(treeData(other.analysis, seededRandom(seed)));
  expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(other));
  expectKeptContextsFresh(doc, other, where);
  if (random() < 0.25) expect(editorAnswers(doc), where).toEqual(editorAnswers(other));
}

it("random structural edits with odd ids, cycles and deep chains keep the tree, diagnostics, contexts and editor answers equal to a fresh document's", () => {
  const random = seededRandom(36);
  let next = 0;
  const fresh = () => `w${next++}`;
  let compared = 0;
  let respliced = 0;
  for (let round = 0; round < 120; round++) {
    let doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, randomSession(random, round % 10 === 9));
    for (let step = 0; step < 20 && doc.lineCount > 3; step++) {
      // Between edits: an idle release, a copy going on, the tree's order or a far question asked, diagnostics kept.
      const between = random();
      if (between < 0.05) releaseKept();
      else if (between < 0.08) doc = doc.clone();
      else if (between < 0.2) void doc.analysis.depth;
      else if (between < 0.3) doc.analysis.isAncestor(doc.analysis.entries[0]!, doc.analysis.entries[doc.analysis.entries.length - 1]!);
      else if (between < 0.45) computeDiagnostics(doc);
      randomStructuralEdit(doc, random, fresh);
      // Now and then two edits before the next analysis, which then covers both.
      if (random() < 0.2) continue;
      if (respliceOf(doc.analysis)) respliced++;
      expectSameAsFresh(doc, random, `round ${round}, step ${step}:\n${doc.getText()}`);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(1000);
  // The edits were made from the previous analysis, not only afresh.
  expect(respliced).toBeGreaterThan(compared / 3);
});

it("answers many questions about far entries of a wide, shallow tree in work proportional to its entries, not 256 steps each", () => {
  // A root and 100 chains of 200 under it: every walk up ends at the root within the short walk's
  // 256 steps, so none of them alone makes the tree's order.
  const entry = (id: string, parent: string | null, k: number) =>
    `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},${time(k)},"message":{"role":"user","content":"u"}}`;
  const lines = [`{"type":"session","version":3,"id":"s",${time(0)},"cwd":"/"}`, entry("r", null, 0)];
  for (let c = 0; c < 100; c++) for (let d = 0; d < 200; d++) lines.push(entry(`c${c}.${d}`, d === 0 ? "r" : `c${c}.${d - 1}`, c + d));
  const a = new SessionDocument("file:///w.jsonl", "jsonl", 1, `${lines.join("\n")}\n`).analysis;
  const n = a.entries.length;
  // The work counted as the reads of the entries' places, which every step up makes: not a clock.
  let reads = 0;
  for (const e of a.entries) {
    let index = e.index;
    Object.defineProperty(e, "index", {
      get: () => {
        reads++;
        return index;
      },
      set: (v: number) => {
        index = v;
      },
    });
  }
  // Each entry asked whether the first entry of the next chain is above it (never, unless the same chain).
  const answers: boolean[] = [];
  for (let i = 1; i < n; i++) answers.push(a.isAncestor(a.entries[1 + ((Math.floor((i - 1) / 200) + 1) % 100) * 200]!, a.entries[i]!));
  expect(answers.every((x) => !x)).toBe(true);
  expect(reads).toBeLessThan(20 * n);
});
