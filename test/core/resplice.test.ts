/**
 * The analysis after a structural edit made from the previous one (core/session/resplice.ts: the
 * entries below the edit moved in place, Pi's map of ids updated for the lines edited) equals a
 * fresh document's, field by field: after random edits (a line broken, mended, copied or deleted, a
 * parentId changed, typing), several at a time between analyses, in every parity fixture and in
 * sessions with faults of every kind. The test also checks that the shortcut ran, and that it was
 * not taken where it does not apply (an id held twice, the last entry edited). The document's
 * length, which each edit updates, equals the fresh document's too.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import type { Entry } from "../../server/src/core/session/entry";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { parseFixture } from "../helpers/fixture";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const DIAGNOSTICS = join(__dirname, "../fixtures/diagnostics");
/** The parity fixtures, and the diagnostics fixtures' sessions (a fault of every kind). */
const sessions: [string, string][] = [
  ...readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f): [string, string] => [f, readFileSync(join(FIXTURES, f), "utf8")]),
  ...readdirSync(DIAGNOSTICS)
    .filter((f) => f.endsWith(".txt"))
    .map((f): [string, string] => [f, parseFixture(readFileSync(join(DIAGNOSTICS, f), "utf8")).text]),
];

const line = (e: Entry | undefined) => (e ? e.line : null);

/** Everything the analysis says, as data: entries by line, never by object. */
function analysisData(a: SessionAnalysis) {
  return {
    header: [a.headerLine, a.headerState, a.header, a.extraHeaderLines, a.falsyLines, a.looksLikeSession, a.endsWithNewline],
    entries: a.entries.map((e, k) => [k, e.index, e.line, e.key]),
    // A line without an entry is a hole in a fresh analysis and `undefined` in one spliced in place: both read as none.
    entryAtLine: Array.from(a.entryAtLine, (e) => (e ? [e.index, e.line] : null)),
    byId: [...a.byId].map(([key, e]) => [key, e.line]).sort((x, y) => Number(x[1]) - Number(y[1])),
    duplicates: [...a.duplicates].map(([key, list]) => [key, list.map(line)]),
    parent: a.parent.map(line),
    children: a.entries.map((e) => a.childrenOf(e).map(line)),
    roots: a.roots.map(line),
    leaf: [line(a.leaf), line(a.nullLeaf)],
    cycles: [a.cycles.map((c) => c.map(line)), [...a.cycleOf], [...a.reachesCycle], [...a.depth], a.treeLoops],
    path: [a.activePath.map(line), [...a.onActivePath]],
    ancestors: a.entries.map((e) => (e.index > 0 ? a.isAncestor(a.entries[0]!, e) : false)),
  };
}

