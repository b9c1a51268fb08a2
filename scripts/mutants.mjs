#!/usr/bin/env node
// scripts/mutants.mjs: a small, hand-written mutation pass over server/src.
//
// Each mutant below is a plausible bug (a rule of Pi's dropped, a guard removed, a tie broken the
// other way), written as one exact piece of source text and its replacement. For each mutant the
// script copies the repository's sources into a temporary folder (the working tree is never
// touched), builds out/ there once from the unmutated sources (for the few tests that start the
// built server or command: they run unmutated code), applies the mutant, runs the in-process tests
// with `--bail=1` under a time limit, and reports whether a test failed (killed), the run timed out (killed by hanging: a
// bounded walk should have failed a test instead), or every test passed (a survivor: write a
// fixture for it). A mutant whose text is no longer in the source is reported as stale, so the
// list keeps working while the code moves: update or drop it.
//
// Usage:
//   node scripts/mutants.mjs                 every mutant (long: 24 of them took 20 min on a busy 2-core machine)
//   node scripts/mutants.mjs locate cycle    only the mutants whose id contains one of the words
//   node scripts/mutants.mjs --list          the mutants, without running anything
//   node scripts/mutants.mjs --check         which mutants no longer apply to the source
//   node scripts/mutants.mjs --tests=test/diagnostics,test/features/snapshots.test.ts locate
//                                            only those tests (to see which fixture kills a mutant)
// Exit status: 0 when no mutant survives, 1 otherwise.

import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * The in-process tests: no editors, no child servers, so a run takes about a minute on 2 cores
 * (`findSessions` is run in this thread by test/io/sessionFind.test.ts).
 */
const TESTS = ["test/core", "test/features", "test/diagnostics", "test/parity", "test/io/sessionFind.test.ts"];
const TIME_LIMIT_MS = 120_000;

/**
 * `{ id, file, from, to }`: replace the one occurrence of `from` in `server/src/<file>` by `to`.
 *
 * Left out because no input can tell it apart (an equivalent mutant): selectEntries' 0.74 rule
 * `e.type === "compaction"` when it finds the compaction again by id. Two path entries can share
 * that id only when the build starts from an earlier holder of a duplicated id, and every leaf a
 * feature builds from is found by id, which gives the last holder (as in Pi).
 *
 * Also left out: folding's `a.reachesCycle[c.index]` guard on a compaction in or below a parent
 * cycle. Since folding walks up through `semantics/walk.ts` (once around a cycle), the guard only
 * saves work: every entry above such a compaction reaches the cycle too, so `isAncestor` is false
 * for all of them and no fold can come out of the walk (test/features/folding.test.ts checks that
 * the later folds survive).
 */
