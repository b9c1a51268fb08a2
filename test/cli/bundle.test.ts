/**
 * The program as bin/pi-session-lsp.js loads it: the build's bundles (out/bundle/, by
 * scripts/bundle.mjs) with their V8 code caches, in place of out/'s modules one by one. The bundles
 * must be the program out/main.js is, and their caches ones this Node.js accepts for the text the
 * command compiles (bin/bundleLoader.js), or they are made and shipped for nothing.
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const REPO = join(__dirname, "..", "..");
/** The text bin/bundleLoader.js compiles for a bundle's, which the caches are made for (a plain script, without types). */
const { wrap } = createRequire(__filename)("../../bin/bundleLoader.js") as { wrap: (source: string) => string };
const BIN = join(REPO, "bin", "pi-session-lsp.js");
const BUNDLES = join(REPO, "out", "bundle");
const SESSIONS = join(REPO, "client-samples", "sessions");

/** Runs `script` with Node.js, the command's arguments after it as bin's would be; what it wrote and its status. */
function node(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ["-e", script, "pi-session-lsp", ...args], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 1 << 26,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The command as a user runs it, and the names of the modules it loaded with require() (the bundle is compiled, not required). */
function runBin(args: readonly string[], bin = BIN) {
  const r = node(
    `process.on("exit", () => require("fs").writeSync(2, "\\nMODULES " + JSON.stringify(Object.keys(require.cache)))); require(${JSON.stringify(bin)});`,
    args,
  );
  const at = r.stderr.lastIndexOf("\nMODULES ");
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.slice(0, at), modules: JSON.parse(r.stderr.slice(at + 9)) as string[] };
}

/** The same command from out/'s modules, as the program ran before it was bundled. */
function runOut(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return node(`require(${JSON.stringify(join(REPO, "out", "main.js"))}).main(process.argv.slice(2));`, args, env);
}

const copies = mkdtempSync(join(tmpdir(), "pi-bundle-copy-"));

beforeAll(async () => {
  await ensureBuilt();
});
afterAll(() => rmSync(copies, { recursive: true, force: true }));

/**
 * A copy of the package's files in a folder of their own: bin/, package.json and out/ without its
 * source maps, as the tarball holds them, and with `clone` the server's tsconfig.json too, which a
 * clone has and an installed package does not. Its out/main.js is written a second after the
 * bundle of it.
 */
function packageCopy(name: string, clone: boolean): string {
  const root = join(copies, name);
  for (const path of ["bin", "out", "package.json", ...(clone ? [join("server", "tsconfig.json")] : [])])
    cpSync(join(REPO, path), join(root, path), { recursive: true, filter: (source) => !source.endsWith(".map") });
  const bundled = new Date(Date.now() - 60_000);
  utimesSync(join(root, "out", "bundle", "main.js"), bundled, bundled);
  utimesSync(join(root, "out", "main.js"), new Date(bundled.getTime() + 1000), new Date(bundled.getTime() + 1000));
  return root;
}

const COMMANDS: readonly (readonly string[])[] = [
  ["check", join(SESSIONS, "broken.jsonl")],
  ["check", "--format", "json", SESSIONS],
  ["context", join(SESSIONS, "valid-compaction.jsonl")],
  ["tree", join(SESSIONS, "valid-branches.jsonl")],
  ["--version"],
  ["--help"],
  ["nonsense"],
];

