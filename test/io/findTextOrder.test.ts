/**
 * `find TEXT` lists the sessions folders without a `stat` per file and takes each file's time from
 * the descriptor its scan opens (`io/sessionFind.ts`); Pi 1.x's `listAll` orders the files by that
 * time, then by name, before `/resume` sorts the matches by score and `modified`, so files that tie
 * on both keep the listing's order. Here every session matches with the same score and `modified`,
 * and the files' times order them differently from their names (with two equal times, which the
 * name decides): the answer must be the order of the listing that stats, as `sessions --all` reads
 * it, which is Pi's.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSessions } from "../../server/src/io/sessionFind";
import { listSessions } from "../../server/src/io/sessionQuery";
import { assistant, user } from "../helpers/piLines";

let home: string;
/** Each file's project folder, name and time (seconds after 10:00), listed in no particular order. */
const FILES = [
  ["--work-a--", "2026-03-02T10-00-00-001Z_a1.jsonl", 30],
  ["--work-a--", "2026-03-02T10-00-00-002Z_a2.jsonl", 10],
  ["--work-b--", "2026-03-02T10-00-00-003Z_b1.jsonl", 20],
  ["--work-b--", "2026-03-02T10-00-00-004Z_b2.jsonl", 20],
  ["--work-c--", "2026-03-02T10-00-00-000Z_c1.jsonl", 40],
] as const;

beforeAll(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), "pi-find-order-")));
  for (const [n, [project, name, second]] of FILES.entries()) {
    const dir = join(home, ".pi", "agent", "sessions", project);
    mkdirSync(dir, { recursive: true });
    const id = `0000000${n}-0000-7000-8000-000000000000`;
    const header = `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T10:00:00.001Z","cwd":"/work/${project}"}`;
    const file = join(dir, name);
    // The same messages at the same times: the same score and `modified` in every session.
    writeFileSync(file, `${[header, user("u1", null, "The flaky cookie again.", 5), assistant("a1", "u1", "Looking.", 6)].join("\n")}\n`);
    const at = new Date(Date.parse("2026-03-02T10:00:00.000Z") + second * 1000);
    utimesSync(file, at, at);
  }
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("find TEXT's order without a stat per file", () => {
  for (const version of ["1.x", "0.74"] as const) {
    it(`Pi ${version}: matches that tie keep the order of the listing that stats`, async () => {
      const request = { version, cwd: home, home, env: {}, pool: { threads: 0 } };
      const found = await findSessions({ ...request, arg: '"flaky cookie"', text: "always" });
      const listed = await listSessions({ ...request, scope: "all", query: '"flaky cookie"' });
      const expected = listed.sessions.filter((s) => s.search).sort((a, b) => a.search!.score - b.search!.score || b.info.modified - a.info.modified);
      expect(found.text?.map((s) => s.info.path)).toEqual(expected.map((s) => s.info.path));
      expect(found.text).toHaveLength(FILES.length);
      if (version === "1.x") {
        // Newest file first, and of the two equal times the name that sorts last.
        const names = found.text!.map((s) => s.info.path.slice(s.info.path.lastIndexOf("_") + 1));
        expect(names).toEqual(["c1.jsonl", "a1.jsonl", "b2.jsonl", "b1.jsonl", "a2.jsonl"]);
      }
    });
  }
});
