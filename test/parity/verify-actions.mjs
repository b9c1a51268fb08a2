#!/usr/bin/env node
// Verifies, against the REAL Pi, the three entry actions of the CLI (and of the editor, which makes the same lines):
//
//   resume-from FILE ID        the context Pi builds from the new last line equals the context at ID (0.74.2 and 1.6.0);
//   drop-from-context FILE ID  Pi 1.6.0's context is the context before, without ID's messages (and the file still
//                              holds ID); Pi 0.74.2, which ignores context_edit, builds the same context as before;
//   fork FILE --leaf ID        Pi opens the new file without changing it, builds the context the source built at ID,
//                              finds every parent (one root, no dangling parentId), and the source is byte-identical.
//
// How to run (from the repo root, after `npx tsc -p server`):
//
//     node test/parity/verify-actions.mjs [--only <substring>] [--jobs N] [--json]
//
// For every fixture of fixtures/ it picks up to 5 entries spread evenly over the file (from the first to the last
// but one) for resume-from and fork, and for drop-from-context up to 3 user/assistant/tool result messages on the
// branch Pi resumes, spread the same way, plus one message off it (which the CLI must refuse); it runs the built CLI
// (bin/pi-session-lsp.js) on a copy for each, and then runs each Pi version in a child process (SIGKILL after 60 s: Pi hangs on parent cycles) on fresh copies of the original and of the result.
// Pi is found by piPackages.mjs, as verify-fix.mjs finds it.
//
// A check is OK when the claim above holds; N/A when that Pi does not open the original or rewrites it (nothing to
// compare with; Pi 1.x appending a missing final line break is not a rewrite);
// REFUSED when the CLI declined (the reason is counted). Exit status 1 if any check FAILED.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PI_PACKAGES, sessionManagerOf } from "./piPackages.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const FIXTURES = path.join(HERE, "fixtures");
const CLI = path.join(REPO, "bin", "pi-session-lsp.js");
const VERSIONS = PI_PACKAGES;
const CHILD_TIMEOUT_MS = 60000;

// =====================================================================================================
// Child: one Pi version, every check of one fixture
// =====================================================================================================

const emit = (o) => fs.writeSync(1, `${JSON.stringify(o)}\n`);
const errText = (e) => `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}`;

async function childMain(task) {
  const mod = await import(pathToFileURL(sessionManagerOf(task.pkg)).href);
  const open = (file) => {
    const before = fs.readFileSync(file, "utf8");
    try {
      const sm = mod.SessionManager.open(file);
      const after = fs.readFileSync(file, "utf8");
      // Pi 1.x appends the final line break a file lacks: a mend, not a rewrite; the entries are the same.
      return { sm, changed: after !== before, rewrote: after !== before && !(after.startsWith(before) && after.slice(before.length) === "\n") };
    } catch (e) {
      return { error: errText(e) };
    }
  };
  const json = (v) => JSON.stringify(v);
  for (const check of task.checks) {
    const out = { key: check.key };
    try {
      const o = open(check.original);
      if (o.error || o.rewrote) {
        // Pi refuses or rewrites (v1/v2) the original: there is no context of it to compare with.
        emit({ ...out, status: "n/a", detail: o.error ?? "Pi rewrote the original when opening it" });
        continue;
      }
      const r = open(check.result);
      if (r.error) {
        emit({ ...out, status: "failed", detail: `opening the result threw ${r.error}` });
        continue;
      }
      if (r.changed) {
        emit({ ...out, status: "failed", detail: "Pi changed the result when opening it" });
        continue;
      }
      const problems = [];
      if (check.kind === "resume") {
        const expected = json(mod.buildSessionContext(o.sm.getEntries(), check.id));
        if (r.sm.getLeafId() !== check.newId) problems.push(`leaf ${r.sm.getLeafId()} is not the new line ${check.newId}`);
        if (json(r.sm.buildSessionContext()) !== expected) problems.push("the context from the new line differs from the context at the entry");
      } else if (check.kind === "drop") {
        const before = o.sm.buildSessionContext();
        const after = r.sm.buildSessionContext();
        if (!r.sm.getEntries().some((e) => e.id === check.id)) problems.push("the file no longer holds the entry");
        if (mod.buildSessionProjection) {
          const projection = mod.buildSessionProjection(o.sm.getEntries(), o.sm.getLeafId());
          const own = projection.entries.filter((p) => p.sourceEntry.id === check.id).flatMap((p) => p.messages);
          const expected = projection.entries.filter((p) => p.sourceEntry.id !== check.id).flatMap((p) => p.messages);
          if (own.length === 0) problems.push("the entry gave no message to the context before the edit");
          if (json(after.messages) !== json(expected)) problems.push("the context is not the context before without the entry's messages");
          if (json(after.thinkingLevel) !== json(before.thinkingLevel) || json(after.model) !== json(before.model))
            problems.push("model or thinking level changed");
        } else if (json(after) !== json(before)) {
          // Pi 0.73/0.74 has no context_edit: the claim is that nothing changes.
          problems.push("Pi 0.74 built another context after the edit it ignores");
        }
      } else {
        const expected = json(mod.buildSessionContext(o.sm.getEntries(), check.id));
        if (json(r.sm.buildSessionContext()) !== expected) problems.push("the fork's context differs from the source's at the entry");
        const entries = r.sm.getEntries();
        const ids = new Set(entries.map((e) => e.id));
        const dangling = entries.filter((e) => e.parentId !== null && !ids.has(e.parentId)).length;
        if (dangling > 0) problems.push(`${dangling} dangling parentId`);
        const roots = r.sm.getTree().length;
        if (roots !== 1) problems.push(`${roots} roots`);
        if (r.sm.getHeader()?.parentSession !== check.source) problems.push("parentSession does not name the source");
      }
      emit({ ...out, status: problems.length === 0 ? "ok" : "failed", detail: problems.join("; ") });
    } catch (e) {
      emit({ ...out, status: "failed", detail: `threw ${errText(e)}` });
    }
  }
}

