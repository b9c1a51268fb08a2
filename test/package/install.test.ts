/**
 * The npm package, installed the way a user installs it: a copy of the repository as a clone holds
 * it is packed (`npm pack`, whose `prepack` empties out/ and builds it), the tarball is installed
 * globally into a temporary prefix (`npm install -g --prefix`) and run through `npx`, and the
 * installed command is run from a folder outside the repository.
 *
 * The copy keeps the repository's own out/ out of it: the pack rebuilds out/, and other test files
 * run the repository's build meanwhile. It shares the repository's node_modules (a symbolic link),
 * so the pack needs no install. The global install fetches the four runtime dependencies through
 * npm's configured registry and its default cache, as a user's would.
 */

import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUSH_CAPABILITIES, spawnServer } from "../helpers/lspClient";
import { REPO, repositoryFiles } from "../helpers/repositoryFiles";
import { WAIT_MS } from "../helpers/limits";

const repoPackage = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const SESSIONS = join(REPO, "client-samples", "sessions");
const VALID_SESSION = join(SESSIONS, "valid-branches.jsonl");
/** The top-level entries of the tarball, and nothing else: the code, the command, and what npm always ships. */
const SHIPPED = ["LICENSE", "README.md", "bin", "out", "package.json"];
/** Scripts npm runs (or, for `prepare`, lists as to be reviewed) when it installs a package. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/**
 * The longest any one npm command (an install fetches from the registry) or run of the installed
 * command may take: WAIT_MS, minutes, which stops a hang and nothing else (test/helpers/limits.ts).
 */
const NPM_TIMEOUT_MS = WAIT_MS;
const COMMAND_TIMEOUT_MS = WAIT_MS;

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a user's shell would give: without the variables npm sets for the script that runs
 * the tests (`npm test`), among them the project's own prefix, which would make `npm pack` in the
 * copy pack the repository instead; and with this Node.js first on PATH, so that the installed
 * command's `#!/usr/bin/env node` runs the Node.js that runs the tests.
 */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const setByNpm = /^npm_(?:package_|lifecycle_|command$|execpath$|node_execpath$|config_(?:local_prefix|prefix|global_prefix|call|user_agent|npm_version)$)/i;
  for (const [key, value] of Object.entries(process.env)) if (!setByNpm.test(key)) env[key] = value;
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);
  return env;
}

/** Runs a program to its end, killed after `timeoutMs`; what it wrote, and how it ended. */
function run(file: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, env: userEnvironment(), stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => (stderr += `\n[spawn error] ${error.message}`));
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** How a run ended and what it wrote, to explain a failed expectation. */
function told(ran: Ran): string {
  return `exit ${ran.status ?? ran.signal}\nstdout:\n${ran.stdout.slice(-3000)}\nstderr:\n${ran.stderr.slice(-3000)}`;
}

/** Every file below `dir`, relative to it, with `/` between folders; `node_modules` folders left out. */
function filesBelow(dir: string, under = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") files.push(...filesBelow(dir, path));
    } else files.push(path);
  }
  return files.sort();
}

let work: string;
let packDir: string;
let tarball: string;
let packedFiles: string[];
let prefix: string;
let installed: string;
let command: string;
let elsewhere: string;
let install: Ran;

