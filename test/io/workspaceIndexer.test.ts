/**
 * The editor's index walks folders that come from someone else's machine (`io/workspaceIndexer.ts`):
 * a link back to a folder already read must not list its sessions again, and a loop of links must
 * not keep the walk going; the index lists each session once and the walk ends.
 */

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexSessions, jsonlFiles } from "../../server/src/io/workspaceIndexer";

const session = (n: number) =>
  `{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-${String(n).padStart(12, "0")}","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/p${n}"}\n` +
  `{"type":"message","id":"a${n}","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"task ${n}","timestamp":1772445601000}}\n`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-index-links-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the workspace index and links to folders", () => {
  it("lists a session once beside a `self -> .` link", async () => {
    writeFileSync(join(dir, "a.jsonl"), session(1));
    symlinkSync(".", join(dir, "self"));
    expect(await jsonlFiles(dir, 12, 20_000)).toEqual([join(dir, "a.jsonl")]);
  });

  it("ends on self-links and a loop, listing each session once", async () => {
    writeFileSync(join(dir, "a.jsonl"), session(1));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "b.jsonl"), session(2));
    symlinkSync("..", join(dir, "sub", "up"));
    // A folder without sessions and six links to itself: 6^11 paths if links were followed.
    mkdirSync(join(dir, "empty"));
    for (let i = 0; i < 6; i++) symlinkSync(".", join(dir, "empty", `self${i}`));
    for (let i = 0; i < 3; i++) symlinkSync(".", join(dir, `self${i}`));
    const built = await indexSessions({ roots: [dir], pool: { threads: 1 } });
    expect([...built.byPath.keys()].sort()).toEqual([join(dir, "a.jsonl"), join(dir, "sub", "b.jsonl")]);
    expect(built.sessions).toBe(2);
    expect(built.cut).toBe(0);
  });

  it("follows a link to a project folder in Pi's sessions folder, reading each real folder once", async () => {
    const sessions = join(dir, "sessions");
    const real = join(dir, "real");
    mkdirSync(sessions);
    mkdirSync(real);
    writeFileSync(join(real, "c.jsonl"), session(3));
    symlinkSync(real, join(sessions, "--proj--"));
    symlinkSync(real, join(sessions, "--again--"));
    symlinkSync(".", join(sessions, "self"));
    const files = await jsonlFiles(sessions, 2, 20_000, true);
    expect(files).toHaveLength(1);
    expect(files[0]!.endsWith("c.jsonl")).toBe(true);
  });
});
