/**
 * The unsafe fixes: recovering a cut-off entry (every original character kept), and Fix all with
 * the unsafe fixes too (`check --fix --unsafe-fixes`, `source.piSession.fixAllUnsafe`); plus the
 * code action kinds real clients ask for.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TextEdit } from "vscode-languageserver";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeActions, FIX_ALL_KIND, QUICK_FIX_KIND, UNSAFE_FIX_ALL_KIND } from "../../server/src/features/codeActions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { quickFixes } from "../../server/src/features/fixes";
import { applyFixes, applySafeFixes } from "../../server/src/features/fixes/fixAll";
import { insertionsInto, recoverLine } from "../../server/src/features/fixes/recover";
import { HEADER, assistant, session, user } from "../helpers/piLines";

const URI = "file:///home/dev/.pi/agent/sessions/--home-dev-p--/2026-03-02T10-00-00-000Z_x.jsonl";
const options = { now: () => new Date("2026-03-02T12:00:00.000Z"), random: () => 0.5 };
const FIXTURES = join(__dirname, "../parity/fixtures");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
const doc = (text: string) => new SessionDocument(URI, "jsonl", 1, text);
const errors = (d: SessionDocument) =>
  computeDiagnostics(d)
    .filter((x) => x.severity === 1)
    .map((x) => String(x.code));

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const d = doc(text);
  const sorted = [...edits].sort((x, y) => y.range.start.line - x.range.start.line || y.range.start.character - x.range.start.character);
  d.update(
    sorted.map((e) => ({ range: e.range, text: e.newText })),
    2,
  );
  return d.getText();
}

/** The quick fixes offered for the first diagnostic of `code`. */
function fixesFor(text: string, code: string) {
  const d = doc(text);
  const diagnostic = computeDiagnostics(d).find((x) => x.code === code);
  if (!diagnostic) throw new Error(`no ${code} in:\n${text}`);
  return quickFixes(d, [diagnostic], options)[0]!.fixes;
}

/** Whether `inner`'s characters all appear in `outer`, in order. */
function isSubsequence(inner: string, outer: string): boolean {
  let i = 0;
  for (let k = 0; k < outer.length && i < inner.length; k++) if (outer[k] === inner[i]) i++;
  return i === inner.length;
}

const ids = (d: SessionDocument) => {
  const built = buildContext(d.analysis);
  if (!built.ok) throw new Error("the context failed");
  return built.build.path.map((e) => e.id);
};

