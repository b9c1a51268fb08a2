/**
 * Backups as a user meets them: one FILE.bak beside each session whatever the number of changes,
 * older ones moved out of Pi's folder (and pruned there), and `restore` putting back the last one,
 * undoable by a second `restore`. The built command on real files.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { historyStem, KEPT_PER_SESSION } from "../../server/src/cli/backups";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000002","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string | null, second = 1) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:0${second}.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

let root: string;
beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "pi-restore-"));
});

/** A session in a folder of its own, and a history folder of its own (so that listings are exact). */
function setUp(name: string, text: string) {
  const folder = mkdtempSync(join(root, `${name}-`));
  const file = join(folder, `${name}.jsonl`);
  writeFileSync(file, text);
  const history = join(folder, "..", `${basename(folder)}-history`);
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, PI_SESSION_LSP_BACKUP_DIR: history } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const beside = () => readdirSync(folder).sort();
  const kept = () => {
    try {
      return readdirSync(history)
        .map((n) => readFileSync(join(history, n), "utf8"))
        .sort();
    } catch {
      return [];
    }
  };
  return { file, folder, history, run, beside, kept };
}

// Each `--fix` mends one self-parent: three fixes, three states of the file.
const first = `${header}\n${user("a1", "a1")}\n`;

describe("backups beside a session", () => {
  it("stay one, FILE.bak, however many changes; the older ones go to the history folder", () => {
    const s = setUp("many", first);
    expect(s.run("check", "--fix", s.file).status).toBe(0);
    const fixed = readFileSync(s.file, "utf8");
    expect(fixed).toBe(`${header}\n${user("a1", null)}\n`);
    writeFileSync(s.file, `${fixed}${user("a2", "a2", 2)}\n`);
    const second = readFileSync(s.file, "utf8");
    const r = s.run("check", "--fix", s.file);
    expect(r.stdout).toContain(`; older backups were moved to ${s.history}`);
    expect(s.beside()).toEqual(["many.jsonl", "many.jsonl.bak"]);
    expect(readFileSync(`${s.file}.bak`, "utf8")).toBe(second);
    expect(s.kept()).toEqual([first]);
  });

  it("clears the numbered backups older versions left, but never a folder of that name", () => {
    const s = setUp("legacy", first);
    writeFileSync(`${s.file}.bak`, "zero");
    writeFileSync(`${s.file}.bak.1`, "one");
    writeFileSync(`${s.file}.bak.2`, "two");
    mkdirSync(`${s.file}.bak.3`);
    expect(s.run("check", "--fix", s.file).status).toBe(0);
    expect(s.beside()).toEqual(["legacy.jsonl", "legacy.jsonl.bak", "legacy.jsonl.bak.3"]);
    expect(readFileSync(`${s.file}.bak`, "utf8")).toBe(first);
    expect(s.kept()).toEqual(["one", "two", "zero"]);
  });

  it(`keeps the newest ${KEPT_PER_SESSION} of a session in the history folder`, () => {
    const s = setUp("pruned", first);
    mkdirSync(s.history, { recursive: true });
    // Older backups of this session, and one of another session, which is not counted.
    for (let n = 0; n < KEPT_PER_SESSION + 3; n++) {
      const path = join(s.history, `${historyStem(s.file)}.2026-01-0${1 + (n % 9)}T00-00-00-${String(n).padStart(3, "0")}Z.bak`);
      writeFileSync(path, `old ${n}`);
      utimesSync(path, 1_700_000_000 + n, 1_700_000_000 + n);
    }
    // Another session of the same name in another folder keeps its own.
    writeFileSync(join(s.history, `${historyStem(join(s.folder, "elsewhere", "pruned.jsonl"))}.2026-01-01T00-00-00-000Z.bak`), "other");
    writeFileSync(`${s.file}.bak`, "newest");
    expect(s.run("check", "--fix", s.file).status).toBe(0);
    const names = readdirSync(s.history);
    expect(names.filter((n) => n.startsWith(`${historyStem(s.file)}.`)).length).toBe(KEPT_PER_SESSION);
    expect(s.kept()).toContain("newest");
    expect(s.kept()).toContain("other");
    // The oldest went first.
    for (const n of [0, 1, 2, 3]) expect(s.kept()).not.toContain(`old ${n}`);
    expect(s.kept()).toContain(`old ${KEPT_PER_SESSION + 2}`);
  });

  it("are made the same way by resume-from, which says where the older ones went", () => {
    const s = setUp("resume", `${header}\n${user("a1", null)}\n${user("a2", "a1", 2)}\n`);
    writeFileSync(`${s.file}.bak`, "before");
    const r = s.run("resume-from", s.file, "a1");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`The file as it was: ${s.file}.bak; older backups were moved to ${s.history}`);
    expect(s.beside()).toEqual(["resume.jsonl", "resume.jsonl.bak"]);
    expect(s.kept()).toEqual(["before"]);
  });
});

