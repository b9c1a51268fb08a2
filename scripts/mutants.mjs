#!/usr/bin/env node
// scripts/mutants.mjs: a small, hand-written mutation pass over server/src.
//
// Each mutant in scripts/mutantList.mjs is a plausible bug (a rule of Pi's dropped, a guard
// removed, a tie broken the other way), written as one exact piece of source text and its
// replacement, with the few test files that kill it. The script copies the repository's sources
// into a temporary folder once (the working tree is never touched), builds out/ there from the
// unmutated sources (for the few tests that start the built server or command: they run unmutated
// code), checks that the tests it is about to run pass on the unmutated copy (otherwise a failure
// would prove nothing), then for each mutant applies it, runs the tests with `--bail=1` under a
// time limit and puts the file back. It reports whether a test failed (killed), the run timed out
// (killed by hanging: a bounded walk should have failed a test instead), or every test passed (a
// survivor: write a fixture for it). A mutant whose text is no longer in the source exactly once is
// stale and fails the pass too: update or drop it.
//
// Usage:
//   node scripts/mutants.mjs                 every mutant against its own tests (what .ci/run runs;
//                                            56 mutants: 166 s on a 2-core machine at load 10)
//   node scripts/mutants.mjs --full          every mutant against all the in-process tests (TESTS
//                                            below: about a minute per mutant on 2 cores)
//   node scripts/mutants.mjs locate cycle    only the mutants whose id contains one of the words
//   node scripts/mutants.mjs --tests=test/diagnostics,test/features/snapshots.test.ts locate
//                                            only those tests (to find which file kills a mutant)
//   node scripts/mutants.mjs --list          the mutants and their tests, without running anything
//   node scripts/mutants.mjs --check         which mutants no longer apply to the source
//   node scripts/mutants.mjs --help          this text
// The last line of a run is "mutants: K killed, F not killed (S survived, T stale)".
// Exit status: 0 when every mutant is killed, 1 otherwise, 2 for a mistake on the command line.

import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MUTANTS } from "./mutantList.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * The in-process tests: no editors, no child servers, so a run takes about a minute on 2 cores
 * (`findSessions` is run in this thread by test/io/sessionFind.test.ts).
 */
const TESTS = ["test/core", "test/features", "test/diagnostics", "test/parity", "test/io/sessionFind.test.ts"];
/**
 * A run that takes longer counts as a hang. A mutant's own tests take a few seconds; the limit is
 * for a busy machine, where they can take ten times as long.
 */
const TIME_LIMIT_MS = { own: 60_000, full: 120_000 };

function copySources(into) {
  // scripts/ and the sample sessions build the bundles that bin runs (scripts/bundle.mjs).
  for (const path of ["server", "test", "bench", "bin", "scripts", join("client-samples", "sessions"), "vitest.config.mts", "tsconfig.json", "package.json"]) {
    // The Pi oracle install (hundreds of MB) is never needed by the in-process tests.
    cpSync(join(ROOT, path), join(into, path), {
      recursive: true,
      preserveTimestamps: true,
      filter: (source) => !source.includes(join("parity", "oracle", "node_modules")),
    });
  }
  symlinkSync(join(ROOT, "node_modules"), join(into, "node_modules"));
  // A few of these tests also ask the built server or command (`ensureBuilt`, then out/): they get
  // the unmutated build, made once here. Each mutant keeps its file's time (see below), so
  // `ensureBuilt` does not build again for every mutant, nor fails a test by taking too long to.
  const built = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "server"], { cwd: into, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`tsc -p server failed in the copy:\n${built.stdout}${built.stderr}`);
  const bundled = spawnSync(process.execPath, [join(into, "scripts", "bundle.mjs")], { cwd: into, encoding: "utf8" });
  if (bundled.status !== 0) throw new Error(`scripts/bundle.mjs failed in the copy:\n${bundled.stdout}${bundled.stderr}`);
}

/**
 * Runs vitest on `tests` in `cwd`: "passed", "failed" (a test failed, or a test file could not even
 * load), "timeout", or "broken" when vitest ran no test at all (a crash, a path that matches
 * nothing), which proves nothing about the mutant.
 */
function runTests(cwd, tests, limit) {
  return new Promise((resolve) => {
    const report = join(cwd, "mutant-run.json");
    rmSync(report, { force: true });
    // Tests that time themselves ("in under 5 ms") fail on a busy shared machine whatever the code
    // does, and would count as kills; they are left out of mutation runs.
    const untimed = "--testNamePattern=^(?!.*under \\d+ ms)";
    const argv = ["run", "--bail=1", "--reporter=dot", "--reporter=json", `--outputFile=${report}`, untimed, ...tests];
    const child = spawn(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), ...argv], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      resolve({ status: "timeout", output });
    }, limit);
    child.on("exit", () => {
      clearTimeout(timer);
      let r;
      try {
        r = JSON.parse(readFileSync(report, "utf8"));
      } catch {
        return resolve({ status: "broken", output });
      }
      const files = r.testResults ?? [];
      if (files.length === 0) resolve({ status: "broken", output });
      else if (r.success) resolve({ status: "passed", output });
      else resolve({ status: "failed", output });
    });
  });
}

