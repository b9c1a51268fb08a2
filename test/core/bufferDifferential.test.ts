/**
 * The buffer, differentially (issue 9): random incremental edit sequences are applied both to the
 * server's `SessionDocument.update` and to `vscode-languageserver-textdocument`'s `TextDocument`,
 * the reference model of what a client holds. After every change the two texts are equal; after
 * every sequence the server's diagnostics, outline, folding ranges and, at random positions, hover,
 * definition, references and document highlights equal those of a fresh `SessionDocument` of the
 * reference text; and every range the server reports, read through the reference document, is a
 * valid position pair of the client's text (LSP counts "\r", "\n" and "\r\n" as line breaks) that crosses no "\n".
 *
 * Edits insert and replace "\r", "\r\n", "\n", U+2028, surrogate halves, astral characters, byte
 * order marks, JSON punctuation and whole Pi lines, and delete ranges across lines, one to three
 * changes per update as LSP allows.
 *
 * LONE "\r": a "\r" not followed by "\n" is a line break for LSP but not for Pi. The document keeps
 * Pi's lines and maps positions to the client's (core/line/positions.ts), so lone "\r"s are drawn like
 * every other character; a range then may span several client lines, across a lone "\r" inside one
 * Pi line, but never a "\n". (With LONE_CR_SUPPORTED false, sequences that would hold one are drawn
 * again, as before the document model mapped them.)
 *
 * CI runs SEQUENCES sequences in a few seconds; `PI_LSP_BUFFER_SEQUENCES` and `PI_LSP_BUFFER_SEED`
 * run more, or others, by hand. A failure names its seed and sequence, shrunk to a minimal one.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Position, Range } from "vscode-languageserver";
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeFoldingRanges } from "../../server/src/features/folding";
import { computeHover } from "../../server/src/features/hover";
import { computeDefinition, computeDocumentHighlights, computeReferences } from "../../server/src/features/navigation";
import { computeDocumentSymbols } from "../../server/src/features/symbols";
import { seededRandom } from "../helpers/lspClient";
import { HANG_MS } from "../helpers/limits";

/** The document model maps lone "\r" line breaks exactly (issue 9, core/line/positions.ts). */
const LONE_CR_SUPPORTED = true;
const LONE_CR = LONE_CR_SUPPORTED || process.env.LONE_CR === "1";
const SEQUENCES = Number(process.env.PI_LSP_BUFFER_SEQUENCES ?? 2000);
const SEED = Number(process.env.PI_LSP_BUFFER_SEED ?? 20260309);
const URI = "file:///buffer/session.jsonl";
/** Positional requests per sequence (each is asked for hover, definition, references, highlights). */
const POSITIONS = 3;

type Random = () => number;
const int = (random: Random, n: number) => Math.floor(random() * n);
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)]!;

// ---- Inputs ---------------------------------------------------------------------------------------

const corpus = join(__dirname, "../parity/fixtures");
const read = (name: string) => readFileSync(join(corpus, name), "utf8");
const STARTS = [
  "",
  read("fault-dangling-parent.jsonl"),
  read("fault-crlf.jsonl"),
  read("fault-bom.jsonl"),
  read("fault-malformed-middle.jsonl"),
  read("fault-no-final-newline.jsonl"),
  read("fault-cycle-leaf-path.jsonl"),
  read("fault-dup-id-no-cycle.jsonl"),
  read("written-16-branches.jsonl"),
];
/** Whole lines to insert: real entries (their ids link into the starts) and broken ones. */
const LINES = [...new Set(STARTS.flatMap((text) => text.split(/\r?\n/)).filter((line) => line.length > 0 && line.length < 600))];

const PIECES = ["\r", "\n", "\r\n", "\u2028", "\ud83d", "\ude00", "😀", "\ufeff", "{", "}", '"', ",", ":", "x", " ", '"id":"a0000002"', "null", "\\"];

function insertion(random: Random): string {
  if (random() < 0.2) return `${pick(random, LINES)}${random() < 0.5 ? "\n" : "\r\n"}`;
  let text = "";
  for (let n = 1 + int(random, 3); n > 0; n--) text += pick(random, PIECES);
  return text;
}

// ---- The reference model ----------------------------------------------------------------------------

/** The length of a line without its line break, as the client counts it. */
function lineLength(ref: TextDocument, line: number): number {
  const start = ref.offsetAt({ line, character: 0 });
  return ref.offsetAt({ line, character: Number.MAX_SAFE_INTEGER }) - start;
}

