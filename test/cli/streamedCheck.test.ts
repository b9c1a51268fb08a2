/**
 * The streamed check, differentially (issue 12): for every session of the corpus (the parity
 * fixtures, the diagnostic fixtures) and for random sessions made of their lines, broken lines,
 * "\r\n" and lone "\r" endings, byte order marks and invalid UTF-8, the document read line by line
 * from disk (`io/streamedDocument.ts`, no text held) gives exactly the diagnostics of the
 * document built from the whole text (code, range, message, severity, related locations, and the
 * counts past the cap), the same safe fixes, and the same verdict on whether the text is lossless.
 * Each file is checked with the value cache's usual budget, with none (so that every value a check
 * reads is read back from disk), and with values kept for the file's last bytes only, as `check` does
 * (and for the long lines before them, which the random sessions hold some of). Besides, what the
 * streamed read keeps: the values of the tail and of long lines, and of no other line.
 */

import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeSession } from "../../server/src/io/checkRead";
import { SessionDocument } from "../../server/src/core/session/document";
import { cachedChars, forgetValues, setValueBudget } from "../../server/src/core/line/values";
import { MAX_PER_CODE } from "../../server/src/features/diagnosticCap";
import { collectDiagnostics } from "../../server/src/features/diagnostics";
import { quickFixes } from "../../server/src/features/fixes";
import { readStreamedDocument } from "../../server/src/io/streamedDocument";
import { parseFixture } from "../helpers/fixture";
import { seededRandom } from "../helpers/lspClient";

const URI = "file:///streamed/session.jsonl";
const RANDOM_SESSIONS = Number(process.env.PI_LSP_STREAMED_SESSIONS ?? 300);
const SEED = Number(process.env.PI_LSP_STREAMED_SEED ?? 20261202);

const parity = join(__dirname, "../parity/fixtures");
const diagnosticFixtures = join(__dirname, "../fixtures/diagnostics");
const corpus: [string, Buffer][] = [
  ...readdirSync(parity)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name): [string, Buffer] => [`parity/${name}`, readFileSync(join(parity, name))]),
  ...readdirSync(diagnosticFixtures)
    .filter((name) => name.endsWith(".txt"))
    .map((name): [string, Buffer] => [`diagnostics/${name}`, Buffer.from(parseFixture(readFileSync(join(diagnosticFixtures, name), "utf8")).text, "utf8")]),
];

const folder = mkdtempSync(join(tmpdir(), "streamed-check-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What one way of reading a file finds: the diagnostics, the overflow counts, the safe-fix marks. */
function findings(doc: SessionDocument) {
  const found = collectDiagnostics(doc, MAX_PER_CODE);
  // Fresh ids are random: both reads draw them from the same sequence.
  const options = { random: seededRandom(7), now: () => new Date("2026-12-02T00:00:00.000Z") };
  const fixes = quickFixes(doc, found.diagnostics, options).map(({ fixes }) => fixes.filter((f) => f.safe).map((f) => f.title));
  return { diagnostics: found.diagnostics, overflow: [...found.overflow], fixes };
}

function compare(bytes: Buffer): void {
  const decoded = decodeSession(bytes);
  forgetValues();
  const expected = findings(new SessionDocument(URI, "jsonl", 0, decoded.text));
  const path = join(folder, "session.jsonl");
  writeFileSync(path, bytes);
  // The usual budget, none (every value read back from disk), and check's: values kept for the
  // file's last bytes only (here a few lines of it), with and without a budget for the rest.
  const ways: [number | undefined, number | undefined][] = [
    [undefined, undefined],
    [0, undefined],
    [undefined, Math.floor(bytes.length / 3)],
    [0, Math.floor(bytes.length / 3)],
  ];
  for (const [budget, keepTailChars] of ways) {
    forgetValues();
    setValueBudget(budget);
    const fd = openSync(path, "r");
    try {
      const streamed = readStreamedDocument(fd, URI, { keepTailChars });
      if (keepTailChars !== undefined) setValueBudget(budget);
      expect(streamed.lossless).toBe(decoded.lossless);
      expect(findings(streamed.doc)).toEqual(expected);
    } finally {
      closeSync(fd);
      setValueBudget(undefined);
      forgetValues();
    }
  }
}

describe("the streamed check equals the in-memory check", () => {
  it.each(corpus.filter(([, bytes]) => decodeSession(bytes).encoding === "utf-8"))("%s", (_name, bytes) => {
    compare(bytes);
  });

  /** Whole lines of the corpus (their ids link to one another) and pieces that break a line. */
  const lines = [...new Set(corpus.flatMap(([, bytes]) => bytes.toString("utf8").split(/\r?\n/)).filter((l) => l.length > 0 && l.length < 2000))];
  // Long lines (a tool's output) keep their values before the tail too: a few of them, linked to the corpus's ids.
  for (const parent of ["null", '"a1"', '"00000003"'])
    lines.push(
      `{"type":"message","id":"long${lines.length}","parentId":${parent},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"${"y".repeat(9000)}"}],"isError":false,"timestamp":1772445601000}}`,
    );
  const breakers = ["\r", "\ufeff", "{", '"', "😀", "\\", "null", "[]", " "];
  const rawBytes = [Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc3, 0xa9]), Buffer.from([0xef, 0xbb, 0xbf])];

  it(`on ${RANDOM_SESSIONS} random sessions (seed ${SEED})`, () => {
    const random = seededRandom(SEED);
    const int = (n: number) => Math.floor(random() * n);
    for (let s = 0; s < RANDOM_SESSIONS; s++) {
      const parts: Buffer[] = [];
      if (random() < 0.1) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
      for (let n = int(40); n > 0; n--) {
        let line = lines[int(lines.length)]!;
        if (random() < 0.15) {
          const at = int(line.length + 1);
          line = line.slice(0, at) + breakers[int(breakers.length)]! + line.slice(at);
        }
        parts.push(Buffer.from(line, "utf8"));
        if (random() < 0.03) parts.push(rawBytes[int(rawBytes.length)]!);
        if (n > 1 || random() < 0.8) parts.push(Buffer.from(random() < 0.2 ? "\r\n" : "\n"));
      }
      const bytes = Buffer.concat(parts);
      try {
        compare(bytes);
      } catch (error) {
        throw new Error(`random session ${s} (seed ${SEED}) differs:\n${bytes.toString("utf8")}\n${String(error)}`);
      }
    }
    // Four reads of each of 300 sessions: about 15 s on a quiet machine, several times that on a
    // busy one, which the tests' one limit (HANG_MS, test/helpers/limits.ts) leaves room for.
  });
});

