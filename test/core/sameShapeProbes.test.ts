/**
 * Probes of the carries over an edit that keeps the tree (`Resplice.replaced`, `sameShape`), aimed
 * at what the fuzz of `sameShapeEdits.test.ts` does not reach: the parity sessions (cycles, CRLF
 * and lone CR lines, v1 files, duplicate ids, compactions, context edits, settings), several edits
 * before the analysis is read, an edit over two lines at once, the faded hints under small caps and
 * asked at a later step of the new structure, with idle releases between. Every answer must equal a
 * fresh document's.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { respliceOf } from "../../server/src/core/session/resplice";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeFadingHints } from "../../server/src/features/api/editor";
import { editorAnswers } from "../helpers/editorAnswers";
import { expectAnswersFresh, releaseInProcess } from "../helpers/freshAnswers";
import { seededRandom } from "../helpers/lspClient";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

/** Replacements of one fact of a line that leave its id, parent and type as they were (a few change nothing structural). */
const FACT_EDITS: readonly [RegExp, (random: () => number, ids: string[]) => string][] = [
  [/"timestamp":"[^"]*"/, () => '"timestamp":"not a time"'],
  [/"timestamp":"[^"]*"/, (random) => `"timestamp":"2024-06-0${1 + Math.floor(random() * 9)}T00:00:00.000Z"`],
  [/"role":"[a-zA-Z]*"/, (random) => `"role":"${["user", "system", "assistant", "toolResult", "custom", "bashExecution"][Math.floor(random() * 6)]}"`],
  [/"toolCallId":"[^"]*"/, (random) => `"toolCallId":"t${Math.floor(random() * 4)}"`],
  [/"type":"toolCall","id":"[^"]*"/, (random) => `"type":"toolCall","id":"t${Math.floor(random() * 4)}"`],
  [/"(targetId|firstKeptEntryId)":"[^"]*"/, (random, ids) => `"$1":${ids[Math.floor(random() * ids.length)] ?? '"nowhere"'}`],
  [/"(targetId|firstKeptEntryId)":"[^"]*"/, () => '"$1":"nowhere"'],
  [/"replacement":null/, () => '"replacement":{"content":"r"}'],
  [/"replacement":\{[^}]*\}/, () => '"replacement":null'],
  [/"content":"/, () => '"content":"x\\r'],
  [/"content":"/, () => '"content":"x'],
  // A lone CR between tokens (JSON's whitespace, a line break for the client), and taken out again.
  [/,"timestamp"/, () => ',\r"timestamp"'],
  [/,\r"/, () => ',"'],
  // A blank line made malformed, and blank again: no entry changes, an edit of the tree all the same.
  [/^$/, () => "x"],
  [/^x$/, () => ""],
];

const idsOf = (doc: SessionDocument) => doc.lines.map((l) => /"id":("[^"]*")/.exec(l)?.[1]).filter((x): x is string => x !== undefined);

/** One fact edit of one line, or of two lines at once (one range): says what it did. */
function factEdit(doc: SessionDocument, random: () => number): string {
  const ids = idsOf(doc);
  let at = doc.lineCount - 1;
  while (at > 0 && doc.lines[at]!.length === 0) at--;
  if (random() < 0.5) at = 1 + Math.floor(random() * Math.max(1, doc.lineCount - 1));
  if (at >= doc.lineCount) return "none";
  const span = random() < 0.2 && at + 1 < doc.lineCount ? 2 : 1;
  const texts = doc.lines.slice(at, at + span);
  const edited = texts.map((text) => {
    const [pattern, to] = FACT_EDITS[Math.floor(random() * FACT_EDITS.length)]!;
    return text.replace(pattern, to(random, ids));
  });
  if (edited.every((t, k) => t === texts[k])) return "none";
  // The line ending of a CRLF line is kept: only the text before it is replaced, through the client's positions.
  const last = at + span - 1;
  const range = doc.spanRange(at, 0, last, doc.lines[last]!.replace(/\r$/, "").length);
  const keep = texts.map((t) => t.endsWith("\r"));
  const text = edited
    .map((t, k) => (keep[k] && !t.endsWith("\r") ? `${t}\r` : t))
    .join("\n")
    .replace(/\r$/, "");
  doc.update([{ range, text }], doc.version + 1);
  return `lines ${at}+${span}`;
}

/** A session with cycles, CRLF lines, compactions (some with a retained tail), context edits, settings and tool pairs. */
function randomSession(random: () => number): string {
  const lines = [`{"type":"session","version":${random() < 0.1 ? 1 : 3},"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`];
  const count = 2 + Math.floor(random() * 12);
  const some = (i: number) => `"e${Math.floor(random() * i)}"`;
  for (let i = 0; i < count; i++) {
    const r0 = random();
    const parent = i === 0 ? "null" : r0 < 0.7 ? `"e${i - 1}"` : r0 < 0.9 ? some(i) : `"e${Math.floor(random() * count)}"`;
    const head = `"id":"e${i}","parentId":${parent},"timestamp":"2025-01-01T00:00:0${i % 10}.000Z"`;
    const r = random();
    let text: string;
    if (r < 0.15)
      text = `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"toolCall","id":"t${i % 3}","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
    else if (r < 0.3)
      text = `{"type":"message",${head},"message":{"role":"toolResult","toolCallId":"t${i % 3}","toolName":"read","content":[{"type":"text","text":"o"}],"isError":false,"timestamp":1}}`;
    else if (r < 0.4 && i > 1)
      text = `{"type":"compaction",${head},"summary":"s","firstKeptEntryId":${some(i)},"tokensBefore":10${random() < 0.3 ? ',"retainedTail":[{"role":"user","content":"kept","timestamp":1}]' : ""}}`;
    else if (r < 0.45 && i > 0) text = `{"type":"label",${head},"targetId":${some(i)},"label":"x"}`;
    else if (r < 0.55 && i > 0) text = `{"type":"context_edit",${head},"targetId":${some(i)},"replacement":${random() < 0.5 ? "null" : '{"content":"r"}'}}`;
    else if (r < 0.6) text = `{"type":"model_change",${head},"provider":"openai","modelId":"gpt-4o"}`;
    else if (r < 0.65) text = `{"type":"thinking_level_change",${head},"thinkingLevel":"high"}`;
    else if (r < 0.7)
      text = `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"text","text":"a"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1}}`;
    else text = `{"type":"message",${head},"message":{"role":"${random() < 0.3 ? "system" : "user"}","content":"u","timestamp":1}}`;
    lines.push(text);
    if (random() < 0.05) lines.push("");
  }
  const eol = random() < 0.3 ? "\r\n" : "\n";
  return `${lines.join(eol)}${random() < 0.8 ? eol : ""}`;
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

function run(texts: (random: () => number) => string, seed: number, rounds: number): { compared: number; sameTree: number } {
  const random = seededRandom(seed);
  let compared = 0;
  let sameTree = 0;
  for (let round = 0; round < rounds; round++) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, texts(random));
    const log: string[] = [];
    for (let step = 0; step < 8; step++) {
      const between = random();
      if (between < 0.25) releaseInProcess(log);
      else if (between < 0.5) computeDiagnostics(doc);
      else if (between < 0.75) editorAnswers(doc);
      else computeFadingHints(doc, { maxFaded: 1 + Math.floor(random() * 3) });
      // One to three edits before the analysis is read.
      const edits = 1 + Math.floor(random() * 3);
      for (let k = 0; k < edits; k++) log.push(factEdit(doc, random));
      if (respliceOf(doc.analysis)?.replaced) sameTree++;
      // Now and then an edit inside a line after it, so that the carries are asked at a later step of the new structure.
      if (random() < 0.3) log.push(factEdit(doc, random));
      const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      const where = `round ${round}, step ${step}: ${log.join(", ")}\n${JSON.stringify(doc.getText())}`;
      expectAnswersFresh(doc, fresh, where, () => {
        for (const maxFaded of [1, 2, 5000]) expect(computeFadingHints(doc, { maxFaded }), where).toEqual(computeFadingHints(fresh, { maxFaded }));
      });
      compared++;
    }
  }
  return { compared, sameTree };
}

it("fact edits of the parity sessions, one or several before a read, answer as a fresh document", () => {
  const sessions = files.map((f) => readFileSync(join(FIXTURES, f), "utf8"));
  let k = 0;
  const { compared, sameTree } = run(() => sessions[k++ % sessions.length]!, Number(process.env.SEED ?? 40), sessions.length * 3);
  expect(sameTree).toBeGreaterThan(compared / 5);
});

it("fact edits of sessions with cycles, CRLF lines, compactions and context edits answer as a fresh document", () => {
  const { compared, sameTree } = run(randomSession, Number(process.env.SEED ?? 41), 250);
  expect(sameTree).toBeGreaterThan(compared / 5);
});
