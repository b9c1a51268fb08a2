/**
 * vitest's global setup: builds `out/` (`tsc -p server`, then `scripts/bundle.mjs`, as `npm run
 * build` does) once, before any test file runs, when a file under `server/src` is newer than the
 * build or the bundle that bin/pi-session-lsp.js runs is missing or older than `out/`. The end-to-end tests run the compiled server and
 * CLI; building here, once, instead of in each file's `beforeAll`, keeps forty-odd files from each
 * racing a compiler against their hook's time limit on a busy machine. `ensureBuilt()` in
 * test/helpers/lspClient.ts then only checks that the build is current, with `buildIsCurrent()`.
 */

import { spawn } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/**
 * Whether `out/main.js` is at least as new as every file under `server/src`, and the bundle's code
 * cache, written last, as new as `out/main.js`: the tests then run the program a user runs.
 */
export function buildIsCurrent(): boolean {
  const main = join(ROOT, "out", "main.js");
  const cache = join(ROOT, "out", "bundle", "main.js.cache");
  return (
    existsSync(main) &&
    existsSync(cache) &&
    newestMtime(join(ROOT, "server", "src")) <= statSync(main).mtimeMs &&
    statSync(main).mtimeMs <= statSync(cache).mtimeMs
  );
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export default async function setup(): Promise<void> {
  if (buildIsCurrent()) return;
  // As `npm run build` does: tsc never deletes what it compiled earlier, and a moved module's old
  // output would be loaded in place of its new home.
  rmSync(join(ROOT, "out"), { recursive: true, force: true });
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  await runStep("tsc -p server", [tsc, "-p", "server"]);
  await runStep("scripts/bundle.mjs", [join(ROOT, "scripts", "bundle.mjs")]);
}

/** Runs one step of the build with this Node.js; throws with its output if it fails. */
async function runStep(name: string, args: readonly string[]): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`Building the server (${name}) failed with code ${code}:\n${output}`);
}
