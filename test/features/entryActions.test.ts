/**
 * The entry actions as the editor gets them: which are offered where, what their edits do to the
 * document (checked with the context builder), and the fork's `CreateFile`, refused or disabled
 * for clients that cannot create files and left for `codeAction/resolve` for those that can.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CodeAction, CreateFile, TextDocumentEdit, TextEdit } from "vscode-languageserver";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeActions } from "../../server/src/features/codeActions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { DROP_KIND, FORK_KIND, RESUME_KIND, entryActions, resolveForkAction } from "../../server/src/features/entryActions";

const DIR = "/home/dev/.pi/agent/sessions/--home-dev-project--";
const URI = `file://${DIR}/2026-03-02T10-00-00-001Z_s.jsonl`;
const NOW = new Date("2026-04-01T12:00:00.000Z");
const base = { now: () => NOW, random: () => 0.25 };
const branches = readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8");

const docOf = (text: string, uri = URI) => new SessionDocument(uri, "jsonl", 1, text);
const at = (line: number) => ({ start: { line, character: 3 }, end: { line, character: 3 } });
const titles = (actions: CodeAction[]) => actions.map((a) => a.kind);

function applied(doc: SessionDocument, action: CodeAction): SessionDocument {
  const edits = action.edit!.changes![doc.uri]! as TextEdit[];
  expect(edits).toHaveLength(1);
  const copy = doc.clone();
  copy.update([{ range: edits[0]!.range, text: edits[0]!.newText }], 2);
  return copy;
}

const contextJson = (doc: SessionDocument, leafLine?: number) => {
  const leaf = leafLine === undefined ? undefined : doc.analysis.entryAtLine[leafLine];
  const r = buildContext(doc.analysis, { leaf });
  return r.ok ? JSON.stringify(r.build.context) : "failed";
};

describe("resume from here", () => {
  it("appends one line after the last, and the context built from it is the entry's", () => {
    const doc = docOf(branches);
    const [resume] = entryActions(doc, at(5), [RESUME_KIND], base);
    expect(resume?.title).toMatch(/^Resume from here \(line 6, /);
    const after = applied(doc, resume!);
    expect(after.getText().startsWith(branches)).toBe(true);
    expect(after.lineCount).toBe(doc.lineCount + 1);
    expect(contextJson(after)).toBe(contextJson(doc, 5));
    // The new leaf is on purpose: no "leaf hides messages" warning for it, unlike another custom entry there.
    expect(after.analysis.leaf?.parsed.object?.customType).toBe("pi-session-lsp.resume-from");
    const codes = (d: SessionDocument) => computeDiagnostics(d).map((x) => x.code);
    expect(codes(after)).not.toContain("leaf-hides-messages");
    const other = docOf(after.getText().replace("pi-session-lsp.resume-from", "my-extension"));
    expect(codes(other)).toContain("leaf-hides-messages");
  });

  it("says in its title that only Pi 0.73/0.74 resumes a file starting with a byte order mark, which Pi 1.x refuses", () => {
    const bom = docOf(`\ufeff${branches}`);
    const [resume] = entryActions(bom, at(5), [RESUME_KIND], base);
    expect(resume?.title).toMatch(/^Resume from here \(line 6, .*\): append a line Pi resumes from \(Pi 0\.73\/0\.74 only; the other Pi refuses this file\)$/);
    const [plain] = entryActions(docOf(branches), at(5), [RESUME_KIND], base);
    expect(plain?.title).not.toMatch(/only/);
  });

  it("is not offered on the leaf, the header, or when only quick fixes are asked for", () => {
    const doc = docOf(branches);
    const leafLine = doc.analysis.leaf!.line;
    expect(titles(entryActions(doc, at(leafLine), undefined, base))).not.toContain(RESUME_KIND);
    expect(entryActions(doc, at(0), undefined, base)).toEqual([]);
    expect(computeCodeActions(doc, at(5), { diagnostics: [], only: ["quickfix"] }, base)).toEqual([]);
    expect(titles(computeCodeActions(doc, at(5), { diagnostics: [], only: ["refactor"] }, base))).toContain(RESUME_KIND);
  });
});

describe("drop from the context", () => {
  it("is offered on a message of the context, says Pi 0.73/0.74 ignores it, and drops just that message", () => {
    const doc = docOf(branches);
    const target = doc.analysis.activePath.find((e) => e.parsed.role === "user")!;
    const [drop] = entryActions(doc, at(target.line), [DROP_KIND], base);
    expect(drop?.title).toMatch(/Pi 0\.73\/0\.74 ignores/);
    const after = applied(doc, drop!);
    const before = JSON.parse(contextJson(doc)).messages as unknown[];
    const now = JSON.parse(contextJson(after)).messages as unknown[];
    expect(now).toHaveLength(before.length - 1);
    expect(JSON.stringify(now)).not.toContain(JSON.stringify(target.parsed.object!.message));
  });

  it("is not offered off the active branch, on a model change, or in a file only Pi 0.73/0.74 opens", () => {
    const doc = docOf(branches);
    const off = doc.analysis.entries.find((e) => e.type === "message" && !doc.analysis.onActivePath[e.index])!;
    expect(titles(entryActions(doc, at(off.line), undefined, base))).not.toContain(DROP_KIND);
    const model = doc.analysis.entries.find((e) => e.type === "model_change")!;
    expect(titles(entryActions(doc, at(model.line), undefined, base))).not.toContain(DROP_KIND);
    const bom = docOf(`\ufeff${branches}`);
    const user = bom.analysis.activePath.find((e) => e.parsed.role === "user")!;
    expect(titles(entryActions(bom, at(user.line), undefined, base))).toEqual([RESUME_KIND]);
  });
});

describe("fork into a new session", () => {
  const creating = { ...base, createFiles: true };

  it("creates the file next to the source and fills it with the path to the entry", () => {
    const doc = docOf(branches);
    const [fork] = entryActions(doc, at(5), [FORK_KIND], creating);
    const [create, fill] = fork!.edit!.documentChanges! as [CreateFile, TextDocumentEdit];
    expect(create).toMatchObject({ kind: "create", options: { overwrite: false, ignoreIfExists: false } });
    expect(create.uri).toMatch(new RegExp(`^file://${DIR}/2026-04-01T12-00-00-000Z_[0-9a-f-]{36}\\.jsonl$`));
    expect(fill.textDocument.uri).toBe(create.uri);
    const forked = docOf((fill.edits[0] as TextEdit).newText, create.uri);
    expect(forked.analysis.header?.parentSession).toBe(`${DIR}/2026-03-02T10-00-00-001Z_s.jsonl`);
    expect(contextJson(forked)).toBe(contextJson(doc, 5));
  });

  it("is left out for clients that cannot create files, or shown disabled with the reason", () => {
    const doc = docOf(branches);
    expect(titles(entryActions(doc, at(5), undefined, base))).not.toContain(FORK_KIND);
    const [disabled] = entryActions(doc, at(5), [FORK_KIND], { ...base, disabledSupport: true });
    expect(disabled?.disabled?.reason).toMatch(/cannot create files/);
    expect(disabled?.edit).toBeUndefined();
    // A buffer that is no file has no folder to fork into.
    expect(entryActions(docOf(branches, "untitled:Untitled-1"), at(5), [FORK_KIND], creating)).toEqual([]);
  });

  it("leaves the text for codeAction/resolve, and gives a stale action no edit", () => {
    const doc = docOf(branches);
    const [lazy] = entryActions(doc, at(5), [FORK_KIND], { ...creating, lazyEdits: true });
    expect(lazy?.edit).toBeUndefined();
    const resolved = resolveForkAction(doc, lazy!, creating);
    expect(resolved.edit?.documentChanges).toHaveLength(2);
    doc.update([{ range: at(0), text: "" }], 7);
    expect(resolveForkAction(doc, lazy!, creating).edit).toBeUndefined();
  });

  it("gives no edit to an action of an earlier text at the same version", () => {
    // The action was checked against the version only: after a change that kept the version, or a
    // close and a reopen at version 1 again, its line held another entry, and the fork stopped at
    // an entry the user had not chosen.
    const doc = docOf(branches);
    const [lazy] = entryActions(doc, at(5), [FORK_KIND], { ...creating, lazyEdits: true });
    const line5 = doc.lines[5]!;
    doc.update([{ range: { start: { line: 5, character: 0 }, end: { line: 6, character: 0 } }, text: "" }], 1);
    expect(doc.lines[5]).not.toBe(line5);
    expect(resolveForkAction(doc, lazy!, creating).edit).toBeUndefined();
    const reopened = docOf(branches.split("\n").slice(1).join("\n"));
    expect(reopened.version).toBe(lazy!.data.version);
    expect(resolveForkAction(reopened, lazy!, creating).edit).toBeUndefined();
  });
});