describe("recover the entry", () => {
  it("recovers a cut-off entry in the middle: its child is no longer dangling and the context is whole again", () => {
    const text = fixture("fault-cut-entry-middle.jsonl");
    const before = doc(text);
    expect(errors(before)).toEqual(["malformed-json", "dangling-parent"]);
    expect(ids(before)).toEqual(["a0000005", "a0000006", "a0000007"]);
    const recover = fixesFor(text, "malformed-json").find((f) => f.title.startsWith("Recover"))!;
    expect(recover.title).toBe('Recover the entry "a0000004" (unsafe: guesses how the entry ended)');
    expect(recover.safe).toBe(false);
    // Only insertions: every edit is empty before it is applied.
    for (const e of recover.edits) expect(e.range.start).toEqual(e.range.end);
    const fixed = applyEdits(text, recover.edits);
    const cut = text.split("\n")[4]!;
    const recovered = fixed.split("\n")[4]!;
    expect(recovered.startsWith(cut)).toBe(true);
    expect(JSON.parse(recovered).message.content[0].text).toBe("export const add = (a, b)");
    // Every other line is untouched.
    expect(fixed.split("\n").filter((_, i) => i !== 4)).toEqual(text.split("\n").filter((_, i) => i !== 4));
    const after = doc(fixed);
    expect(errors(after)).toEqual([]);
    expect(ids(after)).toEqual(["a0000001", "a0000002", "a0000003", "a0000004", "a0000005", "a0000006", "a0000007"]);
  });

  it("comes before deleting the line, and the deletion stays offered", () => {
    const titles = fixesFor(fixture("fault-cut-entry-middle.jsonl"), "malformed-json").map((f) => f.title);
    expect(titles).toEqual([
      'Recover the entry "a0000004" (unsafe: guesses how the entry ended)',
      'Delete line 5 (its text is lost: 227 characters, {"type":"message","id":"a0000004","parentId":"a0…)',
    ]);
  });

  it("inserts in the middle of the line where the repair needs it, keeping every character in order", () => {
    const a = user("a0000001", null, "hi", 1);
    const cut = '{"type":"custom","id":"c0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:03.000Z","customType":"x","data":{"ok":tr';
    const text = session(HEADER, a, cut, assistant("b0000003", "c0000002", "yes", 4));
    const recover = fixesFor(text, "malformed-json").find((f) => f.title.startsWith("Recover"))!;
    expect(recover.edits.length).toBe(2);
    const line = applyEdits(text, recover.edits).split("\n")[2]!;
    expect(line).toBe(`${cut.slice(0, -2)}"tr"}}`);
    expect(isSubsequence(cut, line)).toBe(true);
    expect(errors(doc(applyEdits(text, recover.edits)))).toEqual([]);
  });

  it("also ends a cut-off last line with its newline", () => {
    const a = user("a0000001", null, "hi", 1);
    const cut = assistant("b0000002", "a0000001", "a long answer", 2).slice(0, 140);
    const text = `${session(HEADER, a)}${cut}`;
    const recover = fixesFor(text, "truncated-line").find((f) => f.title.startsWith("Recover"))!;
    const fixed = applyEdits(text, recover.edits);
    expect(fixed.startsWith(text)).toBe(true);
    expect(fixed.endsWith("}}\n")).toBe(true);
    expect(errors(doc(fixed))).toEqual([]);
  });

  it("is not offered when the guess would lose a character, lose the id or the parent, or give Pi an entry it fails on", () => {
    const inUse = () => false;
    // jsonrepair drops a trailing comma or a cut escape: that is a rewrite, not a cut closed.
    expect(recoverLine('{"type":"custom","id":"c1","parentId":null,', inUse)).toBeUndefined();
    expect(recoverLine('{"type":"custom","id":"c1","parentId":null,"data":"a\\', inUse)).toBeUndefined();
    // The id or the parentId was cut.
    expect(recoverLine('{"type":"custom","id":"c1"', inUse)).toBeUndefined();
    expect(recoverLine('{"type":"custom","id', inUse)).toBeUndefined();
    // Another entry holds the id: Pi would resolve it to another entry.
    expect(recoverLine('{"type":"custom","id":"c1","parentId":null,"data":{', (id) => id === "c1")).toBeUndefined();
    // A message entry cut before its message: Pi throws building the context through it.
    expect(recoverLine('{"type":"message","id":"c1","parentId":null,"timestamp":"2026-03-02T10:00:03.000Z","mess', inUse)).toBeUndefined();
    // Pi 0.73/0.74 writes its next entry onto a cut-off line: two entries on one line are not a cut to close.
    const next = user("a0000002", "c1", "next", 3);
    expect(recoverLine(`{"type":"custom","id":"c1","parentId":null,"data":{"text":"hel${next}`, inUse)).toBeUndefined();
    expect(recoverLine(`{"type":"custom","id":"c1","parentId":null,"data":[1,2${next}`, inUse)).toBeUndefined();
    // Not an object, or a header.
    expect(recoverLine('["type","id"', inUse)).toBeUndefined();
    expect(recoverLine('{"type":"session","version":3,"id":"s1","parentId":null,"cwd":"/x', inUse)).toBeUndefined();
    expect(recoverLine('{"type":"custom","id":"c1","parentId":null,"data":{', inUse)?.id).toBe("c1");
  });

  it("is not offered on the parity corpus's cut-off last line, a message cut before its message", () => {
    const titles = fixesFor(fixture("fault-truncated-last-line.jsonl"), "truncated-line").map((f) => f.title);
    expect(titles.some((t) => t.startsWith("Recover"))).toBe(false);
  });

  it("finds the insertions only when the original is a subsequence of the repair", () => {
    expect(insertionsInto('{"a":[1', '{"a":[1]}')).toEqual([{ offset: 7, text: "]}" }]);
    expect(insertionsInto('{"a":tr', '{"a":"tr"}')).toEqual([
      { offset: 5, text: '"' },
      { offset: 7, text: '"}' },
    ]);
    expect(insertionsInto('{"a":1,', '{"a":1}')).toBeUndefined();
    expect(insertionsInto("{}", "{}")).toEqual([]);
  });
});

