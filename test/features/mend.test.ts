/**
 * Mending a malformed line instead of deleting it: entries joined without a newline are split, and
 * a slip (a missing comma, quote or bracket, garbage after the entry) is repaired when jsonrepair
 * only inserts. The fixtures (`test/fixtures/mend/make.mjs`) are the real Pi 1.6.0 session
 * `written-16-compaction.jsonl` with one line broken, so a mend is right when it gives that file back.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeActions } from "../../server/src/features/codeActions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { quickFixes } from "../../server/src/features/fixes";
import { applyFixes } from "../../server/src/features/fixes/fixAll";
import { MAX_REPAIR_CHARS, repairLine, splitLine } from "../../server/src/features/fixes/mend";
import { HEADER, assistant, compaction, session, user } from "../helpers/piLines";

const URI = "file:///home/dev/.pi/agent/sessions/--home-dev-p--/2026-03-02T10-00-00-000Z_x.jsonl";
const options = { now: () => new Date("2026-03-02T12:00:00.000Z"), random: () => 0.5 };
const doc = (text: string) => new SessionDocument(URI, "jsonl", 1, text);
const fixture = (name: string) => readFileSync(join(__dirname, "../fixtures/mend", `${name}.jsonl`), "utf8");
const ORIGINAL = readFileSync(join(__dirname, "../parity/fixtures/written-16-compaction.jsonl"), "utf8");
const free = () => false;

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const d = doc(text);
  const sorted = [...edits].sort((x, y) => y.range.start.line - x.range.start.line || y.range.start.character - x.range.start.character);
  d.update(
    sorted.map((e) => ({ range: e.range, text: e.newText })),
    2,
  );
  return d.getText();
}

/** The quick fixes of the malformed line. */
function fixesOf(text: string) {
  const d = doc(text);
  const diagnostic = computeDiagnostics(d).find((x) => x.code === "malformed-json");
  if (!diagnostic) throw new Error("no malformed-json");
  return quickFixes(d, [diagnostic], options)[0]!.fixes;
}

/** The titles of the quick fixes the editor lists for the malformed line, with whether each is preferred. */
function actionTitles(text: string) {
  const d = doc(text);
  const diagnostic = computeDiagnostics(d).find((x) => x.code === "malformed-json")!;
  return computeCodeActions(d, diagnostic.range, { diagnostics: [diagnostic], only: ["quickfix"] }, options).map((a) => [a.title, a.isPreferred ?? false]);
}

describe("mending the fixtures gives Pi's file back", () => {
  const cases: [string, number, string, boolean][] = [
    ["missing-comma", 5, 'Mend line 5 into the user message "27a32afe": insert "," at column 172, and 1 entry below it no longer dangles', true],
    ["missing-quote", 11, 'Mend line 11 into the user message "fba37a0b": insert "\\"" at column 119, and 1 entry below it no longer dangles', true],
    ["missing-bracket", 8, 'Mend line 8 into the assistant message "0d80b07e": insert "}" at column 180, and 1 entry below it no longer dangles', true],
    [
      "trailing-garbage",
      9,
      'Mend line 9 into the user message "dac1788a": drop the 4 characters after the entry ("\\u0000\\u0000\\u0000\\u0000"), and 1 entry below it no longer dangles',
      false,
    ],
    [
      "joined-assistant-compaction",
      12,
      'Split line 12 into 2 lines (assistant message "0bc69f73", compaction "99725907"), every byte kept: Pi then reads both entries, and 1 entry below them no longer dangles',
      true,
    ],
    [
      "joined-assistant-user",
      10,
      'Split line 10 into 2 lines (assistant message "ca121002", user message "fba37a0b"), every byte kept: Pi then reads both entries, and 1 entry below them no longer dangles',
      true,
    ],
  ];

  it.each(cases)("%s: the mend comes first, deletion last, and the mend alone restores the file", (name, line, title, preferred) => {
    const text = fixture(name);
    const fixes = fixesOf(text);
    expect(fixes[0]!.title.slice(0, title.length + 10)).toBe(`${title} (unsafe: `);
    expect(fixes.at(-1)!.title).toMatch(new RegExp(`^Delete line ${line} \\(its text is lost: [0-9,]+ characters, \\{"type":"message"`));
    expect(fixes.map((f) => f.safe)).toEqual(fixes.map(() => false));
    // The editor marks the mend preferred when it keeps every character; deletion never is.
    const actions = actionTitles(text);
    expect(actions[0]).toEqual([fixes[0]!.title, preferred]);
    expect(actions.at(-1)![1]).toBe(false);
    expect(applyEdits(text, fixes[0]!.edits)).toBe(ORIGINAL);
  });

  it.each(cases)("%s: --unsafe-fixes mends it, with one note on the line as read", (name, line) => {
    const result = applyFixes(doc(fixture(name)), { ...options, unsafe: true });
    expect(result.doc.getText()).toBe(ORIGINAL);
    expect(result.unsafe.map((u) => [u.code, u.line + 1])).toEqual([["malformed-json", line]]);
    expect(result.unsafe[0]!.summary).toMatch(
      /^(mended the line into the .* message "[0-9a-f]{8}": (inserted|dropped) |split the line into 2 lines .*, every byte kept$)/,
    );
  });

  it("in a file with CRLF line endings, the split writes CRLF too", () => {
    const crlf = (text: string) => text.replaceAll("\n", "\r\n");
    const result = applyFixes(doc(crlf(fixture("joined-assistant-user"))), { ...options, unsafe: true });
    expect(result.doc.getText()).toBe(crlf(ORIGINAL));
  });

  it("a Windows path with unescaped backslashes: jsonrepair would drop the backslashes, so only deleting the line is offered", async () => {
    const { jsonrepair } = await import("jsonrepair");
    const text = fixture("lossy-repair");
    const line = text.split("\n")[13]!;
    // What jsonrepair makes of the line loses the backslashes of the path: content lost.
    const repaired = jsonrepair(line);
    expect(repaired).toContain("C:srcmath.test.ts");
    expect(repairLine(line, free)).toBeUndefined();
    expect(fixesOf(text).map((f) => f.title)).toEqual(['Delete line 14 (its text is lost: 193 characters, {"type":"message","id":"c4cc12c9","parentId":"99…)']);
    const result = applyFixes(doc(text), { ...options, unsafe: true });
    expect(result.unsafe.map((u) => [u.code, u.line + 1])).toEqual([
      ["malformed-json", 14],
      ["dangling-parent", 15],
    ]);
  });
});