function randomPosition(ref: TextDocument, random: Random): Position {
  const line = int(random, ref.lineCount);
  const length = lineLength(ref, line);
  const r = random();
  // Line starts and ends are where line breaks meet; a few positions past the end test clamping.
  const character = r < 0.2 ? 0 : r < 0.4 ? length : r < 0.43 ? length + 1 + int(random, 3) : int(random, length + 1);
  return { line, character };
}

function randomChange(ref: TextDocument, random: Random): TextDocumentContentChangeEvent {
  // Now and then the whole text, as clients that sync full documents send it, with one edit in it.
  // Its edit is often at the very start, where it moves a byte order mark's line down.
  if (random() < 0.05) {
    const edit = random() < 0.4 ? { range: at(0, 0), text: insertion(random) } : randomChange(ref, random);
    const edited = TextDocument.update(TextDocument.create(URI, "jsonl", 0, ref.getText()), [edit], 1);
    return { text: edited.getText() };
  }
  const start = randomPosition(ref, random);
  const kind = random();
  if (kind < 0.5) return { range: { start, end: start }, text: insertion(random) };
  // A deletion or replacement: up to a few lines on, or within the line.
  const from = ref.offsetAt(start);
  const to = Math.min(ref.getText().length, from + int(random, random() < 0.3 ? 800 : 12));
  const end = ref.positionAt(to);
  return { range: { start: ref.positionAt(from), end }, text: kind < 0.8 ? "" : insertion(random) };
}

/** Whether the text holds a "\r" that no "\n" follows: a line break for LSP, not for Pi. */
const hasLoneCr = (text: string) => /\r(?!\n)/.test(text);

interface Sequence {
  start: string;
  /** Each update's changes, applied in order (an LSP didChange each). */
  updates: TextDocumentContentChangeEvent[][];
}

function randomSequence(random: Random): Sequence {
  const start = pick(random, STARTS);
  let ref = TextDocument.create(URI, "jsonl", 0, start);
  const updates: TextDocumentContentChangeEvent[][] = [];
  for (let n = 1 + int(random, 6); n > 0; n--) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const changes: TextDocumentContentChangeEvent[] = [];
      let next = ref;
      // A lone "\r" counts even when a later change of the same update removes it again.
      let loneCr = false;
      for (let k = random() < 0.2 ? 2 + int(random, 2) : 1; k > 0; k--) {
        const change = randomChange(next, random);
        changes.push(change);
        next = TextDocument.update(TextDocument.create(URI, "jsonl", 0, next.getText()), [change], 1);
        loneCr ||= hasLoneCr(next.getText());
      }
      if (!LONE_CR && loneCr) continue;
      updates.push(changes);
      ref = next;
      break;
    }
  }
  return { start, updates };
}

// ---- Running a sequence and comparing -----------------------------------------------------------------

interface Outcome {
  /** The first disagreement, or undefined when server and reference agree. */
  problem: string | undefined;
  /** What the server was asked, for the tally. */
  requests: number;
}

/** A problem if `p` is not a position of the reference text (past a line's end, or past the last line). */
function invalid(ref: TextDocument, p: Position): boolean {
  const back = ref.positionAt(ref.offsetAt(p));
  return back.line !== p.line || back.character !== p.character;
}

