#!/usr/bin/env node
// bench/sessions.mjs: the sessions-folder rows of the benchmark (issue 15): a fake Pi home whose
// sessions folder holds --files session files (default 2,000) of --mb megabytes in all (default
// 2,000), spread over 40 projects with a few large sessions among many small ones, and the time and
// peak memory of what the session commands do with it, each run as a user runs it (the built
// bin/pi-session-lsp.js in a child process, HOME pointing at the fake home):
//   - `sessions --all --json`: Pi's listAll over every file (every file read whole, on every core),
//     and the same with PI_SESSION_LSP_THREADS=1, for the speed-up of the worker threads;
//   - `sessions --json` for one project (Pi's list);
//   - `find PREFIX`: an ambiguous id prefix (every header, then the few matching files);
//   - `find --text WORD`: a search of every name and message;
//   - the editor's index: every file scanned for workspace symbols (names, labels, ids, first
//     messages), as the server's background indexing does it.
// The folder is generated once into bench/out/sessions-<files>-<mb>mb/ and reused (a stamp file
// records its parameters). It prints rows and one line of JSON; it is not a test.
//
// Usage: node bench/sessions.mjs [--files N] [--mb M] [--force-generate]
//        import { sessionsFolderBench, ensureSessionsFolder } from "./sessions.mjs"   (bench/run.mjs)

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, PEAK_RSS_ON_EXIT, reportedPeakRss, timedNode } from "./stdio.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, "..", "bin", "pi-session-lsp.js");
const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const PROJECTS = 40;

/** A deterministic PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "parser cache login signup deploy render shader queue worker retry timeout cookie schema migration index bundle lint flaky crash memory".split(
  " ",
);

/** Sizes of the files: a handful of large sessions and a long tail of small ones, summing to `total`. */
function sizes(files, total, random) {
  const weights = Array.from({ length: files }, (_, i) => (i < Math.max(1, files / 200) ? 200 : 1) * (0.5 + random()));
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => Math.max(2000, Math.round((w / sum) * total)));
}

/** Writes one session of about `bytes` bytes: header, a name, a first message, then turns of a repeated block with its ids patched. */
function writeSession(path, bytes, { id, cwd, n, random }) {
  const fd = openSync(path, "w");
  const word = () => WORDS[Math.floor(random() * WORDS.length)];
  const header = { type: "session", version: 3, id, timestamp: new Date(T0 + n * 60_000).toISOString(), cwd };
  let written = writeSync(fd, `${JSON.stringify(header)}\n`);
  const at = (k) => new Date(T0 + n * 60_000 + k * 1000).toISOString();
  let k = 0;
  let parent = null;
  const line = (entry) => {
    const text = `${JSON.stringify({ ...entry, id: `${n.toString(16).padStart(4, "0")}${(k++).toString(16).padStart(4, "0")}`, parentId: parent, timestamp: at(k) })}\n`;
    parent = JSON.parse(text).id;
    written += writeSync(fd, text);
  };
  line({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  line({ type: "message", message: { role: "user", content: `Fix the ${word()} ${word()} in session ${n}.`, timestamp: T0 + n * 60_000 } });
  if (n % 3 === 0) line({ type: "session_info", name: `${word()} ${word()} #${n}` });
  const output = "o".repeat(Math.min(64 * 1024, Math.max(200, Math.floor(bytes / 40))));
  while (written < bytes) {
    const call = `call_${k}`;
    line({
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `Looking at the ${word()}.` },
          { type: "toolCall", id: call, name: "bash", arguments: { command: `grep -r ${word()} src` } },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 1000,
          output: 20,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 1020,
          cost: { input: 0.003, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.0033 },
        },
        stopReason: "toolUse",
        timestamp: T0 + n * 60_000 + k * 1000,
      },
    });
    line({
      type: "message",
      message: { role: "toolResult", toolCallId: call, toolName: "bash", content: [{ type: "text", text: output }], isError: false, timestamp: T0 },
    });
    if (k % 50 === 0) line({ type: "label", targetId: parent, label: `checkpoint ${k}` });
  }
  closeSync(fd);
  return written;
}

