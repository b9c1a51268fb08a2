/**
 * A FIFO or a link to `/dev/zero` named `*.jsonl` in Pi's sessions folder is not left out of
 * Pi's list: recorded by hand with the oracle of test/parity/README.md, Pi 1.6.0's and 0.74.2's
 * `SessionManager.list` open the FIFO and wait for a writer forever (the call never returns), and
 * Pi 1.6.0's reads `/dev/zero` line by line until its line buffer outgrows a string and the
 * process dies with "RangeError: Invalid string length" (0.74.2's `readFile` fails and leaves the
 * file out). `sessions` says what `/resume` does, instead of listing them as left out.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let folder: string;

function sessions(...args: string[]) {
  return spawnSync(process.execPath, [BIN, "sessions", "--session-dir", folder, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "home"), TZ: "UTC" },
  });
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-sessions-unlistable-")));
  folder = join(root, "sessions");
  mkdirSync(folder);
  const header = JSON.stringify({ type: "session", version: 3, id: "c1", timestamp: "2026-01-01T00:00:00.000Z", cwd: root });
  writeFileSync(join(folder, "good.jsonl"), `${header}\n`);
  execFileSync("mkfifo", [join(folder, "fifo.jsonl")]);
  symlinkSync("/dev/zero", join(folder, "zero.jsonl"));
  mkdirSync(join(folder, "folder.jsonl"));
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("files Pi's list hangs or dies on", () => {
  it("says Pi 1.x's /resume waits forever on a FIFO and dies on /dev/zero, and leaves a folder out", () => {
    const r = sessions();
    expect(r.stdout).toContain(
      `warning: ${join(folder, "fifo.jsonl")}: it is a FIFO, which Pi's /resume opens and then waits on for a writer forever: its list never finishes loading. Move it out of the folder.`,
    );
    expect(r.stdout).toContain(
      `warning: ${join(folder, "zero.jsonl")}: it is a character device, which Pi 1.x's /resume reads as a session: one that never ends (a link to /dev/zero) makes Pi die with "RangeError: Invalid string length". Move it out of the folder.`,
    );
    expect(r.stdout).toContain(`1 file Pi leaves out of its list:\n  ${join(folder, "folder.jsonl")}: it is a folder, not a regular file`);
    const omitted = JSON.parse(sessions("--json").stdout).omitted as { path: string; piFails?: string }[];
    expect(
      omitted
        .filter((o) => o.piFails)
        .map((o) => o.path.slice(folder.length + 1))
        .sort(),
    ).toEqual(["fifo.jsonl", "zero.jsonl"]);
  });

  it("says Pi 0.74 waits forever on a FIFO and leaves /dev/zero out", () => {
    const r = sessions("--pi", "0.74");
    expect(r.stdout).toContain(`warning: ${join(folder, "fifo.jsonl")}: it is a FIFO`);
    expect(r.stdout).not.toContain(`warning: ${join(folder, "zero.jsonl")}`);
    expect(r.stdout).toContain(`${join(folder, "zero.jsonl")}: it is a character device, not a regular file`);
  });
});
