/**
 * Where `keptAcrossRelease`'s `stale` says the lines an answer was made on are now (`StaleLines`),
 * against the text itself: every line it maps must hold, at its new number, the text it had when
 * the answer was made, the lines it maps must keep their order, and with `unmoved` each must keep
 * its number (lines Pi reads as blank, which share one parse, alike whatever their whitespace).
 * Random edits of the parity fixtures (LF and CRLF): edits of the tree and inside
 * lines, several changes in one update (a line inserted and another deleted, two lines swapped, a
 * line broken and the next mended: the line count unchanged but lines moved), a line ending turned
 * into "\r\n", the header typed in, a full-text change, several updates before the analysis is read,
 * idle releases; the answer kept (`set`) or stood in for (`standIn`, as the provisional list does)
 * at random steps, so that a stand-in is made for a structure that itself replaced another.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { keptAcrossRelease, releaseKept } from "../../server/src/core/session/semantics/memo";
import { seededRandom } from "../helpers/lspClient";
import { movingUpdate } from "../helpers/movingEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

it(`stale answers map each line kept to where its text is now, over ${files.length} fixtures, LF and CRLF`, () => {
  const failures: string[] = [];
  let mapped = 0;
  let movedMapped = 0;
  let chained = 0;
  for (const crlf of [false, true]) {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      for (const name of files) {
        let text = readFileSync(join(FIXTURES, name), "utf8");
        if (crlf) text = text.replace(/\r?\n/g, "\r\n");
        const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, text);
        // The value is the text of every line when it was kept: what the oracle compares with.
        const table = keptAcrossRelease<{ lines: string[]; standIns: number }>(() => new Uint8Array(doc.lineCount + 1));
        table.set(doc.analysis, { lines: [...doc.lines], standIns: 0 });
        const log: string[] = [];
        for (let step = 0; step < 24; step++) {
          if (random() < 0.1) {
            releaseKept();
            log.push("release");
          }
          log.push(movingUpdate(doc, random));
          // Several updates before the analysis is read: the splice spans them all.
          if (random() < 0.3) continue;
          const a = doc.analysis;
          const stale = table.stale(a);
          if (stale) {
            const then = stale.value.lines;
            let last = -1;
            for (let line = 0; line < then.length; line++) {
              const now = stale.lines.now(line);
              if (now === undefined) continue;
              mapped++;
              if (now !== line) movedMapped++;
              if (stale.value.standIns > 1) chained++;
              const where = `${name}${crlf ? " crlf" : ""} seed ${seed} step ${step} [${log.join(",")}]: line ${line} → ${now}`;
              // Lines Pi reads as blank share one parse, so that whitespace typed into one is not an
              // edit the log records: no finding that moves with its line sits on one.
              const blank = doc.lines[now]?.trim() === "" && then[line]!.trim() === "";
              if (doc.lines[now] !== then[line] && !blank)
                failures.push(`${where}: text ${JSON.stringify(doc.lines[now]?.slice(0, 60))} was ${JSON.stringify(then[line]!.slice(0, 60))}`);
              if (now <= last) failures.push(`${where}: out of order (after ${last})`);
              if (stale.lines.unmoved && now !== line) failures.push(`${where}: unmoved but moved`);
              last = now;
            }
          }
          const r = random();
          if (r < 0.25) {
            table.set(a, { lines: [...doc.lines], standIns: 0 });
            log.push("set");
          } else if (r < 0.75 && stale) {
            // As the provisional list does: what it keeps is now on this version's lines.
            table.standIn(a, { lines: [...doc.lines], standIns: stale.value.standIns + 1 });
            log.push("standIn");
          }
        }
      }
    }
  }
  expect(failures.slice(0, 20)).toEqual([]);
  expect(movedMapped).toBeGreaterThan(1000);
  expect(chained).toBeGreaterThan(1000);
  expect(mapped).toBeGreaterThan(movedMapped);
});
