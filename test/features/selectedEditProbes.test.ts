/**
 * Probes of `fading.ts`'s `hasSelectedEdit`, which asks the session's context edits (a list kept per
 * structure by `entriesWhere` and carried over each edit of the tree) whether one is selected,
 * instead of walking the active path. That is right when two things hold after every edit: only
 * entries of the active path are marked `Selected`, however the selection was made or carried
 * (`selectionOf`, `carriedSelection`, `keptPathSelection`), and the carried list holds exactly the
 * session's `context_edit` entries, also when an edit changes a line's type to or from
 * `context_edit`. Random sessions with compactions, branch summaries, cycles, duplicate ids and v1
 * headers are edited at random (of the tree and inside lines), and every answer is compared with
 * a fresh document's: a selected context edit the list missed would leave the faded lines kept for
 * the structure while an edit of its replacement changes them.
 */

import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { ContextState, contextSelection } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { entriesWhere, respliceOf } from "../../server/src/core/session/resplice";
import { computeFadingHints } from "../../server/src/features/api/editor";
import { releaseInProcess } from "../helpers/freshAnswers";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

/** The probe's own list, made and carried as `fading.ts`'s is. */
const contextEdits = entriesWhere((e) => e.type === "context_edit");

/** A session whose entries are of every kind the selection reads, on branches, with now and then a cycle or a duplicate id. */
function randomSession(random: () => number): string {
  const lines = [`{"type":"session","version":${random() < 0.1 ? 1 : 3},"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`];
  const count = 3 + Math.floor(random() * 14);
  const some = (i: number) => `"e${Math.floor(random() * Math.max(1, i))}"`;
  for (let i = 0; i < count; i++) {
    const r0 = random();
    const parent = i === 0 ? "null" : r0 < 0.7 ? `"e${i - 1}"` : r0 < 0.92 ? some(i) : `"e${Math.floor(random() * count)}"`;
    // A duplicate id now and then: Pi keeps the later entry.
    const id = i > 0 && random() < 0.06 ? `e${Math.floor(random() * i)}` : `e${i}`;
    const head = `"id":"${id}","parentId":${parent},"timestamp":"2025-01-01T00:00:0${i % 10}.000Z"`;
    const r = random();
    let text: string;
    if (r < 0.12 && i > 1) text = `{"type":"compaction",${head},"summary":"s","firstKeptEntryId":${some(i)},"tokensBefore":10}`;
    else if (r < 0.2 && i > 0) text = `{"type":"branch_summary",${head},"fromId":${some(i)},"summary":"b"}`;
    // Most name the entry above them, on the path with them, so that toggling the replacement changes what is faded.
    else if (r < 0.45 && i > 0)
      text = `{"type":"context_edit",${head},"targetId":${random() < 0.7 ? `"e${i - 1}"` : some(i)},"replacement":${random() < 0.5 ? "null" : '{"content":"r"}'}}`;
    else if (r < 0.52 && i > 0) text = `{"type":"label",${head},"targetId":${some(i)},"label":"x"}`;
    else if (r < 0.6)
      text = `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"text","text":"a"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1}}`;
    else text = `{"type":"message",${head},"message":{"role":"${random() < 0.2 ? "system" : "user"}","content":"u","timestamp":1}}`;
    lines.push(text);
  }
  return `${lines.join("\n")}\n`;
}

const valueLines = (doc: SessionDocument) => doc.lines.map((l, k) => (l.startsWith("{") ? k : -1)).filter((k) => k > 0);