describe("bin/pi-session-lsp.js", () => {
  it.each(COMMANDS.map((args) => [args.join(" "), args] as const))("runs the bundle, which answers %s as out/ does", (_name, args) => {
    const bundled = runBin(args);
    expect(bundled.modules.filter((path) => path.startsWith(join(REPO, "out")))).toEqual([]);
    expect({ status: bundled.status, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual(runOut(args));
    expect(bundled.stdout.length + bundled.stderr.length).toBeGreaterThan(0);
  });

  it("runs the bundles of an installed package whatever the order its installer wrote them in", () => {
    // npm unpacks out/main.js right after out/bundle/main.js and gives each file the time it was
    // written: one time in several, a clock tick apart. Nothing but a build writes an installed
    // package's out/, so which file is newer says nothing there.
    const installed = packageCopy("installed", false);
    const args = ["check", join(SESSIONS, "broken.jsonl")];
    const bundled = runBin(args, join(installed, "bin", "pi-session-lsp.js"));
    expect(bundled.modules.filter((path) => path.startsWith(join(installed, "out")))).toEqual([]);
    expect({ status: bundled.status, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual(runOut(args));
  });

  it("runs out/ in a clone whose out/ was compiled again without the bundles (tsc -p server alone)", () => {
    const clone = packageCopy("clone", true);
    const args = ["check", join(SESSIONS, "broken.jsonl")];
    const ran = runBin(args, join(clone, "bin", "pi-session-lsp.js"));
    expect(ran.modules).toContain(join(clone, "out", "cli", "check.js"));
    expect({ status: ran.status, stdout: ran.stdout, stderr: ran.stderr }).toEqual(runOut(args));
  });

  it.each([
    ["check", "--threads", "3"],
    // The threads are stated: the default, one per core, starts no worker on a runner of one core.
    ["usage", "--by", "session", "--threads", "3"],
  ])("runs %s %s %s on a large folder on worker threads of the bundled worker scripts, and prints what out/ prints", (...command) => {
    // Six sessions of 4.5 MB: what is left after `check`'s probe of the smallest is past the size
    // below which the pools stay on this thread (16 MiB). The cores found free are stated, so that
    // the workers start on a busy machine too.
    const folder = join(copies, "large");
    mkdirSync(folder, { recursive: true });
    const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p"}';
    for (let i = 0; i < 6; i++) {
      const message = { role: "user", content: "x".repeat(4_500_000), timestamp: 1772445601000 };
      const entry = { type: "message", id: "a1", parentId: i === 3 ? "zz" : null, timestamp: "2026-03-02T10:00:01.000Z", message };
      writeFileSync(join(folder, `s${i}.jsonl`), `${header}\n${JSON.stringify(entry)}\n`);
    }
    const env = { PI_SESSION_LSP_FREE_CORES: "8" };
    const args = [...command, folder];
    const r = node(
      `const threads = require("node:worker_threads");
      const scripts = [];
      threads.Worker = class extends threads.Worker { constructor(script, options) { super(script, options); scripts.push(String(script)); } };
      process.on("exit", () => require("fs").writeSync(2, "\\nWORKERS " + JSON.stringify(scripts)));
      require(${JSON.stringify(BIN)});`,
      args,
      env,
    );
    const at = r.stderr.lastIndexOf("\nWORKERS ");
    const scripts = JSON.parse(r.stderr.slice(at + 9)) as string[];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script.startsWith(BUNDLES)).toBe(true);
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr.slice(0, at) }).toEqual(runOut(args, env));
  });

  it("has beside the bundles every worker script they start", () => {
    // The code finds a worker at join(__dirname, "…Worker.js"), __dirname being out/bundle/, and
    // works on its own thread when the file is missing: a worker left out of scripts/bundle.mjs's
    // list would show nowhere else.
    const workers = new Set<string>();
    for (const name of readdirSync(BUNDLES).filter((file) => file.endsWith(".js")))
      for (const match of readFileSync(join(BUNDLES, name), "utf8").matchAll(/join\)?\(__dirname, "(\w+\.js)"\)/g)) workers.add(match[1]!);
    expect([...workers].sort()).toEqual(["checkWorker.js", "fileCheckWorker.js", "parseWorker.js", "scanWorker.js", "usageWorker.js"]);
    for (const worker of workers) expect(existsSync(join(BUNDLES, worker)), worker).toBe(true);
  });

  it("names the TypeScript source in a stack trace under --enable-source-maps, through the bundle's source map", () => {
    const script = `const load = require(${JSON.stringify(join(REPO, "bin", "bundleLoader.js"))}).bundleLoader(${JSON.stringify(BUNDLES)});
      try { load("main.js").main(null); } catch (error) { process.stdout.write(error.stack); }`;
    const r = spawnSync(process.execPath, ["--enable-source-maps", "-e", script], { cwd: REPO, encoding: "utf8" });
    expect(r.stdout.split("\n")[1]).toContain(join(REPO, "server", "src", "main.ts"));
  });

  it("makes the code caches when the build runs with source maps enabled (NODE_OPTIONS=--enable-source-maps)", () => {
    // The build inherits the environment: a developer's NODE_OPTIONS must not leave the package
    // without its caches, nor the tests' build (test/setup/build.ts) never current.
    const dir = join(copies, "caches");
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(BUNDLES).filter((file) => file.endsWith(".js"))) cpSync(join(BUNDLES, name), join(dir, name));
    const made = spawnSync(process.execPath, [join(REPO, "scripts", "codeCache.cjs"), dir, "check.js"], {
      cwd: REPO,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --enable-source-maps` },
      maxBuffer: 1 << 26,
    });
    expect(made.status).toBe(0);
    for (const name of ["main.js", "check.js"]) {
      const file = join(dir, name);
      expect(existsSync(`${file}.cache`), name).toBe(true);
      const script = new Script(wrap(readFileSync(file, "utf8")), { filename: file, cachedData: readFileSync(`${file}.cache`) });
      expect(script.cachedDataRejected, name).toBe(false);
    }
  });

  it("holds no character above U+00FF in any bundle, so that V8 keeps each bundle's source at one byte a character", () => {
    // V8 holds a script's source as long as the script lives (a function compiled later reads it),
    // at two bytes a character when one character of it is above U+00FF: the server's bundle of
    // 1.6 MB was 3.2 MB of every server's memory for four characters in two regular expressions and
    // two comments, which the bundler copies as written while it escapes strings.
    const wide: string[] = [];
    for (const name of readdirSync(BUNDLES).filter((file) => file.endsWith(".js"))) {
      const lines = readFileSync(join(BUNDLES, name), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (/[^\u0000-\u00ff]/.test(line)) wide.push(`${name}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(wide).toEqual([]);
  });

  it("compiles each bundle with a code cache this Node.js accepts", () => {
    const caches = readdirSync(BUNDLES).filter((name) => name.endsWith(".js.cache"));
    // The program, the language server and every command's module: each process reads one or two.
    expect(caches).toEqual(expect.arrayContaining(["main.js.cache", "check.js.cache", "contextCommand.js.cache", "find.js.cache", "stdio.js.cache"]));
    for (const name of caches) {
      const file = join(BUNDLES, name.replace(/\.cache$/, ""));
      const script = new Script(wrap(readFileSync(file, "utf8")), { filename: file, cachedData: readFileSync(join(BUNDLES, name)) });
      expect(script.cachedDataRejected, name).toBe(false);
    }
  });
});
