/**
 * The provisional list after the idle release when lines were added or removed since the last
 * complete list, on CRLF copies of the parity fixtures and under edits of the tree made one after
 * another with a provisional list after each (so that each stands in for a structure that replaced
 * another): a line inserted and another deleted in one update, two lines swapped, a line broken and
 * the next mended (the count unchanged, lines moved), line endings turned into "\r\n" and back. Each
 * provider request finding kept must sit on the lines whose text it was made on and name only lines
 * whose text is what it was at that number (`keptFindingFaults`).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, collectProvisionalDiagnostics } from "../../server/src/features/diagnostics";
import { provisionalRequestDiagnostics, requestDiagnostics } from "../../server/src/features/requestDiagnostics";
import { keptFindingFaults, recordFindings } from "../helpers/keptFindings";
import { seededRandom } from "../helpers/lspClient";
import { movingUpdate } from "../helpers/movingEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

beforeEach(() => vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") }));
afterEach(() => vi.useRealTimers());

it(`keeps provider request findings on their own lines across edits of the tree in a row, CRLF, over ${files.length} fixtures`, () => {
  const failures: string[] = [];
  let provisional = 0;
  let moved = 0;
  for (const seed of [5, 6]) {
    const random = seededRandom(seed);
    for (const name of files) {
      const text = readFileSync(join(FIXTURES, name), "utf8").replace(/\r?\n/g, "\r\n");
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, text);
      collectDiagnostics(doc);
      let made = recordFindings(doc, requestDiagnostics(doc));
      const log: string[] = [];
      for (let step = 0; step < 12; step++) {
        if (random() < 0.4) {
          releaseKept();
          forgetValues();
          log.push("release");
        }
        log.push(movingUpdate(doc, random));
        const collected = collectProvisionalDiagnostics(doc);
        const kept = collected && provisionalRequestDiagnostics(doc)!.filter((d) => d.code !== "compaction-keeps-tool-result");
        if (kept) {
          provisional++;
          if (doc.lineCount !== made.lines.length) moved += kept.length;
          const where = `${name} seed ${seed} step ${step} [${log.join(",")}]`;
          failures.push(...keptFindingFaults(doc, made, kept).map((fault) => `${where}: ${fault}`));
          log.push("P");
        }
        if (collected === undefined || random() < 0.25) {
          collectDiagnostics(doc);
          made = recordFindings(doc, requestDiagnostics(doc));
          log.push("C");
        }
      }
    }
  }
  expect(failures.slice(0, 20)).toEqual([]);
  expect(provisional).toBeGreaterThan(files.length);
  expect(moved).toBeGreaterThan(10);
});