describe("what the streamed read keeps", () => {
  const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p"}';
  const entry = (i: number, content: string) =>
    `{"type":"message","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${content}","timestamp":1772445601000}}`;

  it("keeps the values of the tail and of the long lines before it, and of no other line", () => {
    const short = Array.from({ length: 40 }, (_, i) => entry(i, `short ${i}`));
    const long = [entry(40, "z".repeat(9000)), entry(41, "w".repeat(20000))];
    const tail = Array.from({ length: 3 }, (_, i) => entry(42 + i, `tail ${i}`));
    const all = [header, ...short, ...long, ...tail];
    const path = join(folder, "kept.jsonl");
    writeFileSync(path, `${all.join("\n")}\n`);
    const tailChars = tail.reduce((n, l) => n + l.length + 1, 0);
    forgetValues();
    const fd = openSync(path, "r");
    try {
      readStreamedDocument(fd, URI, { keepTailChars: tailChars });
      // The tail's lines and the long ones (ASCII: their bytes are their characters), no short line before the tail.
      expect(cachedChars()).toBe(long.reduce((n, l) => n + l.length, 0) + tail.reduce((n, l) => n + l.length, 0));
    } finally {
      closeSync(fd);
      setValueBudget(undefined);
      forgetValues();
    }
  });
});

describe("reading lines back", () => {
  it("reads every line back as it is in the file, in any order, short, long or longer than a window", () => {
    const random = seededRandom(SEED + 1);
    // Lengths around the read-back sizes: 64 KiB elsewhere, 1 MiB after the last window, more alone.
    const lengths = [10, 200, 5_000, 65_000, 66_000, 70_000, 300_000, 1_100_000, 1_600_000];
    const lines = Array.from({ length: 120 }, (_, i) => {
      const n = lengths[Math.floor(random() * lengths.length)]!;
      return `{"type":"custom","id":"r${i}","parentId":null,"data":"${String.fromCharCode(97 + (i % 26)).repeat(n)}"}`;
    });
    const path = join(folder, "readback.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    forgetValues();
    setValueBudget(0);
    const fd = openSync(path, "r");
    try {
      const { doc } = readStreamedDocument(fd, URI, {});
      expect(doc.lines.length).toBe(lines.length + 1);
      // In file order (the window serves the next lines), backwards, and at random, with repeats.
      const order = [...lines.keys(), ...[...lines.keys()].reverse(), ...Array.from({ length: 400 }, () => Math.floor(random() * lines.length))];
      for (const i of order) expect(doc.lines[i]).toBe(lines[i]);
      // A value read back (the cache keeps none) is the line's.
      for (const i of order.slice(-50)) expect((doc.parsed[i] as { value: { id: string } }).value.id).toBe(`r${i}`);
    } finally {
      closeSync(fd);
      setValueBudget(undefined);
      forgetValues();
    }
  });
});
