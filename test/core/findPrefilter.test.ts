/**
 * `find`'s pre-filter: of the files whose header it reads, it reads in full only those whose id
 * starts with the argument (`idMatches`, the rule `pi --session ARG` matches by), because reading
 * every file in full costs a whole scan of each. A wrong pre-filter (an id that merely contains
 * the argument) gives the same answer and reads more, so this test counts the files read.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSessions } from "../../server/src/io/sessionFind";

let root: string;
let sessionDir: string;
let cwd: string;

function session(name: string, id: string, minute: number): void {
  const time = `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;
  const header = { type: "session", version: 3, id, timestamp: time, cwd };
  const message = { type: "message", id: `m-${id}`, parentId: null, timestamp: time, message: { role: "user", content: `hello ${id}`, timestamp: 0 } };
  writeFileSync(join(sessionDir, name), `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-prefilter-")));
  cwd = join(root, "project");
  sessionDir = join(root, "sessions");
  mkdirSync(cwd);
  mkdirSync(sessionDir);
  mkdirSync(join(root, "home"));
  session("a.jsonl", "abc-one", 1);
  session("b.jsonl", "abc-two", 2);
  session("c.jsonl", "x-abc-three", 3);
  session("d.jsonl", "zzz-four", 4);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const find = (version: "1.x" | "0.74", arg: string) =>
  findSessions({ version, arg, cwd, sessionDir, home: join(root, "home"), env: {}, text: "never", pool: { threads: 1 } });

describe("find reads in full only the files whose header id starts with the argument", () => {
  for (const version of ["1.x", "0.74"] as const) {
    it(`Pi ${version}: a prefix of two ids, inside a third`, async () => {
      const r = await find(version, "abc");
      expect(r.read).toEqual({ full: 2, files: 4 });
      expect(r.candidates.map((c) => c.session.info.id).sort()).toEqual(["abc-one", "abc-two"]);
    });

    it(`Pi ${version}: an argument inside an id but at the start of none`, async () => {
      const r = await find(version, "three");
      expect(r.read).toEqual({ full: 0, files: 4 });
      expect(r.candidates).toEqual([]);
      expect(r.resolution.kind).toBe("not-found");
    });
  }
});
