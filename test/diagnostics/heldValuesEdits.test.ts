/**
 * A large document's first parse holds the values of the lines Pi resumes from
 * (`core/line/heldValues.ts`), keyed by the lines' parses, until they are read. Whatever comes
 * between the open and the complete diagnostics must not make an answer stale: the staged open's
 * follow-up run in part on a clone, another large document opened (which lets the held values go),
 * edits inside lines and structural ones (lines broken, mended, copied or deleted, which shift the
 * lines after them, and parents changed). After them, the diagnostics and both Pi versions' context
 * and provider request equal those of the same text opened afresh with every value kept.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetValues, heldLines, setValueBudget } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeContextRequest } from "../../server/src/features/contextRequest";
import { collectDiagnostics, collectDiagnosticsSteps, collectStructuralDiagnostics } from "../../server/src/features/diagnostics";
import { editInContext } from "../helpers/contextEdits";
import { parseFixture } from "../helpers/fixture";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

const PARITY = join(__dirname, "../parity/fixtures");
const DIAGNOSTICS = join(__dirname, "../fixtures/diagnostics");
const texts: (readonly [string, string])[] = [
  ...readdirSync(PARITY)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => [f, readFileSync(join(PARITY, f), "utf8")] as const),
  ...readdirSync(DIAGNOSTICS)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => [f, parseFixture(readFileSync(join(DIAGNOSTICS, f), "utf8")).text] as const),
].filter(([, text]) => text.split("\n").length > 3);

const key = (d: Diagnostic) => JSON.stringify([d.code, d.range, d.severity, d.message, d.relatedInformation ?? [], d.tags ?? []]);

/** The complete diagnostics, and the context and request of each Pi version, as text. */
function answers(doc: SessionDocument) {
  const contexts = (["1.x", "0.74"] as const).flatMap((flavor) =>
    (["context", "provider"] as const).map((stage) => {
      const answer = computeContextRequest(doc, { flavor, stage });
      return answer.ok ? JSON.stringify(answer.result) : answer.message;
    }),
  );
  return { diagnostics: collectDiagnostics(doc, 5).diagnostics.map(key), contexts };
}

describe("the values held by a large open", () => {
  beforeEach(() => {
    // The provider's placeholder results are dated when their request is built.
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
    forgetValues();
    setValueBudget(undefined);
  });

  it(`make no answer stale, whatever comes before the complete diagnostics, over ${texts.length} sessions`, () => {
    const random = seededRandom(34);
    let held = 0;
    let edits = 0;
    for (const [name, text] of texts) {
      forgetValues();
      // A budget under the text's length makes it a large document; its window is that budget.
      setValueBudget(Math.max(1, Math.floor(text.length * (0.05 + random() * 0.9))));
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, text);
      held += heldLines();
      collectStructuralDiagnostics(doc, 5);
      if (random() < 0.5) {
        const follow = collectDiagnosticsSteps(doc.clone(), 5, {});
        for (let step = Math.floor(random() * 4); step > 0 && !follow.next().done; step--);
      }
      if (random() < 0.3) new SessionDocument("file:///other.jsonl", "jsonl", 1, texts[Math.floor(random() * texts.length)]![1]);
      for (let n = Math.floor(random() * 4); n > 0; n--) if (random() < 0.5 ? (editInContext(doc, random) ?? -1) >= 0 : randomEdit(doc, random)) edits++;
      const found = answers(doc);
      const after = doc.getText();
      setValueBudget(undefined);
      forgetValues();
      expect(found, name).toEqual(answers(new SessionDocument(`file:///${name}`, "jsonl", 1, after)));
    }
    expect(held).toBeGreaterThan(texts.length);
    expect(edits).toBeGreaterThan(texts.length / 2);
  });
});
