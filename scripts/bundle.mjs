// Packs the compiled server (out/, from `tsc -p server`) into bundles under out/bundle/, and writes
// their V8 code caches, so that every command's process starts sooner (issue 32). Run by `npm run
// build`, `postprepare` and `prepack`, after tsc.
//
// Why: each run of the CLI is a whole process, and before any work it loaded about 130 of out/'s
// files one by one (each a path resolved, a package.json looked up, a file read and compiled): about
// 60 ms of a 90 ms `check` of a one-line file. A bundle is read and resolved once, and its code cache
// (`NAME.js.cache`, made by scripts/codeCache.cjs) spares V8 most of the compiling.
//
// The bundles, all in out/bundle/: `main.js`, out/main.js without the modules it loads only when a
// command runs; one bundle per such module (`check.js` for cli/check, `stdio.js` for the language
// server, ...), which main.js requires as "./check.js", so that a command reads and compiles only its
// own code; and the worker scripts, which the code finds at `join(__dirname, "checkWorker.js")` and
// the like, __dirname being out/bundle/. bin/bundleLoader.js loads them; bin/pi-session-lsp.js
// falls back to out/main.js when the bundle is missing or, in a clone, older than out/ (a `tsc -p
// server` alone).
// The source maps chain to the TypeScript through out/'s own, for profiles and stack traces.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(repo, "out");
const bundleDir = join(out, "bundle");

/** The worker scripts, relative to out/: the code starts them by path. */
export const WORKERS = ["io/scanWorker.js", "io/parseWorker.js", "cli/checkWorker.js", "cli/usageWorker.js", "lsp/fileCheckWorker.js"];

/**
 * The modules out/main.js requires only when a command runs (`require("./cli/check")` inside a
 * function), relative to out/: its other requires, at the top of the file, are bundled into main.js.
 */
export function lazyModules() {
  const main = readFileSync(join(out, "main.js"), "utf8");
  const lazy = new Set();
  for (const [, path] of main.matchAll(/(?<!= )require\("\.\/((?:cli|lsp)\/\w+)"\)/g)) lazy.add(`${path}.js`);
  return [...lazy];
}

/** A bundle's file name in out/bundle/: the module's own, flat. */
const bundleName = (path) => path.replace(/^.*\//, "");

/** Leaves main.js's lazy requires as requires of their bundles ("./cli/check" becomes "./check.js"). */
function lazyRequires(lazy) {
  const names = new Set(lazy.map((path) => `./${path.replace(/\.js$/, "")}`));
  return {
    name: "lazy-requires",
    setup(build) {
      build.onResolve({ filter: /^\.\/(?:cli|lsp)\// }, (args) =>
        args.importer === join(out, "main.js") && names.has(args.path) ? { path: `./${bundleName(args.path)}.js`, external: true } : undefined,
      );
    },
  };
}

/** Bundles every entry, then makes the program's code cache. */
async function main() {
  const lazy = lazyModules();
  const entryPoints = {};
  for (const entry of [...lazy, ...WORKERS]) {
    const file = join(out, entry);
    const name = bundleName(entry).replace(/\.js$/, "");
    if (!existsSync(file) || name in entryPoints || name === "main") {
      console.error(`bundle: ${file} is missing, or its name is another bundle's: run \`tsc -p server\` first.`);
      process.exit(1);
    }
    entryPoints[name] = file;
  }

  rmSync(bundleDir, { recursive: true, force: true });
  // The version is read with a require() of a computed path (server/src/version.ts), which stays a
  // require at run time and finds the package's package.json from out/bundle/ as from out/.
  const common = {
    outdir: bundleDir,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: true,
    legalComments: "none",
    logLevel: "warning",
    logOverride: { "unsupported-require-call": "silent" },
  };
  await build({ ...common, entryPoints });
  await build({ ...common, entryPoints: { main: join(out, "main.js") }, plugins: [lazyRequires(lazy)] });

  // The cache is made by a run of the bundle in a process of its own, on a session of this repository.
  const names = lazy.map((path) => bundleName(path));
  const cache = spawnSync(process.execPath, [join(repo, "scripts", "codeCache.cjs"), bundleDir, ...names], { stdio: ["ignore", "ignore", "inherit"] });
  if (cache.status !== 0) {
    console.error(`bundle: making the code cache failed (${cache.status ?? cache.signal}).`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
