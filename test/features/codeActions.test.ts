/**
 * Quick fixes and fix all. Each quick fix test gives the input, the fix chosen (by its diagnostic's
 * code and a piece of its title) and the expected text, and re-checks the result: the diagnostic
 * the fix mends is gone. Fix all runs over every fault of the parity corpus.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CodeAction, Diagnostic, TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { FIX_ALL_KIND, computeCodeActions } from "../../server/src/features/codeActions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { editsBetween, lineDiff, unifiedDiff, unitsOf } from "../../server/src/core/edits/diff";
import { cwdForDocument } from "../../server/src/core/disk/location";
import { quickFixes } from "../../server/src/features/fixes";
import { applySafeFixes } from "../../server/src/features/fixes/fixAll";
import { freshEntryId, uuidv7 } from "../../server/src/core/base/ids";
import { HEADER, assistant, session, user } from "../helpers/piLines";

const URI = "file:///home/dev/.pi/agent/sessions/--home-dev-p--/2026-03-02T10-00-00-000Z_x.jsonl";
const NOW = new Date("2026-03-02T12:00:00.000Z");
const options = { now: () => NOW, random: () => 0.5 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const doc = (text: string, uri = URI) => new SessionDocument(uri, "jsonl", 1, text);

/** Applies edits computed on `text`; throws if two of them overlap. */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const cmp = (x: TextEdit["range"]["start"], y: TextEdit["range"]["start"]) => x.line - y.line || x.character - y.character;
  const sorted = [...edits].sort((x, y) => cmp(y.range.start, x.range.start));
  for (let i = 1; i < sorted.length; i++) {
    if (cmp(sorted[i]!.range.end, sorted[i - 1]!.range.start) > 0) throw new Error(`overlapping edits: ${JSON.stringify(sorted)}`);
  }
  const d = doc(text);
  d.update(
    sorted.map((e) => ({ range: e.range, text: e.newText })),
    2,
  );
  return d.getText();
}

function actionsFor(text: string, code: string): { actions: CodeAction[]; diagnostic: Diagnostic } {
  const d = doc(text);
  const diagnostic = computeDiagnostics(d).find((x) => x.code === code);
  if (!diagnostic) throw new Error(`no ${code} diagnostic in:\n${text}`);
  return { actions: computeCodeActions(d, diagnostic.range, { diagnostics: [diagnostic] }, options), diagnostic };
}

/** Applies the fix of `code`'s first diagnostic whose title contains `title`; returns the new text. */
function fix(text: string, code: string, title: string): string {
  const { actions, diagnostic } = actionsFor(text, code);
  const action = actions.find((a) => a.title.includes(title));
  if (!action) throw new Error(`no fix "${title}" for ${code}; offered: ${actions.map((a) => a.title).join(" | ")}`);
  expect(action.kind).toBe("quickfix");
  expect(action.diagnostics).toEqual([diagnostic]);
  return applyEdits(text, action.edit!.changes![URI]!);
}

const codes = (text: string) => computeDiagnostics(doc(text)).map((d) => String(d.code));
const errors = (text: string) =>
  computeDiagnostics(doc(text))
    .filter((d) => d.severity === 1)
    .map((d) => String(d.code));