/** The fake home with its sessions folder, generated once per parameters. */
export function ensureSessionsFolder({ files = 2000, mb = 2000, force = false, log = () => {}, outDir = join(HERE, "out") } = {}) {
  const dir = join(outDir, `sessions-${files}-${mb}mb`);
  const stamp = join(dir, "stamp.json");
  const home = join(dir, "home");
  const params = JSON.stringify({ files, mb, version: 1 });
  if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === params)
    return { dir, home, generated: false, ...JSON.parse(readFileSync(join(dir, "facts.json"), "utf8")) };
  rmSync(dir, { recursive: true, force: true });
  const random = prng(15);
  const sessionsRoot = join(home, ".pi", "agent", "sessions");
  const projects = Array.from({ length: PROJECTS }, (_, i) => join(dir, "work", `project-${i}`));
  for (const p of projects) mkdirSync(join(sessionsRoot, `--${p.slice(1).replace(/[/\\:]/g, "-")}--`), { recursive: true });
  const t0 = performance.now();
  let total = 0;
  sizes(files, mb * 1e6, random).forEach((size, n) => {
    const cwd = projects[n % PROJECTS];
    const id = `019f${n.toString(16).padStart(4, "0")}-0000-7000-8000-${String(n).padStart(12, "0")}`;
    const path = join(
      sessionsRoot,
      `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`,
      `${new Date(T0 + n * 60_000).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`,
    );
    total += writeSession(path, size, { id, cwd, n, random });
  });
  const facts = { files, bytes: total, projects: projects.length, project0: projects[0] };
  writeFileSync(join(dir, "facts.json"), JSON.stringify(facts));
  writeFileSync(stamp, params);
  log(`generated ${files} sessions, ${(total / 1e9).toFixed(2)} GB, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { dir, home, generated: true, ...facts };
}

/** Runs the built command with HOME at the fake home; wall time and the process's peak RSS (worker threads included). */
function timed(args, { home, env = {}, cwd }) {
  const script = `${PEAK_RSS_ON_EXIT} require(${JSON.stringify(BIN)});`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["-e", script, "pi-session-lsp", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, ...env },
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const rss = reportedPeakRss(r.stderr);
  if (r.status !== 0 && r.status !== 1) throw new Error(`pi-session-lsp ${args.join(" ")} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
  return { ms, rss, stdout: r.stdout };
}

/** The editor's index over every file, in a child process (the server's indexer, without a client). */
function timedIndex(home) {
  const script = `
    const { indexSessions } = require(${JSON.stringify(resolve(HERE, "../out/io/workspaceIndexer.js"))});
    const t0 = performance.now();
    indexSessions({ roots: [], sessionRoots: [${JSON.stringify(join(home, ".pi", "agent", "sessions"))}] }).then((index) => {
      const ms = performance.now() - t0;
      const kb = Number(/VmHWM:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))?.[1] ?? process.resourceUsage().maxRSS);
      process.stdout.write(JSON.stringify({ ms, sessions: index.sessions, symbols: index.symbols, rss: kb * 1024 }));
    });`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home } });
  if (r.status !== 0) return undefined;
  return JSON.parse(r.stdout);
}

/** The phrase `find` looks for (a few sessions' first message has it) and a word no session has. */
export const PHRASE = "flaky cookie";
export const NOTHING = "quetzalcoatl";

