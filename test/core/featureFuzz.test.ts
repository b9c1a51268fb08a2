/**
 * Every feature, on mangled sessions, at random positions: nothing throws, and every range stays on
 * its line. The inputs are real Pi sessions (test/parity/fixtures) cut, spliced and re-linked by a
 * seeded generator, so each run is the same.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Range } from "vscode-languageserver";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeActions } from "../../server/src/features/codeActions";
import { computeCodeLenses, resolveCodeLens } from "../../server/src/features/codeLens";
import { computeCompletion } from "../../server/src/features/completion";
import { computeContextRequest } from "../../server/src/features/contextRequest";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeFadingHints } from "../../server/src/features/fading";
import { computeFoldingRanges } from "../../server/src/features/folding";
import { computeFormatting } from "../../server/src/features/formatting";
import {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
} from "../../server/src/features/hierarchy";
import { computeHover } from "../../server/src/features/hover";
import { computeInlayHints } from "../../server/src/features/inlayHints";
import { computeMigration } from "../../server/src/features/migration";
import { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "../../server/src/features/navigation";
import { computeRename, prepareRename } from "../../server/src/features/rename";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { computeWorkspaceSymbols } from "../../server/src/features/workspaceSymbols";
import { seededRandom } from "../helpers/lspClient";

/** Mangled sessions per run; `PI_LSP_FUZZ_ROUNDS` widens the search. */
const ROUNDS = Number(process.env.PI_LSP_FUZZ_ROUNDS ?? 240);
const dir = join(__dirname, "../parity/fixtures");
const sessions = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .map((f) => readFileSync(join(dir, f), "utf8"));

function mangle(text: string, random: () => number): string {
  const lines = text.split("\n");
  const pick = () => Math.floor(random() * lines.length);
  for (let k = 0; k < 3; k++) {
    if (lines.length === 0) lines.push("");
    const i = pick();
    switch (Math.floor(random() * 6)) {
      case 0:
        lines[i] = lines[i]!.slice(0, Math.floor(random() * lines[i]!.length));
        break;
      case 1:
        lines.splice(i, 0, lines[pick()]!);
        break;
      case 2: {
        const ids = [...text.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]!);
        const id = ids[Math.floor(random() * ids.length)] ?? "x";
        lines[i] = lines[i]!.replace(/"(parentId|targetId|fromId|firstKeptEntryId|toolCallId)":("[^"]*"|null)/, `"$1":"${id}"`);
        break;
      }
      case 3:
        lines[i] = ["null", "[]", "7", '"s"', "{}", '{"type":"session"}', "😀中\r"][Math.floor(random() * 7)]!;
        break;
      case 4:
        lines.splice(i, 1);
        break;
      default:
        lines[i] = lines[i]!.replace(/"(role|type)":"[a-z_A-Z]+"/, '"$1":"mystery"');
    }
  }
  return lines.join(random() < 0.3 ? "\r\n" : "\n");
}

/** The lines as an LSP client counts them: "\n", "\r\n" and a lone "\r" end a line. */
function clientLines(doc: SessionDocument): string[] {
  return doc.getText().split(/\r\n|\r|\n/);
}

function checkRange(lines: readonly string[], range: Range): void {
  expect(range.start.line).toBeGreaterThanOrEqual(0);
  expect(range.start.character).toBeGreaterThanOrEqual(0);
  if (range.start.line === range.end.line) expect(range.start.character).toBeLessThanOrEqual(range.end.character);
  expect(range.start.character).toBeLessThanOrEqual((lines[range.start.line] ?? "").length);
  expect(range.end.character).toBeLessThanOrEqual((lines[range.end.line] ?? "").length);
}

describe("every feature on mangled sessions", () => {
  it("never throws and keeps ranges on their lines", () => {
    const random = seededRandom(11);
    let calls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const text = mangle(sessions[round % sessions.length]!, random);
      const doc = new SessionDocument("file:///fuzz/s.jsonl", "jsonl", 1, text);
      const lines = clientLines(doc);
      const whole: Range = { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } };
      const diagnostics = computeDiagnostics(doc);
      for (const d of diagnostics) checkRange(lines, d.range);
      for (const d of computeFadingHints(doc)) checkRange(lines, d.range);
      computeDocumentSymbols(doc, { maxSymbols: 200 });
      for (const r of computeFoldingRanges(doc)) expect(r.startLine).toBeLessThan(r.endLine);
      computeDocumentLinks(doc);
      computeInlayHints(doc, whole);
      computeFormatting(doc);
      computeMigration(doc);
      computeWorkspaceSymbols([doc], "a");
      for (const lens of computeCodeLenses(doc)) resolveCodeLens(doc, lens);
      computeContextRequest(doc, { uri: doc.uri });
      computeContextRequest(doc, { uri: doc.uri, stage: "provider", format: "markdown" });
      computeContextRequest(doc, { uri: doc.uri, stage: "provider", flavor: "0.74" });
      buildContext(doc.analysis, { flavor: "0.74" });
      computeCodeActions(doc, whole, { diagnostics, only: ["quickfix", "source.fixAll"] });
      for (let k = 0; k < 12; k++) {
        const line = Math.floor(random() * lines.length);
        const position = { line, character: Math.floor(random() * ((lines[line]?.length ?? 0) + 1)) };
        computeHover(doc, position);
        for (const l of computeDefinition(doc, position)) if (l.uri === doc.uri) checkRange(lines, l.range);
        for (const l of computeReferences(doc, position, true)) checkRange(lines, l.range);
        computeDocumentHighlights(doc, position);
        computeCompletion(doc, position);
        prepareRename(doc, position);
        computeRename(doc, position, "fresh-id");
        for (const item of prepareHierarchy(doc, position)) {
          typeHierarchySupertypes(doc, item);
          typeHierarchySubtypes(doc, item);
          callHierarchyIncomingCalls(doc, item);
          callHierarchyOutgoingCalls(doc, item);
        }
        calls++;
      }
    }
    expect(calls).toBe(ROUNDS * 12);
  });
});