const MUTANTS = [
  // locate.ts: the JSON walker behind every range.
  { id: "locate-escaped-backslash", file: "core/line/locate.ts", from: "if (backslashes % 2 === 0) return j + 1;", to: "if (backslashes === 0) return j + 1;" },
  { id: "locate-first-duplicate-key", file: "core/line/locate.ts", from: "if (key === step) found =", to: "if (key === step && !found) found =" },
  {
    id: "locate-raw-key",
    file: "core/line/locate.ts",
    from: 'return raw.includes("\\\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;',
    to: "return raw;",
  },
  {
    id: "locate-no-cr-whitespace",
    file: "core/line/locate.ts",
    from: "if (c === 32 || c === 9 || c === 10 || c === 13) i++;",
    to: "if (c === 32 || c === 9 || c === 10) i++;",
  },
  {
    id: "locateAt-key-start",
    file: "core/line/locate.ts",
    from: "if (offset >= keySpan.start && offset <= keySpan.end) {",
    to: "if (offset > keySpan.start && offset <= keySpan.end) {",
  },
  // analysis.ts: the tree.
  {
    id: "analysis-first-duplicate-wins",
    file: "core/session/analysis.ts",
    from: "    byId.set(entry.key, entry);\n",
    to: "    if (!byId.has(entry.key)) byId.set(entry.key, entry);\n",
  },
  { id: "analysis-fast-parent-with-duplicates", file: "core/session/analysis.ts", from: "!duplicated && above !== undefined &&", to: "above !== undefined &&" },
  {
    id: "analysis-header-without-id",
    file: "core/session/analysis.ts",
    from: 'if (p.type === "session" && p.id !== undefined) {',
    to: 'if (p.type === "session") {',
  },
  { id: "analysis-below-cycle-unmarked", file: "core/session/cycles.ts", from: "cyclic = reachesCycle[current] === 1;", to: "cyclic = false;" },
  { id: "analysis-active-path-cycle-guard", file: "core/session/analysis.ts", from: "if (leaf && !reachesCycle[leaf.index]) {", to: "if (leaf) {" },
  { id: "analysis-falsy-kept", file: "core/session/analysis.ts", from: "    if (p.falsy) {\n", to: "    if (false) {\n" },
  // The context: Pi's selection and messages.
  {
    id: "context-first-compaction",
    file: "core/pi/buildContext.ts",
    from: "let ci = -1;\n  for (let i = path.length - 1; i >= 0; i--) {",
    to: "let ci = -1;\n  for (let i = 0; i < path.length; i++) {",
  },
  { id: "context-system-kept", file: "core/pi/buildContext.ts", from: 'if (flavor !== "0.74" && isSystemMessage(entry)) continue;', to: "" },
  {
    id: "context-cycle-guard",
    file: "core/pi/buildContext.ts",
    from: 'if (a.reachesCycle[leaf.index]) return { ok: false, failure: { kind: "cycle", entry: leaf } };',
    to: "",
  },
  { id: "context-every-compaction-summary", file: "core/pi/buildContext.ts", from: 'if (entry.type === "compaction" && i > 0) continue;', to: "" },
  // Guards for a compaction inside a parent cycle.
  {
    id: "lens-compaction-cycle-guard",
    file: "features/codeLens.ts",
    from: 'if (a.reachesCycle[compaction.index]) return "compaction: Pi hangs here (parent cycle)";',
    to: "",
  },
  {
    id: "diagnostics-first-kept-cycle-guard",
    file: "features/diagnostics/linkChecks.ts",
    from: "if (a.reachesCycle[entry.index]) return; // The path is undefined",
    to: "// The path is undefined",
  },
  {
    id: "hover-first-kept-cycle-guard",
    file: "features/hover/references.ts",
    from: 'field === "firstKeptEntryId" && !a.reachesCycle[entry.index] &&',
    to: 'field === "firstKeptEntryId" &&',
  },
  {
    id: "tool-call-search-in-cycle",
    file: "core/session/semantics/toolPairs.ts",
    from: "if (++steps >= NEAR && !a.reachesCycle[entry.index]) return",
    to: "if (++steps >= NEAR) return",
  },
  // Fixes.
  {
    id: "fix-header-when-no-line-parses",
    file: "features/fixes/perCode.ts",
    from: 'a.headerState === "missing" || a.headerState === "no-entries"',
    to: 'a.headerState === "missing"',
  },
  {
    id: "fix-header-whitespace-file",
    file: "features/fixes/perCode.ts",
    from: 'a.headerState === "empty-file" || doc.parsed.every((q) => q.kind === "blank")',
    to: 'a.headerState === "empty-file"',
  },
  // Diagnostics.
  {
    id: "diagnostics-equal-times-backwards",
    file: "features/diagnostics/lineChecks.ts",
    from: "time >= parentTime) return;",
    to: "time > parentTime) return;",
  },
  {
    id: "diagnostics-final-newline-cr",
    file: "features/diagnostics/fileChecks.ts",
    from: 'const length = text.endsWith("\\r") ? text.length - 1 : text.length;',
    to: "const length = text.length;",
  },
  {
    id: "diagnostics-bom-on-blank",
    file: "features/diagnostics/fileChecks.ts",
    from: 'if (!r.doc.hasBom || r.doc.parsed[0]!.kind !== "value") return;',
    to: "if (!r.doc.hasBom) return;",
  },
  {
    id: "diagnostics-duplicate-winner-first",
    file: "features/diagnostics/treeChecks.ts",
    from: "const winner = holders[holders.length - 1]!;",
    to: "const winner = holders[0]!;",
  },
  // Sibling order, as Pi's getTree sorts children (the outline, the hierarchy and the tree share it).
  {
    id: "siblings-tie-reversed",
    file: "core/session/rules.ts",
    from: "if (children.length > 1) children.sort(",
    to: "if (children.length > 1) children.reverse().sort(",
  },
  {
    id: "siblings-unreadable-time-zero",
    file: "core/session/semantics/siblings.ts",
    from: "return dateTime(entry.parsed.object?.timestamp);",
    to: "return dateTime(entry.parsed.object?.timestamp) || 0;",
  },
  {
    id: "context-kept-system-as-compacted",
    file: "core/pi/activeContext.ts",
    from: "state[e.index] = kept ? ContextState.DroppedSystem : ContextState.Compacted;",
    to: "state[e.index] = ContextState.Compacted;",
  },
  {
    id: "diagnostics-tool-results-cycle-guard",
    file: "features/diagnostics/linkChecks.ts",
    from: "if (id === undefined || a.reachesCycle[entry.index]) continue;",
    to: "if (id === undefined) continue;",
  },
  {
    id: "parse-whitespace-not-blank",
    file: "core/line/parse.ts",
    from: "return text.charCodeAt(0) !== 123 && text.trim().length === 0;",
    to: "return text.length === 0;",
  },
  // Pi's index rules (core/session/rules.ts), which the open document and the files on disk share.
  {
    id: "rules-id-prefix-includes",
    file: "core/session/rules.ts",
    from: "return (s.id as string).startsWith(arg);",
    to: "return (s.id as string).includes(arg);",
  },
  {
    id: "rules-relabel-moves-to-end",
    file: "core/session/rules.ts",
    from: "if (label) labels.set(target, value());",
    to: "if (label) labels.delete(target), labels.set(target, value());",
  },
  // find reads in full only the files whose header id starts with the argument.
  {
    id: "find-prefilter-includes",
    file: "io/sessionFind.ts",
    from: "if (probe.header) return idMatches(probe.header, arg);",
    to: "if (probe.header) return probe.header.id.includes(arg);",
  },
  // The document model.
  { id: "document-cr-before-lf", file: "core/session/document.ts", from: 'if (endEol === "\\n" && newLines[lastNew]!.endsWith("\\r")) {', to: "if (false) {" },
  {
    id: "document-bom-line-reused",
    file: "core/session/document.ts",
    from: "for (let i = this.hasBom ? 1 : 0; i < this.lines.length; i++)",
    to: "for (let i = 0; i < this.lines.length; i++)",
  },
  // Issue 28's survivors: a false sentence added to a message (killed now that fixtures match
  // messages whole), both summaries sent (context-every-compaction-summary above), `""` tool ids.
  {
    id: "message-false-tree-hangs",
    file: "features/diagnostics/treeChecks.ts",
    from: "const loop = a.treeLoops ?",
    to: "const loop = a.duplicates.size > 0 ?",
  },
  {
    id: "tool-index-falsy-result-id",
    file: "core/session/semantics/toolPairs.ts",
    from: "if (p.toolResultId !== undefined) add(results, p.toolResultId, entry);",
    to: "if (p.toolResultId) add(results, p.toolResultId, entry);",
  },
  {
    id: "tool-call-index-farthest",
    file: "core/session/semantics/toolPairs.ts",
    from: "(!best || a.depth[c.index]! > a.depth[best.index]!)",
    to: "(!best || a.depth[c.index]! < a.depth[best.index]!)",
  },
  {
    id: "tool-results-falsy-id",
    file: "features/diagnostics/linkChecks.ts",
    from: "if (id === undefined || a.reachesCycle[entry.index]) continue;",
    to: "if (!id || a.reachesCycle[entry.index]) continue;",
  },
  {
    id: "tool-parse-falsy-call-id",
    file: "core/line/parse.ts",
    from: 'if (b.type === "toolCall" && typeof b.id === "string")',
    to: 'if (b.type === "toolCall" && typeof b.id === "string" && b.id)',
  },
  {
    id: "tool-parse-falsy-result-id",
    file: "core/line/parse.ts",
    from: 'if (m.role === "toolResult" && typeof m.toolCallId === "string") toolResultId',
    to: 'if (m.role === "toolResult" && typeof m.toolCallId === "string" && m.toolCallId) toolResultId',
  },
  {
    id: "tool-transform-falsy-answer",
    file: "core/pi/provider/transformMessages.ts",
    from: "answered.add(msg.toolCallId);",
    to: "if (msg.toolCallId) answered.add(msg.toolCallId);",
  },
  // Id prefixes, as Pi's `resolveSessionPath`/`findById` match them (from the start).
  // The parent walk.
  {
    id: "walk-path-bound-off-by-one",
    file: "core/session/rules.ts",
    from: "if (path.length >= limit) return undefined;",
    to: "if (path.length >= limit - 1) return undefined;",
  },
  {
    id: "walk-ancestors-self-in-cycle",
    file: "core/session/semantics/walk.ts",
    from: "if (current === cycleStart || current === entry) return;",
    to: "if (current === cycleStart) return;",
  },
  // The leaf: the last entry, none when its id is null.
  { id: "leaf-null-id-ignored", file: "core/session/analysis.ts", from: "const leaf = nullLeaf ? undefined : last;", to: "const leaf = last;" },
  { id: "leaf-missing-id-as-null", file: "core/session/analysis.ts", from: "last && last.key === null ? last", to: "last && last.key == null ? last" },
  // Labels: file order, the last change per target wins, a falsy label clears.
  {
    id: "labels-cleared-label-kept",
    file: "core/session/rules.ts",
    from: "  else labels.delete(target);",
    to: "",
  },
  {
    id: "labels-first-wins",
    file: "core/session/rules.ts",
    from: "if (label) labels.set(target, value());",
    to: "if (label && !labels.has(target)) labels.set(target, value());",
  },
  // The session name: the last session_info in file order, trimmed.
  {
    id: "session-name-untrimmed",
    file: "core/session/rules.ts",
    from: "return { name: raw.trim() || undefined, throws: false };",
    to: "return { name: raw || undefined, throws: false };",
  },
  {
    id: "session-name-first-entry",
    file: "core/session/semantics/sessionName.ts",
    from: 'for (let i = a.entries.length - 1; i >= 0; i--) if (a.entries[i]!.type === "session_info") return a.entries[i];',
    to: 'for (let i = 0; i < a.entries.length; i++) if (a.entries[i]!.type === "session_info") return a.entries[i];',
  },
  {
    id: "session-info-name-untrimmed",
    file: "core/session/rules.ts",
    from: "return entry.name?.trim() || undefined;",
    to: "return (entry.name as unknown as string) || undefined;",
  },
  // Sibling order: oldest first.
  {
    id: "siblings-newest-first",
    file: "core/session/rules.ts",
    from: "children.sort((x, y) => time(x) - time(y));",
    to: "children.sort((x, y) => time(y) - time(x));",
  },
  // Settings and selection of the context.
  {
    id: "settings-first-thinking-level",
    file: "core/pi/buildContext.ts",
    from: 'let thinkingLevel: unknown = "off";\n  for (let i = path.length - 1; i >= 0; i--) {',
    to: 'let thinkingLevel: unknown = "off";\n  for (let i = 0; i < path.length; i++) {',
  },
  {
    id: "settings-model-ignores-assistant",
    file: "core/pi/buildContext.ts",
    from: 'if (entry.type === "message" && entry.parsed.role === "assistant") {\n      const p = entry.parsed;\n      model =',
    to: "if (false) {\n      const p = entry.parsed;\n      model =",
  },
  {
    id: "context-after-compaction-off-by-one",
    file: "core/pi/buildContext.ts",
    from: "for (let i = at + 1; i < path.length; i++) selected.push(path[i]!);",
    to: "for (let i = at + 2; i < path.length; i++) selected.push(path[i]!);",
  },
  { id: "context-missing-first-kept-keeps-all", file: "core/pi/buildContext.ts", from: "    if (keptFrom === undefined) continue;\n", to: "" },
];

