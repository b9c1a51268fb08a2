// Writes the V8 code cache of each bundle the program loads (out/bundle/NAME.js.cache), run by
// scripts/bundle.mjs in a process of its own: node scripts/codeCache.cjs out/bundle NAME.js...
// (NAME.js: the bundles main.js loads when a command runs).
//
// The bundles are compiled as bin/pi-session-lsp.js compiles them (bin/bundleLoader.js: V8 accepts
// a cache only for the text it was made from), then run: `check` and `context` on the sample
// sessions, and every other command's help, so that a cache holds the functions compiled on the way,
// not only each bundle's top level. V8 checks a cache against its own version and flags when the
// command loads it: a cache made by another Node.js is rejected and ignored.
"use strict";

const { writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { bundleLoader } = require("../bin/bundleLoader.js");

const [dir, ...lazy] = process.argv.slice(2);
const samples = join(__dirname, "..", "client-samples", "sessions");

const compiled = [];
const load = bundleLoader(dir, (file, script) => compiled.push({ file, script }));
const { main } = load("main.js");

process.on("exit", () => {
  for (const { file, script } of compiled) writeFileSync(`${file}.cache`, script.createCachedData());
  // What the sample sessions hold decides the commands' status, not whether the caches were made.
  process.exitCode = 0;
});
// Each run adds its listeners to the output streams, which are not closed between runs.
process.stdout.setMaxListeners(0);
process.stderr.setMaxListeners(0);
main(["check", join(samples, "broken.jsonl")]);
main(["context", join(samples, "valid-branches.jsonl")]);
for (const command of ["export", "sessions", "tree", "info", "usage", "doctor", "find", "fork", "restore", "slim", "diff", "redact"]) main([command, "--help"]);
main(["--help"]);
// The bundles no command's help loaded (the language server's): their top level at least.
for (const name of lazy) load(name);
