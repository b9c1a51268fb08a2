/**
 * The files `check` reads, from folders nobody vetted: links to folders are not followed, only
 * regular files are read (a FIFO or `/dev/zero` never blocks or floods it), nothing is read past
 * the size limit, `--fix` never writes outside the paths given, and UTF-16 files get an error that
 * names their encoding and says what Pi does with them.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, ftruncateSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeSession } from "../../server/src/io/checkRead";
import { ensureBuilt } from "../helpers/lspClient";
import { WAIT_MS } from "../helpers/limits";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

/** Runs the command with a time limit: what used to hang fails the test instead of the suite. */
function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: WAIT_MS, killSignal: "SIGKILL" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, timedOut: result.error !== undefined || result.signal !== null };
}

function jsonFiles(stdout: string): string[] {
  return stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { file: string }).file);
}

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-files-"));
});

describe("the folder walk", () => {
  it("does not follow links to folders: a self link or two links up list each file once, and end", () => {
    const root = mkdtempSync(join(dir, "loops-"));
    mkdirSync(join(root, "a"));
    writeFileSync(join(root, "a/one.jsonl"), `${header}\n${user("a1", null)}\n`);
    symlinkSync(".", join(root, "self"));
    symlinkSync("..", join(root, "a/up"));
    symlinkSync(root, join(root, "a/root"));
    const r = run("check", "--format", "json", root);
    expect(r.timedOut).toBe(false);
    expect(jsonFiles(r.stdout)).toEqual([join(root, "a/one.jsonl")]);
    expect(r.stderr).toContain(`not searched: ${join(root, "self")}, a link to a folder`);
    expect(r.status).toBe(0);
  });

  it("skips a FIFO, a socket-like device and a link to /dev/zero named *.jsonl, with a note, and reads the rest", () => {
    const root = mkdtempSync(join(dir, "odd-"));
    execFileSync("mkfifo", [join(root, "fifo.jsonl")]);
    symlinkSync("/dev/zero", join(root, "zero.jsonl"));
    symlinkSync("/dev/null", join(root, "null.jsonl"));
    writeFileSync(join(root, "real.jsonl"), `${header}\n${user("a1", "zz")}\n`);
    const r = run("check", "--format", "json", root);
    expect(r.timedOut).toBe(false);
    expect(jsonFiles(r.stdout)).toEqual([join(root, "real.jsonl")]);
    expect(r.stderr).toContain(`skipped ${join(root, "fifo.jsonl")}: it is a FIFO, not a regular file`);
    expect(r.stderr).toContain(`skipped ${join(root, "zero.jsonl")}: a link to a character device, not a regular file`);
    expect(r.status).toBe(1);
  });

  it("refuses a FIFO or a device given by name, at once, with status 2", () => {
    const fifo = join(mkdtempSync(join(dir, "fifo-")), "x.jsonl");
    execFileSync("mkfifo", [fifo]);
    for (const [path, kind] of [
      [fifo, "a FIFO"],
      ["/dev/zero", "a character device"],
    ]) {
      for (const command of ["check", "context"]) {
        const r = run(command, path!);
        expect(r.timedOut, `${command} ${path}`).toBe(false);
        expect(r.status, `${command} ${path}`).toBe(2);
        expect(r.stderr).toContain(`it is ${kind}, not a regular file`);
      }
    }
  });

  it("never decodes a line longer than the limit (check streams a file of any size)", () => {
    const big = join(mkdtempSync(join(dir, "big-")), "big.jsonl");
    // A sparse file: 300 MiB long, nothing on disk.
    const fd = openSync(big, "w");
    ftruncateSync(fd, 300 * 1024 * 1024);
    closeSync(fd);
    const r = run("check", big);
    expect(r.timedOut).toBe(false);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot read ${big}: line 1 is 300 MiB, more than the 256 MiB this tool reads in one line`);
  });

  it("--fix never writes outside the folders given: links to folders and files stay untouched", () => {
    const root = mkdtempSync(join(dir, "outside-"));
    const fixable = `${header}\n${user("a1", "a1")}`;
    mkdirSync(join(root, "outside"));
    mkdirSync(join(root, "sessions"));
    writeFileSync(join(root, "outside/theirs.jsonl"), fixable);
    writeFileSync(join(root, "outside/linked.jsonl"), fixable);
    writeFileSync(join(root, "sessions/mine.jsonl"), fixable);
    symlinkSync("../outside", join(root, "sessions/shared"));
    symlinkSync("../outside/linked.jsonl", join(root, "sessions/linked.jsonl"));
    const r = run("check", "--fix", join(root, "sessions"));
    expect(readFileSync(join(root, "sessions/mine.jsonl"), "utf8")).toBe(`${header}\n${user("a1", null)}\n`);
    expect(readFileSync(join(root, "outside/theirs.jsonl"), "utf8")).toBe(fixable);
    expect(readFileSync(join(root, "outside/linked.jsonl"), "utf8")).toBe(fixable);
    expect(readdirSync(join(root, "outside")).sort()).toEqual(["linked.jsonl", "theirs.jsonl"]);
    expect(r.stderr).toContain(`${join(root, "sessions/linked.jsonl")}: not fixed: it is a link found in a folder`);
    // The link to a file is still checked, and its faults are reported.
    expect(r.stdout).toContain(`${join(root, "sessions/linked.jsonl")}:2:40: error self-parent`);
    // Named on the command line, the link is the user's choice, and its file is fixed.
    run("check", "--fix", join(root, "sessions/linked.jsonl"));
    expect(readFileSync(join(root, "outside/linked.jsonl"), "utf8")).toBe(`${header}\n${user("a1", null)}\n`);
    expect(existsSync(join(root, "outside/linked.jsonl.bak"))).toBe(true);
  });
});

describe("UTF-16 files", () => {
  // What Windows PowerShell's Out-File writes: UTF-16 little-endian with a byte order mark, CRLF.
  const text = `${header}\r\n${user("a1", null)}\r\n${user("a2", "zz")}\r\n`;
  const le = Buffer.from(text, "utf16le");
  const be = Buffer.from(le).swap16();
  const variants: [string, Buffer, string][] = [
    ["le-bom", Buffer.concat([Buffer.from([0xff, 0xfe]), le]), "UTF-16 (little-endian, with a byte order mark)"],
    ["be-bom", Buffer.concat([Buffer.from([0xfe, 0xff]), be]), "UTF-16 (big-endian, with a byte order mark)"],
    ["le-nobom", le, "UTF-16 (little-endian, without a byte order mark)"],
    ["be-nobom", be, "UTF-16 (big-endian, without a byte order mark)"],
  ];

  for (const [name, bytes, encoding] of variants) {
    it(`gets an error naming the encoding and what Pi does (${name}), then the converted text's diagnostics`, () => {
      const file = join(mkdtempSync(join(dir, "utf16-")), `${name}.jsonl`);
      writeFileSync(file, bytes);
      const r = run("check", file);
      const lines = r.stdout.trimEnd().split("\n");
      expect(lines[0]).toContain(`${file}:1:1: error utf16: This file is ${encoding}, not UTF-8`);
      expect(lines[0]).toContain("Pi 1.x refuses to open this one");
      expect(lines[0]).toContain("Pi 0.73/0.74 overwrites it with a fresh header, losing every entry");
      expect(lines.some((l) => l.includes(":3:40: error dangling-parent"))).toBe(true);
      expect(r.status).toBe(1);
      const json = JSON.parse(run("check", "--format", "json", file).stdout) as { encoding: string; diagnostics: { code: string }[] };
      expect(json.encoding).toBe(name.startsWith("le") ? "utf-16le" : "utf-16be");
      expect(json.diagnostics[0]!.code).toBe("utf16");
      // Never rewritten: the fix would change every byte of it.
      const fix = run("check", "--fix", file);
      expect(fix.status).toBe(2);
      expect(fix.stderr).toContain(`cannot fix ${file}: it is ${encoding}; convert it to UTF-8 first`);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(readdirSync(join(file, ".."))).toEqual([`${name}.jsonl`]);
      const context = run("context", file);
      expect(context.status).toBe(1);
      expect(context.stderr).toContain(`the file is ${encoding}, not UTF-8`);
    });
  }

  it("is not mistaken for UTF-8 text that holds a NUL, or for plain UTF-8", () => {
    expect(decodeSession(Buffer.from(`${header}\n{"broken\u0000": 1\n`)).encoding).toBe("utf-8");
    expect(decodeSession(Buffer.from(`${header}\n`)).encoding).toBe("utf-8");
    expect(decodeSession(Buffer.from("")).encoding).toBe("utf-8");
  });

  it("is lossless for valid UTF-8, a real U+FFFD included, and not when a byte was replaced", () => {
    expect(decodeSession(Buffer.from(`${header}\n{"a":"é ✓ 😀"}\n`)).lossless).toBe(true);
    // U+FFFD written by a tool (EF BF BD) decodes to itself and encodes back to the same bytes.
    expect(decodeSession(Buffer.from(`${header}\n{"a":"\uFFFD"}\n`)).lossless).toBe(true);
    const invalid = Buffer.concat([Buffer.from(`${header}\n{"a":"`), Buffer.from([0xc3]), Buffer.from('"}\n')]);
    expect(decodeSession(invalid).lossless).toBe(false);
    const both = Buffer.concat([Buffer.from(`${header}\n{"a":"\uFFFD`), Buffer.from([0xff]), Buffer.from('"}\n')]);
    expect(decodeSession(both).lossless).toBe(false);
  });
});