function copySources(into) {
  for (const path of ["server", "test", "bench", "bin", "vitest.config.mts", "tsconfig.json", "package.json"]) {
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
}

function runTests(cwd, only) {
  return new Promise((resolve) => {
    const tests = (only ?? TESTS).filter((t) => existsSync(join(cwd, t)));
    // Tests that time themselves ("in under 5 ms") fail on a busy shared machine whatever the code
    // does, and would count as kills; they are left out of mutation runs.
    const untimed = "--testNamePattern=^(?!.*under \\d+ ms)";
    const child = spawn(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--bail=1", "--reporter=dot", untimed, ...tests], {
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
    }, TIME_LIMIT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ status: code === 0 ? "passed" : "failed", output });
    });
  });
}

/** The first failing test's name, from vitest's output. */
function firstFailure(output) {
  const clean = output.replace(/\x1b\[[0-9;]*m/g, "");
  const lines = clean.split("\n");
  const line = lines.find((l) => /FAIL /.test(l));
  if (line) return line.replace(/^\s*FAIL\s+/, "").trim();
  // No failing test: the run itself broke (a crash, running out of memory); say how.
  const last = lines.filter((l) => /Error|error|heap|memory/.test(l)).pop() ?? lines.filter((l) => l.trim()).pop() ?? "";
  return `a crash: ${last.trim().slice(0, 160)}`;
}

const args = process.argv.slice(2);
const words = args.filter((a) => !a.startsWith("--"));
const only = args
  .find((a) => a.startsWith("--tests="))
  ?.slice("--tests=".length)
  .split(",");
const chosen = MUTANTS.filter((m) => words.length === 0 || words.some((w) => m.id.includes(w)));
if (args.includes("--list")) {
  for (const m of chosen) console.log(`${m.id}\t${m.file}`);
  process.exit(0);
}
if (args.includes("--check")) {
  // Only whether each mutant still applies (its text is in the source exactly once).
  let stale = 0;
  for (const m of chosen) {
    const path = join(ROOT, "server/src", m.file);
    const count = existsSync(path) ? readFileSync(path, "utf8").split(m.from).length - 1 : 0;
    if (count !== 1) {
      stale++;
      console.log(`stale     ${m.id} (${count} occurrences in ${m.file})`);
    }
  }
  console.log(`${chosen.length} mutants, ${stale} stale`);
  process.exit(stale > 0 ? 1 : 0);
}

const work = mkdtempSync(join(tmpdir(), "pi-session-lsp-mutants-"));
const survivors = [];
try {
  copySources(work);
  for (const m of chosen) {
    const path = join(work, "server/src", m.file);
    const original = readFileSync(path, "utf8");
    const count = original.split(m.from).length - 1;
    if (count !== 1) {
      console.log(`stale     ${m.id} (${count} occurrences in ${m.file})`);
      continue;
    }
    // The mutated file keeps its time, so that out/ (the unmutated build) still counts as fresh.
    const { atime, mtime } = statSync(path);
    writeFileSync(
      path,
      original.replace(m.from, () => m.to),
    );
    utimesSync(path, atime, mtime);
    const started = Date.now();
    const { status, output } = await runTests(work, only);
    writeFileSync(path, original);
    utimesSync(path, atime, mtime);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (status === "passed") {
      survivors.push(m.id);
      console.log(`SURVIVED  ${m.id} (${seconds} s)`);
    } else if (status === "timeout") {
      console.log(`hung      ${m.id} (killed after ${seconds} s)`);
    } else {
      console.log(`killed    ${m.id} (${seconds} s) by ${firstFailure(output)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${chosen.length} mutants, ${survivors.length} survived${survivors.length ? `: ${survivors.join(", ")}` : ""}`);
process.exit(survivors.length > 0 ? 1 : 0);