beforeAll(
  async () => {
    work = mkdtempSync(join(tmpdir(), "pi-session-lsp-package-"));
    const clone = join(work, "clone");
    packDir = join(work, "pack");
    prefix = join(work, "prefix");
    elsewhere = join(work, "elsewhere");
    for (const dir of [clone, packDir, prefix, elsewhere]) mkdirSync(dir);
    for (const file of repositoryFiles()) cpSync(join(REPO, file), join(clone, file));
    symlinkSync(join(REPO, "node_modules"), join(clone, "node_modules"), "dir");

    const pack = await run("npm", ["pack", "--json", "--pack-destination", packDir], clone, NPM_TIMEOUT_MS);
    if (pack.status !== 0) throw new Error(`npm pack failed:\n${told(pack)}`);
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error(`npm pack listed no tarball:\n${told(pack)}`);
    tarball = join(packDir, packed.filename);
    packedFiles = packed.files.map((f) => f.path).sort();

    install = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], elsewhere, NPM_TIMEOUT_MS);
    if (install.status !== 0) throw new Error(`npm install -g --prefix of the tarball failed:\n${told(install)}`);
    installed = join(prefix, "lib", "node_modules", repoPackage.name);
    command = join(prefix, "bin", "pi-session-lsp");
  },
  // Two npm commands, each with its own limit, and the copy of the repository before them.
  3 * WAIT_MS,
);

