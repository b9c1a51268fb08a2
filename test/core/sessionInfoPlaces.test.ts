/**
 * The places the editor's index keeps for a session that is not open (workspace symbols, a fork's
 * `parentSession`, the header a definition leads to) are positions in the client's lines, which a
 * lone "\r" also ends. They were Pi's line numbers: after a line holding a lone "\r", a workspace
 * symbol pointed one line above its entry in the file the client opens.
 */

import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { type LinePlace, SessionInfoBuilder } from "../../server/src/core/disk/info";

const HEADER = '{"type":"session","version":3,"id":"019d0000-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
const MODEL = '{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"x","modelId":"y"}';
const USER =
  '{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"hello","timestamp":1}}';
const LABEL = '{"type":"label","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:03.000Z","targetId":"a0000002","label":"start"}';

interface Symbols {
  id?: { at: LinePlace };
  firstMessage?: { at: LinePlace };
  labels: { at: LinePlace }[];
}

function symbolsOf(text: string, version: "1.x" | "0.74"): Symbols {
  const builder = new SessionInfoBuilder(version, { symbols: true });
  let start = 0;
  text.split("\n").forEach((line, i) => {
    builder.line(line, { line: i, start, bytes: Buffer.byteLength(line) });
    start += Buffer.byteLength(line) + 1;
  });
  const scan = builder.finish({ mtimeMs: 0, size: start, maxStringLength: 1 << 29 }) as { symbols?: Symbols };
  return scan.symbols!;
}

/** The client's text at a place. */
function at(text: string, place: LinePlace): string {
  const client = TextDocument.create("file:///s.jsonl", "jsonl", 1, text);
  return client.getText({ start: { line: place.line, character: place.start }, end: { line: place.line, character: place.end } });
}

describe("the index's places of a closed session, in the client's lines", () => {
  const texts = {
    "a lone \\r inside an earlier line": [HEADER, MODEL.replace(',"parentId"', ',\r"parentId"'), USER, LABEL].join("\n"),
    "two lone \\r, and CRLF endings": [HEADER, MODEL.replace(',"parentId"', ',\r\r"parentId"'), USER, LABEL].join("\r\n"),
    "a lone \\r inside the header before its id": [HEADER.replace(',"id"', ',\r"id"'), MODEL, USER, LABEL].join("\n"),
  };
  for (const [name, text] of Object.entries(texts)) {
    // Pi 1.6's list reads a "\r" as a line break: a header split by one is no header, and it lists no such file.
    for (const version of name.includes("header") ? (["0.74"] as const) : (["1.x", "0.74"] as const)) {
      it(`${name} (Pi ${version})`, () => {
        const symbols = symbolsOf(text, version);
        expect(at(text, symbols.id!.at)).toBe('"019d0000-0000-7000-8000-000000000001"');
        expect(at(text, symbols.firstMessage!.at)).toBe('"hello"');
        // A label is listed at the id of the entry it names.
        expect(symbols.labels.map((l) => at(text, l.at))).toEqual(['"a0000002"']);
      });
    }
  }
});
