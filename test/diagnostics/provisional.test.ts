/**
 * The provisional list of an edit after the idle release (`collectProvisionalDiagnostics`): what the
 * server answers at once when the complete list would build the released contexts and provider
 * requests again, before the complete list follows (`lsp/diagnostics.ts`). Whatever the edits since
 * the release (inside lines of the resumed context, of the tree, several before the complete list is
 * made), it must hold only ranges that fit the text as it is now; every check but the provider
 * request's must say what the complete list says; the provider request's findings must be ones the
 * last complete list held, moved with their lines; and once the complete list is made, the next edit
 * gets none (what it reads is kept).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, Range } from "vscode-languageserver";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contextInputLines } from "../../server/src/core/pi/activeContext";
import { cachedChars, forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, collectProvisionalDiagnostics } from "../../server/src/features/diagnostics";
import { provisionalRequestDiagnostics, requestDiagnostics } from "../../server/src/features/requestDiagnostics";
import { editInContext } from "../helpers/contextEdits";
import { randomEdit } from "../helpers/structuralEdits";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

function open(name: string): SessionDocument {
  return new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
}

/** Each diagnostic as one string, for comparing lists as multisets. */
function keys(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => JSON.stringify([d.code, d.message, d.range, d.relatedInformation ?? []])).sort();
}

/** The members of `all` left once one of each member of `some` is taken out. */
function without(all: readonly string[], some: readonly string[]): string[] {
  const left = [...all];
  for (const key of some) {
    const at = left.indexOf(key);
    if (at >= 0) left.splice(at, 1);
  }
  return left;
}

function fits(doc: SessionDocument, range: Range): boolean {
  const { start, end } = range;
  return start.line === end.line && start.line < doc.lineCount && start.character <= end.character && end.character <= doc.lines[end.line]!.length;
}

describe("the provisional list after the idle release", () => {
  beforeEach(() => {
    // The provider's placeholder results are dated when their request is built.
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`fits the text, says what the complete list says but for the provider request's findings, which it keeps from the last complete list, over ${files.length} fixtures`, () => {
    const random = seededRandom(39);
    let provisional = 0;
    let chained = 0;
    let ofTree = 0;
    let movedLines = 0;
    for (const name of files) {
      const doc = open(name);
      collectDiagnostics(doc);
      let lastRequests = new Set(requestDiagnostics(doc).map((d) => `${d.code} ${d.message}`));
      let linesThen = doc.lineCount;
      let sinceComplete = 0;
      for (let step = 0; step < 16; step++) {
        if (random() < 0.4) {
          releaseKept();
          forgetValues();
        }
        const structure = doc.analysis.structure;
        const edited = random() < 0.5 ? (editInContext(doc, random) ?? -1) >= 0 : randomEdit(doc, random);
        if (!edited) continue;
        sinceComplete++;
        const where = `${name}, edit ${step}`;
        const collected = collectProvisionalDiagnostics(doc);
        if (collected) {
          provisional++;
          if (sinceComplete > 1) chained++;
          if (doc.analysis.structure !== structure) ofTree++;
          if (doc.lineCount !== linesThen) movedLines++;
          const requests = provisionalRequestDiagnostics(doc)!;
          for (const d of collected.diagnostics) {
            expect(fits(doc, d.range), `${where}: ${d.code} ${JSON.stringify(d.range)}`).toBe(true);
            for (const r of d.relatedInformation ?? []) expect(fits(doc, r.location.range), where).toBe(true);
          }
          for (const d of requests) expect(lastRequests.has(`${d.code} ${d.message}`), `${where}: ${d.code}`).toBe(true);
          // The complete list of the same text, made apart: making this document's would end the chain.
          const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
          const complete = collectDiagnostics(fresh).diagnostics;
          expect(without(keys(collected.diagnostics), keys(requests)), where).toEqual(without(keys(complete), keys(requestDiagnostics(fresh))));
        }
        // Sometimes the complete list is made (the pause after typing), sometimes the next edit comes first.
        if (collected === undefined || random() < 0.5) {
          collectDiagnostics(doc);
          lastRequests = new Set(requestDiagnostics(doc).map((d) => `${d.code} ${d.message}`));
          sinceComplete = 0;
          linesThen = doc.lineCount;
          expect(collectProvisionalDiagnostics(doc), where).toBeUndefined();
        }
      }
    }
    expect(provisional).toBeGreaterThan(files.length);
    expect(chained).toBeGreaterThan(files.length / 4);
    expect(ofTree).toBeGreaterThan(files.length / 8);
    // Lines added or removed since the last complete list: its findings moved with their lines.
    expect(movedLines).toBeGreaterThan(files.length / 8);
  });

  it("answers an unreadable timestamp in the newest message without building the contexts, and as the complete list does but on that line", () => {
    let checked = 0;
    let same = 0;
    let rebuilt = 0;
    for (const name of files) {
      const doc = open(name);
      collectDiagnostics(doc);
      const marked = contextInputLines(doc.analysis);
      let line = doc.lineCount - 1;
      while (line >= 0 && !(marked[line] === 1 && /"timestamp":"[^"]/.test(doc.lines[line]!))) line--;
      if (line < 0) continue;
      releaseKept();
      forgetValues();
      const stamp = /"timestamp":"([^"]*)"/.exec(doc.lines[line]!)!;
      const from = stamp.index + 13;
      doc.update([{ range: { start: { line, character: from }, end: { line, character: from + stamp[1]!.length } }, text: "not a time" }], 2);
      const collected = collectProvisionalDiagnostics(doc);
      // None where the request findings are not made (no header, a header after a message).
      if (!collected) continue;
      const parsed = cachedChars();
      const complete = collectDiagnostics(doc).diagnostics;
      // All the complete list says but the provider request's findings on the edited line, which
      // its ranges may no longer fit, or naming it, which may say something else now: the complete
      // list brings them.
      const missing = without(keys(complete), keys(collected.diagnostics));
      expect(without(keys(collected.diagnostics), keys(complete)), name).toEqual([]);
      const onOrNaming = (d: Diagnostic) => d.range.start.line === line || new RegExp(`\\bline ${line + 1}\\b`).test(String(d.message));
      expect(
        complete.filter((d) => missing.includes(keys([d])[0]!)).map((d) => (onOrNaming(d) ? "on or naming the line" : d.message)),
        name,
      ).toEqual(complete.filter((d) => missing.includes(keys([d])[0]!)).map(() => "on or naming the line"));
      if (missing.length === 0) same++;
      checked++;
      // The complete list parsed the context's other lines again, where it has any; the provisional one did not.
      if (cachedChars() > parsed) rebuilt++;
    }
    expect(checked).toBeGreaterThan(files.length / 2);
    expect(same).toBeGreaterThan(checked * 0.9);
    expect(rebuilt).toBeGreaterThan(files.length / 4);
  });
});
