/**
 * A lone "\r" makes one of Pi's lines two for an LSP client, so an edit that adds or removes one
 * moves every later line for the client, though Pi's lines, the tree and the resumed context stay
 * as they were. What is kept across edits must follow: after random sequences of such edits (a
 * "\r" as JSON whitespace after a line's "{", or taken out), structural edits, a setting, label,
 * name or message line added off the resumed path, some with no analysis asked between them, and
 * idle releases, a document's diagnostics equal those of the same text opened afresh. The request
 * findings and the compaction findings, kept for the same contexts, once answered with the ranges
 * of before the "\r".
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contextInputLines } from "../../server/src/core/pi/activeContext";
import { forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { collectDiagnostics, computeDiagnostics } from "../../server/src/features/diagnostics";
import { lineEnd, randomEdit } from "../helpers/structuralEdits";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

function replaceLine(doc: SessionDocument, line: number, text: string): void {
  doc.update([{ range: { start: { line: doc.lspLine(line), character: 0 }, end: lineEnd(doc, line) }, text }], doc.version + 1);
}

/** A "\r" put after the line's first "{" (JSON whitespace: the line parses to the same value), or taken out; false when neither applies. */
function toggleCarriageReturn(doc: SessionDocument, line: number): boolean {
  const text = doc.lines[line]!;
  const after = text.startsWith("{\r") ? `{${text.slice(2)}` : text.startsWith("{") ? `{\r${text.slice(1)}` : text;
  if (after === text) return false;
  replaceLine(doc, line, after);
  return true;
}

/** A setting, label, name or user message line inserted after `line`, a child of a random entry. */
function insertSideLine(doc: SessionDocument, line: number, random: () => number): boolean {
  const idOf = () => /"id":"([^"]*)"/.exec(doc.lines[Math.floor(random() * doc.lineCount)]!)?.[1];
  const parent = idOf();
  if (!parent) return false;
  const head = `"id":"side${doc.version}","parentId":"${parent}","timestamp":"2026-01-01T00:00:00.000Z"`;
  const kinds = [
    `{"type":"model_change",${head},"provider":"openai","modelId":"gpt-5.1"}`,
    `{"type":"thinking_level_change",${head},"thinkingLevel":"high"}`,
    `{"type":"label",${head},"targetId":"${idOf() ?? parent}","label":"x"}`,
    `{"type":"session_info",${head},"name":"renamed"}`,
    `{"type":"message",${head},"message":{"role":"user","content":"hi","timestamp":1}}`,
  ];
  const at = lineEnd(doc, line);
  doc.update([{ range: { start: at, end: at }, text: `\n${kinds[Math.floor(random() * kinds.length)]!}` }], doc.version + 1);
  return true;
}

describe("edits that add or remove a lone carriage return", () => {
  beforeEach(() => {
    // The provider's placeholder results are dated when their request is built.
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("on a line off the resumed context, move the kept request findings as a fresh document places them", () => {
    const name = "fault-compaction-keeps-tool-result.jsonl";
    const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
    const before = computeDiagnostics(doc);
    expect(before.some((d) => d.code === "orphaned-tool-result")).toBe(true);
    const marked = contextInputLines(doc.analysis);
    const orphan = before.find((d) => d.code === "orphaned-tool-result")!.range.start.line;
    // A line above the finding that the resumed context does not read (the compaction summarised it away).
    const line = doc.lines.findIndex((text, k) => k > 0 && k < orphan && marked[k] === 0 && text.startsWith("{"));
    expect(line).toBeGreaterThan(0);
    expect(toggleCarriageReturn(doc, line)).toBe(true);
    const after = computeDiagnostics(doc);
    expect(after).toEqual(computeDiagnostics(new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText())));
    expect(after.find((d) => d.code === "orphaned-tool-result")!.range.start.line).toBe(orphan + 1);
  });

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`in random sequences with edits of the tree and idle releases, equal a fresh document's diagnostics (seed ${seed})`, () => {
      const random = seededRandom(seed);
      let compared = 0;
      for (const name of files) {
        const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
        computeDiagnostics(doc);
        const steps: string[] = [];
        for (let step = 0; step < 16; step++) {
          if (random() < 0.15) {
            releaseKept();
            forgetValues();
            steps.push("release");
          }
          // Some edits pick their line without asking for the analysis: two edits of the tree in a row.
          const marked = random() < 0.3 ? new Uint8Array(0) : contextInputLines(doc.analysis);
          const off: number[] = [];
          for (let line = 0; line < marked.length; line++) if (marked[line] === 0) off.push(line);
          const pick = (count: number) => (off.length > 0 && random() < 0.8 ? off[Math.floor(random() * off.length)]! : Math.floor(random() * count));
          const kind = random();
          const line = pick(doc.lineCount);
          const edited = kind < 0.2 ? toggleCarriageReturn(doc, line) : kind < 0.4 ? insertSideLine(doc, line, random) : randomEdit(doc, random, pick);
          steps.push(kind < 0.2 ? `"\\r" on line ${line + 1}` : kind < 0.4 ? `a line after ${line + 1}` : "an edit");
          if (!edited || random() < 0.4) continue;
          const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
          const where = `${name}: ${steps.join(", ")}`;
          expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
          expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(files.length * 3);
    });
  }
});