// =====================================================================================================
// Parent
// =====================================================================================================

function runChild(version, task) {
  const v = VERSIONS[version];
  return new Promise((resolve) => {
    const child = spawn(v.node, [fileURLToPath(import.meta.url), "--child", JSON.stringify({ ...task, pkg: v.pkg })], {
      cwd: task.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: task.dir, PI_CODING_AGENT_DIR: path.join(task.dir, ".pi-agent"), TZ: "UTC", LANG: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const results = new Map();
    let buf = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.on("data", (d) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        results.set(msg.key, msg);
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      for (const check of task.checks) {
        if (!results.has(check.key))
          results.set(check.key, { key: check.key, status: "failed", detail: `no answer (exit ${code ?? signal}) ${stderr.trim().split("\n").pop() ?? ""}` });
      }
      resolve(results);
    });
  });
}

/** Up to `n` items spread evenly over `list` from its first to its last but one (the last is where Pi resumes already). */
function spread(list, n) {
  if (list.length <= n) return list;
  const last = list.length - 2;
  return [...new Set(Array.from({ length: n }, (_, i) => Math.round((i * last) / (n - 1))))].map((i) => list[i]);
}

function entriesOf(text) {
  const out = [];
  for (const line of text.replace(/^\uFEFF/, "").split("\n")) {
    let v;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (v && typeof v === "object" && typeof v.id === "string" && v.type !== "session" && !out.some((e) => e.id === v.id)) out.push(v);
  }
  return out;
}

/** The ids on the parent walk from the last entry, at most one step per entry (a cycle ends it). */
function activePath(entries) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const ids = new Set();
  for (let e = entries[entries.length - 1]; e && !ids.has(e.id) && ids.size < entries.length; e = byId.get(e.parentId)) ids.add(e.id);
  return ids;
}

function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.trim() };
}

/** A refusal's reason without the file name and line, so that equal reasons count together. */
const reasonOf = (stderr) =>
  stderr
    .split("\n")[0]
    .replace(/^pi-session-lsp [a-z-]+: [^:]*: (line \d+( \([^)]*\))?: )?/, "")
    .slice(0, 140);

function prepare(name, root) {
  const fixture = path.join(FIXTURES, name);
  const bytes = fs.readFileSync(fixture);
  const text = bytes.toString("utf8");
  const dir = fs.mkdtempSync(path.join(root, `${name.replace(/\.jsonl$/, "")}-`));
  const entries = entriesOf(text);
  const messages = entries.filter((e) => e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message?.role));
  // Messages on the branch Pi resumes (those the action is for), and one elsewhere, which the CLI must refuse.
  const onPath = activePath(entries);
  const dropTargets = spread(
    messages.filter((m) => onPath.has(m.id)),
    3,
  ).concat(messages.filter((m) => !onPath.has(m.id)).slice(0, 1));
  const checks = [];
  const refused = [];
  let n = 0;
  const copy = (label) => {
    const file = path.join(dir, `${label}-${n++}.jsonl`);
    fs.writeFileSync(file, bytes);
    return file;
  };
  for (const e of spread(entries, 5)) {
    const file = copy("resume");
    const r = cli("resume-from", file, e.id);
    if (r.status !== 0) refused.push({ kind: "resume", reason: reasonOf(r.stderr) });
    else {
      const last = fs.readFileSync(file, "utf8").trimEnd().split("\n").pop();
      checks.push({ kind: "resume", id: e.id, newId: JSON.parse(last).id, file });
    }
  }
  for (const e of dropTargets) {
    const file = copy("drop");
    const r = cli("drop-from-context", file, e.id);
    if (r.status !== 0) refused.push({ kind: "drop", reason: reasonOf(r.stderr) });
    else checks.push({ kind: "drop", id: e.id, file });
  }
  const sourceChanged = [];
  for (const e of spread(entries, 5)) {
    const source = copy("fork-source");
    const out = fs.mkdtempSync(path.join(dir, "forks-"));
    const r = cli("fork", "--leaf", e.id, "--out", out, source);
    if (!fs.readFileSync(source).equals(bytes)) sourceChanged.push(e.id);
    if (r.status !== 0) refused.push({ kind: "fork", reason: reasonOf(r.stderr) });
    else checks.push({ kind: "fork", id: e.id, file: path.join(out, fs.readdirSync(out)[0]), source });
  }
  return { name, dir, checks, refused, sourceChanged };
}