function oneLine(ref: TextDocument, range: Range, what: string): string | undefined {
  if (invalid(ref, range.start) || invalid(ref, range.end)) return `${what}: ${JSON.stringify(range)} is not a valid range of the client's text`;
  // A range stays inside one of Pi's lines; it spans several of the client's lines only across a
  // lone "\r", which is inside a Pi line (a whole-line diagnostic on such a line covers all of it).
  if (/\n/.test(ref.getText(range))) return `${what}: ${JSON.stringify(range)} crosses a line break`;
  return undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function run(sequence: Sequence, random: Random): Outcome {
  let ref = TextDocument.create(URI, "jsonl", 0, sequence.start);
  const server = new SessionDocument(URI, "jsonl", 0, sequence.start);
  let version = 0;
  let requests = 0;
  for (const [i, changes] of sequence.updates.entries()) {
    version++;
    ref = TextDocument.update(ref, changes, version);
    server.update(changes, version);
    if (server.getText() !== ref.getText()) {
      return { problem: `after update ${i + 1}, the server's text ${JSON.stringify(server.getText().slice(-200))} differs from the client's`, requests };
    }
  }
  const text = ref.getText();
  const fresh = new SessionDocument(URI, "jsonl", version, text);
  const problems: string[] = [];
  const compare = (what: string, ours: unknown, theirs: unknown) => {
    requests++;
    if (!same(ours, theirs))
      problems.push(`${what}: after the edits ${JSON.stringify(ours).slice(0, 300)}, on a fresh open ${JSON.stringify(theirs).slice(0, 300)}`);
  };

  const diagnostics = computeDiagnostics(server);
  compare("diagnostics", diagnostics, computeDiagnostics(fresh));
  for (const d of diagnostics) {
    const p = oneLine(ref, d.range, `diagnostic ${String(d.code)}`);
    if (p) problems.push(p);
    for (const r of d.relatedInformation ?? []) {
      const q = r.location.uri === URI ? oneLine(ref, r.location.range, `related location of ${String(d.code)}`) : undefined;
      if (q) problems.push(q);
    }
  }
  const symbols = computeDocumentSymbols(server, { maxSymbols: 500 });
  compare("outline", symbols, computeDocumentSymbols(fresh, { maxSymbols: 500 }));
  const stack = [...symbols.symbols];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (invalid(ref, s.range.start) || invalid(ref, s.range.end)) problems.push(`symbol ${s.name}: range ${JSON.stringify(s.range)} is not valid`);
    const p = oneLine(ref, s.selectionRange, `symbol ${s.name}'s selection`);
    if (p) problems.push(p);
    stack.push(...(s.children ?? []));
  }
  const folding = computeFoldingRanges(server);
  compare("folding", folding, computeFoldingRanges(fresh));
  for (const f of folding) if (f.endLine >= ref.lineCount) problems.push(`folding range ${f.startLine}-${f.endLine} past the last line`);

  for (let k = 0; k < POSITIONS; k++) {
    const at = randomPosition(ref, random);
    const where = `at ${at.line}:${at.character}`;
    const hover = computeHover(server, at);
    compare(`hover ${where}`, hover, computeHover(fresh, at));
    if (hover?.range) problems.push(oneLine(ref, hover.range, `hover ${where}`) ?? "");
    const definition = computeDefinition(server, at);
    compare(`definition ${where}`, definition, computeDefinition(fresh, at));
    const references = computeReferences(server, at, true);
    compare(`references ${where}`, references, computeReferences(fresh, at, true));
    for (const l of [...definition, ...references]) if (l.uri === URI) problems.push(oneLine(ref, l.range, `location ${where}`) ?? "");
    const highlights = computeDocumentHighlights(server, at);
    compare(`highlights ${where}`, highlights, computeDocumentHighlights(fresh, at));
    for (const h of highlights) problems.push(oneLine(ref, h.range, `highlight ${where}`) ?? "");
  }
  return { problem: problems.find((p) => p !== ""), requests };
}

// ---- Shrinking a failure ---------------------------------------------------------------------------

/** Whether the sequence is still a valid input (each change applies to the text before it). */
function fails(sequence: Sequence, seed: number): boolean {
  try {
    return run(sequence, seededRandom(seed)).problem !== undefined;
  } catch {
    return true;
  }
}

/**
 * A smaller sequence that still fails: updates dropped one at a time, the start text cut to fewer
 * lines, inserted texts shortened. Greedy and bounded, so a report stays readable.
 */
function shrink(sequence: Sequence, seed: number): Sequence {
  let best = sequence;
  const tryThis = (candidate: Sequence): boolean => {
    if (!fails(candidate, seed)) return false;
    best = candidate;
    return true;
  };
  for (let round = 0; round < 3; round++) {
    for (let i = best.updates.length - 1; i >= 0; i--) tryThis({ ...best, updates: best.updates.filter((_, j) => j !== i) });
    const lines = best.start.split("\n");
    for (let i = lines.length - 1; i >= 0 && lines.length > 1; i--) {
      const fewer = lines.filter((_, j) => j !== i).join("\n");
      tryThis({ ...best, start: fewer });
    }
    for (const [u, changes] of best.updates.entries()) {
      for (const [c, change] of changes.entries()) {
        for (let cut = 1; cut < change.text.length; cut++) {
          const shorter = { ...change, text: change.text.slice(cut) };
          const updates = best.updates.map((cs, i) => (i === u ? cs.map((x, j) => (j === c ? shorter : x)) : cs));
          if (tryThis({ ...best, updates })) break;
        }
      }
    }
  }
  return best;
}

