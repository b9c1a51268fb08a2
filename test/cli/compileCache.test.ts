/**
 * The entry point (`bin/pi-session-lsp.js`) turns on Node's compile cache for a command where the
 * Node running it has one (`module.enableCompileCache`, Node.js 22.1 and later), never for the
 * language server (`--stdio`, which writes no file), and a cache that cannot be made costs nothing
 * but the compile. The Node running the tests may have no such call, so a preloaded stand-in
 * records each call (or throws).
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-compile-cache-"));
  writeFileSync(join(dir, "records.js"), 'require("node:module").enableCompileCache = () => process.stderr.write("compile cache on\\n");\n');
  writeFileSync(join(dir, "throws.js"), 'require("node:module").enableCompileCache = () => { throw new Error("EROFS"); };\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(preload: string, args: string[]) {
  return spawnSync(process.execPath, ["-r", join(dir, preload), BIN, ...args], { encoding: "utf8" });
}

describe("the compile cache", () => {
  it("is turned on for a command", () => {
    const ran = run("records.js", ["--version"]);
    expect(ran.status).toBe(0);
    expect(ran.stderr).toBe("compile cache on\n");
    expect(ran.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("is not turned on when --stdio is asked for", () => {
    // `--version` answers before `--stdio` would start the server: the cache is decided before either.
    const ran = run("records.js", ["--version", "--stdio"]);
    expect(ran.status).toBe(0);
    expect(ran.stderr).toBe("");
  });

  it("that cannot be made costs nothing but the compile", () => {
    const ran = run("throws.js", ["--version"]);
    expect(ran.status).toBe(0);
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
