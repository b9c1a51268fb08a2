/**
 * Robustness: the core never throws, whatever the text, and an incrementally edited document
 * always says exactly what a freshly opened one with the same text says.
 *
 * Inputs are mutations of sessions the real Pi wrote (test/parity/fixtures): truncations at every
 * kind of position, random character edits, shuffled, duplicated and deleted lines, pretty-printed
 * entries, and lines of random JSON values. A seeded generator keeps every run identical.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { locate } from "../../server/src/core/line/locate";
import { parseLine } from "../../server/src/core/line/parse";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { seededRandom } from "../helpers/lspClient";

const fixturesDir = join(__dirname, "../parity/fixtures");
const sessions = readdirSync(fixturesDir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .map((f) => readFileSync(join(fixturesDir, f), "utf8"));

const ALPHABET = ['"', "{", "}", "[", "]", ":", ",", "\\", "\n", "\r\n", "\r", " ", "x", "0", "null", "\u{1F600}", "中", "\uFEFF", "\u0000"];

function mutate(text: string, random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const at = () => Math.floor(random() * (text.length + 1));
  const lines = text.split("\n");
  switch (Math.floor(random() * 8)) {
    case 0:
      return text.slice(0, at());
    case 1: {
      const i = at();
      return text.slice(0, i) + pick(ALPHABET) + text.slice(i);
    }
    case 2: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(random() * 20));
    }
    case 3:
      return lines.sort(() => random() - 0.5).join("\n");
    case 4: {
      const i = Math.floor(random() * lines.length);
      lines.splice(i, 0, lines[Math.floor(random() * lines.length)]!);
      return lines.join("\n");
    }
    case 5: {
      const i = Math.floor(random() * lines.length);
      try {
        lines[i] = JSON.stringify(JSON.parse(lines[i]!), null, 2);
      } catch {
        lines[i] = "";
      }
      return lines.join("\n");
    }
    case 6: {
      const values = [
        "null",
        "0",
        "false",
        '""',
        "[]",
        "[1,2]",
        "42",
        "true",
        '"text"',
        "{}",
        '{"type":"session"}',
        '{"type":"message"}',
        '{"id":1,"parentId":{}}',
      ];
      lines.splice(Math.floor(random() * lines.length), 0, pick(values));
      return lines.join("\n");
    }
    default: {
      // Re-point a parentId at a random id of the file: cycles, self-parents and dangling links.
      const ids = [...text.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]!);
      const i = Math.floor(random() * lines.length);
      lines[i] = lines[i]!.replace(/"parentId":("[^"]*"|null)/, `"parentId":${JSON.stringify(ids.length ? pick(ids) : "x")}`);
      return lines.join("\n");
    }
  }
}

function check(text: string): string[] {
  const diagnostics = computeDiagnostics(new SessionDocument("file:///f.jsonl", "jsonl", 1, text));
  // The client's lines: "\n", "\r\n" and a lone "\r" end a line.
  const lines = text.split(/\r\n|\r|\n/);
  const reference = TextDocument.create("file:///f.jsonl", "jsonl", 1, text);
  for (const d of diagnostics) {
    // Ranges stay inside their lines; only a Pi line holding a lone "\r" spans several client lines.
    const { start, end } = d.range;
    expect(start.line < end.line || start.character <= end.character).toBe(true);
    expect(start.character).toBeLessThanOrEqual(lines[start.line]?.length ?? 0);
    expect(end.character).toBeLessThanOrEqual(lines[end.line]?.length ?? 0);
    // A range never crosses one of Pi's line breaks.
    if (start.line !== end.line) expect(reference.getText(d.range)).not.toContain("\n");
  }
  return diagnostics.map((d) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.character} ${String(d.code)} ${d.message}`);
}

describe("robustness", () => {
  it("parseLine and locate never throw on random text", () => {
    const random = seededRandom(1);
    for (let i = 0; i < 3000; i++) {
      let line = "";
      const length = Math.floor(random() * 40);
      for (let j = 0; j < length; j++) line += ALPHABET[Math.floor(random() * ALPHABET.length)];
      expect(() => parseLine(line)).not.toThrow();
      expect(() => locate(line, ["a", 0, "b"])).not.toThrow();
    }
  });

  it("diagnostics never throw on mutated real sessions, and ranges stay on their line", () => {
    const random = seededRandom(2);
    for (let i = 0; i < 600; i++) {
      let text = sessions[i % sessions.length]!;
      const rounds = 1 + Math.floor(random() * 3);
      for (let r = 0; r < rounds; r++) text = mutate(text, random);
      expect(() => check(text)).not.toThrow();
    }
  });

  it("an incrementally edited document says what a fresh one says", () => {
    const random = seededRandom(3);
    for (let s = 0; s < sessions.length; s++) {
      let text = sessions[s]!;
      const doc = new SessionDocument("file:///f.jsonl", "jsonl", 1, text);
      for (let step = 0; step < 15; step++) {
        // A random range edit in the client's positions, applied both to the document and to the
        // client's own text model.
        const reference = TextDocument.create("file:///f.jsonl", "jsonl", 1, text);
        const lines = text.split(/\r\n|\r|\n/);
        const pos = () => {
          const line = Math.floor(random() * lines.length);
          return { line, character: Math.floor(random() * (lines[line]!.length + 1)) };
        };
        let start = pos();
        let end = pos();
        if (end.line < start.line || (end.line === start.line && end.character < start.character)) [start, end] = [end, start];
        const pieces = text.split("\n");
        const insert = random() < 0.3 ? "" : mutate(pieces[Math.floor(random() * pieces.length)]!, random).slice(0, 200) + (random() < 0.3 ? "\n" : "");
        TextDocument.update(reference, [{ range: { start, end }, text: insert }], step + 2);
        text = reference.getText();
        doc.update([{ range: { start, end }, text: insert }], step + 2);
        expect(doc.getText()).toBe(text);
        expect(check(text)).toEqual(
          computeDiagnostics(doc).map((d) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.character} ${String(d.code)} ${d.message}`),
        );
      }
    }
  });

  it("handles a 50,000-deep chain and a 50,000-entry cycle without recursion", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
    const chain = [header];
    for (let i = 0; i < 50_000; i++) {
      chain.push(`{"type":"custom","customType":"x","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2026-01-01T00:00:00.000Z"}`);
    }
    const doc = new SessionDocument("file:///deep.jsonl", "jsonl", 1, `${chain.join("\n")}\n`);
    expect(computeDiagnostics(doc)).toEqual([]);
    expect(doc.analysis.activePath.length).toBe(50_000);
    expect(doc.analysis.depth[49_999]).toBe(49_999);

    // Close the chain into one big cycle: the first entry's parent becomes the last.
    chain[1] = chain[1]!.replace('"parentId":null', '"parentId":"e49999"');
    const cyclic = computeDiagnostics(new SessionDocument("file:///cycle.jsonl", "jsonl", 1, `${chain.join("\n")}\n`));
    expect(cyclic.filter((d) => d.code === "parent-cycle").length).toBe(50_000);
    expect(cyclic[0]!.message).toContain("50000 entries");
  });
});
