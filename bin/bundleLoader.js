// Loads the build's bundles (out/bundle/, by scripts/bundle.mjs) with their V8 code caches, for
// bin/pi-session-lsp.js and for scripts/codeCache.cjs, which makes the caches the same way.
//
// Every command is a process of its own, and loading out/'s files one by one (a path resolved, a
// package.json looked up, a file read and compiled, for each of about 130 modules) cost most of a
// short command's time. The bundle of out/main.js is small; each command's module (and the
// language server's) is a bundle of its own, required from it as "./NAME.js" and loaded here on
// demand, so that a command reads and compiles only its own code. A cache that another Node.js or
// other V8 flags made is rejected by V8 and the bundle compiled without it; an unreadable cache
// is no cache.
"use strict";

var fs = require("node:fs");
var path = require("node:path");
var vm = require("node:vm");
var Module = require("node:module");

/**
 * The bytes of `file`, read into memory that glibc maps on its own and unmaps when it is freed. A
 * bundle or cache read whole into a buffer of its size (a megabyte) is mapped too, but freeing it
 * raises glibc's threshold for mapping to that size, so that every later allocation below it (the
 * didOpen's chunks, the parsed lines' buffers) comes from the heap, which keeps its pages: the idle
 * server held 7 MB more after a large open (129 MB against 122 over stdio on the 43 MB session,
 * and 120 for both with the threshold fixed). A buffer above the largest threshold glibc adjusts
 * to (32 MB) leaves it as it is, and only the pages read into become resident.
 */
var MAPPED_BYTES = 33 * 1024 * 1024;
function readMapped(file) {
  var fd = fs.openSync(file, "r");
  var read = 0;
  var n = 1;
  var size;
  var buffer;
  try {
    size = fs.fstatSync(fd).size;
    buffer = Buffer.allocUnsafeSlow(Math.max(MAPPED_BYTES, size));
    for (; n > 0 && read < size; read += n) n = fs.readSync(fd, buffer, read, size - read, read);
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

/** How a bundle's text is wrapped to be compiled: Node's own wrapper of a CommonJS module, the text the caches are made for. */
function wrap(source) {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

/**
 * The bundles of `dir` as one loader: `load("main.js")` runs that bundle (once) and gives its
 * exports. A bundle's require of "./NAME.js" loads that bundle the same way; anything else (Node's
 * modules, the package's package.json) goes to Node's require. `onCompiled(file, script)`, if
 * given, sees each script compiled, so that its cache can be made: the bundles are then compiled
 * here even with source maps enabled.
 */
function bundleLoader(dir, onCompiled) {
  var loaded = new Map();
  function load(name) {
    var file = path.join(dir, name);
    var known = loaded.get(file);
    if (known) return known.exports;
    // Node maps a stack trace through a source map (--enable-source-maps) only for the code its own
    // loader compiled: the bundle is then required, without its cache, and its map read. Not when
    // the caches are being made (scripts/codeCache.cjs): a build run with NODE_OPTIONS=
    // --enable-source-maps would otherwise compile nothing here and write no cache.
    if (process.sourceMapsEnabled && !onCompiled) return require(file);
    var cachedData;
    try {
      cachedData = readMapped(`${file}.cache`);
    } catch (_error) {
      cachedData = undefined;
    }
    var script = new vm.Script(wrap(readMapped(file).toString("utf8")), { filename: file, cachedData: cachedData });
    if (onCompiled) onCompiled(file, script);
    var bundle = { exports: {} };
    loaded.set(file, bundle);
    var nodeRequire = Module.createRequire(file);
    var bundleRequire = (id) => (/^\.\/[\w-]+\.js$/.test(id) ? load(id.slice(2)) : nodeRequire(id));
    script.runInThisContext()(bundle.exports, bundleRequire, bundle, file, dir);
    return bundle.exports;
  }
  return load;
}

/** A file's modification time, or undefined when it does not exist or cannot be looked at. */
function modified(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch (_error) {
    return undefined;
  }
}

/**
 * The program from out/bundle/main.js, or undefined when there is no bundle, or, in a clone, when it
 * is older than out/main.js (out/ was compiled again without bundling, as a `tsc -p server` alone
 * does): out/ is then the current program. Only a clone has the sources (server/tsconfig.json) that
 * compile out/ again: an installer writes an installed package's files in its own order and gives
 * each the time it wrote it (npm writes out/main.js right after out/bundle/main.js, at times a
 * clock tick later), so there the times say nothing of which was built first.
 */
function loadProgram(root) {
  var dir = path.join(root, "out", "bundle");
  var bundled = modified(path.join(dir, "main.js"));
  if (bundled === undefined) return undefined;
  if (modified(path.join(root, "server", "tsconfig.json")) !== undefined && bundled < modified(path.join(root, "out", "main.js"))) return undefined;
  return bundleLoader(dir)("main.js");
}

module.exports = { bundleLoader: bundleLoader, loadProgram: loadProgram, wrap: wrap };