/** One edit aimed at the context edits: a type changed to or from `context_edit`, a replacement toggled, a context edit added as the leaf or under a duplicate id. */
function contextEditEdit(doc: SessionDocument, random: () => number): string {
  const lines = valueLines(doc);
  if (lines.length === 0) return "none";
  const line = lines[Math.floor(random() * lines.length)]!;
  const text = doc.lines[line]!;
  const replace = (to: string) => doc.update([{ range: { start: { line, character: 0 }, end: { line, character: text.length } }, text: to }], doc.version + 1);
  const append = (to: string) => {
    const last = doc.lineCount - 1;
    doc.update([{ range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } }, text: `${to}\n` }], doc.version + 1);
  };
  const id = /"id":"([^"]*)"/.exec(text)?.[1] ?? "e0";
  const kind = Math.floor(random() * 6);
  if (kind === 0 && text.includes('"type":"context_edit"')) {
    replace(text.replace('"type":"context_edit"', '"type":"label"'));
    return `line ${line} context_edit → label`;
  }
  if (kind === 1 && text.includes('"type":"label"')) {
    replace(text.replace('"type":"label"', '"type":"context_edit"').replace(/"label":"x"/, '"replacement":null'));
    return `line ${line} label → context_edit`;
  }
  if (kind === 2 && text.includes('"type":"message"')) {
    const head = /"id":[^,]*,"parentId":[^,]*,/.exec(text)?.[0] ?? "";
    replace(`{"type":"context_edit",${head}"targetId":"e0","replacement":null}`);
    return `line ${line} message → context_edit`;
  }
  if (kind === 3 && /"replacement":/.test(text)) {
    replace(
      text.includes('"replacement":null')
        ? text.replace('"replacement":null', '"replacement":{"content":"r"}')
        : text.replace(/"replacement":\{[^}]*\}/, '"replacement":null'),
    );
    return `line ${line} replacement toggled`;
  }
  if (kind === 4) {
    const leaf = lines[lines.length - 1]!;
    const leafId = /"id":"([^"]*)"/.exec(doc.lines[leaf]!)?.[1] ?? "e0";
    append(
      `{"type":"context_edit","id":"n${doc.version}","parentId":"${leafId}","timestamp":"2025-01-02T00:00:00.000Z","targetId":"${id}","replacement":null}`,
    );
    return `context_edit appended under ${leafId}`;
  }
  if (kind === 5) {
    // A second entry under an id already held (Pi keeps the later one): the analysis is made afresh.
    append(`{"type":"context_edit","id":"${id}","parentId":"e0","timestamp":"2025-01-02T00:00:00.000Z","targetId":"e0","replacement":null}`);
    return `context_edit appended under the duplicate id ${id}`;
  }
  return "none";
}

/** What must hold of `doc` after an edit: the marks on the path alone, the carried list a fresh one, the faded lines a fresh document's. */
function expectSelectedEditsFresh(doc: SessionDocument, where: string, askList: boolean): void {
  const a = doc.analysis;
  if (askList) {
    const list = contextEdits(a);
    expect(
      list.map((e) => e.line),
      where,
    ).toEqual(a.entries.filter((e) => e.type === "context_edit").map((e) => e.line));
    expect(
      list.every((e) => a.entries[e.index] === e),
      where,
    ).toBe(true);
  }
  const state = contextSelection(a).state;
  const onPath = new Set(a.activePath.map((e) => e.index));
  for (let k = 0; k < state.length; k++) if (state[k] === ContextState.Selected) expect(onPath.has(k), `${where}: entry ${k} selected off the path`).toBe(true);
  const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
  for (const maxFaded of [2, 5000]) expect(computeFadingHints(doc, { maxFaded }), where).toEqual(computeFadingHints(fresh, { maxFaded }));
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

it("the context edits carried over edits of the tree, and the selected marks, answer as a fresh document's", () => {
  const random = seededRandom(Number(process.env.SEED ?? 42));
  let typeChanges = 0;
  let carried = 0;
  for (let round = 0; round < 150; round++) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, randomSession(random));
    const log: string[] = [];
    for (let step = 0; step < 10; step++) {
      const r = random();
      if (r < 0.1) releaseInProcess(log);
      if (r < 0.7) computeFadingHints(doc);
      if (random() < 0.5) {
        const what = contextEditEdit(doc, random);
        if (what.includes("→")) typeChanges++;
        log.push(what);
      } else log.push(randomEdit(doc, random) ? "random edit" : "none");
      // An edit inside a line after it now and then: the list is then first asked at a later step of the new structure.
      if (random() < 0.2 && randomEdit(doc, random, () => Math.max(0, doc.lineCount - 2))) log.push("edit of the last entry");
      // The list asked at most steps only, so that it is carried from a structure several edits back too, or made afresh.
      const askList = random() < 0.7;
      if (askList && respliceOf(doc.analysis) && doc.analysis.entries.some((e) => e.type === "context_edit")) carried++;
      expectSelectedEditsFresh(doc, `round ${round}, step ${step}: ${log.join(", ")}\n${doc.getText()}`, askList);
    }
  }
  expect(typeChanges).toBeGreaterThan(100);
  expect(carried).toBeGreaterThan(100);
});
