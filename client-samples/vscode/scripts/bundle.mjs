/**
 * Bundles the extension and the server it carries, so that installing the `.vsix` is all a user
 * does: no `pi-session-lsp` on PATH, no Node.js of their own (the server runs on VS Code's).
 *
 * - `dist/extension.js`: src/extension.ts with vscode-languageclient, for VS Code's extension host.
 * - `server/out/`: the npm package's server, bundled from the repository's build (`npm run build`
 *   at the root writes `out/`) with its runtime dependencies: `pi-session-lsp.js` from
 *   `bin/pi-session-lsp.js`, and the worker scripts beside it, where the server looks for them
 *   (`join(__dirname, "scanWorker.js")` and the like). `server/package.json` carries the package's
 *   name and version, which the server reads from `../package.json` to answer `--version` and
 *   `serverInfo`, as the installed npm package does.
 *
 * Run by `npm run bundle` here, and by `npm run vsix` at the repository's root.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = join(here, "..", "..");
const serverBuild = join(repo, "out");

/** The worker scripts the server starts by path, relative to the root's `out/`. */
const WORKERS = ["io/scanWorker.js", "io/parseWorker.js", "cli/checkWorker.js", "cli/usageWorker.js", "lsp/fileCheckWorker.js"];

if (!existsSync(join(serverBuild, "main.js"))) {
  console.error(`bundle: ${serverBuild}/main.js is missing: run \`npm ci\` (or \`npm run build\`) at the repository's root first.`);
  process.exit(1);
}

const common = { bundle: true, platform: "node", format: "cjs", target: "node20", logLevel: "warning", legalComments: "none" };

rmSync(join(here, "dist"), { recursive: true, force: true });
rmSync(join(here, "server"), { recursive: true, force: true });

await build({ ...common, entryPoints: { extension: join(here, "src", "extension.ts") }, outdir: join(here, "dist"), external: ["vscode"], minify: true });

// Every entry lands flat in server/out/, so that each worker is beside the code that starts it.
const entryPoints = { "pi-session-lsp": join(repo, "bin", "pi-session-lsp.js") };
for (const worker of WORKERS) entryPoints[worker.replace(/^.*\//, "").replace(/\.js$/, "")] = join(serverBuild, worker);
for (const file of Object.values(entryPoints)) {
  if (!existsSync(file)) {
    console.error(`bundle: ${file} is missing: rebuild the server (\`npm run build\` at the repository's root).`);
    process.exit(1);
  }
}
// The server reads its version with a require() of a computed path, which stays a require at run
// time; esbuild says so once per build, which is expected.
await build({ ...common, entryPoints, outdir: join(here, "server", "out"), logOverride: { "unsupported-require-call": "silent" } });

const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
mkdirSync(join(here, "server"), { recursive: true });
writeFileSync(
  join(here, "server", "package.json"),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, license: pkg.license, private: true }, null, 2)}\n`,
);
console.log(`bundled the extension and pi-session-lsp ${pkg.version} into dist/ and server/`);
