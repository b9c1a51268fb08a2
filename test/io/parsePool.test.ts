/**
 * The first open's parses on a worker (`io/parsePool.ts` with the compiled `parseWorker.js`):
 * a large `didOpen` read by `StreamedBody` while its lines are parsed on the worker gives the
 * document the very parses it makes itself, line for line; and when the worker is missing, dies,
 * stops answering or is given up, the document parses its lines itself, with the same result.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { OpaqueId } from "../../server/src/core/base/ids";
import type { ParsedLine } from "../../server/src/core/line/facts";
import { setValueBudget } from "../../server/src/core/line/values";
import { StreamedBody } from "../../server/src/lsp/streamedBody";
import { LineParsePool, parsePoolWanted, startParsePool } from "../../server/src/io/parsePool";
import { until, WAIT_MS } from "../helpers/limits";
import { ensureBuilt, REPO_ROOT, sleep } from "../helpers/lspClient";

const WORKER = join(REPO_ROOT, "out", "io", "parseWorker.js");
const URI = "file:///s.jsonl";

/** The hostile-session generator (an ES module: imported, not required). */
let hostile: Awaited<ReturnType<typeof loadHostile>>;
const loadHostile = () => import("../helpers/hostile.mjs");

beforeAll(async () => {
  hostile = await loadHostile();
  await ensureBuilt();
});

afterEach(() => setValueBudget(undefined));

/** A session with what breaks line handling: a byte order mark, "\r\n" endings, a last line ending in "\r", a huge line. */
function hostileText(): string {
  const parts = [`\ufeff${hostile.makeGen(hostile.seeded(7)).session({ entries: 400 })}`];
  for (let seed = 8; seed < 12; seed++) parts.push(hostile.makeGen(hostile.seeded(seed)).session({ oddIds: true, entries: 400 }).replaceAll("}\n{", "}\r\n{"));
  parts.push(`{"type":"message","id":"huge","parentId":null,"message":{"role":"user","content":"${"y".repeat(1_500_000)}"}}`, '{"id":"\\ud800"}\r');
  return parts.join("\n");
}

/** The body of a `didOpen` of `text`, with some line breaks written as "\u000a" escapes. */
function didOpenBody(text: string): Buffer {
  const json = JSON.stringify({
    jsonrpc: "2.0",
    method: "textDocument/didOpen",
    params: { textDocument: { uri: URI, languageId: "jsonl", version: 1, text } },
  });
  let k = 0;
  return Buffer.from(json.replaceAll("}\\n{", (match) => (k++ % 5 === 0 ? "}\\u000a{" : match)));
}

/** Reads `body` as the server does, in pipe-sized chunks with the event loop running between them, as a client writes them. */
/** `beforeDocument` runs between the last byte and the document; unpaced, the body comes in one piece. */
async function read(body: Buffer, startParses: () => LineParsePool | undefined, beforeDocument: () => unknown = () => {}, paced = true) {
  const streamed = new StreamedBody(body.length, undefined, startParses);
  const chunk = paced ? 65536 : body.length;
  for (let at = 0; at < body.length; at += chunk) {
    streamed.push(body.subarray(at, Math.min(body.length, at + chunk)));
    if (paced) await sleep(10);
  }
  const decoded = streamed.finish();
  const opened = decoded.documentText!;
  expect(opened).toBeDefined();
  await beforeDocument();
  return new SessionDocument(URI, "jsonl", 1, opened.text, { ...opened.split, parses: opened.parses });
}

function facts(parsed: ParsedLine): unknown {
  if (parsed.kind !== "value") return parsed.kind === "malformed" ? { error: parsed.error } : parsed.kind;
  const p = parsed as unknown as Record<string, unknown>;
  const keys = ["text", "type", "id", "parentId", "idKey", "parentKey", "time", "toolCallIds", "toolResultId", "role", "reference", "looksLikePi", "findings"];
  const simple = (v: unknown) => (v === null || typeof v !== "object" || v instanceof OpaqueId ? v : Array.isArray(v) ? "array" : "object");
  return [
    ...keys.map((k) => p[k]),
    parsed.falsy,
    parsed.isObject,
    parsed.noMessage,
    simple(parsed.thinkingLevel),
    parsed.model && [simple(parsed.model.provider), simple(parsed.model.modelId)],
  ];
}

