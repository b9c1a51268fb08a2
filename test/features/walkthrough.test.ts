/**
 * The README's "Writing fixtures" walkthrough, performed as an editor would: from an empty file to
 * a valid three-turn session with a branch, using only the server's quick fixes and completions
 * (snippets expanded with their default placeholders, then the placeholders typed over).
 */

import { describe, expect, it } from "vitest";
import type { CompletionItem, Position, TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeActions } from "../../server/src/features/codeActions";
import { computeCompletion } from "../../server/src/features/completion";
import { computeDiagnostics } from "../../server/src/features/diagnostics";

const uri = "file:///home/dev/.pi/agent/sessions/--home-dev-parser--/2026-03-02T10-00-00-000Z_walkthrough.jsonl";
let clock = Date.parse("2026-03-02T10:00:00.000Z");
let seed = 7;
const options = { now: () => new Date((clock += 1000)), random: () => (seed = (seed * 16807) % 2147483647) / 2147483647 };

/** Applies LSP text edits (non-overlapping, on the same text) the way an editor does. */
function apply(text: string, edits: readonly TextEdit[]): string {
  const lines = text.split("\n");
  const offset = (p: Position) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  return text;
}

/** A snippet with every placeholder left at its default, as pressing Tab through it does. */
function expand(snippet: string): string {
  return snippet
    .replace(/\$\{\d+\|([^,|]*)[^}]*\|\}/g, "$1")
    .replace(/\$\{\d+:([^}]*)\}/g, "$1")
    .replace(/\$\{\d+\}|\$\d+/g, "")
    .replace(/\\([$}\\])/g, "$1");
}

function complete(text: string, position: Position, pick: (item: CompletionItem) => boolean): string {
  const doc = new SessionDocument(uri, "jsonl", 1, text);
  const item = computeCompletion(doc, position, options).items.find(pick);
  if (!item?.textEdit || !("range" in item.textEdit)) throw new Error(`no completion at ${JSON.stringify(position)}`);
  return apply(text, [{ range: item.textEdit.range, newText: expand(item.textEdit.newText) }]);
}

/** Types `value` over the placeholder `placeholder` on the last line that has it. */
function typeOver(text: string, placeholder: string, value: string): string {
  const at = text.lastIndexOf(placeholder);
  return text.slice(0, at) + value + text.slice(at + placeholder.length);
}

const lastLine = (text: string) => text.split("\n").length - 1;

describe("writing a fixture from nothing, with completion and quick fixes only", () => {
  it("ends with a valid three-turn session with a branch", () => {
    // 1. An empty file: the quick fix on `empty-file` inserts the header.
    let text = "";
    let doc = new SessionDocument(uri, "jsonl", 1, text);
    const [empty] = computeDiagnostics(doc);
    expect(empty?.code).toBe("empty-file");
    const [insertHeader] = computeCodeActions(doc, empty!.range, { diagnostics: [empty!] }, options);
    text = apply(text, insertHeader!.edit!.changes![uri]!);
    expect(JSON.parse(text.split("\n")[0]!)).toMatchObject({ type: "session", version: 3, cwd: "/home/dev/parser" });

    // 2. Three turns: on each new empty line, the user message and assistant reply snippets.
    const turns = [
      ["The parser test fails. Fix it?", "Fixed the off-by-one in tokenize()."],
      ["Now add a test for empty input.", "Added test/empty.test.ts."],
      ["Run the suite.", "All 42 tests pass."],
    ];
    for (const [question, answer] of turns) {
      text = complete(text, { line: lastLine(text), character: 0 }, (i) => i.label === "user message");
      text = typeOver(text, '"text"', JSON.stringify(question));
      text = `${text}\n`;
      text = complete(text, { line: lastLine(text), character: 0 }, (i) => i.label === "assistant reply");
      text = typeOver(text, '"reply"', JSON.stringify(answer));
      text = `${text}\n`;
    }

    // 3. A branch: a new user message whose parentId is completed to the first reply.
    text = complete(text, { line: lastLine(text), character: 0 }, (i) => i.label === "user message");
    text = typeOver(text, '"text"', JSON.stringify("Instead, rewrite tokenize() with a regex."));
    const lines = text.split("\n");
    const firstReply = JSON.parse(lines[2]!) as { id: string };
    const branchLine = lines.length - 1;
    const parentAt = lines[branchLine]!.indexOf('"parentId":"') + '"parentId":"'.length;
    text = complete(text, { line: branchLine, character: parentAt }, (i) => i.label === firstReply.id);
    text = `${text}\n`;

    // The result: nothing above information, three turns on the main path, a branch point.
    doc = new SessionDocument(uri, "jsonl", 2, text);
    const serious = computeDiagnostics(doc).filter((d) => (d.severity ?? 1) <= 2);
    expect(serious.map((d) => `${d.range.start.line}:${String(d.code)} ${String(d.message)}`)).toEqual([]);
    const a = doc.analysis;
    expect(a.entries).toHaveLength(7);
    expect(a.childrenOf(a.byId.get(firstReply.id)!)).toHaveLength(2);
    expect(a.leaf?.parentId).toBe(firstReply.id);
    expect(new Set(a.entries.map((e) => e.id)).size).toBe(7);
  });
});