describe("splitLine", () => {
  const a = assistant("b0000002", "a0000001", "yes", 2);
  const u = user("a0000003", "b0000002", "more", 3);
  const c = compaction("c0000004", "a0000003", "a0000003", 100, 4);

  it("splits two or more whole entries, with or without spaces between them", () => {
    expect(splitLine(a + u, free)?.entries.map((e) => [e.id, e.kind])).toEqual([
      ["b0000002", "assistant message"],
      ["a0000003", "user message"],
    ]);
    expect(splitLine(`${a} \t ${u}${c}`, free)?.entries.map((e) => e.id)).toEqual(["b0000002", "a0000003", "c0000004"]);
  });

  it("puts a cut-off entry after whole ones on a line of its own", () => {
    const split = splitLine(`${a}${u.slice(0, 40)}`, free)!;
    expect(split.entries.map((e) => e.id)).toEqual(["b0000002"]);
    expect(split.cutRest).toEqual({ start: a.length, end: a.length + 40 });
  });

  it("puts the entries Pi 0.73/0.74 wrote onto a cut-off line on lines of their own", () => {
    const cut = '{"type":"custom","id":"c0000009","parentId":null,"data":{"text":"hel';
    const split = splitLine(cut + a + u, free)!;
    expect(split.cutHead).toEqual({ start: 0, end: cut.length });
    expect(split.entries.map((e) => e.id)).toEqual(["b0000002", "a0000003"]);
    // Text that is not an entry before a whole one is kept on its own line too; blank text is not a cut.
    expect(splitLine(`# note ${a}`, free)?.cutHead).toEqual({ start: 0, end: 7 });
    expect(splitLine(`{"type":"x",${a}`, free)?.entries.map((e) => e.id)).toEqual(["b0000002"]);
  });

  it("refuses objects that are not entries Pi can use, ids held twice, and text that is not an object after them", () => {
    expect(splitLine('{"a":1}{"b":2}', free)).toBeUndefined();
    expect(splitLine(a + a, free)).toBeUndefined();
    expect(splitLine(a + u, (id) => id === "a0000003")).toBeUndefined();
    expect(splitLine(`${a}xyz`, free)).toBeUndefined();
    expect(splitLine(a, free)).toBeUndefined();
    // A header joined with an entry is not split: which of them Pi should read as the header is a guess.
    expect(splitLine(HEADER + u, free)).toBeUndefined();
  });

  it("splits a huge line of joined entries, which no jsonrepair bound limits", () => {
    const big = user("a0000009", "b0000002", "x".repeat(3 * MAX_REPAIR_CHARS), 5);
    expect(splitLine(a + big, free)?.entries.map((e) => e.id)).toEqual(["b0000002", "a0000009"]);
  });
});