/** The empty range at a position. */
function at(line: number, character: number): Range {
  return { start: { line, character }, end: { line, character } };
}

function describeSequence(sequence: Sequence): string {
  const start =
    sequence.start.length > 400 ? `${JSON.stringify(sequence.start.slice(0, 400))}… (${sequence.start.length} characters)` : JSON.stringify(sequence.start);
  const updates = sequence.updates.map((changes) =>
    changes
      .map((c) => ("range" in c ? `${JSON.stringify(c.range)} ← ${JSON.stringify(c.text)}` : `the whole text ${JSON.stringify(c.text.slice(0, 200))}`))
      .join("; "),
  );
  return [`start: ${start}`, ...updates.map((u, i) => `update ${i + 1}: ${u}`)].join("\n");
}

// ---- The tests -------------------------------------------------------------------------------------

describe("the server's buffer against the reference TextDocument", () => {
  it(
    `agrees after ${SEQUENCES} random incremental edit sequences${LONE_CR ? " (lone \\r included)" : ""}`,
    () => {
      const random = seededRandom(SEED);
      let requests = 0;
      let crInserted = 0;
      for (let n = 0; n < SEQUENCES; n++) {
        const sequence = randomSequence(random);
        const seed = SEED * 1000 + n;
        if (sequence.updates.some((changes) => changes.some((c) => c.text.includes("\r")))) crInserted++;
        const outcome = run(sequence, seededRandom(seed));
        requests += outcome.requests;
        if (outcome.problem !== undefined) {
          const minimal = shrink(sequence, seed);
          const problem = run(minimal, seededRandom(seed)).problem ?? outcome.problem;
          expect.fail(`sequence ${n} of seed ${SEED} (PI_LSP_BUFFER_SEED=${SEED}): ${problem}\nminimal failing sequence:\n${describeSequence(minimal)}`);
        }
      }
      // The generator exercised what the test is about.
      expect(crInserted).toBeGreaterThan(SEQUENCES / 10);
      expect(requests).toBeGreaterThan(SEQUENCES * 10);
      // About 3 ms a sequence on a quiet machine, 8 ms alone at a load average of 22; the limit
      // (HANG_MS, test/helpers/limits.ts) only stops a hang, and longer runs by hand get the time
      // they need.
    },
    Math.max(HANG_MS, SEQUENCES * 60),
  );

  it("keeps a \\r typed before a \\n as one \\r\\n line break", () => {
    const start = read("fault-dangling-parent.jsonl");
    const split = TextDocument.update(TextDocument.create(URI, "jsonl", 0, start), [{ range: at(1, 40), text: "\r\n" }], 1);
    // The second change ends with "\r" right before line 2's "\n": together a CRLF, no lone "\r".
    const end = lineLength(split, 2);
    const sequence: Sequence = { start, updates: [[{ range: at(1, 40), text: "\r\n" }], [{ range: at(2, end), text: "x\r" }]] };
    expect(hasLoneCr(TextDocument.update(split, sequence.updates[1]!, 2).getText())).toBe(false);
    expect(run(sequence, seededRandom(1)).problem).toBeUndefined();
  });

  // The two cases below failed before the document model mapped lone "\r" line breaks (issue 9):
  // minimal sequences of the kind the random test found.

  // The client's text is two lines, the server's one Pi line "\r", whose empty-file diagnostic
  // covers both.
  it("a lone \\r typed into an empty file", () => {
    const sequence: Sequence = { start: "", updates: [[{ range: at(0, 0), text: "\r" }]] };
    expect(run(sequence, seededRandom(1)).problem).toBeUndefined();
  });

  // After a lone "\r" the server's lines are Pi's (split on "\n" only), so the next edit,
  // positioned by the client on the line after the "\r", lands at the end of the file instead:
  // the client holds '{"type":\rx"session"}\n', the server '{"type":\r"session"}\nx'.
  it("a lone \\r inside a line, then an edit on the line after it", () => {
    const sequence: Sequence = {
      start: '{"type":"session"}\n',
      updates: [[{ range: at(0, 8), text: "\r" }], [{ range: at(1, 0), text: "x" }]],
    };
    expect(run(sequence, seededRandom(1)).problem).toBeUndefined();
  });
});
