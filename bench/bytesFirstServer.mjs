#!/usr/bin/env node
// bench/bytesFirstServer.mjs: the floor of a bytes-first open, the one way to the open's first answer
// that issue 32 left untried. A language server over stdio, without a library, that reads a large
// `didOpen` into one buffer as it arrives and scans the session's lines in it still escaped
// (bench/escapedScan.mjs: each line validated as JSON, its id, parentId and type found), and
// answers the first pull with the faults that the lines' ids and parents show: malformed lines
// (JSON.parse's own message, from a decode of each), a header that is not a session's, duplicate
// ids, dangling parents and cycles, each with its range in UTF-16 as the client counts. The real
// first answer holds a few more, each read from one line or a few bytes (a byte order mark, the
// final newline, the header's id and version, a second header, a parent that is the entry itself,
// a truncated line told from one that is not an object): about a millisecond between them, left
// out. What it does not do is what the first answer needs no more of: decode and parse every
// line, keep a document, take edits (it ignores them and answers every later pull "unchanged").
//
// It reads the message as the bench's client writes it: the `text` last, so that the message's
// last quote closes it. Lines whose id or parentId the scan left unfound (absent, not a string, or
// escaped) are decoded and parsed one by one, as a real reader would, and so are the lines it
// reports on. A session of `\r\n` lines has no `}\n` to cut at while it arrives, so it is scanned
// once its last byte is in.
//
// Usage: node bench/bytesFirstServer.mjs --stdio [--scan-at-end]   (bench/stdio.mjs `bytesFirstPeer`;
//        test/bench/bytesFirstServer.test.ts)

import { BLANK, EscapedTextScan, MALFORMED, OBJECT_LINE, PARENT_NULL, STRIDE } from "./escapedScan.mjs";

/** Bodies this long or longer are scanned while they arrive. */
const STREAMED = 1 << 20;
const HEADER_END = Buffer.from("\r\n\r\n");
const TEXT_KEY = Buffer.from('"text":"');

/** `--scan-at-end`: scan a large text once its last byte is in, not while it arrives. */
const SCAN_AT_END = process.argv.includes("--scan-at-end");

let header = Buffer.alloc(0);
/** The body being read: its buffer, how much arrived, and the scan of its text, once it starts. */
let body;
/** The open document's first answer. */
const answers = new Map();

function send(message) {
  const json = JSON.stringify({ jsonrpc: "2.0", ...message });
  process.stdout.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
}

function handle(message) {
  const { id, method, params } = message;
  if (method === "initialize")
    send({
      id,
      result: {
        capabilities: { textDocumentSync: { openClose: true, change: 2 }, diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } },
      },
    });
  else if (method === "textDocument/diagnostic") {
    const answer = answers.get(params.textDocument.uri);
    if (answer && params.previousResultId === answer.resultId) send({ id, result: { kind: "unchanged", resultId: answer.resultId } });
    else send({ id, result: answer ?? { kind: "full", items: [] } });
  } else if (method === "shutdown") send({ id, result: null });
  else if (method === "exit") process.exit(0);
  else if (id !== undefined && method !== undefined) send({ id, result: null });
}

process.stdin.on("data", (chunk) => {
  let rest = chunk;
  while (rest.length > 0) {
    if (!body) {
      const bytes = header.length ? Buffer.concat([header, rest]) : rest;
      const end = bytes.indexOf(HEADER_END);
      if (end < 0) {
        header = Buffer.from(bytes);
        return;
      }
      header = Buffer.alloc(0);
      const length = Number(/Content-Length:\s*(\d+)/i.exec(bytes.toString("latin1", 0, end))[1]);
      rest = bytes.subarray(end + 4);
      body = { buffer: Buffer.allocUnsafe(length), received: 0, scan: undefined };
    }
    const take = Math.min(body.buffer.length - body.received, rest.length);
    rest.copy(body.buffer, body.received, 0, take);
    body.received += take;
    rest = rest.subarray(take);
    // A large body's text is scanned as it arrives (unless asked to wait for its end).
    if (!body.scan && body.buffer.length >= STREAMED) body.scan = textScan(body.buffer, body.received);
    if (!SCAN_AT_END) body.scan?.feed(body.received);
    if (body.received < body.buffer.length) return;
    const done = body;
    body = undefined;
    // A message with a text (a `didOpen`, in the bench) is read by the scan; any other is parsed.
    done.scan ??= textScan(done.buffer, done.buffer.length);
    if (done.scan) opened(done);
    else handle(JSON.parse(done.buffer.toString("utf8")));
  }
});

/** The scan of the message's text, once the bytes received hold where it starts. */
function textScan(buffer, received) {
  const at = buffer.subarray(0, Math.min(received, 1 << 16)).indexOf(TEXT_KEY);
  return at < 0 ? undefined : new EscapedTextScan(buffer, at + TEXT_KEY.length);
}