describe("quick fixes", () => {
  const a = user("a0000001", null, "hi", 1);
  const b = assistant("b0000002", "a0000001", "hello", 2);

  it("deletes a malformed line (not preferred: its text is lost)", () => {
    const text = session(HEADER, a, '{"type":"message", oops', b);
    const { actions } = actionsFor(text, "malformed-json");
    expect(actions.map((x) => [x.title, x.isPreferred ?? false])).toEqual([
      ['Delete line 3 (its text is lost: 23 characters, {"type":"message", oops)', false],
    ]);
    const fixed = fix(text, "malformed-json", "Delete line 3");
    expect(fixed).toBe(session(HEADER, a, b));
    expect(codes(fixed)).not.toContain("malformed-json");
  });

  it("deletes a malformed last line without a final newline, keeping the newline above", () => {
    const text = `${session(HEADER, a)}garbage`;
    expect(fix(text, "malformed-json", "Delete line 3")).toBe(session(HEADER, a));
  });

  it("deletes a cut-off last line, or ends it with a newline (safe, preferred)", () => {
    const text = `${session(HEADER, a)}{"type":"message","id":"b0000002","parentId":"a0000`;
    expect(fix(text, "truncated-line", "Delete the cut-off")).toBe(session(HEADER, a));
    const kept = fix(text, "truncated-line", "newline");
    expect(kept).toBe(`${text}\n`);
    expect(codes(kept)).not.toContain("truncated-line");
    const { actions } = actionsFor(text, "truncated-line");
    expect(actions.find((x) => x.title.includes("newline"))!.isPreferred).toBe(true);
  });

  it("inserts a missing header: UUIDv7 id, now, cwd from the sessions folder, version 3", () => {
    const text = session(a, b);
    const fixed = fix(text, "missing-header", "Insert a session header");
    const [first, ...rest] = fixed.split("\n");
    expect(rest.join("\n")).toBe(text);
    const header = JSON.parse(first!) as Record<string, unknown>;
    expect(Object.keys(header)).toEqual(["type", "version", "id", "timestamp", "cwd"]);
    expect(header).toMatchObject({ type: "session", version: 3, timestamp: "2026-03-02T12:00:00.000Z", cwd: "/home/dev/p" });
    expect(header.id).toMatch(UUID);
    // The first 48 bits are the time in milliseconds.
    expect(parseInt((header.id as string).replace(/-/g, "").slice(0, 12), 16)).toBe(NOW.getTime());
    expect(codes(fixed)).toEqual([]);
  });

  it("inserts a header when no line of the file parses, keeping every line", () => {
    // No line is JSON, so there is no first parseable line to be the header ("no-entries"):
    // Pi 0.73/0.74 overwrites such a file and 1.x refuses it, and the fix is the same header.
    const text = session('{"type":"message","id":"a0000001", cut off', "not json at all");
    const fixed = fix(text, "missing-header", "Insert a session header");
    const [first, ...rest] = fixed.split("\n");
    expect(rest.join("\n")).toBe(text);
    expect(JSON.parse(first!)).toMatchObject({ type: "session", version: 3, cwd: "/home/dev/p" });
    expect(codes(fixed)).not.toContain("missing-header");
  });

  it("inserts the header in place of a byte order mark", () => {
    const fixed = fix(`\uFEFF${session(a)}`, "missing-header", "Insert a session header");
    expect(fixed.charCodeAt(0)).toBe(123);
    expect(codes(fixed)).toEqual([]);
  });

  it("fills an empty or whitespace-only file with a header", () => {
    for (const text of ["", "  \n\n"]) {
      const fixed = fix(text, "empty-file", "Insert a session header");
      expect(fixed).toMatch(/^\{"type":"session","version":3,"id":"[-0-9a-f]{36}","timestamp":"2026-03-02T12:00:00.000Z","cwd":"\/home\/dev\/p"\}\n$/);
      expect(codes(fixed)).toEqual([]);
    }
  });

  it("takes the cwd from a Pi sessions folder name, else the file's folder", () => {
    expect(cwdForDocument(URI)).toBe("/home/dev/p");
    expect(cwdForDocument("file:///tmp/fixtures/a.jsonl")).toBe("/tmp/fixtures");
    expect(cwdForDocument("untitled:Untitled-1")).toBe("/");
  });

  it("gives an invalid header a string id: the number as a string, or a fresh UUIDv7", () => {
    const numeric = session('{"type":"session","version":3,"id":12345,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}', a);
    expect(fix(numeric, "invalid-header", "Give the header")).toBe(
      session('{"type":"session","version":3,"id":"12345","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}', a),
    );
    const missing = session('{"type":"session","version":3,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}', a);
    const fixed = fix(missing, "invalid-header", "Give the header");
    expect(JSON.parse(fixed.split("\n")[0]!).id).toMatch(UUID);
    expect(Object.keys(JSON.parse(fixed.split("\n")[0]!))).toEqual(["type", "id", "version", "timestamp", "cwd"]);
    expect(codes(fixed)).toEqual([]);
  });

  it("removes a byte order mark", () => {
    const text = session(HEADER, a);
    expect(fix(`\uFEFF${text}`, "bom", "Remove the byte order mark")).toBe(text);
  });

  it("gives a duplicate id a fresh one on the holders Pi ignores, never on the one it keeps", () => {
    const dup = user("b0000002", "a0000001", "again", 3);
    const text = session(HEADER, a, b, dup);
    const d = doc(text);
    const diagnostics = computeDiagnostics(d).filter((x) => x.code === "duplicate-id");
    expect(diagnostics.map((x) => x.range.start.line)).toEqual([2, 3]);
    const offered = quickFixes(d, diagnostics, options).map((q) => q.fixes.length);
    expect(offered).toEqual([1, 0]);
    const fixed = fix(text, "duplicate-id", "fresh id");
    expect(fixed).toBe(session(HEADER, a, b.replace('"id":"b0000002"', '"id":"88888888"'), dup));
    expect(codes(fixed)).not.toContain("duplicate-id");
  });

  it("picks fresh ids that are unique in the file and across fixes", () => {
    const taken = new Set(["88888888"]);
    let i = 0;
    const random = () => [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1][i++ % 9]!;
    const id = freshEntryId((candidate) => taken.has(candidate), random);
    taken.add(id);
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(id).not.toBe("88888888");
    expect(taken.has(id)).toBe(true);
  });

  it("re-links a dangling parentId to the entry above", () => {
    const text = session(HEADER, a, assistant("b0000002", "zz", "hello", 2));
    const fixed = fix(text, "dangling-parent", "Re-link parentId to the entry above (line 2");
    expect(fixed).toBe(session(HEADER, a, b));
    expect(codes(fixed)).toEqual([]);
  });

  it("never re-links a dangling entry under its own descendant; with nothing left, makes it a root", () => {
    const text = session(HEADER, user("x0000001", "c0000003", "child written first", 1), user("c0000003", "zz", "parent", 2));
    const fixed = fix(text, "dangling-parent", "null (a root)");
    expect(fixed).toBe(session(HEADER, user("x0000001", "c0000003", "child written first", 1), user("c0000003", null, "parent", 2)));
    expect(codes(fixed)).not.toContain("dangling-parent");
  });

  it("breaks a self-parent by re-linking to the entry above", () => {
    const text = session(HEADER, a, assistant("b0000002", "b0000002", "hello", 2));
    expect(fix(text, "self-parent", "Break the cycle: re-link parentId to the entry above (line 2")).toBe(session(HEADER, a, b));
  });

  it("breaks a cycle at the chosen member, re-linking to the nearest entry that does not reach a cycle", () => {
    const r = user("r0000001", null, "root", 1);
    const ca = user("a0000002", "c0000005", "a", 2);
    const below = user("d0000003", "a0000002", "below the cycle", 3);
    const cb = user("b0000004", "a0000002", "b", 4);
    const cc = user("c0000005", "b0000004", "c", 5);
    const text = session(HEADER, r, ca, below, cb, cc);
    const d = doc(text);
    const cycle = computeDiagnostics(d).filter((x) => x.code === "parent-cycle");
    expect(cycle.map((x) => x.range.start.line)).toEqual([2, 4, 5]);
    const titles = quickFixes(d, cycle, options).map((q) => q.fixes.map((f) => f.title));
    // Every member re-links to line 2, the root: the entries between are in or below the cycle.
    expect(titles).toEqual([1, 2, 3].map(() => ['Break the cycle: re-link parentId to the entry above (line 2, "r0000001")']));
    const fixed = applyEdits(text, quickFixes(d, [cycle[2]!], options)[0]!.fixes[0]!.edits);
    expect(fixed).toBe(session(HEADER, r, ca, below, cb, cc.replace('"parentId":"b0000004"', '"parentId":"r0000001"')));
    expect(errors(fixed)).toEqual([]);
  });

  it("breaks a cycle with nothing usable above by making the entry a root", () => {
    const text = session(HEADER, user("a0000001", "b0000002", "a", 1), user("b0000002", "a0000001", "b", 2));
    const fixed = fix(text, "parent-cycle", "null (a root)");
    expect(fixed).toBe(session(HEADER, user("a0000001", null, "a", 1), user("b0000002", "a0000001", "b", 2)));
    expect(codes(fixed)).toEqual([]);
  });

  it("joins a pretty-printed entry back into one line, from any of its lines", () => {
    const value = JSON.parse(b) as unknown;
    const pretty = JSON.stringify(value, null, 2);
    const text = session(HEADER, a, pretty, user("c0000003", "b0000002", "next", 3));
    expect(codes(text)).toContain("malformed-json");
    const d = doc(text);
    const diagnostics = computeDiagnostics(d).filter((x) => x.code === "malformed-json" || x.code === "not-an-object");
    expect(diagnostics.length).toBeGreaterThan(3);
    const expected = session(HEADER, a, b, user("c0000003", "b0000002", "next", 3));
    for (const [index, { fixes }] of quickFixes(d, diagnostics, options).entries()) {
      const join = fixes.find((f) => f.title.startsWith("Join lines 3–"));
      expect(join, `line ${diagnostics[index]!.range.start.line}`).toBeDefined();
      expect(join!.safe).toBe(true);
      expect(applyEdits(text, join!.edits)).toBe(expected);
    }
    expect(codes(expected)).toEqual([]);
  });

  it("joins an entry whose pretty-printed lines include lines that parse alone", () => {
    const value = {
      type: "custom",
      id: "c0000003",
      parentId: "a0000001",
      timestamp: "2026-03-02T10:00:03.000Z",
      customType: "x",
      data: { list: ["one", 2, true] },
    };
    const text = session(HEADER, a, JSON.stringify(value, null, 2));
    expect(codes(text)).toContain("not-an-object");
    expect(fix(text, "not-an-object", "Join lines")).toBe(session(HEADER, a, JSON.stringify(value)));
  });

  it('deletes a line that is not an object: safe for null, false, 0 and "", not for values that hold something', () => {
    for (const [value, safe] of [
      ["null", true],
      ["false", true],
      ["0", true],
      ['""', true],
      ['["data"]', false],
      ['"text"', false],
      ["42", false],
    ] as const) {
      const text = session(HEADER, a, value, b);
      const { actions } = actionsFor(text, "not-an-object");
      expect(
        actions.map((x) => x.isPreferred ?? false),
        value,
      ).toEqual([safe]);
      const fixed = fix(text, "not-an-object", "Delete line 3");
      expect(fixed).toBe(session(HEADER, a, b));
      expect(codes(fixed)).toEqual([]);
    }
  });

  it("does not offer a join for a malformed line that is not a pretty-printed object", () => {
    const text = session(HEADER, a, "{", '"not": closed', b);
    const { actions } = actionsFor(text, "malformed-json");
    expect(actions.map((x) => x.title)).toEqual(["Delete line 3 (its text is lost: 1 character, {)"]);
  });

  it("adds a final newline, in the file's line ending style", () => {
    expect(fix(`${HEADER}\n${a}`, "no-final-newline", "Add a final newline")).toBe(`${HEADER}\n${a}\n`);
    expect(fix(`${HEADER}\r\n${a}`, "no-final-newline", "Add a final newline")).toBe(`${HEADER}\r\n${a}\r\n`);
  });

  it("marks safe fixes preferred and attaches each fix to its diagnostic only", () => {
    const text = `\uFEFF${session(HEADER, a, '{"bad', b)}`.replace(/\n$/, "");
    const d = doc(text);
    const diagnostics = computeDiagnostics(d);
    const actions = computeCodeActions(d, diagnostics[0]!.range, { diagnostics }, options);
    const byCode = actions.map((x) => `${String(x.diagnostics![0]!.code)} ${x.isPreferred ? "preferred" : "-"}`);
    expect(byCode).toEqual(["bom preferred", "malformed-json -", "no-final-newline preferred"]);
    for (const action of actions) expect(Object.keys(action.edit!.changes!)).toEqual([URI]);
  });

  it("ignores diagnostics of other sources and stale ones", () => {
    const text = session(HEADER, a);
    const foreign: Diagnostic = {
      range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } },
      message: "x",
      code: "malformed-json",
      source: "other",
    };
    const stale: Diagnostic = {
      range: { start: { line: 9, character: 0 }, end: { line: 9, character: 1 } },
      message: "x",
      code: "malformed-json",
      source: "pi-session",
    };
    const wrongLine: Diagnostic = { ...stale, range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } } };
    // Only quick fixes: the entry actions (entryActions.test.ts) are offered on any entry.
    expect(computeCodeActions(doc(text), foreign.range, { diagnostics: [foreign, stale, wrongLine], only: ["quickfix"] }, options)).toEqual([]);
  });
});