afterAll(async () => {
  if (work === undefined) return;
  // npx installs a tarball into a folder of npm's cache (`_npx/<hash>`) named after its path, which
  // is new on every run: the folders that name this run's tarball are removed with it.
  const cache = await run("npm", ["config", "get", "cache"], tmpdir(), NPM_TIMEOUT_MS);
  const npxDir = join(cache.stdout.trim(), "_npx");
  if (cache.status === 0 && existsSync(npxDir)) {
    for (const name of readdirSync(npxDir)) {
      const manifest = join(npxDir, name, "package.json");
      if (existsSync(manifest) && readFileSync(manifest, "utf8").includes(basename(work))) rmSync(join(npxDir, name), { recursive: true, force: true });
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe("the tarball", () => {
  it("holds package.json, the README, the LICENSE, the command, the compiled .js of out/ and its bundles, and nothing else", () => {
    expect([...new Set(packedFiles.map((path) => path.split("/")[0]))].sort()).toEqual(SHIPPED);
    expect(packedFiles.filter((path) => path.startsWith("bin/"))).toEqual(["bin/bundleLoader.js", "bin/pi-session-lsp.js"]);
    // out/ is exactly the compiled server: one .js per source file, no source maps, no
    // tsbuildinfo, no test or bench output, no module of a source that no longer exists; and
    // out/bundle/ as the build wrote it: the program, each command's module and the worker scripts
    // in one file each, with their code caches, and no source maps.
    const compiled = packedFiles.filter((path) => path.startsWith("out/") && !path.startsWith("out/bundle/"));
    const sources = repositoryFiles()
      .filter((path) => path.startsWith("server/src/") && path.endsWith(".ts"))
      .map((path) => `out/${relative(join("server", "src"), path).replace(/\\/g, "/").replace(/\.ts$/, ".js")}`)
      .sort();
    expect(compiled).toEqual(sources);
    const bundled = readdirSync(join(REPO, "out", "bundle")).filter((name) => !name.endsWith(".map"));
    expect(packedFiles.filter((path) => path.startsWith("out/bundle/"))).toEqual(bundled.map((name) => `out/bundle/${name}`).sort());
    expect(bundled).toContain("main.js.cache");
  });

  it("has a package.json that installs without scripts and depends on the runtime dependencies only", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown> & { scripts?: Record<string, string> };
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toBe(repoPackage.version);
    expect(manifest.bin).toEqual({ "pi-session-lsp": "bin/pi-session-lsp.js" });
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(
      ["jsonrepair", "vscode-jsonrpc", "vscode-languageserver", "vscode-languageserver-textdocument"].sort(),
    );
  });

  it("is a Pi package whose manifest names an extension the tarball holds", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { keywords: string[]; pi: { extensions: string[] } };
    expect(manifest.keywords).toContain("pi-package");
    expect(manifest.pi.extensions).toEqual(["./out/piExtension/index.js"]);
    for (const path of manifest.pi.extensions) expect(packedFiles).toContain(path.replace(/^\.\//, ""));
  });
});

describe("npm install -g --prefix of the tarball", () => {
  it("runs no build and warns about no install script", () => {
    expect(install.stdout + install.stderr).not.toMatch(/install.scripts|allowScripts|prepare|tsc/i);
  });

  it("writes the files of the tarball, no build output of its own, and nothing in the folder it ran from", () => {
    expect(filesBelow(installed)).toEqual(packedFiles);
    expect(readdirSync(prefix).sort()).toEqual(["bin", "lib"]);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("installs the runtime dependencies and none of the development ones", () => {
    const modules = join(installed, "node_modules");
    for (const name of Object.keys(repoPackage.dependencies)) expect(existsSync(join(modules, name, "package.json")), name).toBe(true);
    for (const name of Object.keys(repoPackage.devDependencies)) expect(existsSync(join(modules, name)), name).toBe(false);
    expect(existsSync(join(modules, ".bin", "tsc"))).toBe(false);
  });
});

describe("the installed pi-session-lsp, run from a folder outside the repository", () => {
  it("--version prints package.json's version", async () => {
    const ran = await run(command, ["--version"], elsewhere, COMMAND_TIMEOUT_MS);
    expect({ status: ran.status, stdout: ran.stdout, stderr: ran.stderr }, told(ran)).toEqual({ status: 0, stdout: `${repoPackage.version}\n`, stderr: "" });
  });

  it("check on the sample sessions prints the summary and exits 1 for broken.jsonl's errors", async () => {
    const ran = await run(command, ["check", SESSIONS], elsewhere, COMMAND_TIMEOUT_MS);
    expect(ran.status, told(ran)).toBe(1);
    expect(ran.stdout).toContain(`${join(SESSIONS, "broken.jsonl")}:`);
    expect(ran.stdout.trimEnd().split("\n").at(-1)).toMatch(/^8 errors, 1 warning, 1 hint in 1 of 3 files; 4 fixable with --fix/);
  });

  it("check on a valid session exits 0", async () => {
    const ran = await run(command, ["check", VALID_SESSION], elsewhere, COMMAND_TIMEOUT_MS);
    expect({ status: ran.status, stdout: ran.stdout }, told(ran)).toEqual({ status: 0, stdout: "No problems in 1 file\n" });
  });

  it("--stdio answers initialize with its name and version, then shuts down", async () => {
    const client = spawnServer(["--stdio"], { command, cwd: elsewhere, env: { PATH: userEnvironment().PATH } });
    try {
      const result = await client.initialize(PUSH_CAPABILITIES);
      expect(result.serverInfo).toEqual({ name: "pi-session-lsp", version: repoPackage.version });
      expect(await client.shutdownAndExit()).toEqual({ code: 0, signal: null });
    } finally {
      client.dispose();
    }
  });

  it("says in one line that it needs Node.js 20 when an older Node runs it", async () => {
    // An older Node.js is played by this one with its version rewritten before the command starts.
    const olderNode = join(work, "node-18.cjs");
    writeFileSync(olderNode, 'Object.defineProperty(process.versions, "node", { value: "18.19.0" });\n');
    const ran = await run(process.execPath, ["--require", olderNode, command, "--version"], elsewhere, COMMAND_TIMEOUT_MS);
    expect({ status: ran.status, stdout: ran.stdout }).toEqual({ status: 2, stdout: "" });
    expect(ran.stderr).toBe(`pi-session-lsp: needs Node.js 20 or later; this is Node.js 18.19.0 (${process.execPath}).\n`);
  });
});

describe("npx with the tarball", () => {
  it("checks a valid session from a folder without a package.json", async () => {
    // npx takes a relative path to a tarball as a package; an absolute one it runs as a command.
    const ran = await run("npx", ["-y", `./${basename(tarball)}`, "check", VALID_SESSION], packDir, NPM_TIMEOUT_MS);
    expect({ status: ran.status, stdout: ran.stdout }, told(ran)).toEqual({ status: 0, stdout: "No problems in 1 file\n" });
    expect(ran.stderr).not.toMatch(/install.scripts|allowScripts/i);
  });
});