describe("pi-session-lsp restore", () => {
  it("puts back the file before the last change, and a second restore undoes it", () => {
    const s = setUp("undo", first);
    s.run("check", "--fix", s.file);
    const fixed = readFileSync(s.file, "utf8");
    expect(fixed).not.toBe(first);
    const r = s.run("restore", s.file);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${literal(s.file)}: restored the file as it was at \\d{4}-\\d\\d-\\d\\dT[^;]+; what it held until now is ${literal(s.file)}\\.bak \\(restore again to undo\\)`,
      ),
    );
    expect(readFileSync(s.file, "utf8")).toBe(first);
    expect(readFileSync(`${s.file}.bak`, "utf8")).toBe(fixed);
    expect(s.run("restore", s.file).status).toBe(0);
    expect(readFileSync(s.file, "utf8")).toBe(fixed);
    expect(readFileSync(`${s.file}.bak`, "utf8")).toBe(first);
    // Never more than one backup beside it; the ones restored from are in the history folder.
    expect(s.beside()).toEqual(["undo.jsonl", "undo.jsonl.bak"]);
    expect(s.kept()).toEqual([first, fixed].sort());
  });

  it("with --dry-run says what it would restore and changes nothing", () => {
    const s = setUp("dry", first);
    s.run("check", "--fix", s.file);
    const fixed = readFileSync(s.file, "utf8");
    const r = s.run("restore", "--dry-run", s.file);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${literal(s.file)}: would restore ${literal(s.file)}\\.bak \\(${first.length} bytes, last written `));
    expect(readFileSync(s.file, "utf8")).toBe(fixed);
    expect(s.beside()).toEqual(["dry.jsonl", "dry.jsonl.bak"]);
  });

  it("without a backup, exits 2 and says where older ones would be", () => {
    const s = setUp("none", first);
    const r = s.run("restore", s.file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `pi-session-lsp restore: no backup to restore beside ${s.file} (${s.file}.bak: there is none); older backups, if any, are in ${s.history}\n`,
    );
    expect(readFileSync(s.file, "utf8")).toBe(first);
  });

  it("refuses when the file was written after its backup was made (Pi's new entries), unless --force", () => {
    const s = setUp("later", first);
    s.run("check", "--fix", s.file);
    // Pi appends an entry a minute later.
    const appended = `${readFileSync(s.file, "utf8")}${user("a2", "a1", 2)}\n`;
    writeFileSync(s.file, appended);
    const later = new Date(Date.now() + 60_000);
    utimesSync(s.file, later, later);
    const r = s.run("restore", s.file);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/after its backup was made .*: restoring would take out what was written since .*; run with --force/);
    expect(readFileSync(s.file, "utf8")).toBe(appended);
    expect(s.run("restore", "--force", s.file).status).toBe(0);
    expect(readFileSync(s.file, "utf8")).toBe(first);
    expect(readFileSync(`${s.file}.bak`, "utf8")).toBe(appended);
  });

  it("refuses when the file already holds the backup's text", () => {
    const s = setUp("same", first);
    writeFileSync(`${s.file}.bak`, first);
    const r = s.run("restore", s.file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("nothing to restore");
    expect(s.beside()).toEqual(["same.jsonl", "same.jsonl.bak"]);
  });

  it("is listed by --help and has its own", () => {
    const s = setUp("help", first);
    expect(s.run("--help").stdout).toMatch(/^ {2}restore FILE\|ID +put back FILE.bak/m);
    const own = s.run("restore", "--help");
    expect(own.status).toBe(0);
    expect(own.stdout).toContain("Usage: pi-session-lsp restore [--dry-run] [--force] [--session-dir DIR] FILE");
    expect(dirname(s.file)).toBe(s.folder);
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
