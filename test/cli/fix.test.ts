/**
 * `check --fix` and `--dry-run` as a user runs them (the built command on real files), and the
 * atomic writer with a file system that fails in the middle.
 */

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { closeFile, openSessionFile } from "../../server/src/cli/files";
import { FileChanged, FixRefused, replaceFile, type FixFs } from "../../server/src/cli/replace";
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
    expect(r.stdout).toContain(
      `${file}: fixed bom, no-final-newline, self-parent; the original is saved as ${file}.bak (pi-session-lsp restore puts it back)\n`,
    );
    // What is left is reported on the fixed file, and sets the exit status.
    expect(r.stdout).toContain(`${file}:3:1: error malformed-json`);
    expect(r.stdout).not.toContain("self-parent:");
    expect(r.status).toBe(1);
    // No temporary file is left behind.
    expect(readdirSync(join(file, "..")).sort()).toEqual(["broken.jsonl", "broken.jsonl.bak"]);
  });

  it("exits 0 when the fixes leave no error, and moves an earlier backup out of the session's folder", () => {
    const file = sessionFile("fixable", `${header}\n${user("a1", "a1")}`);
    writeFileSync(`${file}.bak`, "an older backup");
    const history = process.env.PI_SESSION_LSP_BACKUP_DIR!;
    const r = run("check", "--fix", file);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `${file}: fixed no-final-newline, self-parent; the original is saved as ${file}.bak (pi-session-lsp restore puts it back); older backups were moved to ${history}\nNo problems in 1 file; fixed 2 problems in 1 file\n`,
    );
    expect(readdirSync(join(file, "..")).sort()).toEqual(["fixable.jsonl", "fixable.jsonl.bak"]);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(`${header}\n${user("a1", "a1")}`);
    const moved = readdirSync(history).filter((n) => n.startsWith("fixable.jsonl."));
    expect(moved.map((n) => readFileSync(join(history, n), "utf8"))).toEqual(["an older backup"]);
    expect(readFileSync(file, "utf8")).toBe(`${header}\n${user("a1", null)}\n`);
  });

  it("does not touch a file with nothing to fix", () => {
    const file = sessionFile("good", `${header}\n${user("a1", null)}\n`);
    const r = run("check", "--fix", file);
    expect(r.stdout).toBe("No problems in 1 file\n");
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
        `--- a${file}`,
        `+++ b${file}`,
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
    // A name of 250 bytes: the file is there, but the backup and the temporary file beside it
    // (`.NAME.<pid>.0.bak`, `.NAME.<pid>.0.tmp`) are past the 255 bytes a name may have, so the
    // very first step fails, whoever runs the test.
    const folder = mkdtempSync(join(dir, "long-"));
    const file = join(folder, `${"n".repeat(244)}.jsonl`);
    writeFileSync(file, broken);
    const r = run("check", "--fix", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot fix ${file}`);
    expect(readFileSync(file, "utf8")).toBe(broken);
    // What is reported is then the original's diagnostics.
    expect(r.stdout).toContain("error self-parent");
    expect(readdirSync(folder)).toEqual([basename(file)]);
  });

  it("never writes over an earlier backup: when FILE.bak and FILE.bak.1… are taken, the new one keeps its temporary name", () => {
    const file = sessionFile("taken", broken);
    mkdirSync(`${file}.bak`);
    for (let n = 1; n <= 1001; n++) mkdirSync(`${file}.bak.${n}`);
    const r = run("check", "--fix", file);
    expect(r.status).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(repaired);
    const saved = /the original is saved as (\S+\.bak) /.exec(r.stdout)?.[1];
    expect(saved, r.stdout).toMatch(/\/\.taken\.jsonl\.\d+\.0\.bak$/);
    expect(readFileSync(saved!, "utf8")).toBe(broken);
  });
});

/** Replaces `path` with `text` the way `check --fix` does, through `fs`. */
function replace(path: string, text: string, fs: FixFs) {
  const file = openSessionFile(path);
  try {
    return replaceFile(file, text, fs);
  } finally {
    closeFile(file);
  }
}

/** The real file system, with `before` run ahead of one call (or that call made to fail). */
function withHook(call: keyof FixFs, before: (...args: unknown[]) => void): FixFs {
  const real = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  return new Proxy(fs as unknown as FixFs, {
    get(_target, name: string) {
      if (name !== call) return real[name];
      return (...args: unknown[]) => {
        before(...args);
        return real[name]!(...args);
      };
    },
  });
}

function failing(call: keyof FixFs): FixFs {
  return withHook(call, () => {
    throw Object.assign(new Error(`injected ${call} failure`), { code: "EIO" });
  });
}

describe("replaceFile", () => {
  for (const call of ["renameSync", "writeSync", "fsyncSync", "openSync", "fchmodSync"] as const) {
    it(`keeps the original intact and leaves no temporary file or backup when ${call} fails`, () => {
      const file = sessionFile(`fail-${call}`, broken);
      expect(() => replace(file, repaired, failing(call))).toThrow(`injected ${call} failure`);
      expect(readFileSync(file, "utf8")).toBe(broken);
      expect(readdirSync(join(file, "..")).sort()).toEqual([`fail-${call}.jsonl`]);
      expect(fs.statSync(file).nlink).toBe(1);
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
    expect(() => replace(file, repaired, half)).toThrow("disk full");
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(readdirSync(join(file, "..")).sort()).toEqual(["half.jsonl"]);
  });

  it("writes the whole text even when writes are short, and keeps the file's mode", () => {
    const file = sessionFile("short", broken);
    fs.chmodSync(file, 0o640);
    const short: FixFs = {
      ...fs,
      writeSync: ((fd: number, buffer: Buffer, offset: number, length: number) => fs.writeSync(fd, buffer, offset, Math.min(length, 7))) as FixFs["writeSync"],
    };
    expect(replace(file, repaired, short)).toMatchObject({ backup: `${file}.bak`, recovered: 0 });
    expect(readFileSync(file, "utf8")).toBe(repaired);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(broken);
  });

  it("leaves the file as it is when Pi appends while the fix is written", () => {
    const file = sessionFile("appended", broken);
    // A backup of an earlier change: a change that does not happen leaves it where it is.
    writeFileSync(`${file}.bak`, "an earlier backup");
    const entry = `${user("p1", "a1", 3)}\n`;
    // Pi's append lands after the read, while the fixed text is being written.
    const pi = withHook("fsyncSync", () => {
      if (readFileSync(file, "utf8") === broken) fs.appendFileSync(file, entry);
    });
    expect(() => replace(file, repaired, pi)).toThrow(FileChanged);
    expect(readFileSync(file, "utf8")).toBe(broken + entry);
    expect(readdirSync(join(file, "..")).sort()).toEqual(["appended.jsonl", "appended.jsonl.bak"]);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe("an earlier backup");
    expect(fs.statSync(file).nlink).toBe(1);
  });

  it("leaves the file as it is when it was rewritten with the same size and time (a coarse clock): the bytes tell", () => {
    const file = sessionFile("rewritten", broken);
    const same = broken.replace('"hi"', '"ho"');
    const readTime = fs.statSync(file).mtimeMs;
    // A file system whose clock is too coarse to see the rewrite: every stat shows the old mtime.
    const coarse = (stat: fs.Stats) => Object.assign(stat, { mtimeMs: readTime });
    const pi: FixFs = {
      ...fs,
      fstatSync: ((fd: number) => coarse(fs.fstatSync(fd))) as FixFs["fstatSync"],
      lstatSync: ((path: string) => coarse(fs.lstatSync(path))) as FixFs["lstatSync"],
      fsyncSync: (fd: number) => {
        if (readFileSync(file, "utf8") === broken) fs.writeFileSync(file, same);
        fs.fsyncSync(fd);
      },
    };
    expect(() => replace(file, repaired, pi)).toThrow("its content changed since it was read");
    expect(readFileSync(file, "utf8")).toBe(same);
    expect(readdirSync(join(file, ".."))).toEqual(["rewritten.jsonl"]);
  });

  it("keeps an entry Pi appended just before the rename: it is moved to the end of the new file", () => {
    const file = sessionFile("raced", broken);
    const entry = `${user("p1", "a1", 3)}\n`;
    // The append lands after the last comparison, on the old inode, right before the rename.
    const pi = withHook("renameSync", () => fs.appendFileSync(file, entry));
    const result = replace(file, repaired, pi);
    expect(result).toMatchObject({ recovered: Buffer.byteLength(entry), reordered: false });
    expect(readFileSync(file, "utf8")).toBe(repaired + entry);
    expect(readFileSync(result.backup, "utf8")).toBe(broken + entry);
  });

  it("refuses a file with several hard links, and leaves both names as they were", () => {
    const file = sessionFile("linked", broken);
    const other = join(file, "../other-name.jsonl");
    fs.linkSync(file, other);
    expect(() => replace(file, repaired, fs)).toThrow(FixRefused);
    expect(() => replace(file, repaired, fs)).toThrow("it has 2 hard links");
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(fs.statSync(file).ino).toBe(fs.statSync(other).ino);
    expect(readdirSync(join(file, "..")).sort()).toEqual(["linked.jsonl", "other-name.jsonl"]);
  });

  it("refuses when the fixed file could not keep the owner", () => {
    const file = sessionFile("owner", broken);
    const stat = fs.statSync(file);
    // Run as someone else: the replacement would need a chown, which fails.
    const other = {
      ...fs,
      fchownSync: (() => {
        throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
      }) as FixFs["fchownSync"],
    };
    const uid = process.getuid;
    process.getuid = () => stat.uid + 1;
    try {
      expect(() => replace(file, repaired, other)).toThrow(`it belongs to user ${stat.uid}`);
    } finally {
      process.getuid = uid;
    }
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(readdirSync(join(file, ".."))).toEqual(["owner.jsonl"]);
  });
});

describe("check --fix keeps what the file is", () => {
  it("fixes a link at the file it names, and the link stays a link", () => {
    const folder = mkdtempSync(join(dir, "symlink-"));
    mkdirSync(join(folder, "real"));
    const target = join(folder, "real/target.jsonl");
    writeFileSync(target, broken);
    const link = join(folder, "link.jsonl");
    fs.symlinkSync("real/target.jsonl", link);
    const r = run("check", "--fix", link);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(link)).toBe("real/target.jsonl");
    expect(readFileSync(target, "utf8")).toBe(repaired);
    expect(readFileSync(`${target}.bak`, "utf8")).toBe(broken);
    expect(readdirSync(folder).sort()).toEqual(["link.jsonl", "real"]);
    expect(r.stdout).toContain(
      `${link}: fixed bom, no-final-newline, self-parent (in ${target}, the file it links to); the original is saved as ${target}.bak`,
    );
  });

  it("keeps mode 0666 and the owner", () => {
    const file = sessionFile("mode", broken);
    fs.chmodSync(file, 0o666);
    // As root the owner can be anyone; otherwise it is the user, and must stay so.
    const owner = process.getuid?.() === 0 ? { uid: 12345, gid: 23456 } : { uid: fs.statSync(file).uid, gid: fs.statSync(file).gid };
    fs.chownSync(file, owner.uid, owner.gid);
    const r = run("check", "--fix", file);
    expect(r.stderr).toBe("");
    const after = fs.statSync(file);
    expect(readFileSync(file, "utf8")).toBe(repaired);
    expect(after.mode & 0o7777).toBe(0o666);
    expect({ uid: after.uid, gid: after.gid }).toEqual(owner);
    const backup = fs.statSync(`${file}.bak`);
    expect({ uid: backup.uid, gid: backup.gid, mode: backup.mode & 0o7777 }).toEqual({ ...owner, mode: 0o666 });
  });

  it("refuses a file with two hard links, exits 2, and says why", () => {
    const file = sessionFile("hardlink", broken);
    fs.linkSync(file, `${file}.other`);
    const r = run("check", "--fix", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot fix ${file}: it has 2 hard links: replacing it would leave the other names on the unfixed original`);
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(fs.statSync(file).ino).toBe(fs.statSync(`${file}.other`).ino);
    // What is reported is the file as it is.
    expect(r.stdout).toContain("error self-parent");
  });
});
