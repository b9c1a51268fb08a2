/**
 * The malformed lines a structure made by an edit of the tree carries from the one it replaced
 * (`carriedMalformedLines` in `report.ts`: the lines outside the edit moved with them, the edited
 * lines looked at again) equal a fresh document's, under random edits that break and mend lines
 * (so that lines turn malformed and back), several changes in one update, several updates before
 * the analysis is read, idle releases, and the list asked for at random steps (a structure whose
 * list is first asked after typing in it, or after the structure before it was not asked).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { respliceOf } from "../../server/src/core/session/resplice";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { Report } from "../../server/src/features/diagnostics/report";
import { seededRandom } from "../helpers/lspClient";
import { randomEdit } from "../helpers/structuralEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

/** A line broken near its start (a malformed head and tail) or a line's first character deleted, as one change, or two in one update. */
function breakingEdit(doc: SessionDocument, random: () => number): string {
  const n = doc.lineCount;
  const l = 1 + Math.floor(random() * Math.max(1, n - 1));
  if (l >= n || doc.lines[l]!.length < 3) return "none";
  const at = (line: number, character: number) => ({ line: doc.lspLine(line), character });
  const kind = random();
  if (kind < 0.4) {
    doc.update([{ range: { start: at(l, 0), end: at(l, 1) }, text: "" }], doc.version + 1);
    return "unbrace";
  }
  if (kind < 0.7) {
    doc.update([{ range: { start: at(l, 0), end: at(l, 0) }, text: "{" }], doc.version + 1);
    return "brace";
  }
  const m = 1 + Math.floor(random() * Math.max(1, n - 1));
  if (m >= n || m === l) return "none";
  // Two changes: a line deleted, then a malformed line inserted elsewhere (the count unchanged).
  const [first, second] = m < l ? [m, l - 1] : [m, l];
  doc.update(
    [
      { range: { start: at(first, 0), end: at(first + 1, 0) }, text: "" },
      { range: { start: at(second, 0), end: at(second, 0) }, text: "not json\n" },
    ],
    doc.version + 1,
  );
  return "del+ins";
}

it(`the malformed lines carried over an edit of the tree equal a fresh document's, over ${files.length} fixtures`, () => {
  const failures: string[] = [];
  let carried = 0;
  for (const seed of [1, 2, 3]) {
    const random = seededRandom(seed);
    for (const name of files) {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      new Report(doc).malformedLines();
      const log: string[] = [];
      for (let step = 0; step < 24; step++) {
        if (random() < 0.1) {
          releaseKept();
          log.push("release");
        }
        log.push(random() < 0.5 ? breakingEdit(doc, random) : randomEdit(doc, random) ? "random" : "none");
        if (random() < 0.25) continue;
        const a = doc.analysis;
        if (random() < 0.2) continue;
        if (respliceOf(a)) carried++;
        const lines = [...new Report(doc).malformedLines()];
        const fresh = [...new Report(new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText())).malformedLines()];
        if (JSON.stringify(lines) !== JSON.stringify(fresh))
          failures.push(
            `${name} seed ${seed} step ${step} [${log.join(",")}]: ${JSON.stringify(lines).slice(0, 200)} vs ${JSON.stringify(fresh).slice(0, 200)}`,
          );
      }
    }
  }
  expect(failures.slice(0, 20)).toEqual([]);
  expect(carried).toBeGreaterThan(files.length);
});
