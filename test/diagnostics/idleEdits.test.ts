/**
 * What an idle server lets go (`releaseKept`, `forgetValues`, as `lsp/memory.ts` does after a pause)
 * must not change an answer: after any sequence of edits, inside lines and structural (a line broken
 * and mended, a line inserted or deleted, a `parentId` changed), with releases between them, a
 * document's diagnostics equal those of the same text opened afresh. And the first edit after a
 * release, on a line the resumed context does not read, parses only that line: the request findings
 * kept through the release answer for it (`keptAcrossRelease`); on a line it reads, it parses only
 * that line too once what the release let go was derived again (`rederiveRequestDiagnosticsSteps`, what
 * the server does when someone works again).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contextInputLines } from "../../server/src/core/pi/activeContext";
import { cachedChars, forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, computeDiagnostics } from "../../server/src/features/diagnostics";
import { rederiveRequestDiagnosticsSteps } from "../../server/src/features/requestDiagnostics";
import { runToEnd } from "../../server/src/core/base/steps";
import { editInContext } from "../helpers/contextEdits";
import { lineEnd, randomEdit } from "../helpers/structuralEdits";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

describe("edits after the idle release", () => {
  beforeEach(() => {
    // The provider's placeholder results are dated when their request is built.
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`equal a fresh document's diagnostics, structural edits and edits in the context included, over ${files.length} fixtures`, () => {
    const random = seededRandom(32);
    let compared = 0;
    let released = 0;
    for (const name of files) {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      computeDiagnostics(doc);
      for (let step = 0; step < 16; step++) {
        if (random() < 0.35) {
          releaseKept();
          forgetValues();
          released++;
        }
        const edited = random() < 0.3 ? (editInContext(doc, random) ?? -1) >= 0 : randomEdit(doc, random);
        if (!edited || random() < 0.25) continue;
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const where = `${name}, edit ${step}`;
        expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
        expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(files.length * 4);
    expect(released).toBeGreaterThan(files.length);
  });

  it("parse only the edited line when it is outside the resumed context, and answer as a fresh document", () => {
    const name = files.find((f) => {
      const doc = new SessionDocument(`file:///${f}`, "jsonl", 1, readFileSync(join(FIXTURES, f), "utf8"));
      const marked = contextInputLines(doc.analysis);
      return computeDiagnostics(doc).length > 0 && marked.some((m) => m === 1) && doc.lines.some((l, i) => marked[i] === 0 && l.includes('"text":"'));
    })!;
    expect(name).toBeDefined();
    const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
    computeDiagnostics(doc);
    const marked = contextInputLines(doc.analysis);
    const line = doc.lines.findIndex((l, i) => marked[i] === 0 && l.includes('"text":"'));
    releaseKept();
    forgetValues();
    const before = doc.lines[line]!;
    doc.update([{ range: { start: { line: doc.lspLine(line), character: 0 }, end: lineEnd(doc, line) }, text: before.replace('"text":"', '"text":"x') }], 2);
    const diagnostics = computeDiagnostics(doc);
    // At most the edited line's value and the header's were parsed again, none of the context's lines.
    expect(cachedChars()).toBeLessThanOrEqual(doc.lines[line]!.length + doc.lines[doc.analysis.headerLine ?? 0]!.length);
    expect(diagnostics).toEqual(computeDiagnostics(new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText())));
  });

  it("parse no more inside the resumed context once what the release let go is derived again than without a release, and answer as a fresh document", () => {
    /**
     * The characters of line values parsed again by a character typed into the newest message of
     * the resumed context with a text: the first edit after a release, with or without deriving
     * first, or an edit with no release at all.
     */
    const parsedByEdit = (name: string, how: "kept" | "derived" | "released") => {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      computeDiagnostics(doc);
      const marked = contextInputLines(doc.analysis);
      let line = doc.lines.length - 1;
      while (line >= 0 && !(marked[line] === 1 && doc.lines[line]!.includes('"text":"'))) line--;
      if (line < 0) return undefined;
      if (how !== "kept") releaseKept();
      // As the server derives them again: the request's findings, then the rest of the diagnostics.
      if (how === "derived") {
        runToEnd(rederiveRequestDiagnosticsSteps(doc));
        computeDiagnostics(doc);
      }
      forgetValues();
      const at = doc.lines[line]!.indexOf('"text":"') + 8;
      doc.update([{ range: { start: { line: doc.lspLine(line), character: at }, end: { line: doc.lspLine(line), character: at } }, text: "x" }], 2);
      expect(computeDiagnostics(doc), name).toEqual(computeDiagnostics(new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText())));
      return cachedChars();
    };
    let checked = 0;
    let discriminating = 0;
    for (const name of files) {
      const kept = parsedByEdit(name, "kept");
      if (kept === undefined) continue;
      checked++;
      expect(parsedByEdit(name, "derived"), name).toBe(kept);
      // Without deriving first, the edit parses the context's other lines again, where it has any.
      if (parsedByEdit(name, "released")! > kept) discriminating++;
    }
    expect(checked).toBeGreaterThan(files.length / 2);
    expect(discriminating).toBeGreaterThan(files.length / 4);
  });
});
