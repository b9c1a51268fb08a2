/**
 * The VS Code extension's package (client-samples/vscode): `npm run package` there type-checks the
 * extension, bundles it and the server, and writes the `.vsix`. This checks what a user installs:
 * the `.vsix` holds exactly the files it should, and the server inside it, run from the unpacked
 * package as VS Code runs it, is the npm package's server: the same version, the same answers to
 * `check`, and a language server over stdio.
 *
 * It needs the extension's own dependencies (`npm ci --prefix client-samples/vscode`, which
 * .ci/run does); test/clients/vscode/workbench.test.ts installs the same package in a real VS Code.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PULL_CAPABILITIES, spawnServer } from "../../helpers/lspClient";
import { REPO, SAMPLES, SESSIONS } from "../harness";

const EXTENSION = join(SAMPLES, "vscode");
const INSTALL = "npm ci --prefix client-samples/vscode";
const manifest = JSON.parse(readFileSync(join(EXTENSION, "package.json"), "utf8")) as { name: string; version: string; main: string };
const rootPackage = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
const VSIX = join(EXTENSION, `${manifest.name}-${manifest.version}.vsix`);
/** Packaging runs tsc over vscode.d.ts, two esbuild bundles and vsce: seconds, with room for a busy machine. */
const PACKAGE_TIMEOUT_MS = 120_000;

/** What the `.vsix` holds, besides vsce's own manifest files: what VS Code runs and shows, nothing else. */
const EXPECTED_FILES = [
  // vsce writes these three under its own names.
  "extension/changelog.md",
  "extension/LICENSE.txt",
  "extension/readme.md",
  "extension/dist/extension.js",
  "extension/images/icon.png",
  "extension/package.json",
  "extension/server/out/checkWorker.js",
  "extension/server/out/fileCheckWorker.js",
  "extension/server/out/parseWorker.js",
  "extension/server/out/pi-session-lsp.js",
  "extension/server/out/scanWorker.js",
  "extension/server/out/usageWorker.js",
  "extension/server/package.json",
];

const unpacked = mkdtempSync(join(tmpdir(), "pi-session-vsix-"));
let packaging: { status: number | null; output: string } | undefined;
let files: string[] = [];

/** Unpacks the `.vsix` (a zip file) with yauzl, which vsce itself brings. */
async function unzip(file: string, into: string): Promise<string[]> {
  type Entry = { fileName: string };
  type ZipFile = {
    on(event: string, f: (x: Entry) => void): void;
    readEntry(): void;
    openReadStream(e: Entry, f: (err: Error | null, s: NodeJS.ReadableStream) => void): void;
  };
  const yauzl = require(join(EXTENSION, "node_modules", "yauzl")) as { open(p: string, o: object, f: (err: Error | null, z: ZipFile) => void): void };
  const zip = await new Promise<ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (error, z) => (error ? reject(error) : resolve(z))));
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on("error", reject as (x: Entry) => void);
    zip.on("end", () => resolve());
    zip.on("entry", (entry) => {
      names.push(entry.fileName);
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const target = join(into, entry.fileName);
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return names.sort();
}

beforeAll(async () => {
  const run = spawnSync("npm", ["run", "-s", "package"], { cwd: EXTENSION, encoding: "utf8", timeout: PACKAGE_TIMEOUT_MS });
  packaging = { status: run.status, output: `${run.error?.message ?? ""}${run.stdout}${run.stderr}` };
  if (run.status === 0) files = await unzip(VSIX, unpacked);
}, PACKAGE_TIMEOUT_MS + 30_000);

afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

function packaged(): void {
  expect(packaging?.status, `\`npm run package\` in client-samples/vscode failed (did \`${INSTALL}\` run?):\n${packaging?.output.slice(-3000)}`).toBe(0);
}

const server = () => join(unpacked, "extension", "server", "out", "pi-session-lsp.js");

describe("VS Code extension: the .vsix", () => {
  it("type-checks, bundles and packages with `npm run package`", () => {
    packaged();
    expect(files.length).toBeGreaterThan(0);
  });

  it("holds exactly the bundled extension, the bundled server, the manifest, the icon and the documents", () => {
    packaged();
    expect(files.filter((f) => f.startsWith("extension/"))).toEqual([...EXPECTED_FILES].sort());
    expect(EXPECTED_FILES, "package.json's main is in the package").toContain(`extension/${manifest.main.replace(/^\.\//, "")}`);
  });

  it("carries the npm package's server: the same version, and the same answers to check", () => {
    packaged();
    const version = spawnSync(process.execPath, [server(), "--version"], { encoding: "utf8", timeout: 30_000 });
    expect(version.stdout.trim()).toBe(rootPackage.version);
    const args = ["check", "--format", "json", SESSIONS];
    const inside = spawnSync(process.execPath, [server(), ...args], { cwd: REPO, encoding: "utf8", timeout: 30_000 });
    const npm = spawnSync(process.execPath, [join(REPO, "bin", "pi-session-lsp.js"), ...args], { cwd: REPO, encoding: "utf8", timeout: 30_000 });
    expect(inside.status).toBe(1);
    expect(inside.stdout.length).toBeGreaterThan(0);
    expect(inside.stdout).toBe(npm.stdout);
    expect(inside.status).toBe(npm.status);
  });

  it("serves LSP over stdio from the unpacked package", async () => {
    packaged();
    const client = spawnServer(["--stdio"], { bin: server() });
    try {
      const init = await client.initialize(PULL_CAPABILITIES);
      expect(init.serverInfo).toEqual({ name: "pi-session-lsp", version: rootPackage.version });
      expect((await client.shutdownAndExit()).code).toBe(0);
    } finally {
      client.dispose();
    }
  });

  it("has every worker script the server starts beside it, and its check workers give the npm package's answers", () => {
    packaged();
    // The server finds its workers with join(__dirname, "…Worker.js") and runs in its own thread
    // when one is missing, so a missing worker would show nowhere else.
    const bundle = readFileSync(server(), "utf8");
    // A worker may be named in more than one place (usage and sessions --largest share one).
    const workers = [...new Set([...bundle.matchAll(/join\)?\(__dirname, "(\w+\.js)"\)/g)].map((m) => m[1]!))];
    expect(workers.sort()).toEqual(["checkWorker.js", "fileCheckWorker.js", "parseWorker.js", "scanWorker.js", "usageWorker.js"]);
    for (const worker of workers) expect(existsSync(join(dirname(server()), worker)), worker).toBe(true);
    // Over 16 MiB in two files, `check --threads 2` starts its workers.
    const big = join(unpacked, "big");
    mkdirSync(big);
    const text = readFileSync(join(SESSIONS, "valid-branches.jsonl"), "utf8");
    const filler = `{"type":"custom","customType":"filler","id":"f0000000","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z","data":"${"x".repeat(8 * 1024 * 1024)}"}\n`;
    for (const name of ["a.jsonl", "b.jsonl"]) writeFileSync(join(big, name), text + filler);
    const args = ["check", "--threads", "2", "--format", "json", big];
    const inside = spawnSync(process.execPath, [server(), ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
    const npm = spawnSync(process.execPath, [join(REPO, "bin", "pi-session-lsp.js"), ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
    expect(inside.stderr).toBe("");
    expect(inside.stdout.trim().split("\n")).toHaveLength(2);
    expect(inside.stdout).toBe(npm.stdout);
  });
});