function expectSameParses(doc: SessionDocument, text: string): void {
  const plain = new SessionDocument(URI, "jsonl", 1, text);
  expect(doc.lines).toEqual(plain.lines);
  expect(doc.eols).toEqual(plain.eols);
  expect(doc.parsed.map(facts)).toStrictEqual(plain.parsed.map(facts));
}

describe("a large didOpen's lines parsed on the worker", () => {
  it("are the parses the document makes itself, line for line", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let pool: LineParsePool | undefined;
    // The worker is waited for: on a busy machine it can fall behind the read, and the document
    // would then rightly parse the lines it had not started, which is not what this test is about.
    const doc = await read(
      didOpenBody(text),
      () => (pool = LineParsePool.start(WORKER)),
      () => until(() => pool!.answeredAll, "the worker's answer to every batch"),
    );
    expect(pool).toBeDefined();
    // Most lines came from the worker: the test is about its parses.
    expect(pool!.linesFromWorker).toBeGreaterThan(doc.lineCount / 2);
    expect(doc.hasBom).toBe(true);
    expect(doc.lines[doc.lineCount - 1]!.endsWith("\r")).toBe(true);
    expectSameParses(doc, text);
  });

  it("are not used for a text whose values the cache would keep", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let pool: LineParsePool | undefined;
    const doc = await read(
      didOpenBody(text),
      () => (pool = LineParsePool.start(WORKER)),
      () => setValueBudget(undefined),
      false,
    );
    expect(pool).toBeDefined();
    expect(pool!.linesFromWorker).toBe(0);
    expectSameParses(doc, text);
  });
});

describe("no worker is started", () => {
  it("unless PI_SESSION_LSP_THREADS asks for 2 threads or more", () => {
    for (const value of [undefined, "", "0", "1", "1.5", "two", "-3"]) {
      expect(parsePoolWanted({ PI_SESSION_LSP_THREADS: value }, 8, 0)).toBe(false);
      expect(startParsePool({ PI_SESSION_LSP_THREADS: value, PI_SESSION_LSP_FREE_CORES: "4" })).toBeUndefined();
    }
  });

  it("on one core, or when no core is free", () => {
    const asked = { PI_SESSION_LSP_THREADS: "2" };
    expect(parsePoolWanted(asked, 8, 0)).toBe(true);
    expect(parsePoolWanted(asked, 1, 0)).toBe(false);
    // The last minute's load average leaves less than one core and a half of two.
    expect(parsePoolWanted(asked, 2, 1.6)).toBe(false);
    expect(parsePoolWanted(asked, 2, 1.4)).toBe(true);
    // A stated number of free cores is the answer instead.
    expect(parsePoolWanted({ ...asked, PI_SESSION_LSP_FREE_CORES: "0" }, 2, 0)).toBe(false);
    expect(startParsePool({ ...asked, PI_SESSION_LSP_FREE_CORES: "0" })).toBeUndefined();
    expect(parsePoolWanted({ ...asked, PI_SESSION_LSP_FREE_CORES: "1" }, 2, 8)).toBe(true);
  });

  it("for a full-text change, however large", () => {
    setValueBudget(100_000);
    const text = hostileText();
    const change = { jsonrpc: "2.0", method: "textDocument/didChange", params: { textDocument: { uri: URI, version: 2 }, contentChanges: [{ text }] } };
    const body = Buffer.from(JSON.stringify(change));
    let started = 0;
    const streamed = new StreamedBody(body.length, undefined, () => {
      started++;
      return undefined;
    });
    streamed.push(body);
    expect(streamed.finish().message).toEqual(change);
    expect(started).toBe(0);
  });
});

