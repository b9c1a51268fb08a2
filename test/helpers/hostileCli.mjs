// Runs every CLI command in this process over a hostile folder (hostile.mjs) and prints one JSON
// line per run: the command, its status, its output's size, and what the test checks in it. It is
// started by test/cli/hostile.test.ts under a heap limit (`--max-old-space-size`) and a timeout,
// so that a run that hangs or grows without bound fails the test instead of the machine.
//
// Usage: node hostileCli.mjs ROOT   (ROOT/sessions is the folder, ROOT/fix a second copy to --fix)

import { mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const out = join(import.meta.dirname, "../../out");
const { runCheck } = require(join(out, "cli/check.js"));
const { runContext } = require(join(out, "cli/contextCommand.js"));
const { runSessions } = require(join(out, "cli/sessions.js"));
const { runFind } = require(join(out, "cli/find.js"));
const { runTree } = require(join(out, "cli/tree.js"));
const { runInfo } = require(join(out, "cli/info.js"));
const { runExport } = require(join(out, "cli/export.js"));
const { runUsage } = require(join(out, "cli/usage.js"));
const { runSlim } = require(join(out, "cli/slim.js"));
const { runDiff } = require(join(out, "cli/diff.js"));
const { runRedact } = require(join(out, "cli/redact.js"));
const { runDoctor } = require(join(out, "cli/doctor.js"));

/** Output past this is not kept: the run is reported as too long. */
const MAX_OUTPUT = 4 * 1024 * 1024;
const root = process.argv[2];
const dir = join(root, "sessions");

async function run(name, command, args) {
  let stdout = "";
  let stderr = "";
  let outBytes = 0;
  const io = {
    out: (t) => {
      outBytes += t.length;
      if (stdout.length < MAX_OUTPUT) stdout += t;
    },
    err: (t) => {
      if (stderr.length < MAX_OUTPUT) stderr += t;
    },
    isTTY: false,
    env: { ...process.env, NO_COLOR: "1" },
    cwd: root,
  };
  let status;
  let threw;
  const started = performance.now();
  try {
    status = await command(args, io);
  } catch (error) {
    threw = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  const json =
    args.includes("--json") ||
    (args.includes("--format") && args[args.indexOf("--format") + 1] === "json") ||
    (name === "context" && !args.includes("--format"));
  let jsonError;
  if (json && status !== undefined && stdout.length > 0 && outBytes <= MAX_OUTPUT) {
    for (const line of stdout.split("\n")) {
      if (line === "") continue;
      try {
        JSON.parse(line);
      } catch (error) {
        jsonError = error.message;
        break;
      }
    }
  }
  process.stdout.write(
    `${JSON.stringify({ name, args, ms: Math.round(performance.now() - started), status, threw, outBytes, json, jsonError, stdout: stdout.slice(0, MAX_OUTPUT), stderr })}\n`,
  );
}

const files = [];
const walk = (d) => {
  for (const entry of readdirSync(d, { withFileTypes: true })) {
    const path = join(d, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith(".jsonl")) files.push(path);
  }
};
walk(dir);
files.push(
  ...readdirSync(root)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(root, name)),
);
files.sort();

await run("check", runCheck, [dir]);
await run("check", runCheck, ["--format", "json", dir]);
await run("check", runCheck, ["--dry-run", "--fix", join(root, "fix", "sessions")]);
await run("check", runCheck, ["--fix", join(root, "fix", "sessions")]);
// Slimmed and redacted copies go to folders of their own (neither writes beside a file given --out).
const slimmed = join(root, "slimmed");
mkdirSync(slimmed, { recursive: true });
const redacted = join(root, "redacted");
mkdirSync(redacted, { recursive: true });
for (const [n, file] of files.entries()) {
  await run("check", runCheck, [file]);
  await run("slim", runSlim, ["--dry-run", file]);
  await run("slim", runSlim, ["--min-bytes", "1", "--out", join(slimmed, `${n}.jsonl`), file]);
  // Short prefixes name some entry in many files (or are refused as unknown or ambiguous).
  await run("diff", runDiff, [file, "e0", "e"]);
  await run("diff", runDiff, ["--json", file, "1"]);
  await run("diff", runDiff, ["--pi", "0.74", "--json", file, "a", "0"]);
  for (const args of [
    [],
    ["--format", "markdown"],
    ["--stage", "provider"],
    ["--pi", "0.74"],
    ["--stage", "request", "--api", "anthropic-messages"],
    ["--stage", "request", "--api", "openai-responses"],
  ])
    await run("context", runContext, [...args, file]);
  // The huge file once per command: its 100,000 lines cost seconds each time.
  const huge = file.endsWith("_huge.jsonl");
  for (const args of huge ? [[]] : [[], ["--json"], ["--all"]]) await run("tree", runTree, [...args, file]);
  for (const args of huge ? [["--json"]] : [[], ["--json"]]) await run("info", runInfo, [...args, file]);
  // The huge file's export is larger than the output kept here: it is exported by test/cli/export.test.ts.
  for (const args of huge ? [] : [[], ["--all", "--format", "html"]]) await run("export", runExport, [...args, file]);
  for (const args of huge ? [["--json"]] : [[], ["--json"], ["--by", "model"], ["--by", "session", "--json"]]) await run("usage", runUsage, [...args, file]);
  // --dry-run: the redaction and its proof, without writing into the hostile folder.
  await run("redact", runRedact, ["--dry-run", file]);
  await run("redact", runRedact, ["--out", join(redacted, `${n}.jsonl`), file]);
  if (!huge) await run("doctor", runDoctor, [file]);
}
for (const pi of ["1.x", "0.74"]) {
  for (const args of [["--json"], ["--limit", "0"]]) await run("sessions", runSessions, ["--session-dir", dir, "--cwd", "/p", "--pi", pi, ...args]);
  for (const [i, query] of ["e000", "0197", "plain words", "re:[a-z]+", '"all good"', "\u001b[2J", "__proto__", "1"].entries()) {
    await run("find", runFind, ["--session-dir", dir, "--cwd", "/p", "--pi", pi, ...(i % 2 === 0 ? ["--json"] : []), query]);
  }
}
await run("sessions", runSessions, ["--session-dir", dir, "--all", "--json"]);
for (const by of ["day", "model", "project", "session"]) await run("usage", runUsage, ["--by", by, dir]);
await run("usage", runUsage, ["--json", "--session-dir", dir, "--all"]);
await run("sessions", runSessions, ["--session-dir", dir, "--all", "--largest", "--limit", "0"]);
await run("sessions", runSessions, ["--session-dir", dir, "--all", "--largest", "--json"]);
// Every hostile session checked once more, as `sessions --check` checks each one it lists.
await run("sessions", runSessions, ["--session-dir", dir, "--all", "--check", "--limit", "0"]);
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
