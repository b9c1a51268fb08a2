/**
 * `pi-session-lsp doctor FILE|ID`: the report `/doctor` shows inside Pi, word for word (both print
 * `doctorText` of `doctorReport`), its exit status, a session named by its id, and `--fork`, which
 * writes the repaired copy next to the file and leaves the file as it was, byte for byte.
 *
 * The command runs as the program, as a user runs it, on sessions the real Pi wrote or broke.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { doctorReport, doctorText } from "../../server/src/features/api/doctor";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
const FIXTURES = join(__dirname, "../parity/fixtures");

let root: string;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "doctor", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: root, TZ: "UTC" },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fixture copied into the test's folder, as `name.jsonl`. */
function copied(name: string): string {
  const path = join(root, `${name}.jsonl`);
  copyFileSync(join(FIXTURES, `${name}.jsonl`), path);
  return path;
}

beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "doctor-cli-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("pi-session-lsp doctor", () => {
  it("prints the report /doctor shows, and exits 0 on a healthy session", () => {
    const path = copied("written-16-branches");
    const r = run([path]);
    expect(r.status).toBe(0);
    const doc = new SessionDocument(pathToFileURL(path).href, "jsonl", 0, readFileSync(path, "utf8"));
    expect(r.stdout).toBe(`${doctorText(doctorReport(doc, { path }), path)}\n`);
    expect(r.stdout).toContain("Healthy");
  });

  it("names a bricked session's fault and remedies, and exits 1", () => {
    const r = run([copied("fault-tool-result-after-aborted-call")]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("Pi's next request from this session will fail");
    expect(r.stdout).toContain("line 4: error orphaned-tool-result:");
    expect(r.stdout).toContain("1. Fork a repaired copy and switch to it:");
  });

  it("writes the repaired copy with --fork, next to the file, which stays byte for byte as it was", () => {
    const path = copied("fault-null-line");
    const before = readFileSync(path);
    const r = run(["--fork", path]);
    expect(r.status).toBe(1);
    expect(readFileSync(path).equals(before)).toBe(true);
    const written = /Wrote the repaired copy (\S+) \(session ([0-9a-f-]+)\)/.exec(r.stdout)!;
    expect(written).not.toBeNull();
    const copy = readFileSync(written[1]!, "utf8");
    expect(JSON.parse(copy.split("\n")[0]!)).toMatchObject({ type: "session", id: written[2], parentSession: path });
    expect(run([written[1]!]).status).toBe(0);
  });

  it("refuses --fork where there is nothing to repair, and writes nothing", () => {
    const path = copied("fault-malformed-middle");
    const files = readdirSync(root).length;
    const r = run(["--fork", path]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("there is no repaired copy to write");
    expect(readdirSync(root)).toHaveLength(files);
  });

  it("takes a session id, found in --session-dir as pi --session finds it", () => {
    const dir = join(root, "ids");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(join(dir, "s.jsonl"), readFileSync(join(FIXTURES, "fault-metadata-leaf.jsonl")));
    const id = (JSON.parse(readFileSync(join(dir, "s.jsonl"), "utf8").split("\n")[0]!) as { id: string }).id;
    const r = run(["--session-dir", dir, id.slice(0, 12)]);
    // HOME is the test folder, so the path is said from it.
    expect(r.stderr).toContain("~/ids/s.jsonl");
    expect(r.stdout).toContain("leaf-hides-messages");
    expect(r.stdout).toContain("Resume from the newest message");
  });

  it("says why it cannot read a file, with exit status 2", () => {
    const r = run([join(root, "missing.jsonl")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^pi-session-lsp doctor: cannot read /);
  });
});
