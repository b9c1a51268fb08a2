/**
 * `check --fix` and `--dry-run` as a user runs them (the built command on real files), and the
 * atomic writer with a file system that fails in the middle.
 */

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeFixed, type FixFs } from "../../server/src/cli/check";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null, second = 1) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:0${second}.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-fix-"));
});

/** A file in a folder of its own, so that backups and temporary files can be listed. */
function sessionFile(name: string, text: string): string {
  const folder = mkdtempSync(join(dir, `${name}-`));
  const file = join(folder, `${name}.jsonl`);
  writeFileSync(file, text);
  return file;
}

// A BOM, a self-parent and no final newline: all safe to fix. The malformed line is not.
const broken = `\uFEFF${header}\n${user("a1", null)}\n{"oops\n${user("a2", "a2", 2)}`;
const repaired = `${header}\n${user("a1", null)}\n{"oops\n${user("a2", "a1", 2)}\n`;

describe("pi-session-lsp check --fix", () => {
  it("saves the original as FILE.bak, writes the fixed file, and reports what is left", () => {
    const file = sessionFile("broken", broken);
    const r = run("check", "--fix", file);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(broken);
    expect(readFileSync(file, "utf8")).toBe(repaired);
    expect(r.stdout).toContain(`${file}: fixed bom, no-final-newline, self-parent; the original is saved as ${file}.bak\n`);
    // What is left is reported on the fixed file, and sets the exit status.
    expect(r.stdout).toContain(`${file}:3:1: error malformed-json`);
    expect(r.stdout).not.toContain("self-parent:");
    expect(r.status).toBe(1);
    // No temporary file is left behind.
    expect(readdirSync(join(file, "..")).sort()).toEqual(["broken.jsonl", "broken.jsonl.bak"]);
  });

  it("exits 0 when the fixes leave no error, and never overwrites an earlier backup", () => {
    const file = sessionFile("fixable", `${header}\n${user("a1", "a1")}`);
    writeFileSync(`${file}.bak`, "an older backup");
    const r = run("check", "--fix", file);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${file}: fixed no-final-newline, self-parent; the original is saved as ${file}.bak.1\n`);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe("an older backup");
    expect(readFileSync(`${file}.bak.1`, "utf8")).toBe(`${header}\n${user("a1", "a1")}`);
    expect(readFileSync(file, "utf8")).toBe(`${header}\n${user("a1", null)}\n`);
  });

  it("does not touch a file with nothing to fix", () => {
    const file = sessionFile("good", `${header}\n${user("a1", null)}\n`);
    const r = run("check", "--fix", file);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(0);
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it("reports fixes, backup and what is left as JSON", () => {
    const file = sessionFile("json", broken);
    const r = run("check", "--fix", "--format", "json", file);
    const report = JSON.parse(r.stdout) as { file: string; fixed: Record<string, number>; backup: string; diagnostics: { code: string }[] };
    expect(report).toMatchObject({ file, fixed: { bom: 1, "self-parent": 1, "no-final-newline": 1 }, backup: `${file}.bak` });
    expect(report.diagnostics.map((d) => d.code)).toEqual(["malformed-json"]);
  });

  it("--dry-run prints a unified diff and writes nothing", () => {
    const file = sessionFile("dry", broken);
    const r = run("check", "--fix", "--dry-run", file);
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(readdirSync(join(file, "..")).sort()).toEqual(["dry.jsonl"]);
    expect(r.stdout).toContain(
      [
        `--- a/${file}`,
        `+++ b/${file}`,
        "@@ -1,4 +1,4 @@",
        `-\uFEFF${header}`,
        `+${header}`,
        ` ${user("a1", null)}`,
        ' {"oops',
        `-${user("a2", "a2", 2)}`,
        "\\ No newline at end of file",
        `+${user("a2", "a1", 2)}`,
        "",
      ].join("\n"),
    );
    expect(r.stdout).toContain("error malformed-json");
    expect(r.status).toBe(1);
    // --dry-run alone implies --fix.
    expect(run("check", "--dry-run", file).stdout).toBe(r.stdout);
  });

  it("fixes every file of a folder", () => {
    const folder = mkdtempSync(join(dir, "folder-"));
    mkdirSync(join(folder, "sub"));
    writeFileSync(join(folder, "one.jsonl"), `${header}\n${user("a1", null)}`);
    writeFileSync(join(folder, "sub/two.jsonl"), `\uFEFF${header}\n`);
    const r = run("check", "--fix", folder);
    expect(r.status).toBe(0);
    expect(readFileSync(join(folder, "one.jsonl"), "utf8")).toBe(`${header}\n${user("a1", null)}\n`);
    expect(readFileSync(join(folder, "sub/two.jsonl"), "utf8")).toBe(`${header}\n`);
  });

  it("--dry-run --format json gives the diff in the report", () => {
    const file = sessionFile("dryjson", broken);
    const report = JSON.parse(run("check", "--dry-run", "--format=json", file).stdout) as {
      fixed: Record<string, number>;
      diff: string;
      diagnostics: { code: string }[];
    };
    expect(report.fixed).toEqual({ bom: 1, "self-parent": 1, "no-final-newline": 1 });
    expect(report.diff).toContain(`+${user("a2", "a1", 2)}\n`);
    expect(report.diagnostics.map((d) => d.code)).toEqual(["malformed-json"]);
    expect(readFileSync(file, "utf8")).toBe(broken);
  });

  it("refuses to rewrite a file that is not valid UTF-8", () => {
    const folder = mkdtempSync(join(dir, "latin1-"));
    const file = join(folder, "latin1.jsonl");
    const bytes = Buffer.concat([Buffer.from(`${header}\n${user("a1", "a1")}\n{"cut":"caf`), Buffer.from([0xc3])]);
    writeFileSync(file, bytes);
    const r = run("check", "--fix", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("not valid UTF-8");
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(readdirSync(folder)).toEqual(["latin1.jsonl"]);
  });

  it("leaves the original intact and exits 2 when the fixed file cannot be written", () => {
    const file = sessionFile("nobackup", broken);
    // A folder where the backup should go makes the very first step fail.
    mkdirSync(`${file}.bak`);
    for (let n = 1; n <= 1001; n++) mkdirSync(`${file}.bak.${n}`);
    const r = run("check", "--fix", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot fix ${file}`);
    expect(readFileSync(file, "utf8")).toBe(broken);
    // What is reported is then the original's diagnostics.
    expect(r.stdout).toContain("error self-parent");
  });
});

describe("writeFixed", () => {
  /** The real file system, with one call made to fail. */
  function failing(call: keyof FixFs, after = 0): FixFs {
    let calls = 0;
    const real = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
    return new Proxy(fs as unknown as FixFs, {
      get(_target, name: string) {
        if (name !== call) return real[name];
        return (...args: unknown[]) => {
          if (calls++ >= after) throw Object.assign(new Error(`injected ${call} failure`), { code: "EIO" });
          return real[name]!(...args);
        };
      },
    });
  }

  for (const [call, after] of [
    ["renameSync", 0],
    ["writeSync", 0],
    ["fsyncSync", 0],
    ["openSync", 0],
  ] as const) {
    it(`keeps the original intact and leaves no temporary file when ${call} fails`, () => {
      const file = sessionFile(`fail-${call}`, broken);
      expect(() => writeFixed(file, repaired, failing(call, after))).toThrow(`injected ${call} failure`);
      expect(readFileSync(file, "utf8")).toBe(broken);
      expect(readdirSync(join(file, "..")).sort()).toEqual([`fail-${call}.jsonl`, `fail-${call}.jsonl.bak`]);
      expect(readFileSync(`${file}.bak`, "utf8")).toBe(broken);
    });
  }

  it("keeps the original when the write stops half way", () => {
    const file = sessionFile("half", broken);
    let first = true;
    const half: FixFs = {
      ...fs,
      writeSync: ((fd: number, buffer: Buffer, offset: number, length: number) => {
        if (!first) throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
        first = false;
        return fs.writeSync(fd, buffer, offset, Math.ceil(length / 2));
      }) as FixFs["writeSync"],
    };
    expect(() => writeFixed(file, repaired, half)).toThrow("disk full");
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(readdirSync(join(file, "..")).sort()).toEqual(["half.jsonl", "half.jsonl.bak"]);
  });

  it("writes the whole text even when writes are short, and keeps the file's mode", () => {
    const file = sessionFile("short", broken);
    fs.chmodSync(file, 0o640);
    const short: FixFs = {
      ...fs,
      writeSync: ((fd: number, buffer: Buffer, offset: number, length: number) => fs.writeSync(fd, buffer, offset, Math.min(length, 7))) as FixFs["writeSync"],
    };
    expect(writeFixed(file, repaired, short)).toBe(`${file}.bak`);
    expect(readFileSync(file, "utf8")).toBe(repaired);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });
});