describe("fix all with the unsafe fixes", () => {
  it("recovers a cut entry, where the safe pass leaves it and its dangling child", () => {
    const d = doc(fixture("fault-cut-entry-middle.jsonl"));
    expect(errors(applySafeFixes(d, options).doc)).toEqual(["malformed-json", "dangling-parent"]);
    const result = applyFixes(d, { ...options, unsafe: true });
    expect(errors(result.doc)).toEqual([]);
    expect(result.unsafe).toEqual([{ code: "malformed-json", summary: 'recovered the cut-off entry "a0000004" (guessed how it ended)', line: 4 }]);
    expect(ids(result.doc)).toHaveLength(7);
  });

  it("deletes what cannot be recovered and re-links the child it leaves dangling, listing both on the original lines", () => {
    const result = applyFixes(doc(fixture("fault-malformed-middle.jsonl")), { ...options, unsafe: true });
    expect(errors(result.doc)).toEqual([]);
    expect(result.unsafe).toEqual([
      {
        code: "malformed-json",
        summary: 'deleted the line (its text is lost: 275 characters, {"type":"message","id":"a0000004","parentId":"a0…)',
        line: 4,
      },
      { code: "dangling-parent", summary: "re-linked parentId a0000004 to a0000003", line: 5 },
    ]);
    expect(result.fixed).toEqual(
      new Map([
        ["malformed-json", 1],
        ["dangling-parent", 1],
      ]),
    );
  });

  it("gives lines a safe fix inserted above as their original numbers", () => {
    // The missing header is inserted first (a safe fix), so the dangling entry is on line 3 of the
    // copy it is re-linked in and on line 2 of the file.
    const text = session(user("a0000001", null, "hi", 1), assistant("b0000002", "deadbeef", "yo", 2));
    const result = applyFixes(doc(text), { ...options, unsafe: true });
    expect(result.fixed.get("missing-header")).toBe(1);
    expect(result.unsafe).toEqual([{ code: "dangling-parent", summary: "re-linked parentId deadbeef to a0000001", line: 1 }]);
  });

  it.each(readdirSync(FIXTURES).filter((f) => f.startsWith("fault-") && f.endsWith(".jsonl")))(
    "%s: no error with a fix of any kind is left, and the safe fixes alone change nothing the unsafe pass would not",
    (name) => {
      const d = doc(fixture(name));
      const result = applyFixes(d, { ...options, unsafe: true });
      const left = computeDiagnostics(result.doc).filter((x) => x.severity === 1);
      const leftWithFixes = quickFixes(result.doc, left, options).filter(({ fixes }) => fixes.length > 0);
      expect(leftWithFixes.map(({ diagnostic }) => diagnostic.code)).toEqual([]);
      if (result.unsafe.length === 0) expect(result.doc.getText()).toBe(applySafeFixes(d, options).doc.getText());
    },
  );
});

describe("code action kinds", () => {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const kinds = (text: string, only?: string[]) => {
    const d = doc(text);
    return computeCodeActions(d, range, only ? { diagnostics: [], only } : { diagnostics: [] }, options).map((x) => x.kind);
  };
  const cut = fixture("fault-cut-entry-middle.jsonl");

  it("answers source.fixAll and source with Fix all; the unsafe Fix all only for source or its own kind, never for source.fixAll", () => {
    expect(kinds(cut, ["source.fixAll"])).toEqual([]);
    expect(kinds(`\uFEFF${cut}`, ["source.fixAll"])).toEqual([FIX_ALL_KIND]);
    expect(kinds(`\uFEFF${cut}`, [FIX_ALL_KIND])).toEqual([FIX_ALL_KIND]);
    expect(kinds(`\uFEFF${cut}`, ["source"])).toEqual([FIX_ALL_KIND, UNSAFE_FIX_ALL_KIND]);
    expect(kinds(cut, ["source"])).toEqual([UNSAFE_FIX_ALL_KIND]);
    expect(kinds(cut, [UNSAFE_FIX_ALL_KIND])).toEqual([UNSAFE_FIX_ALL_KIND]);
    expect(kinds(cut)).toEqual([]);
  });

  it("the unsafe Fix all says so and gives the unsafe pass's text", () => {
    const d = doc(cut);
    const [action] = computeCodeActions(d, range, { diagnostics: [], only: [UNSAFE_FIX_ALL_KIND] }, options);
    expect(action!.title).toBe("Fix all, including unsafe fixes (malformed-json; they guess, and may lose text)");
    expect(applyEdits(cut, action!.edit!.changes![URI]!)).toBe(applyFixes(d, { ...options, unsafe: true }).doc.getText());
  });

  it("is not offered when there is no unsafe fix to apply", () => {
    expect(kinds(`\uFEFF${session(HEADER, user("a0000001", null, "hi", 1))}`, ["source"])).toEqual([FIX_ALL_KIND]);
  });

  it.each([
    ["an empty file", ""],
    ["a whitespace-only file", "  \n\n\t\n \n"],
  ])("offers the header fix of %s for any range, without the diagnostic in the request", (_what, text) => {
    const d = doc(text);
    const anywhere = { start: { line: 2, character: 1 }, end: { line: 3, character: 0 } };
    const actions = computeCodeActions(d, anywhere, { diagnostics: [] }, options);
    expect(actions.map((x) => [x.kind, x.title, x.diagnostics?.[0]?.code])).toEqual([
      [QUICK_FIX_KIND, "Insert a session header (cwd /home/dev/p)", "empty-file"],
    ]);
    expect(JSON.parse(applyEdits(text, actions[0]!.edit!.changes![URI]!)).type).toBe("session");
    // Sent with the diagnostic, it is offered once.
    expect(computeCodeActions(d, anywhere, { diagnostics: computeDiagnostics(d) }, options)).toHaveLength(1);
    expect(computeCodeActions(d, anywhere, { diagnostics: [], only: ["source.fixAll"] }, options).map((x) => x.kind)).toEqual([FIX_ALL_KIND]);
  });

  it("offers nothing for a range without diagnostics in a file with content", () => {
    expect(kinds(session(HEADER, user("a0000001", null, "hi", 1)))).toEqual([]);
  });
});
