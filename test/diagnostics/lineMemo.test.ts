/**
 * The line and link checks replay the findings of lines not edited since their last run
 * (diagnostics/replay.ts). After any sequence of edits inside lines, a document's diagnostics must
 * equal those of the same text opened afresh: edits that change a timestamp (whose children's
 * timestamp order depends on it), break or mend a line, change a role, move a line's tokens (whose
 * ranges a replay would otherwise keep) or change an id (the id a malformed line seems to declare)
 * exercise what is re-checked and what is replayed; the diagnostics are computed after only some
 * of the edits, so that a replay spans several edits. The fading hints (kept per structure, the
 * runs ending on an edited line located again), the capped collection the server sends, the
 * outline (kept per structure, the symbols that read an edited line computed again), the
 * folding ranges and code lenses (kept per structure) and Pi's labels are compared the same way.
 * Edits inside the resumed context's lines (where the context, its provider request and the
 * request findings are updated in place, core/pi/contextUpdate.ts) are compared on their own too.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { labels } from "../../server/src/core/session/semantics/labels";
import { computeCodeLenses } from "../../server/src/features/codeLens";
import { collectDiagnostics, computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeFadingHints } from "../../server/src/features/fading";
import { computeFoldingRanges } from "../../server/src/features/folding";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { editInContext } from "../helpers/contextEdits";
import { parseFixture } from "../helpers/fixture";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

/** Replacements that keep a line on one line and often keep its structure (what typing does). */
const EDITS: readonly [RegExp, string][] = [
  [/"timestamp":"20(\d\d)/, '"timestamp":"19$1'],
  [/"timestamp":"20\d\d/, '"timestamp":"2099'],
  // The same time written otherwise: the tree keeps its structure, but a child's timestamp-order
  // message quotes its parent's text.
  [/"timestamp":"([^"]*)\.(\d\d\d)Z"/, '"timestamp":"$1.$2+00:00"'],
  [/"timestamp":"19(\d\d)/, '"timestamp":"20$1'],
  [/"text":"/, '"text":"x'],
  // A credential typed into a message and taken out again: the secret finding follows its line.
  [/"text":"/, '"text":"GITHUB_TOKEN=ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123 '],
  [/GITHUB_TOKEN=ghp_\w+ /, ""],
  [/"role":"user"/, '"role":"hookMessage"'],
  [/"role":"hookMessage"/, '"role":"user"'],
  [/\}$/, ""],
  [/([^}])$/, "$1}"],
  [/"content":/, '"content" '],
  [/"content" /, '"content":'],
  // Whitespace that moves every later token of the line: replayed ranges must not be reused for it.
  [/^\{"type"/, '{ "type"'],
  [/^\{ "type"/, '{"type"'],
  [/"id":"/, '"id": "'],
  [/"firstKeptEntryId":"/, '"firstKeptEntryId": "'],
  // A new id: on a malformed line it changes the id the dangling-parent message names.
  [/"id":"([^"]*)"/, '"id":"$1x"'],
  [/"parentId":"([^"]*)"/, '"parentId":"$1x"'],
  // Both falsy, but a null line first makes Pi 0.73/0.74 throw where a false one makes it overwrite the file.
  [/^null$/, "false"],
  [/^false$/, "null"],
];

/** Pi's labels as plain data: target, value and the line of the label entry that set it. */
const labelsOf = (doc: SessionDocument) => [...labels(doc.analysis).byTarget].map(([target, l]) => [target, l.value, l.entry.line]);

describe("a falsy line made null or not null before the header", () => {
  it("gives the other falsy lines' findings afresh: Pi 0.73/0.74 throws on a null header, overwrites the file on another", () => {
    const header = readFileSync(join(FIXTURES, "fault-null-before-header.jsonl"), "utf8").split("\n").slice(1).join("\n");
    const doc = new SessionDocument("file:///falsy.jsonl", "jsonl", 1, `false\nfalse\n${header}`);
    const before = computeDiagnostics(doc).filter((d) => d.range.start.line === 1);
    expect(before.map((d) => d.message).join()).toContain("overwrites the whole file");
    doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }, text: "null" }], 2);
    const fresh = new SessionDocument("file:///falsy.jsonl", "jsonl", 1, doc.getText());
    const after = computeDiagnostics(doc);
    expect(after).toEqual(computeDiagnostics(fresh));
    expect(
      after
        .filter((d) => d.range.start.line === 1)
        .map((d) => d.message)
        .join(),
    ).toContain("throws a TypeError on the null on line 1");
  });
});

