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
// Node.js 22.1 and later can keep the code compiled from out/ in a cache folder (NODE_COMPILE_CACHE,
// or node-compile-cache in the temporary folder), so that a command does not compile its seventy
// modules again on every run; older versions have no such call. The language server (--stdio)
// starts once and writes no file, so it does not use it.
var moduleApi = require("node:module");
if (typeof moduleApi.enableCompileCache === "function" && process.argv.indexOf("--stdio") < 0) {
  try {
    moduleApi.enableCompileCache();
  } catch (_error) {
    // A cache that cannot be made (a read-only temporary folder) only costs the compile.
  }
}
require("../out/main.js").main(process.argv.slice(2));