/** Pi 1.6's `SessionManager.listAll()` of the fake home, as /resume's "all projects" lists it, on Node 22. */
function piListAll(peers, home) {
  const script = join(tmpdir(), "pi-session-lsp-bench-pi-listall.mjs");
  writeFileSync(
    script,
    `const { SessionManager } = await import(${JSON.stringify(`file://${peers.piSessionManager}`)});\nconst list = await SessionManager.listAll();\nprocess.stdout.write(String(list.length));\n`,
  );
  return timedNode(peers.node22, script, [], { HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent") });
}

/** `rg -l -F TEXT` over the sessions folder: wall time, and how many files it listed (exit 1: none). */
function ripgrep(rg, text, root) {
  const t0 = performance.now();
  const r = spawnSync(rg, ["-l", "-F", "--no-ignore", "--", text, root], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed (${r.status}): ${r.stderr.slice(0, 500)}`);
  return { ms, files: r.stdout.split("\n").filter((l) => l !== "").length };
}

/**
 * The session commands on the fake home. `sessions --all` and the two finds take turns with their
 * peers (Pi 1.6's listAll, `rg -l -F`; with `peers` only) `reps` times, medians kept; the rest
 * runs once.
 */
export function sessionsFolderBench({ files = 2000, mb = 2000, force = false, log = (m) => console.error(`bench: ${m}`), outDir, reps = 1, peers } = {}) {
  const folder = ensureSessionsFolder({ files, mb, force, log, outDir });
  const { home } = folder;
  const root = join(home, ".pi", "agent", "sessions");
  const runs = { all: [], pi: [], phrase: [], rgPhrase: [], nothing: [], rgNothing: [] };
  for (let r = 0; r < reps; r++) {
    runs.all.push(timed(["sessions", "--all", "--json"], { home }));
    if (peers) runs.pi.push(piListAll(peers, home));
    runs.phrase.push(timed(["find", "--json", "--text", `"${PHRASE}"`], { home }));
    if (peers?.rg) runs.rgPhrase.push(ripgrep(peers.rg, PHRASE, root));
    runs.nothing.push(timed(["find", "--json", "--text", NOTHING], { home }));
    if (peers?.rg) runs.rgNothing.push(ripgrep(peers.rg, NOTHING, root));
  }
  const mid = (list) => (list.length ? { ms: median(list.map((x) => x.ms)), peakRss: median(list.map((x) => x.rss)) } : undefined);
  const matches = (run) => (JSON.parse(run.stdout).text ?? []).length;
  const single = timed(["sessions", "--all", "--json"], { home, env: { PI_SESSION_LSP_THREADS: "1" } });
  const project = timed(["sessions", "--json", "--cwd", folder.project0], { home });
  const prefix = timed(["find", "--json", "--ids", "019f000"], { home });
  const prefixDoc = JSON.parse(prefix.stdout);
  const index = timedIndex(home);
  return {
    folder: { files: folder.files, bytes: folder.bytes, projects: folder.projects, generated: folder.generated },
    listAll: { ...mid(runs.all), listed: JSON.parse(runs.all[0].stdout).sessions.length },
    piListAll: runs.pi.length ? { ...mid(runs.pi), listed: Number(runs.pi[0].stdout) } : null,
    listAllOneThread: { ms: single.ms, peakRss: single.rss },
    listProject: { ms: project.ms, peakRss: project.rss },
    findPrefix: { ms: prefix.ms, peakRss: prefix.rss, readInFull: prefixDoc.read.full, candidates: prefixDoc.candidates.length },
    findPhrase: { ...mid(runs.phrase), matches: matches(runs.phrase[0]) },
    rgPhrase: runs.rgPhrase.length ? { ...mid(runs.rgPhrase), files: runs.rgPhrase[0].files } : null,
    findNothing: { ...mid(runs.nothing), matches: matches(runs.nothing[0]) },
    rgNothing: runs.rgNothing.length ? { ...mid(runs.rgNothing), files: runs.rgNothing[0].files } : null,
    ripgrep: peers ? (peers.rg ?? "none") : null,
    index: index ?? null,
  };
}

/**
 * The benchmark's rows for a result of `sessionsFolderBench` (bench/run.mjs's table format):
 * `row(id, what, n, value, goal, pass)`, pass null when the peer was not run.
 */
export function sessionsRows(r, { section, row }) {
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;
  const x = (a, b) => `${(a / b).toFixed(2)}×`;
  section(
    `Sessions folder: ${r.folder.files.toLocaleString("en-US")} files, ${(r.folder.bytes / 1e9).toFixed(2)} GB, ${r.folder.projects} projects (${r.folder.generated ? "generated now" : "reused"})`,
  );
  const pi = r.piListAll;
  row(
    "sessions.listAll",
    "`sessions --all` (Pi's listAll, every file read whole, all cores) against Pi 1.6's `SessionManager.listAll`",
    pi ? r.listAll.ms / pi.ms : r.listAll.ms,
    `${s(r.listAll.ms)}, peak RSS ${mib(r.listAll.peakRss)}, ${r.listAll.listed} listed${pi ? `; Pi 1.6 ${s(pi.ms)}, peak ${mib(pi.peakRss)}, ${pi.listed} listed: ${x(r.listAll.ms, pi.ms)}` : ""}`,
    "ahead of Pi 1.6 (< 1×)",
    pi ? r.listAll.ms < pi.ms : null,
  );
  row(
    "sessions.listAllOneThread",
    "  the same on one thread (PI_SESSION_LSP_THREADS=1)",
    r.listAllOneThread.ms,
    `${s(r.listAllOneThread.ms)}, peak RSS ${mib(r.listAllOneThread.peakRss)} (x${(r.listAllOneThread.ms / r.listAll.ms).toFixed(2)})`,
  );
  row("sessions.project", "sessions for one project (Pi's list)", r.listProject.ms, `${s(r.listProject.ms)}, peak RSS ${mib(r.listProject.peakRss)}`);
  row(
    "sessions.findPrefix",
    "find PREFIX (headers, then the matching files)",
    r.findPrefix.ms,
    `${s(r.findPrefix.ms)}, ${r.findPrefix.readInFull} read whole, ${r.findPrefix.candidates} candidates`,
  );
  const rgNote = r.ripgrep === "none" ? "; no ripgrep on this machine" : "";
  const findRow = (id, what, ours, rg) =>
    row(
      id,
      what,
      rg ? ours.ms / rg.ms : ours.ms,
      `${s(ours.ms)}, peak RSS ${mib(ours.peakRss)}, ${ours.matches} matches${rg ? `; rg -l -F ${s(rg.ms)}, ${rg.files} files: ${x(ours.ms, rg.ms)}` : rgNote}`,
      "≤ 2× `rg -l -F`",
      rg ? ours.ms / rg.ms <= 2 : null,
    );
  findRow("sessions.findPhrase", `\`find "${PHRASE}"\` (a phrase, as /resume's search) against \`rg -l -F\``, r.findPhrase, r.rgPhrase);
  findRow("sessions.findNothing", `\`find ${NOTHING}\` (a word no session has) against \`rg -l -F\``, r.findNothing, r.rgNothing);
  if (r.index)
    row(
      "sessions.index",
      "editor index (workspace symbols of every file)",
      r.index.ms,
      `${s(r.index.ms)}, ${r.index.sessions} sessions, ${r.index.symbols} symbols, peak RSS ${mib(r.index.rss)}`,
    );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const result = sessionsFolderBench({ files: option("--files", 2000), mb: option("--mb", 2000), force: args.includes("--force-generate") });
  const rows = [];
  sessionsRows(result, { section: (t) => rows.push(`\n${t}`), row: (_id, what, _n, value) => rows.push(`  ${what.padEnd(64)}  ${value}`) });
  console.log(rows.join("\n"));
  console.log(JSON.stringify(result));
}