describe("without a worker that answers, the document parses its lines itself", () => {
  const scripts = mkdtempSync(join(tmpdir(), "parse-pool-"));
  const script = (name: string, source: string) => {
    const path = join(scripts, name);
    writeFileSync(path, source);
    return path;
  };

  it("when there is no compiled worker", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let started = 0;
    const doc = await read(didOpenBody(text), () => {
      started++;
      return LineParsePool.start(join(scripts, "missing.js"));
    });
    expect(started).toBe(1);
    expectSameParses(doc, text);
  });

  it("when the worker dies", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let pool: LineParsePool | undefined;
    const doc = await read(didOpenBody(text), () => (pool = LineParsePool.start(script("dies.js", "throw new Error('boom');"))));
    expect(pool).toBeDefined();
    expect(pool!.linesFromWorker).toBe(0);
    expectSameParses(doc, text);
  });

  it("when the worker takes batches and never answers", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let pool: LineParsePool | undefined;
    const silent = script("silent.js", "require('node:worker_threads').parentPort.on('message', (b) => Atomics.compareExchange(b.claims, b.slot, 0, 1));");
    const started = performance.now();
    const doc = await read(didOpenBody(text), () => (pool = LineParsePool.start(silent)));
    expect(pool!.linesFromWorker).toBe(0);
    // The wait is bounded: a few seconds, then the lines are parsed here. Only a hang is checked
    // (WAIT_MS, minutes), not a speed, which on a busy machine is anyone's guess.
    expect(performance.now() - started).toBeLessThan(WAIT_MS);
    expectSameParses(doc, text);
  });

  it("when the parses were given up before the document took them", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    let pool: LineParsePool | undefined;
    const doc = await read(
      didOpenBody(text),
      () => (pool = LineParsePool.start(WORKER)),
      () => pool!.dispose(),
    );
    expect(pool!.linesFromWorker).toBe(0);
    expectSameParses(doc, text);
  });
});

describe("the batches sent to the worker", () => {
  it("stay below glibc's mmap threshold once serialized, a line too long for one parsed here", async () => {
    setValueBudget(100_000);
    // Lines of two-byte characters near the batch's limit, next to the hostile session's huge line.
    const wide = Array.from({ length: 40 }, (_, k) => `{"type":"custom","id":"w${k}","parentId":null,"data":"${"漢".repeat(9_000 + k * 500)}"}`);
    const text = `${hostileText()}\n${wide.join("\n")}`;
    const dir = mkdtempSync(join(tmpdir(), "parse-pool-sizes-"));
    const log = join(dir, "sizes.txt");
    // A worker that only records each batch's serialized size and longest line, and parses none.
    const recorder = join(dir, "recorder.js");
    writeFileSync(
      recorder,
      `const { appendFileSync } = require("node:fs"); const { serialize } = require("node:v8");
       const { parentPort, workerData } = require("node:worker_threads");
       parentPort.on("message", (b) => {
         appendFileSync(${JSON.stringify(log)}, serialize(b.pieces).length + " " + Math.max(...b.pieces.map((p) => p.length)) + "\\n");
         Atomics.add(workerData.done, 0, 1);
       });`,
    );
    writeFileSync(log, "");
    let pool: LineParsePool | undefined;
    const doc = await read(
      didOpenBody(text),
      () => (pool = LineParsePool.start(recorder)),
      () => until(() => pool!.answeredAll, "the recorder's batches"),
    );
    expect(pool!.linesFromWorker).toBe(0);
    const batches = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((row) => row.split(" ").map(Number));
    expect(batches.length).toBeGreaterThan(20);
    for (const [bytes, longest] of batches) {
      expect(bytes).toBeLessThan((128 * 1024) / 2);
      expect(longest).toBeLessThan(1_500_000);
    }
    // The two-byte lines went to the worker, the huge one did not.
    expect(Math.max(...batches.map(([, longest]) => longest!))).toBeGreaterThanOrEqual(9_000);
    expectSameParses(doc, text);
  });

  it("wait while the worker is behind, at most 32 of them unanswered, and the lines it had no room for are parsed here", async () => {
    setValueBudget(100_000);
    const text = hostileText();
    const dir = mkdtempSync(join(tmpdir(), "parse-pool-behind-"));
    const log = join(dir, "batches.txt");
    writeFileSync(log, "");
    // A worker that never answers: every batch it is sent stays in flight.
    const stuck = join(dir, "stuck.js");
    writeFileSync(stuck, `require("node:worker_threads").parentPort.on("message", () => require("node:fs").appendFileSync(${JSON.stringify(log)}, "b\\n"));`);
    let pool: LineParsePool | undefined;
    const doc = await read(
      didOpenBody(text),
      () => (pool = LineParsePool.start(stuck)),
      () => until(() => readFileSync(log, "utf8").length >= 2 * 32, "the stuck worker's batches"),
    );
    expect(readFileSync(log, "utf8").length).toBe(2 * 32);
    expect(pool!.linesFromWorker).toBe(0);
    expectSameParses(doc, text);
  });
});