describe("source.fixAll", () => {
  const a = user("a0000001", null, "hi", 1);

  it("is answered only when a source kind is asked for, under source.fixAll and its own kind", () => {
    const text = `\uFEFF${session(HEADER, a)}`;
    const d = doc(text);
    const diagnostics = computeDiagnostics(d);
    const kinds = (only?: string[]) => computeCodeActions(d, diagnostics[0]!.range, only ? { diagnostics, only } : { diagnostics }, options).map((x) => x.kind);
    expect(kinds()).toEqual(["quickfix"]);
    expect(kinds(["quickfix"])).toEqual(["quickfix"]);
    expect(kinds(["source.fixAll"])).toEqual([FIX_ALL_KIND]);
    expect(kinds(["source"])).toEqual([FIX_ALL_KIND]);
    expect(kinds([FIX_ALL_KIND])).toEqual([FIX_ALL_KIND]);
    expect(kinds(["source.organizeImports"])).toEqual([]);
    expect(computeCodeActions(doc(session(HEADER, a)), diagnostics[0]!.range, { diagnostics: [], only: ["source.fixAll"] }, options)).toEqual([]);
  });

  it("applies fixes that depend on one another as one edit: joined header, BOM, duplicate cycle, final newline", () => {
    const header = JSON.parse(HEADER) as unknown;
    const r = user("r0000001", null, "root", 1);
    // "a0000002" is held twice; the later holder names "c0000004", which names "a0000002": a cycle through the duplicate.
    const first = user("a0000002", "r0000001", "first a", 2);
    const c = user("c0000004", "a0000002", "c", 3);
    const second = user("a0000002", "c0000004", "second a", 4);
    const text = `\uFEFF${JSON.stringify(header, null, 2)}\n${r}\n${first}\n${c}\n${second}`;
    expect(codes(text)).toEqual(expect.arrayContaining(["malformed-json", "missing-header", "duplicate-id", "parent-cycle", "no-final-newline"]));
    const d = doc(text);
    const action = computeCodeActions(
      d,
      { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      { diagnostics: [], only: ["source.fixAll"] },
      options,
    )[0]!;
    expect(action.kind).toBe(FIX_ALL_KIND);
    const fixed = applyEdits(text, action.edit!.changes![URI]!);
    expect(fixed).toBe(applySafeFixes(d, options).doc.getText());
    expect(errors(fixed)).toEqual([]);
    expect(codes(fixed)).not.toContain("no-final-newline");
    const lines = fixed.split("\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe("");
  });

  const dir = join(__dirname, "../parity/fixtures");
  const faults = readdirSync(dir).filter((f) => f.startsWith("fault-") && f.endsWith(".jsonl"));

  /**
   * Every object a line holds, as sorted JSON texts, without what a safe fix may change: the link
   * fields, and what the v1/v2 migration rewrites as Pi does (a header's version, a compaction's
   * `firstKeptEntryIndex` becoming `firstKeptEntryId`, the role `hookMessage` becoming `custom`).
   */
  function contents(d: SessionDocument): string[] {
    const out: string[] = [];
    for (const p of d.parsed) {
      if (p.kind !== "value" || !p.object) continue;
      const { id: _id, parentId: _parentId, firstKeptEntryId: _kept, firstKeptEntryIndex: _index, ...rest } = p.object;
      if (rest.type === "session") delete rest.version;
      const message = rest.message as Record<string, unknown> | undefined;
      if (message && typeof message === "object" && message.role === "hookMessage") rest.message = { ...message, role: "custom" };
      out.push(JSON.stringify(rest));
    }
    return out.sort();
  }

  it.each(faults)("%s: no error a safe fix addresses is left, and every parseable entry is kept", (name) => {
    const text = readFileSync(join(dir, name), "utf8");
    const d = doc(text);
    const { doc: fixed } = applySafeFixes(d, options);
    const after = computeDiagnostics(fixed);
    for (const [i, { fixes }] of quickFixes(
      fixed,
      after.filter((x) => x.severity === 1),
      options,
    ).entries()) {
      expect(
        fixes.filter((f) => f.safe),
        `${String(after[i]!.code)} left`,
      ).toEqual([]);
    }
    // Every object of the original is still there, with its content; a new header may be added.
    const before = contents(d);
    const kept = contents(fixed);
    for (const item of before) {
      const at = kept.indexOf(item);
      expect(at, item.slice(0, 200)).toBeGreaterThanOrEqual(0);
      kept.splice(at, 1);
    }
    expect(kept.every((k) => JSON.parse(k).type === "session")).toBe(true);
    expect(fixed.analysis.entries.length).toBeGreaterThanOrEqual(d.analysis.entries.length);
    // The code action's edits, on the original text, give the same result.
    const action = computeCodeActions(
      d,
      { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      { diagnostics: [], only: ["source.fixAll"] },
      options,
    );
    const result = action.length === 0 ? text : applyEdits(text, action[0]!.edit!.changes![URI]!);
    expect(result).toBe(fixed.getText());
  });

  it("migrates v1 and v2 files as part of fix all, as Pi would on open", () => {
    for (const name of ["fault-v1.jsonl", "fault-v2.jsonl"]) {
      const { doc: fixed, fixed: codes } = applySafeFixes(doc(readFileSync(join(dir, name), "utf8")), options);
      expect(codes.get("old-version"), name).toBeGreaterThan(0);
      expect(
        computeDiagnostics(fixed).map((x) => x.code),
        name,
      ).not.toContain("old-version");
      expect(fixed.analysis.header?.version, name).toBe(3);
    }
  });

  it("leaves what has no safe fix: malformed lines, dangling parents", () => {
    const left = (name: string) =>
      computeDiagnostics(applySafeFixes(doc(readFileSync(join(dir, name), "utf8")), options).doc)
        .filter((x) => x.severity === 1)
        .map((x) => x.code);
    expect(left("fault-malformed-middle.jsonl")).toEqual(["malformed-json", "dangling-parent"]);
    expect(left("fault-truncated-last-line.jsonl")).toEqual(["malformed-json"]);
    expect(left("fault-dup-id-cycle-leaf.jsonl")).toEqual([]);
    expect(left("fault-header-after-message.jsonl")).toEqual([]);
    expect(left("fault-null-line.jsonl")).toEqual([]);
    expect(left("fault-null-before-header.jsonl")).toEqual([]);
    expect(left("fault-array-line.jsonl")).toEqual(["not-an-object"]);
    expect(left("fault-string-line.jsonl")).toEqual(["not-an-object"]);
  });
});

describe("line diff", () => {
  it("finds the changed lines and renders a unified diff", () => {
    const a = ["1\n", "2\n", "3\n", "4\n", "5\n", "6\n", "7\n", "8\n", "9\n", "10"];
    const b = ["1\n", "2\n", "three\n", "4\n", "5\n", "6\n", "7\n", "8\n", "9\n", "10\n", "11\n"];
    expect(lineDiff(a, b)).toEqual([
      { aStart: 2, aEnd: 3, bStart: 2, bEnd: 3 },
      { aStart: 9, aEnd: 10, bStart: 9, bEnd: 11 },
    ]);
    expect(unifiedDiff(a, b, "a/x", "b/x")).toBe(
      [
        "--- a/x",
        "+++ b/x",
        "@@ -1,10 +1,11 @@",
        " 1",
        " 2",
        "-3",
        "+three",
        " 4",
        " 5",
        " 6",
        " 7",
        " 8",
        " 9",
        "-10",
        "\\ No newline at end of file",
        "+10",
        "+11",
        "",
      ].join("\n"),
    );
    expect(unifiedDiff(a, a, "a", "b")).toBe("");
  });

  it("turns any pair of texts into non-overlapping edits that reproduce the second", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = () => ["a", "b", "c", "", "{}"][Math.floor(random() * 5)]!;
    for (let round = 0; round < 300; round++) {
      const make = () => Array.from({ length: Math.floor(random() * 8) }, pick).join(random() < 0.2 ? "\r\n" : "\n") + (random() < 0.5 ? "\n" : "");
      const x = make();
      const y = make();
      const edits = editsBetween(doc(x), doc(y));
      expect(applyEdits(x, edits), JSON.stringify([x, y])).toBe(y);
      expect(unitsOf(doc(y)).join("")).toBe(y);
    }
  });

  it("reports a middle too different to diff cheaply as one hunk, still reproducing the text", () => {
    const x = Array.from({ length: 3000 }, (_, i) => `x${i}\n`);
    const y = ["x0\n", ...Array.from({ length: 3000 }, (_, i) => `y${i}\n`), "x2999\n"];
    expect(lineDiff(x, y)).toEqual([{ aStart: 1, aEnd: 2999, bStart: 1, bEnd: 3001 }]);
    expect(applyEdits(x.join(""), editsBetween(doc(x.join("")), doc(y.join(""))))).toBe(y.join(""));
  });

  it("makes UUIDv7 ids from the injected clock and randomness", () => {
    expect(uuidv7(new Date(0x0123456789ab), () => 0)).toBe("01234567-89ab-7000-8000-000000000000");
    expect(uuidv7(NOW, () => 0.999)).toMatch(UUID);
  });
});

describe("fix all and the user's severity overrides", () => {
  it("leaves alone the faults of codes turned off", () => {
    const text = readFileSync(join(__dirname, "../parity/fixtures/fault-bom.jsonl"), "utf8");
    const d = new SessionDocument("file:///t.jsonl", "jsonl", 1, text);
    expect(applySafeFixes(d).fixed.get("bom")).toBe(1);
    expect(applySafeFixes(d, { ignoredCodes: new Set(["bom"]) }).fixed.has("bom")).toBe(false);
  });
});