describe("repairLine", () => {
  const u = user("a0000003", "b0000002", "more, please", 3);

  it("takes jsonrepair's insertions and drops garbage after the entry that holds no string", () => {
    expect(repairLine(u.replace(',"message"', '"message"'), free)?.insertions).toEqual([{ offset: u.indexOf(',"message"'), text: "," }]);
    expect(repairLine(`${u}}]`, free)).toMatchObject({ insertions: [], dropped: { start: u.length, end: u.length + 2 } });
  });

  it("refuses garbage that holds a string or another object, a rewrite, and a line over the bound", () => {
    expect(repairLine(`${u}"lost text"`, free)).toBeUndefined();
    expect(repairLine(`${u}{"x"`, free)).toBeUndefined();
    // Single quotes: jsonrepair changes characters instead of inserting.
    expect(repairLine(u.replaceAll('"', "'"), free)).toBeUndefined();
    // A trailing comma: jsonrepair drops it, and a dropped character is a character lost.
    expect(repairLine(u.replace("}}", ",}}"), free)).toBeUndefined();
    const huge = user("a0000009", "b0000002", "y".repeat(MAX_REPAIR_CHARS), 5).replace(',"message"', '"message"');
    expect(repairLine(huge, free)).toBeUndefined();
  });

  it("refuses an entry Pi cannot use: an id another entry holds, no parentId", () => {
    const broken = u.replace(',"message"', '"message"');
    expect(repairLine(broken, (id) => id === "a0000003")).toBeUndefined();
    expect(repairLine(broken.replace('"parentId":"b0000002",', ""), free)).toBeUndefined();
  });

  it("on a huge line with a missing comma offers only deleting it", () => {
    const huge = user("a0000009", "a0000001", "y".repeat(MAX_REPAIR_CHARS), 5).replace(',"message"', '"message"');
    const titles = fixesOf(session(HEADER, user("a0000001", null, "hi", 1), huge)).map((f) => f.title);
    expect(titles).toEqual([expect.stringMatching(/^Delete the cut-off last line|^Delete line 3 \(its text is lost: 1,048,7\d\d characters, /)]);
  });
});

describe("a cut-off entry with the next entry written onto it", () => {
  it("is split, the cut-off entry recovered, and both fixes noted on the line as read", () => {
    const a = user("a0000001", null, "hi", 1);
    const cut = '{"type":"custom","id":"c0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","customType":"x","data":{"text":"hel';
    const next = user("a0000003", "c0000002", "next", 3);
    const after = assistant("b0000004", "a0000003", "ok", 4);
    const text = session(HEADER, a, cut + next, after);
    expect(fixesOf(text)[0]!.title).toBe(
      'Split line 3 into 2 lines (cut-off text, user message "a0000003"), every byte kept: Pi then reads the entry, and 1 entry below it no longer dangles (unsafe: changes the context)',
    );
    const result = applyFixes(doc(text), { ...options, unsafe: true });
    const lines = result.doc.getText().split("\n");
    expect(lines[2]!.startsWith(cut)).toBe(true);
    expect(lines[3]).toBe(next);
    expect(result.unsafe.map((u) => [u.code, u.line + 1, u.summary.slice(0, 20)])).toEqual([
      ["malformed-json", 3, "split the line into "],
      ["malformed-json", 3, "recovered the cut-of"],
    ]);
    expect(computeDiagnostics(result.doc).filter((d) => d.severity === 1)).toEqual([]);
  });
});

describe("the notes of a fix run", () => {
  it("use the lines of the file as read, in order, whichever round fixed them", () => {
    const a = user("a0000001", null, "hi", 1);
    // Line 3 dangles (re-linked in the last round); line 4 holds two entries (split in the first),
    // the first of which dangles too once it is read (re-linked on a line the split added).
    const lost = assistant("b0000002", "deadbeef", "yes", 2);
    const joined = user("a0000003", "feedface", "more", 3) + assistant("b0000004", "a0000003", "ok", 4);
    const result = applyFixes(doc(session(HEADER, a, lost, joined, user("a0000005", "b0000004", "next", 5))), { ...options, unsafe: true });
    expect(result.unsafe.map((u) => [u.code, u.line + 1])).toEqual([
      ["dangling-parent", 3],
      ["malformed-json", 4],
      ["dangling-parent", 4],
    ]);
    expect(computeDiagnostics(result.doc).filter((d) => d.severity === 1)).toEqual([]);
  });
});
