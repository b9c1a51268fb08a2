#!/usr/bin/env node
// The published entry point: everything lives in the compiled `out/` tree, which the tarball ships
// (built by `prepack`) and which `npm ci` builds in a clone (`postprepare`).
//
// This file alone is written in syntax that old Node.js versions parse (ES2015), so that an old
// Node reaches the version check below: out/ uses ES2022 and the APIs of Node.js 20, and an older
// Node would fail inside it with a syntax error or a stack trace instead of saying what is wrong.
"use strict";

var major = Number(process.versions.node.split(".")[0]);
if (!(major >= 20)) {
  process.stderr.write(`pi-session-lsp: needs Node.js 20 or later; this is Node.js ${process.versions.node} (${process.execPath}).\n`);
  process.exit(2);
}
// The build's bundles with their code caches (bundleLoader.js), else out/'s modules.
(require("./bundleLoader.js").loadProgram(require("node:path").join(__dirname, "..")) || require("../out/main.js")).main(process.argv.slice(2));
