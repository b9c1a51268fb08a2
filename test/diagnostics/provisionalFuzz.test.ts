/**
 * The provisional list after the idle release (`collectProvisionalDiagnostics`) under raw edits a
 * typist or a tool makes, several before the analysis is read: the header typed in, a byte order
 * mark added or removed, two lines swapped in one change, a line inserted and another deleted in
 * one update, a full-text change, a lone "\r" typed or removed, typing in the newest lines. Each
 * provider request finding it keeps must sit on a line (and point at lines) whose text is what it
 * was when the finding was made, moved with it when lines were added or removed, and name only
 * lines whose text is what it was; every other check must say what a fresh document's complete
 * list says, and with nothing released no edit may get a provisional list at all.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, collectProvisionalDiagnostics } from "../../server/src/features/diagnostics";
import { provisionalRequestDiagnostics, requestDiagnostics } from "../../server/src/features/requestDiagnostics";
import { randomEdit } from "../helpers/structuralEdits";
import { editInContext } from "../helpers/contextEdits";
import { seededRandom } from "../helpers/lspClient";
import { keptFindingFaults, recordFindings } from "../helpers/keptFindings";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

function lastLines(doc: SessionDocument, random: () => number): number {
  const n = doc.lineCount;
  return Math.max(0, n - 1 - Math.floor(random() * Math.min(6, n)));
}

function rawEdit(doc: SessionDocument, random: () => number): string {
  const kind = Math.floor(random() * 9);
  const v = doc.version + 1;
  const n = doc.lineCount;
  if (kind === 0) {
    // Header typed in.
    const t = doc.lines[0]!;
    const at = t.indexOf('"cwd":"');
    if (at < 0) return "none";
    doc.update([{ range: { start: { line: 0, character: at + 7 }, end: { line: 0, character: at + 7 } }, text: "x" }], v);
    return "header";
  }
  if (kind === 1) {
    // BOM toggled.
    if (doc.hasBom) doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: "" }], v);
    else doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "\ufeff" }], v);
    return "bom";
  }
  if (kind === 2) {
    // Swap two neighbouring lines near the end, as one change (delta 0, lines moved).
    const l = Math.max(1, n - 3 - Math.floor(random() * 3));
    if (l + 1 >= n) return "none";
    const a = doc.lines[l]!;
    const b = doc.lines[l + 1]!;
    doc.update([{ range: { start: { line: doc.lspLine(l), character: 0 }, end: { line: doc.lspLine(l + 1), character: b.length } }, text: `${b}\n${a}` }], v);
    return "swap";
  }
  if (kind === 3) {
    // Insert a line high up, then delete a line near the end, two changes.
    const l = 1 + Math.floor(random() * Math.max(1, n - 2));
    const m = lastLines(doc, random);
    if (m <= l + 1 || m >= n - 1) return "none";
    doc.update(
      [
        { range: { start: { line: m, character: 0 }, end: { line: m + 1, character: 0 } }, text: "" },
        { range: { start: { line: l, character: 0 }, end: { line: l, character: 0 } }, text: "{}\n" },
      ],
      v,
    );
    return "ins+del";
  }
  if (kind === 4) {
    // The whole text again, a context line changed.
    const m = lastLines(doc, random);
    const lines = [...doc.lines];
    lines[m] = lines[m]!.replace(/"text":"/, '"text":"w');
    doc.update([{ text: lines.join("\n") }], v);
    return "full";
  }
  if (kind === 5) {
    // A lone "\r" typed inside a context line, or taken away.
    const m = lastLines(doc, random);
    const t = doc.lines[m]!;
    const at = t.indexOf("\r");
    if (at >= 0 && at < t.length - 1) {
      doc.update([{ text: doc.getText().replace(/\r(?!\n)/, "") }], v);
      return "cr-out";
    }
    const p = t.indexOf('"text":"');
    if (p < 0) return "none";
    doc.update([{ range: { start: { line: doc.lspLine(m), character: p + 8 }, end: { line: doc.lspLine(m), character: p + 8 } }, text: "\r" }], v);
    return "cr-in";
  }
  if (kind === 6) {
    // Typing in a context line, not read between.
    const m = lastLines(doc, random);
    const t = doc.lines[m]!;
    const p = t.search(/"(text|content|timestamp|stopReason)":"/);
    if (p < 0) return "none";
    const q = t.indexOf(':"', p) + 2;
    doc.update(
      [
        {
          range: { start: { line: doc.lspLine(m), character: q }, end: { line: doc.lspLine(m), character: q + (random() < 0.5 ? 0 : 3) } },
          text: random() < 0.5 ? "" : "zz",
        },
      ],
      v,
    );
    return "type";
  }
  return randomEdit(doc, random) ? "random" : "none";
}

describe("the provisional list under raw edits", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") }));
  afterEach(() => vi.useRealTimers());

  it(`keeps provider request findings only on lines whose text is unchanged, over ${files.length} fixtures and 4 seeds`, () => {
    const failures: string[] = [];
    let provisional = 0;
    let moved = 0;
    for (const seed of [1, 2, 3, 4]) {
      const random = seededRandom(seed);
      for (const name of files) {
        const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
        collectDiagnostics(doc);
        let made = recordFindings(doc, requestDiagnostics(doc));
        const record = () => {
          made = recordFindings(doc, requestDiagnostics(doc));
        };
        record();
        const log: string[] = [];
        for (let step = 0; step < 14; step++) {
          if (random() < 0.4) {
            releaseKept();
            forgetValues();
          }
          const burst = 1 + Math.floor(random() * 3);
          for (let k = 0; k < burst; k++) log.push(rawEdit(doc, random));
          const collected = collectProvisionalDiagnostics(doc);
          if (collected) {
            provisional++;
            const kept = provisionalRequestDiagnostics(doc)!.filter((d) => d.code !== "compaction-keeps-tool-result");
            for (const fault of keptFindingFaults(doc, made, kept)) failures.push(`${name} seed ${seed} step ${step} [${log.join(",")}]: ${fault}`);
            if (doc.lineCount !== made.lines.length) moved += kept.length;
            const reqs = provisionalRequestDiagnostics(doc)!;
            const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
            const complete = collectDiagnostics(fresh).diagnostics;
            const k = (ds: readonly Diagnostic[]) => ds.map((d) => JSON.stringify([d.code, d.message, d.range, d.relatedInformation ?? []])).sort();
            const wo = (all: string[], some: string[]) => {
              const left = [...all];
              for (const x of some) {
                const i = left.indexOf(x);
                if (i >= 0) left.splice(i, 1);
              }
              return left;
            };
            const a1 = JSON.stringify(wo(k(collected.diagnostics), k(reqs)));
            const a2 = JSON.stringify(wo(k(complete), k(requestDiagnostics(fresh))));
            if (a1 !== a2) failures.push(`${name} seed ${seed} step ${step} [${log.join(",")}]: others differ ${a1.slice(0, 300)} vs ${a2.slice(0, 300)}`);
            const fc = k(requestDiagnostics(fresh).filter((d) => d.code === "compaction-keeps-tool-result"));
            const pc = k(reqs.filter((d) => d.code === "compaction-keeps-tool-result"));
            if (JSON.stringify(fc) !== JSON.stringify(pc)) failures.push(`${name} seed ${seed} step ${step} [${log.join(",")}]: compaction differ`);
            log.push("P");
          }
          if (collected === undefined || random() < 0.5) {
            collectDiagnostics(doc);
            record();
            log.push("C");
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(provisional).toBeGreaterThan(files.length);
    // Findings kept across lines added or removed above them, moved with their lines.
    expect(moved).toBeGreaterThan(10);
  });

  it("gives none while nothing was released, whatever the edits", () => {
    const failures: string[] = [];
    const random = seededRandom(7);
    for (const name of files) {
      const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
      collectDiagnostics(doc);
      const log: string[] = [];
      for (let step = 0; step < 16; step++) {
        const r = random();
        if (r < 0.2) {
          // A lone "\r" typed into the last line's text, or the first one taken out.
          const text = doc.getText();
          const at = text.search(/\r(?!\n)/);
          if (at >= 0) {
            doc.update([{ text: text.slice(0, at) + text.slice(at + 1) }], doc.version + 1);
            log.push("cr-out-full");
          } else {
            const m = Math.max(doc.lineCount - 2, 0);
            const p = doc.lines[m]!.indexOf('"text":"');
            if (p < 0) continue;
            doc.update(
              [{ range: { start: { line: doc.lspLine(m), character: p + 8 }, end: { line: doc.lspLine(m), character: p + 8 } }, text: "\r" }],
              doc.version + 1,
            );
            log.push("cr-in");
          }
        } else if (r < 0.6) log.push(`ctx${editInContext(doc, random)}`);
        else log.push(`rnd${randomEdit(doc, random)}`);
        if (collectProvisionalDiagnostics(doc)) failures.push(`${name} step ${step}: ${log.join(",")}`);
        collectDiagnostics(doc);
      }
    }
    expect(failures).toEqual([]);
  });
});