/** A `didOpen` is in: its structural faults, answered to the pull that follows. */
function opened({ buffer, scan }) {
  const textEnd = buffer.lastIndexOf(0x22);
  scan.finish(textEnd);
  const textStart = scan.facts[0];
  const message = JSON.parse(`${buffer.toString("utf8", 0, textStart)}"${buffer.toString("utf8", textEnd + 1)}`);
  if (message.method !== "textDocument/didOpen") return handle(message);
  answers.set(message.params.textDocument.uri, { kind: "full", resultId: "1", items: structuralFaults(buffer, scan.facts) });
}

/** The text of the line [start, end) of the message, decoded. */
const decode = (buffer, start, end) => JSON.parse(`"${buffer.toString("utf8", start, end)}"`);

function structuralFaults(buffer, facts) {
  const lines = facts.length / STRIDE;
  const items = [];
  const lineRange = (k) => {
    const text = decode(buffer, facts[k * STRIDE], facts[k * STRIDE + 2]);
    return { start: { line: k, character: 0 }, end: { line: k, character: text.length } };
  };
  // The range of a value found at [from, to) of line k: its UTF-16 columns, quotes included. A
  // value the scan left to the line's own parse has no offsets (from is -1), and gets its line's
  // range: such lines (an escaped id or key) are rare, and the bench's session has none.
  const valueRange = (k, from, to) => {
    if (from < 0) return lineRange(k);
    const start = facts[k * STRIDE];
    const before = decode(buffer, start, from).length - 1;
    return { start: { line: k, character: before }, end: { line: k, character: before + decode(buffer, from, to).length + 2 } };
  };
  const ids = new Array(lines);
  const parents = new Array(lines);
  const byId = new Map();
  let header = -1;
  for (let k = 0; k < lines; k++) {
    const at = k * STRIDE;
    const status = facts[at + 1];
    if (status === BLANK) continue;
    if (status === MALFORMED) {
      let reason = "";
      try {
        JSON.parse(decode(buffer, facts[at], facts[at + 2]));
      } catch (error) {
        reason = error.message;
      }
      items.push({ range: lineRange(k), severity: 1, code: "malformed-line", source: "pi-session", message: `Pi skips this line: ${reason}` });
      continue;
    }
    if (header < 0) {
      header = k;
      let value;
      try {
        value = JSON.parse(decode(buffer, facts[at], facts[at + 2]));
      } catch {}
      if (value?.type !== "session")
        items.push({ range: lineRange(k), severity: 1, code: "bad-header", source: "pi-session", message: "Not a session header." });
      continue;
    }
    if (status !== OBJECT_LINE) {
      items.push({ range: lineRange(k), severity: 1, code: "not-an-entry", source: "pi-session", message: "Not an entry." });
      continue;
    }
    let id = facts[at + 3] >= 0 ? buffer.toString("utf8", facts[at + 3], facts[at + 4]) : undefined;
    let parent = facts[at + 5] >= 0 ? buffer.toString("utf8", facts[at + 5], facts[at + 6]) : facts[at + 5] === PARENT_NULL ? null : undefined;
    if (id === undefined || parent === undefined) {
      // Unfound by the scan: what the line holds, from its own parse.
      const value = JSON.parse(decode(buffer, facts[at], facts[at + 2]));
      id = typeof value.id === "string" ? value.id : undefined;
      parent = typeof value.parentId === "string" ? value.parentId : null;
    }
    ids[k] = id;
    parents[k] = parent;
    if (id === undefined) continue;
    const first = byId.get(id);
    if (first !== undefined)
      items.push({
        range: valueRange(k, facts[at + 3], facts[at + 4]),
        severity: 2,
        code: "duplicate-id",
        source: "pi-session",
        message: `The id is also on line ${first + 1}.`,
      });
    byId.set(id, k);
  }
  // Dangling parents and cycles: each entry walked up once (state 1 on the current walk, 2 done).
  const state = new Uint8Array(lines);
  const walk = [];
  for (let k = 0; k < lines; k++) {
    if (ids[k] === undefined || state[k] !== 0) continue;
    let j = k;
    while (j !== undefined && state[j] === 0) {
      state[j] = 1;
      walk.push(j);
      const p = parents[j];
      if (p === null || p === undefined) break;
      const up = byId.get(p);
      if (up === undefined) {
        const at = j * STRIDE;
        items.push({
          range: valueRange(j, facts[at + 5], facts[at + 6]),
          severity: 1,
          code: "dangling-parent",
          source: "pi-session",
          message: "No entry has this id.",
        });
        break;
      }
      if (state[up] === 1) items.push({ range: lineRange(up), severity: 1, code: "cycle", source: "pi-session", message: "This entry's parents loop." });
      j = up;
    }
    for (const w of walk) state[w] = 2;
    walk.length = 0;
  }
  return items;
}