describe("replayed line findings, kept hints and the kept outline equal a fresh computation", () => {
  it(`after random edits inside lines of ${files.length} fixtures`, () => {
    const random = seededRandom(7);
    let compared = 0;
    const outlines: [string, unknown, string][] = [];
    for (const name of files) {
      const text = readFileSync(join(FIXTURES, name), "utf8");
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, text);
      computeDiagnostics(doc);
      for (let step = 0; step < 24; step++) {
        const line = Math.floor(random() * doc.lineCount);
        const before = doc.lines[line]!;
        const [pattern, replacement] = EDITS[Math.floor(random() * EDITS.length)]!;
        const after = before.replace(pattern, replacement);
        if (after === before) continue;
        const end = { line: doc.lspLine(line), character: before.length };
        doc.update([{ range: { start: { line: doc.lspLine(line), character: 0 }, end }, text: after }], doc.version + 1);
        if (random() < 0.3) continue;
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const where = `${name}, edit ${step} on line ${line + 1}`;
        expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
        // What the server sends: capped per code, and the fading hints kept for the structure.
        expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
        expect(computeFadingHints(doc), where).toEqual(computeFadingHints(fresh));
        expect(computeFadingHints(doc, { maxFaded: 1 }), where).toEqual(computeFadingHints(fresh, { maxFaded: 1 }));
        // The outline, kept per structure with the symbols that read each line patched.
        const outline = computeDocumentSymbols(doc, { maxSymbols: 2000 });
        expect(outline, where).toEqual(computeDocumentSymbols(fresh, { maxSymbols: 2000 }));
        expect(computeDocumentSymbols(doc, { maxSymbols: 5 }), where).toEqual(computeDocumentSymbols(fresh, { maxSymbols: 5 }));
        expect(computeFoldingRanges(doc), where).toEqual(computeFoldingRanges(fresh));
        expect(computeCodeLenses(doc), where).toEqual(computeCodeLenses(fresh));
        expect(labelsOf(doc), where).toEqual(labelsOf(fresh));
        outlines.push([where, outline, JSON.stringify(outline)]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(files.length * 2);
    // An answer given is never changed by a later edit: the kept outline is copied out.
    for (const [where, outline, json] of outlines) expect(JSON.stringify(outline), where).toBe(json);
  });

  it(`after random edits inside the resumed context of ${files.length} fixtures (the request findings updated in place)`, () => {
    const random = seededRandom(21);
    let compared = 0;
    for (const name of files) {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      computeDiagnostics(doc);
      computeCodeLenses(doc);
      for (let step = 0; step < 24; step++) {
        const line = editInContext(doc, random);
        if (line === undefined) break;
        if (line < 0 || random() < 0.3) continue;
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const where = `${name}, edit ${step} on line ${line + 1}`;
        expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
        expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
        expect(computeCodeLenses(doc), where).toEqual(computeCodeLenses(fresh));
        expect(computeDocumentSymbols(doc, { maxSymbols: 2000 }), where).toEqual(computeDocumentSymbols(fresh, { maxSymbols: 2000 }));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(files.length * 2);
  });

  it("keeps an empty user message's finding across edits of other messages, and redoes it when its own message changes", () => {
    const text = readFileSync(join(FIXTURES, "fault-empty-user-message.jsonl"), "utf8");
    const doc = new SessionDocument("file:///empty-user.jsonl", "jsonl", 1, text);
    const emptyFindings = () => computeDiagnostics(doc).filter((d) => d.code === "empty-user-message");
    expect(emptyFindings()).toHaveLength(1);
    const lines = text.split("\n");
    let version = 1;
    const type = (line: number, at: number, inserted: string, removed = 0) =>
      doc.update([{ range: { start: { line, character: at }, end: { line, character: at + removed } }, text: inserted }], ++version);
    const compare = (where: string) => {
      const fresh = new SessionDocument("file:///empty-user.jsonl", "jsonl", 1, doc.getText());
      expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
    };
    // Typing in the messages before and after the empty one: its finding is kept, and still right.
    for (const line of [2, 5, 7]) {
      type(line, lines[line]!.indexOf('"text":"') + 8, "x");
      compare(`typing on line ${line + 1}`);
      expect(emptyFindings(), `typing on line ${line + 1}`).toHaveLength(1);
    }
    // The empty message gets text (its finding goes), then loses it again (it comes back).
    const empty = doc.getText().split("\n")[6]!.indexOf('"content":""') + '"content":"'.length;
    type(6, empty, "now");
    compare("the empty message given text");
    expect(emptyFindings()).toEqual([]);
    type(6, empty, "", 3);
    compare("the text taken out again");
    expect(emptyFindings()).toHaveLength(1);
  });

  it("brings the kept outline, hints and findings up to date after an edit of each line in turn", () => {
    // Every line of sessions with branches, compactions and cycles lengthened in turn: the end of
    // each branch's and run's range is some line's end, so each is moved once.
    for (const name of [
      "written-16-branches.jsonl",
      "written-074-branches.jsonl",
      "written-16-compaction.jsonl",
      "fault-cycle-off-leaf.jsonl",
      "written-16-conversation.jsonl",
    ]) {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      computeDocumentSymbols(doc, { maxSymbols: 2000 });
      computeFadingHints(doc);
      computeDiagnostics(doc);
      for (let line = 0; line < doc.lineCount; line++) {
        const at = doc.lines[line]!.lastIndexOf('"');
        if (at < 0) continue;
        doc.update([{ range: { start: { line, character: at }, end: { line, character: at } }, text: "y" }], doc.version + 1);
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const where = `${name}, line ${line + 1}`;
        expect(computeDocumentSymbols(doc, { maxSymbols: 2000 }), where).toEqual(computeDocumentSymbols(fresh, { maxSymbols: 2000 }));
        expect(computeFadingHints(doc), where).toEqual(computeFadingHints(fresh));
        expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
        expect(labelsOf(doc), where).toEqual(labelsOf(fresh));
      }
    }
  });

  it("locates a related location again when the line it is on moves its tokens", () => {
    const { text } = parseFixture(readFileSync(join(__dirname, "../fixtures/diagnostics/first-kept-not-on-path.txt"), "utf8"));
    const doc = new SessionDocument("file:///kept.jsonl", "jsonl", 1, text);
    const related = () => computeDiagnostics(doc).find((d) => d.code === "first-kept-not-on-path")!.relatedInformation![0]!.location.range;
    const before = related();
    // Line 7 holds the entry the compaction names: a space before its id moves the related range.
    doc.update([{ range: { start: { line: 6, character: 1 }, end: { line: 6, character: 1 } }, text: " " }], 2);
    expect(related().start.character).toBe(before.start.character + 1);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///kept.jsonl", "jsonl", 1, doc.getText())));
  });

  it("locates a blank line's finding again when its whitespace changes (blank lines share one parse)", () => {
    const text =
      '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n   \n{"type":"model_change","id":"m","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"p","modelId":"x"}\n';
    const doc = new SessionDocument("file:///blank-mid.jsonl", "jsonl", 1, text);
    computeDiagnostics(doc);
    computeDocumentSymbols(doc, { maxSymbols: 2000 });
    doc.update([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } }, text: "" }], 2);
    const blank = computeDiagnostics(doc).find((d) => d.code === "blank-line")!;
    expect(blank.range.end).toEqual({ line: 1, character: 1 });
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///blank-mid.jsonl", "jsonl", 1, doc.getText())));
  });

  it("locates a request diagnostic on an earlier compaction again when that compaction's line is edited", () => {
    // A later compaction keeps only the last entries, so the first compaction's line is not among
    // the lines the resumed context reads; its compaction-keeps-tool-result range must still move.
    const base = readFileSync(join(FIXTURES, "fault-compaction-keeps-tool-result.jsonl"), "utf8");
    const later = [
      '{"type":"compaction","id":"a000000b","parentId":"a000000a","timestamp":"2026-03-02T10:00:16.000Z","summary":"s","firstKeptEntryId":"a000000a","tokensBefore":100}',
      '{"type":"message","id":"a000000c","parentId":"a000000b","timestamp":"2026-03-02T10:00:17.000Z","message":{"role":"user","content":"Go on.","timestamp":1772445617000}}',
    ];
    const doc = new SessionDocument("file:///two-compactions.jsonl", "jsonl", 1, `${base}${later.join("\n")}\n`);
    const kept = () => computeDiagnostics(doc).find((d) => d.code === "compaction-keeps-tool-result")!.range;
    const before = kept();
    expect(before.start.line).toBe(8);
    const at = doc.lines[8]!.indexOf('"summary":"') + 11;
    doc.update([{ range: { start: { line: 8, character: at }, end: { line: 8, character: at } }, text: "x" }], 2);
    expect(kept().start.character).toBe(before.start.character + 1);
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(new SessionDocument("file:///two-compactions.jsonl", "jsonl", 1, doc.getText())));
  });

  it("checks the last line again: blank lines share one parse, and only an empty last line is skipped", () => {
    // Found by the robustness test: the last line " " became "", keeping the shared blank parse.
    const text = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n \n ';
    const doc = new SessionDocument("file:///blank.jsonl", "jsonl", 1, text);
    expect(computeDiagnostics(doc).filter((d) => d.code === "blank-line")).toHaveLength(2);
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 1 } }, text: "" }], 2);
    const fresh = new SessionDocument("file:///blank.jsonl", "jsonl", 1, doc.getText());
    expect(computeDiagnostics(doc)).toEqual(computeDiagnostics(fresh));
    expect(computeDiagnostics(doc).filter((d) => d.code === "blank-line")).toHaveLength(1);
  });
});
