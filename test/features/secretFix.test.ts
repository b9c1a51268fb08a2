/**
 * The editor's redaction: the quick fix of a `secret` diagnostic replaces exactly the diagnostic's
 * range with the placeholder `redact` writes, and the source action replaces every credential of
 * the buffer as `redact` does; after either, the check no longer reports `secret` there.
 */

import { describe, expect, it } from "vitest";
import type { CodeAction, Diagnostic, TextEdit } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { redactionPlaceholder, redactText } from "../../server/src/core/edits/redact";
import { computeCodeActions, REDACT_ALL_KIND } from "../../server/src/features/codeActions";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { quickFixes } from "../../server/src/features/fixes";
import { applySafeFixes } from "../../server/src/features/fixes/fixAll";
import { HEADER, session, user } from "../helpers/piLines";

const URI = "file:///home/dev/p/s.jsonl";
const KEY = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const PASSWORD = "S3cr3tPa55";
const redactionKey = new Uint8Array(32).fill(7);
const placeholderOf = (kind: Parameters<typeof redactionPlaceholder>[0], value: string) => redactionPlaceholder(kind, value, redactionKey);

const doc = (text: string) => new SessionDocument(URI, "jsonl", 1, text);

/** Applies non-overlapping edits computed on `text`, last first. */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const d = doc(text);
  const sorted = [...edits].sort((x, y) => y.range.start.line - x.range.start.line || y.range.start.character - x.range.start.character);
  d.update(
    sorted.map((e) => ({ range: e.range, text: e.newText })),
    2,
  );
  return d.getText();
}

const secrets = (text: string): Diagnostic[] => computeDiagnostics(doc(text)).filter((d) => d.code === "secret");

const TEXT = session(
  HEADER,
  user("u1", null, `export ANTHROPIC_API_KEY=${KEY}`),
  user("u2", "u1", `psql postgres://admin:${PASSWORD}@db:5432/app and again ${KEY}`),
);

describe("the quick fix of a secret", () => {
  it("replaces exactly the diagnostic's range with redact's placeholder", () => {
    const found = secrets(TEXT);
    expect(found.length).toBeGreaterThanOrEqual(3);
    const d = doc(TEXT);
    for (const { diagnostic, fixes } of quickFixes(d, found, { redactionKey })) {
      expect(fixes).toHaveLength(1);
      const fix = fixes[0]!;
      expect(fix.safe).toBe(false);
      expect(fix.edits).toHaveLength(1);
      expect(fix.edits[0]!.range).toEqual(diagnostic.range);
      const lineText = d.lines[diagnostic.range.start.line]!;
      const raw = lineText.slice(diagnostic.range.start.character, diagnostic.range.end.character);
      expect(fix.edits[0]!.newText).toMatch(/^\[REDACTED:[a-z-]+:[0-9a-f]{8}\]$/);
      // The same text `redact` gives this secret under the same key.
      const redaction = redactText(TEXT, placeholderOf);
      expect(redaction.secrets.find((s) => s.raw === raw)?.placeholder).toBe(fix.edits[0]!.newText);
      // Applied, the check no longer reports a secret at that place, and the others remain.
      const after = secrets(applyEdits(TEXT, fix.edits));
      expect(after.some((a) => a.range.start.line === diagnostic.range.start.line && a.range.start.character === diagnostic.range.start.character)).toBe(false);
      expect(after).toHaveLength(found.length - 1);
    }
  });

  it("gives one secret one placeholder wherever it is fixed, under one key", () => {
    const d = doc(TEXT);
    const texts = quickFixes(d, secrets(TEXT), { redactionKey })
      .filter(({ diagnostic }) => d.lines[diagnostic.range.start.line]!.slice(diagnostic.range.start.character, diagnostic.range.end.character) === KEY)
      .map(({ fixes }) => fixes[0]!.edits[0]!.newText);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe(texts[1]);
  });

  it("offers nothing for a secret that is an entry's id (the tree would change)", () => {
    const text = session(HEADER, user(KEY, null, `the key ${KEY}`));
    const d = doc(text);
    const onId = quickFixes(d, secrets(text), { redactionKey }).filter(({ diagnostic }) =>
      d.lines[1]!.slice(0, diagnostic.range.start.character).endsWith('"id":"'),
    );
    expect(onId.length).toBe(1);
    expect(onId[0]!.fixes).toEqual([]);
  });

  it("is never applied by Fix all", () => {
    expect(applySafeFixes(doc(TEXT), { redactionKey }).doc.getText()).toBe(TEXT);
  });
});

describe("the source action that redacts every credential", () => {
  const redactAll = (text: string, only = [REDACT_ALL_KIND]): CodeAction | undefined =>
    computeCodeActions(doc(text), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, { diagnostics: [], only }, { redactionKey }).find(
      (a) => a.kind === REDACT_ALL_KIND,
    );

  it("makes the text redact writes, and the check finds no secret left", () => {
    const action = redactAll(TEXT);
    expect(action?.title).toMatch(/^Redact every credential in this file \(2 secrets/);
    const edits = action!.edit!.changes![URI]!;
    const after = applyEdits(TEXT, edits);
    expect(after).toBe(redactText(TEXT, placeholderOf).text);
    expect(after).not.toContain(KEY);
    expect(after).not.toContain(PASSWORD);
    expect(secrets(after)).toEqual([]);
  });

  it("is offered only when asked for, and only when there is a credential", () => {
    expect(redactAll(TEXT, ["quickfix"])).toBeUndefined();
    expect(redactAll(TEXT, ["source"])).toBeDefined();
    expect(redactAll(session(HEADER, user("u1", null, "nothing to hide")))).toBeUndefined();
  });

  it("keeps a line's carriage return and the byte order mark out of its edits", () => {
    const text = `\ufeff${TEXT.replaceAll("\n", "\r\n")}`;
    const edits = redactAll(text)!.edit!.changes![URI]!;
    const after = applyEdits(text, edits);
    expect(after.startsWith("\ufeff")).toBe(true);
    expect(after.split("\r\n")).toHaveLength(text.split("\r\n").length);
    expect(secrets(after)).toEqual([]);
  });
});