/** The per-version task: fresh copies of the original and the result for every check. */
function taskFor(version, prepared, fixture) {
  const dir = fs.mkdtempSync(path.join(prepared.dir, `pi-${version}-`));
  const checks = prepared.checks.map((c, i) => {
    const original = path.join(dir, `original-${i}.jsonl`);
    const result = path.join(dir, `result-${i}.jsonl`);
    fs.copyFileSync(fixture, original);
    fs.copyFileSync(c.file, result);
    return { key: i, kind: c.kind, id: c.id, newId: c.newId, source: c.source, original, result };
  });
  return { dir, checks };
}

async function parentMain(argv) {
  const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined;
  const jobs = argv.includes("--jobs") ? Number(argv[argv.indexOf("--jobs") + 1]) : 2;
  const asJson = argv.includes("--json");
  for (const [v, o] of Object.entries(VERSIONS)) if (!o.pkg || !o.node) throw new Error(`Pi ${v} not found (see the header of this script)`);
  if (!fs.existsSync(path.join(REPO, "out", "main.js"))) throw new Error("build first: npx tsc -p server");
  const names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl") && (!only || f.includes(only)))
    .sort();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pi-verify-actions-"));
  const rows = [];
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      process.stderr.write(`${name}\n`);
      const prepared = prepare(name, root);
      const row = { fixture: name, refused: prepared.refused, sourceChanged: prepared.sourceChanged, results: {} };
      for (const version of Object.keys(VERSIONS)) {
        const task = taskFor(version, prepared, path.join(FIXTURES, name));
        const answers = task.checks.length === 0 ? new Map() : await runChild(version, task);
        row.results[version] = prepared.checks.map((c, i) => ({ kind: c.kind, id: c.id, ...answers.get(i) }));
      }
      rows.push(row);
      if (asJson) process.stdout.write(`${JSON.stringify(row)}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  rows.sort((x, y) => x.fixture.localeCompare(y.fixture));
  fs.rmSync(root, { recursive: true, force: true });

  const totals = {};
  const refusals = new Map();
  let failed = 0;
  const lines = [
    "| fixture | resume-from (0.74.2 / 1.6.0) | drop-from-context (0.74.2 ignores / 1.6.0) | fork (0.74.2 / 1.6.0) | refused |",
    "|---|---|---|---|---|",
  ];
  const cell = (row, kind) =>
    Object.keys(VERSIONS)
      .map((v) => {
        const rs = row.results[v].filter((r) => r.kind === kind);
        const ok = rs.filter((r) => r.status === "ok").length;
        const na = rs.filter((r) => r.status === "n/a").length;
        const bad = rs.filter((r) => r.status === "failed");
        for (const status of ["ok", "n/a", "failed"]) {
          const k = `${kind} ${v} ${status}`;
          totals[k] = (totals[k] ?? 0) + rs.filter((r) => r.status === status).length;
        }
        failed += bad.length;
        return `${ok}${na ? ` (+${na} n/a)` : ""}${bad.length ? ` **${bad.length} FAILED: ${bad.map((b) => `${b.id}: ${b.detail}`).join("; ")}**` : ""}`;
      })
      .join(" / ");
  for (const row of rows) {
    for (const r of row.refused) refusals.set(`${r.kind}: ${r.reason}`, (refusals.get(`${r.kind}: ${r.reason}`) ?? 0) + 1);
    if (row.sourceChanged.length > 0) failed += row.sourceChanged.length;
    const refusedCell = row.refused.length === 0 ? "" : `${row.refused.length}`;
    const changed = row.sourceChanged.length ? ` **fork changed the source: ${row.sourceChanged.join(", ")}**` : "";
    lines.push(`| ${row.fixture} | ${cell(row, "resume")} | ${cell(row, "drop")} | ${cell(row, "fork")}${changed} | ${refusedCell} |`);
  }
  const out = [...lines, "", "Totals:", ""];
  for (const [k, n] of Object.entries(totals).sort()) out.push(`- ${k}: ${n}`);
  out.push("", "Refusals (the CLI declined; the reason, how many times):", "");
  for (const [k, n] of [...refusals.entries()].sort()) out.push(`- ${k}: ${n}`);
  out.push("", failed === 0 ? "Every check holds." : `${failed} checks FAILED.`);
  if (!asJson) process.stdout.write(`${out.join("\n")}\n`);
  else process.stderr.write(`${out.join("\n")}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

if (process.argv[2] === "--child") {
  await childMain(JSON.parse(process.argv[3]));
} else {
  await parentMain(process.argv.slice(2));
}
