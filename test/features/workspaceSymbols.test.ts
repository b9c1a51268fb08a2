/**
 * Workspace symbols over open sessions: session headers, names and labels.
 * Symbols are shown as `name @ uri-file:line:text`, with the text the range covers.
 */

import { describe, expect, it } from "vitest";
import type { SymbolInformation } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeWorkspaceSymbols } from "../../server/src/features/workspaceSymbols";
import { textOf } from "../helpers/cursor";

const header = (id: string) => `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}`;
const base = (id: string, parent: string | null) =>
  `"id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z"`;
const user = (id: string, parent: string | null, text: string) =>
  `{"type":"message",${base(id, parent)},"message":{"role":"user","content":${JSON.stringify(text)},"timestamp":1772445601000}}`;
const info = (id: string, parent: string, name: unknown) =>
  `{"type":"session_info",${base(id, parent)}${name === undefined ? "" : `,"name":${JSON.stringify(name)}`}}`;
const label = (id: string, parent: string, target: string, text: unknown) =>
  `{"type":"label",${base(id, parent)},"targetId":"${target}"${text === undefined ? "" : `,"label":${JSON.stringify(text)}`}}`;

function open(name: string, lines: string[], eol = "\n"): SessionDocument {
  return new SessionDocument(`file:///sessions/${name}`, "jsonl", 1, lines.join(eol));
}

function shown(docs: SessionDocument[], symbols: SymbolInformation[]): string[] {
  return symbols.map((s) => {
    const doc = docs.find((d) => d.uri === s.location.uri)!;
    const file = s.location.uri.slice(s.location.uri.lastIndexOf("/") + 1);
    return `${s.name} @ ${file}:${s.location.range.start.line}:${textOf(doc, s.location.range)}${s.containerName ? ` in ${s.containerName}` : ""}`;
  });
}

const ID1 = "0197a0b0-0000-7000-8000-000000000001";
const ID2 = "0197a0b0-0000-7000-8000-000000000002";

