/**
 * The server derives again, a slice at a time, what the idle release let go (`lsp/server.ts`'s
 * `rederivation`: `rederiveRequestDiagnosticsSteps`, then the rest of the diagnostics), and an edit
 * can arrive between two slices, after which the driver goes on only while `stillValid` says so.
 * Whatever the rederivation does then, the document's next answers must equal those of a fresh
 * document of the same text.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetValues } from "../../server/src/core/line/values";
import { activeContext, activeContext074 } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnosticsSteps, computeDiagnostics } from "../../server/src/features/diagnostics";
import { rederivation } from "../../server/src/lsp/server";
import { editInContext } from "../helpers/contextEdits";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

const contexts = (doc: SessionDocument) => {
  const built = activeContext(doc.analysis);
  const older = activeContext074(doc.analysis);
  return [built.ok ? built.build.context : built, older.ok ? older.build.context : older];
};

describe("an edit while the rederivation runs", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`leaves answers equal to a fresh document's, over ${files.length} fixtures`, () => {
    const random = seededRandom(386);
    let raced = 0;
    for (const name of files) {
      for (let round = 0; round < 6; round++) {
        const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
        computeDiagnostics(doc);
        releaseKept();
        forgetValues();
        const work = rederivation(doc, { steps: (d) => collectDiagnosticsSteps(d), get: () => doc });
        // Some steps, then an edit between two slices, then the rest as the driver runs it: while
        // `stillValid` says so (the guard asks between slices; here, between any two steps).
        const before = Math.floor(random() * 6);
        let done = false;
        for (let k = 0; k < before && !done; k++) done = work.steps.next().done === true;
        const edited = random() < 0.5 ? (editInContext(doc, random) ?? -1) >= 0 : randomEdit(doc, random);
        if (!edited || done) continue;
        while (work.stillValid() && !work.steps.next().done);
        raced++;
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const where = `${name}, round ${round}, after ${before} steps`;
        expect(contexts(doc), where).toEqual(contexts(fresh));
        expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
      }
    }
    expect(raced).toBeGreaterThan(files.length);
  });
});
