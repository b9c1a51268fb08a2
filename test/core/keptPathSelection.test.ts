/**
 * The context selection carried over an edit of the tree that keeps the active path (`relink.ts`
 * passes the same array on): a line broken, mended, copied or deleted on another branch or in a
 * line that is not an entry of the path, a parent changed off the path. The marks move with the
 * entries below the edited lines (`keptPathSelection` in `core/pi/activeContext.ts`). Every
 * selection, faded hint and diagnostic must equal a fresh document's.
 */

import { expect, it } from "vitest";
import { contextSelection } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import type { Entry } from "../../server/src/core/session/entry";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeFadingHints } from "../../server/src/features/fading";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

/** A session of 6 to 25 entries on a few branches, with compactions and system messages on the way. */
function branchySession(random: () => number): string {
  const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
  const count = 6 + Math.floor(random() * 20);
  for (let i = 0; i < count; i++) {
    const parent = i === 0 ? "null" : random() < 0.75 ? `"e${i - 1}"` : `"e${Math.floor(random() * i)}"`;
    const head = `"id":"e${i}","parentId":${parent},"timestamp":"2025-01-01T00:00:01.000Z"`;
    const r = random();
    if (r < 0.15 && i > 2) lines.push(`{"type":"compaction",${head},"summary":"s","firstKeptEntryId":"e${Math.floor(random() * i)}","tokensBefore":10}`);
    else if (r < 0.25) lines.push(`{"type":"message",${head},"message":{"role":"system","content":"s","timestamp":1}}`);
    else lines.push(`{"type":"message",${head},"message":{"role":"user","content":"u","timestamp":1}}`);
    // Now and then a line that is not an entry, which shifts lines but not entries.
    if (random() < 0.1) lines.push(random() < 0.5 ? "" : "{not json");
  }
  return `${lines.join("\n")}\n`;
}

const lineOf = (e: Entry | undefined) => (e ? e.line : null);

function selectionData(doc: SessionDocument) {
  const a = doc.analysis;
  const { state, compaction, keptFrom } = contextSelection(a);
  return { marks: a.entries.map((e) => [e.line, state[e.index]]), compaction: lineOf(compaction), keptFrom: lineOf(keptFrom), length: state.length };
}

it("a selection carried over an edit of the tree that kept the path equals a fresh document's", () => {
  const random = seededRandom(Number(process.env.SEED ?? 40));
  let compared = 0;
  let keptPaths = 0;
  for (let round = 0; round < 300; round++) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, branchySession(random));
    for (let step = 0; step < 8; step++) {
      // The selection of the structure before the edit is made, so that the edit may carry it.
      const before = contextSelection(doc.analysis).path;
      if (!randomEdit(doc, random)) continue;
      if (doc.analysis.activePath === before && before.length > 0) keptPaths++;
      const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      const where = `round ${round}, step ${step}\n${doc.getText()}`;
      expect(selectionData(doc), where).toEqual(selectionData(fresh));
      expect(computeFadingHints(doc), where).toEqual(computeFadingHints(fresh));
      if (step % 4 === 3) expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
      compared++;
    }
  }
  // The carry is what this test is about: most edits off the path keep it.
  expect(keptPaths).toBeGreaterThan(compared / 5);
});