describe("workspace symbols", () => {
  const a = open("a.jsonl", [
    header(ID1),
    user("u1", null, "Fix the parser"), // 1
    info("i1", "u1", "Old name"), // 2
    user("u2", "i1", "Now the lexer"), // 3
    label("l1", "u2", "u1", "checkpoint-1"), // 4: on u1
    label("l2", "l1", "u2", "wip"), // 5: replaced below
    label("l3", "l2", "u2", "lexer-done"), // 6: on u2
    label("l4", "l3", "gone", "orphan-label"), // 7: target missing
    label("l5", "l4", "u1", "temp"), // 8: replaces checkpoint-1 ...
    label("l6", "l5", "u1", ""), // 9: ... then clears u1's label
    info("i2", "l6", "  Parser   rewrite \n"), // 10: the name, trimmed
    "", // 11
  ]);
  const b = open(
    "b.jsonl",
    [header(ID2), user("v1", null, "Hello"), info("j1", "v1", "Checkout flow"), info("j2", "j1", "   "), label("m1", "j2", "v1", "Checkpoint 🙂 two")],
    "\r\n",
  );
  const docs = [a, b];

  it("lists headers, the current session names and the current labels", () => {
    expect(shown(docs, computeWorkspaceSymbols(docs, ""))).toEqual([
      `session ${ID1} @ a.jsonl:0:"${ID1}" in Parser rewrite`,
      'Parser rewrite @ a.jsonl:10:"  Parser   rewrite \\n"',
      'lexer-done @ a.jsonl:3:"u2" in Parser rewrite',
      'orphan-label @ a.jsonl:7:"orphan-label" in Parser rewrite',
      // b's last session_info is blank, which clears the name: no name symbol, the header names it.
      `session ${ID2} @ b.jsonl:0:"${ID2}"`,
      `Checkpoint 🙂 two @ b.jsonl:1:"v1" in session ${ID2}`,
    ]);
  });

  it("matches case-insensitively, substrings before scattered letters", () => {
    expect(computeWorkspaceSymbols(docs, "CHECK").map((s) => s.name)).toEqual(["Checkpoint 🙂 two"]);
    expect(computeWorkspaceSymbols(docs, "ldn").map((s) => s.name)).toEqual(["lexer-done"]);
    // "re" is a substring of "Parser rewrite", and only scattered in "lexer-done" and "orphan-label".
    expect(computeWorkspaceSymbols(docs, "re").map((s) => s.name)).toEqual(["Parser rewrite", "lexer-done", "orphan-label"]);
    // A substring match in a later document still ranks before a scattered one in an earlier document.
    const c = open("c.jsonl", [header(ID1), user("u1", null, "x"), label("l1", "u1", "u1", "fix-the-bug")]);
    const d = open("d.jsonl", [header(ID2), user("v1", null, "x"), label("m1", "v1", "v1", "FIXED")]);
    expect(computeWorkspaceSymbols([c, d], "fixe").map((s) => s.name)).toEqual(["FIXED", "fix-the-bug"]);
    expect(computeWorkspaceSymbols(docs, "  lexer ").map((s) => s.name)).toEqual(["lexer-done"]);
    expect(computeWorkspaceSymbols(docs, "zzz")).toEqual([]);
    expect(computeWorkspaceSymbols(docs, "Session 0197a0b0-0000-7000-8000-000000000002").map((s) => s.name)).toEqual([`session ${ID2}`]);
  });

  it("caps the number of symbols", () => {
    expect(computeWorkspaceSymbols(docs, "", 2).map((s) => s.name)).toEqual([`session ${ID1}`, "Parser rewrite"]);
    expect(computeWorkspaceSymbols(docs, "", 0)).toEqual([]);
    const many = open("many.jsonl", [header(ID1), user("u", null, "x"), ...Array.from({ length: 3000 }, (_, i) => label(`l${i}`, "u", "u", `mark ${i}`))]);
    // Relabelling the same target keeps only the last label, so use distinct targets.
    const distinct = open("distinct.jsonl", [
      header(ID1),
      ...Array.from({ length: 3000 }, (_, i) => label(`l${i}`, i === 0 ? "l0" : `l${i - 1}`, `l${i}`, `mark ${i}`)),
    ]);
    expect(computeWorkspaceSymbols([many], "mark").map((s) => s.name)).toEqual(["mark 2999"]);
    const capped = computeWorkspaceSymbols([distinct], "mark");
    expect(capped).toHaveLength(1000);
    expect(capped[999]!.name).toBe("mark 999");
  });

  it("follows edits: a new label shows up, a cleared name goes away", () => {
    const doc = open("c.jsonl", [header(ID1), user("u1", null, "hi"), info("i1", "u1", "Named"), ""]);
    expect(computeWorkspaceSymbols([doc], "").map((s) => s.name)).toEqual([`session ${ID1}`, "Named"]);
    doc.update(
      [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: `${label("l1", "i1", "u1", "first")}\n${info("i2", "l1", "")}\n` }],
      2,
    );
    expect(shown([doc], computeWorkspaceSymbols([doc], ""))).toEqual([`session ${ID1} @ c.jsonl:0:"${ID1}"`, `first @ c.jsonl:1:"u1" in session ${ID1}`]);
  });

  it("copes with sessions that are not well formed", () => {
    const broken = open("broken.jsonl", ['{"type":"session","id":5}', "not json", info("i1", "x", 42), label("l1", "i1", "x", { a: 1 })]);
    const empty = open("empty.jsonl", [""]);
    const symbols = computeWorkspaceSymbols([broken, empty], "");
    // No header symbol (the id is not a string), no name (not a string), and the label on itself.
    expect(shown([broken, empty], symbols)).toEqual(['{…} @ broken.jsonl:3:{"a":1} in broken.jsonl']);
  });
});