describe("the analysis made from the previous one after a structural edit", () => {
  it(`equals a fresh document's, in ${sessions.length} sessions`, () => {
    const random = seededRandom(34);
    let compared = 0;
    let respliced = 0;
    for (const [path, text] of sessions) {
      const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
      let before = new Set(doc.analysis.entries);
      for (let step = 0; step < 16; step++) {
        randomEdit(doc, random);
        // Several edits at a time, now and then: the analysis then covers all of them at once.
        if (random() < 0.3) continue;
        const a = doc.analysis;
        const fresh = new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText());
        expect(analysisData(a), `${path}, edit ${step}`).toEqual(analysisData(fresh.analysis));
        // The length, kept up to date by each edit rather than summed again.
        expect(doc.textLength(), `${path}, edit ${step}`).toBe(fresh.textLength());
        // An analysis that took over entries of the previous one, of another structure, was respliced.
        if (a.entries.some((e) => before.has(e)) && a.entries.length > 0) respliced++;
        before = new Set(a.entries);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(sessions.length * 8);
    expect(respliced).toBeGreaterThan(compared / 4);
  });

  it("checks again an entry an earlier structural edit added when the id it names loses its holder", () => {
    const entry = (id: string, parent: string | null, more = "") =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2025-01-01T00:00:01.000Z"${more},"message":{"role":"user","content":"hi"}}`;
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
    const lines = [header, entry("a", null), entry("b", "a"), entry("c", "b"), entry("d", "c"), entry("e", "d")];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const same = () => expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    same();
    // A branch added (the first structural edit), a label on "c" inserted (the second), then the line
    // of "c" deleted (the third): the label, which had no finding, now names no entry.
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: `${entry("x", "a")}\n` }], 2);
    same();
    const label = '{"type":"label","id":"L","parentId":"b","timestamp":"2025-01-01T00:00:02.000Z","targetId":"c","label":"here"}';
    doc.update([{ range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, text: `${label}\n` }], 3);
    same();
    const before = new Set(doc.analysis.entries);
    doc.update([{ range: { start: { line: 5, character: 0 }, end: { line: 6, character: 0 } }, text: "" }], 4);
    expect(doc.analysis.entries.some((e) => before.has(e))).toBe(true);
    expect(computeDiagnostics(doc).map((d) => d.code)).toContain("dangling-target");
    same();
  });

  it("drops a compaction the edit deleted, and finds one it added, without a look at every entry", () => {
    const text = readFileSync(join(FIXTURES, "fault-compaction-keeps-tool-result.jsonl"), "utf8");
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
    const same = () => expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    expect(computeDiagnostics(doc).map((d) => d.code)).toContain("compaction-keeps-tool-result");
    // A copy of the compaction above it under a new id, as a branch (a structural edit made from the previous analysis).
    const compaction = doc.lines[8]!;
    const before = new Set(doc.analysis.entries);
    const copy = compaction.replace('"id":"a0000008"', '"id":"b0000008"');
    doc.update([{ range: { start: { line: 8, character: 0 }, end: { line: 8, character: 0 } }, text: `${copy}\n` }], 2);
    expect(doc.analysis.entries.some((e) => before.has(e))).toBe(true);
    same();
    // Both compactions deleted, one after the other: the finding goes with the second.
    for (const version of [3, 4]) {
      doc.update([{ range: { start: { line: 8, character: 0 }, end: { line: 9, character: 0 } }, text: "" }], version);
      same();
    }
    expect(computeDiagnostics(doc).map((d) => d.code)).not.toContain("compaction-keeps-tool-result");
  });

  it("says again where a tool call is elsewhere when a line added before it holds the same call", () => {
    const t = (n: number) => `"timestamp":"2025-01-01T00:00:0${n}.000Z"`;
    const user = (id: string, parent: string | null, n: number) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},${t(n)},"message":{"role":"user","content":"hi","timestamp":1}}`;
    const call = (id: string) =>
      `{"type":"message","id":"${id}","parentId":"a",${t(2)},"message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
    const lines = [
      `{"type":"session","version":3,"id":"s",${t(0)},"cwd":"/"}`,
      user("a", null, 1),
      call("b"),
      user("c", "a", 3),
      `{"type":"message","id":"d","parentId":"c",${t(4)},"message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[],"isError":false,"timestamp":1}}`,
      user("e", "d", 5),
    ];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const same = () => expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    const elsewhere = () => computeDiagnostics(doc).find((d) => d.code === "unmatched-tool-result")?.message;
    expect(elsewhere()).toContain("on line 3");
    // The same call copied after line 2, as another branch: the first line holding it is the copy,
    // and the line of the call it held moved down, its entry kept (the edit ends before it).
    const before = new Set(doc.analysis.entries);
    doc.update([{ range: { start: { line: 1, character: lines[1]!.length }, end: { line: 1, character: lines[1]!.length } }, text: `\n${call("b2")}` }], 2);
    expect(doc.analysis.entries.some((e) => before.has(e) && e.line === 3)).toBe(true);
    same();
    expect(elsewhere()).toContain("on line 3");
    // Both lines holding the call deleted: no call is elsewhere.
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 4, character: 0 } }, text: "" }], 3);
    same();
    expect(elsewhere()).not.toContain("on another branch");
  });

  it("finds a tool result unmatched when an edit hangs its call under the result's new root, on another branch", () => {
    const t = (n: number) => `"timestamp":"2025-01-01T00:00:0${n}.000Z"`;
    const user = (id: string, parent: string | null, n: number) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},${t(n)},"message":{"role":"user","content":"hi","timestamp":1}}`;
    const call = `{"type":"message","id":"c","parentId":"r",${t(3)},"message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
    const result = `{"type":"message","id":"e","parentId":"d",${t(5)},"message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[],"isError":false,"timestamp":1}}`;
    // The path r, c (the call), y, d, e (its result), z.
    const lines = [
      `{"type":"session","version":3,"id":"s",${t(0)},"cwd":"/"}`,
      user("r", null, 1),
      user("y", "c", 2),
      call,
      user("d", "y", 4),
      result,
      user("z", "e", 6),
    ];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const same = () => expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    expect(computeDiagnostics(doc).map((d) => d.code)).not.toContain("unmatched-tool-result");
    // Lines 1 and 2 made one entry that takes the root's id under "d", in one edit: "d" loses its
    // parent and becomes the root, the lowest entry of the result's path whose parent changed, and
    // the call, kept and moved, now hangs below it through the new entry, on another branch.
    const before = new Set(doc.analysis.entries);
    doc.update([{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: doc.lines[2]!.length } }, text: user("r", "d", 1) }], 2);
    expect(doc.analysis.entries.some((e) => before.has(e) && e.line === 2)).toBe(true);
    same();
    expect(computeDiagnostics(doc).map((d) => d.code)).toContain("unmatched-tool-result");
  });

  it("leaves a session with an id held twice to the whole analysis, and makes the one after an edit of the last entry from the previous one", () => {
    const lines = [
      '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
      '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}',
      '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"hi"}}',
      '{"type":"message","id":"c","parentId":"b","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"hi"}}',
    ];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const first = doc.analysis.entries;
    // A copy of line 1 under the same id: Pi's map now holds one of two entries, which only a whole analysis decides.
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: `${lines[1]}\n` }], 2);
    const twice = doc.analysis;
    expect(twice.duplicates.get("a")?.map(line)).toEqual([1, 2]);
    expect(twice.entries.some((e) => first.includes(e))).toBe(false);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    // The copy deleted again: the shortcut still declines, as the previous analysis held an id twice.
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: "" }], 3);
    expect(doc.analysis.entries.some((e) => twice.entries.includes(e))).toBe(false);
    // The last entry's parent changed: the leaf's line is edited, and the entries above it are kept,
    // the leaf a new entry, whose path is walked again.
    const last = doc.analysis.entries;
    const leaf = doc.analysis.leaf;
    doc.update(
      [
        {
          range: { start: { line: 3, character: 0 }, end: { line: 3, character: lines[3]!.length } },
          text: lines[3]!.replace('"parentId":"b"', '"parentId":"a"'),
        },
      ],
      4,
    );
    expect(doc.analysis.entries.slice(0, -1).every((e) => last.includes(e))).toBe(true);
    expect(doc.analysis.leaf).not.toBe(leaf);
    expect(doc.analysis.activePath.map(line)).toEqual([1, 3]);
    expect(doc.analysis.childrenOf(doc.analysis.entries[0]!).map(line)).toEqual([2, 3]);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
  });

  it("makes the analysis after a line appended or the last entry removed from the previous one, with the new leaf's path", () => {
    const lines = [
      '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
      '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}',
      '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"hi"}}',
    ];
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const before = doc.analysis.entries.slice();
    // A new prompt, as Pi appends it: a child of "a", so the path no longer holds "b".
    const appended = '{"type":"message","id":"c","parentId":"a","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"again"}}';
    doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: `${appended}\n` }], 2);
    expect(before.every((e) => doc.analysis.entries.includes(e))).toBe(true);
    expect(doc.analysis.activePath.map(line)).toEqual([1, 3]);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
    // And removed again: "b" is the leaf once more.
    doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } }, text: "" }], 3);
    expect(before.every((e) => doc.analysis.entries.includes(e))).toBe(true);
    expect(doc.analysis.activePath.map(line)).toEqual([1, 2]);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText())));
  });
  it("answers which entry is above which on a chain longer than the short walk up, before and after an edit", () => {
    const time = (k: number) => new Date(Date.UTC(2025, 0, 1) + k * 1000).toISOString();
    const entry = (id: string, parent: string | null, k: number) =>
      JSON.stringify({ type: "message", id, parentId: parent, timestamp: time(k), message: { role: "user", content: "hi" } });
    const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
    // A chain of 700 entries (deeper than `isAncestor`'s walk of 256 steps), with a side branch off entry 300.
    for (let k = 0; k < 700; k++) lines.push(entry(`e${k}`, k === 0 ? null : `e${k - 1}`, k));
    for (let k = 0; k < 300; k++) lines.push(entry(`b${k}`, k === 0 ? "e300" : `b${k - 1}`, 700 + k));
    lines.push(entry("last", "e699", 1000));
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    const random = seededRandom(7);
    const check = () => {
      const a = doc.analysis;
      // The answer by walking up from `b` to its root, which these trees without cycles allow.
      const above = (x: Entry, y: Entry) => {
        for (let up = a.parent[y.index]; up; up = a.parent[up.index]) if (up === x) return true;
        return false;
      };
      for (let k = 0; k < 400; k++) {
        const x = a.entries[Math.floor(random() * a.entries.length)]!;
        const y = a.entries[Math.floor(random() * a.entries.length)]!;
        expect(a.isAncestor(x, y), `line ${x.line} above line ${y.line}`).toBe(above(x, y));
        expect(a.isAncestor(x, a.leaf!), `line ${x.line} above the leaf`).toBe(above(x, a.leaf!));
      }
    };
    check();
    // A line inserted in the chain's middle, hung on an entry far above: the analysis is respliced.
    const before = new Set(doc.analysis.entries);
    doc.update([{ range: { start: { line: 500, character: 0 }, end: { line: 500, character: 0 } }, text: `${entry("new", "e10", 2000)}\n` }], 2);
    expect(doc.analysis.entries.some((e) => before.has(e))).toBe(true);
    check();
    // Entries in or below a parent cycle have no place in the tree: none is above another, however near.
    const cyclic = new SessionDocument(
      "file:///c.jsonl",
      "jsonl",
      1,
      `${[lines[0], entry("c0", "c2", 1), entry("c1", "c0", 2), entry("c2", "c1", 3), entry("d0", "c2", 4), entry("z", null, 5)].join("\n")}\n`,
    );
    const c = cyclic.analysis;
    const [c0, c1, c2, d0] = c.entries;
    expect([c.isAncestor(c0!, c1!), c.isAncestor(c1!, c2!), c.isAncestor(c2!, c0!), c.isAncestor(c2!, d0!), c.isAncestor(c0!, d0!)]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("the children of an entry before every entry's list is made", () => {
  it(`are the lists' children, in file order, in ${sessions.length} sessions`, () => {
    let scanned = 0;
    for (const [path, text] of sessions) {
      // One analysis answers its first questions by scanning the parents; the other has made the
      // lists first (the tree's depth needs them), so every answer comes from them.
      const scanning = new SessionDocument("file:///s.jsonl", "jsonl", 1, text).analysis;
      const listed = new SessionDocument("file:///s.jsonl", "jsonl", 1, text).analysis;
      expect(listed.depth.length, path).toBe(listed.entries.length);
      // From the end, so that the scans answer for the entries of the last lines, which have no child,
      // and for those above them, which do.
      for (let k = scanning.entries.length - 1; k >= 0; k--) {
        const children = scanning.childrenOf(scanning.entries[k]!).map(line);
        if (children.length > 0 && scanned < 1000) scanned++;
        expect(children, `${path}, entry ${k}`).toEqual(listed.childrenOf(listed.entries[k]!).map(line));
      }
    }
    expect(scanned).toBeGreaterThan(0);
  });
});