/** The first failing test's name, from vitest's output. */
function firstFailure(output) {
  const clean = output.replace(/\x1b\[[0-9;]*m/g, "");
  const lines = clean.split("\n");
  const line = lines.find((l) => /FAIL /.test(l));
  // The line names vitest's project ("unit") before the file.
  if (line) return line.replace(/^\s*FAIL\s+(unit\s+)?/, "").trim();
  // No failing test: the run itself broke (a crash, running out of memory); say how.
  const last = lines.filter((l) => /Error|error|heap|memory/.test(l)).pop() ?? lines.filter((l) => l.trim()).pop() ?? "";
  return `a crash: ${last.trim().slice(0, 160)}`;
}

function usage() {
  const text = readFileSync(fileURLToPath(import.meta.url), "utf8");
  const start = text.indexOf("// Usage:");
  return text
    .slice(start, text.indexOf("\n\n", start))
    .split("\n")
    .map((l) => l.replace(/^\/\/ ?/, ""))
    .join("\n");
}

/** Whether `m` applies: its text is in its file exactly once. */
function occurrences(root, m) {
  const path = join(root, "server/src", m.file);
  return existsSync(path) ? readFileSync(path, "utf8").split(m.from).length - 1 : 0;
}

const FLAGS = new Set(["--full", "--list", "--check", "--help", "-h"]);
const args = process.argv.slice(2);
const unknown = args.filter((a) => a.startsWith("-") && !FLAGS.has(a) && !a.startsWith("--tests="));
if (args.includes("--help") || args.includes("-h") || unknown.length > 0) {
  if (unknown.length > 0) console.error(`unknown option ${unknown.join(", ")}\n`);
  (unknown.length > 0 ? console.error : console.log)(usage());
  process.exit(unknown.length > 0 ? 2 : 0);
}
const words = args.filter((a) => !a.startsWith("-"));
const only = args
  .find((a) => a.startsWith("--tests="))
  ?.slice("--tests=".length)
  .split(",")
  .filter(Boolean);
const full = args.includes("--full");
const chosen = MUTANTS.filter((m) => words.length === 0 || words.some((w) => m.id.includes(w)));
if (chosen.length === 0) {
  console.error(`no mutant's id contains ${words.join(" or ")} (--list shows them)`);
  process.exit(2);
}
if (args.includes("--list")) {
  for (const m of chosen) console.log(`${m.id}\t${m.file}\t${m.tests.join(" ")}`);
  process.exit(0);
}
if (args.includes("--check")) {
  let stale = 0;
  for (const m of chosen) {
    const count = occurrences(ROOT, m);
    if (count !== 1) {
      stale++;
      console.log(`stale     ${m.id} (${count} occurrences in ${m.file})`);
    }
  }
  console.log(`${chosen.length} mutants, ${stale} stale`);
  process.exit(stale > 0 ? 1 : 0);
}

const testsOf = (m) => only ?? (full ? TESTS : m.tests);
const limit = only || full ? TIME_LIMIT_MS.full : TIME_LIMIT_MS.own;
const missing = [...new Set(chosen.flatMap(testsOf))].filter((t) => !existsSync(join(ROOT, t)));
if (missing.length > 0) {
  console.error(`no such test: ${missing.join(", ")}`);
  process.exit(2);
}

const passStarted = Date.now();
const work = mkdtempSync(join(tmpdir(), "pi-session-lsp-mutants-"));
const survivors = [];
const stale = [];
let killed = 0;
try {
  copySources(work);
  // The tests about to be run must pass without any mutant, or a failure would prove nothing.
  const baseline = await runTests(work, [...new Set(chosen.flatMap(testsOf))], TIME_LIMIT_MS.full * 2);
  if (baseline.status !== "passed") {
    console.log(`The tests fail (${baseline.status}) on the unmutated sources, so no kill means anything:`);
    console.log(baseline.output.slice(-3000));
    console.log(`mutants: 0 killed, ${chosen.length} not killed (the tests fail without a mutant)`);
    process.exit(1);
  }
  console.log(`baseline  the tests pass on the unmutated copy (${((Date.now() - passStarted) / 1000).toFixed(0)} s with the copy and build)`);
  for (const m of chosen) {
    const path = join(work, "server/src", m.file);
    const count = occurrences(work, m);
    if (count !== 1) {
      stale.push(m.id);
      console.log(`stale     ${m.id} (${count} occurrences in ${m.file})`);
      continue;
    }
    const original = readFileSync(path, "utf8");
    // The mutated file keeps its time, so that out/ (the unmutated build) still counts as fresh.
    const { atime, mtime } = statSync(path);
    writeFileSync(
      path,
      original.replace(m.from, () => m.to),
    );
    utimesSync(path, atime, mtime);
    const started = Date.now();
    const { status, output } = await runTests(work, testsOf(m), limit);
    writeFileSync(path, original);
    utimesSync(path, atime, mtime);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (status === "passed" || status === "broken") {
      survivors.push(m.id);
      const why = status === "broken" ? `: no test ran, ${firstFailure(output)}` : "";
      console.log(`SURVIVED  ${m.id} (${seconds} s) ${testsOf(m).join(" ")}${why}`);
    } else if (status === "timeout") {
      killed++;
      console.log(`hung      ${m.id} (killed after ${seconds} s)`);
    } else {
      killed++;
      console.log(`killed    ${m.id} (${seconds} s) by ${firstFailure(output)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const notKilled = [...survivors, ...stale];
console.log(
  `${chosen.length} mutants in ${((Date.now() - passStarted) / 1000).toFixed(0)} s${notKilled.length ? `; not killed: ${notKilled.join(", ")}` : ""}`,
);
console.log(`mutants: ${killed} killed, ${notKilled.length} not killed (${survivors.length} survived, ${stale.length} stale)`);
process.exit(notKilled.length > 0 ? 1 : 0);
