/**
 * `findSessions` in this thread, on a folder where one session's id starts with the argument and two
 * newer ones hold it further in: an id prefix is matched from the start (`startsWith`), as Pi's
 * `resolveSessionPath` does, never as a substring. Headers are read first, and in full only the
 * files whose header id starts with the argument (the pre-filter) or whose header cannot be read
 * the quick way: a byte order mark, which Pi 0.74 strips, so that file is listed and the canonical
 * rule (`sessionResolve.ts`, the candidates) decides alone. test/sessions/find.test.ts checks
 * `find` against the real Pi, in a child process.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSessions } from "../../server/src/io/sessionFind";
import { assistant, sessionInfo, user } from "../helpers/piLines";

let root: string;
let cwd: string;
let dir: string;
const PREFIXED = "0a11ce00-0000-7000-8000-000000000001";
const INSIDE = "0b0b0b00-0a11ce00-7000-8000-000000000002";
const INSIDE_BOM = "0c0c0c00-0a11ce00-7000-8000-000000000003";

function writeSession(name: string, id: string, second: number, bom = "", title?: string): string {
  const header = `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T10:00:00.001Z","cwd":${JSON.stringify(cwd)}}`;
  const file = join(dir, name);
  writeFileSync(
    file,
    `${bom}${[header, user(`u${second}`, null, "Hi.", second), assistant(`a${second}`, `u${second}`, "Hello.", second + 1), ...(title === undefined ? [] : [sessionInfo(`n${second}`, `a${second}`, title, second + 2)])].join("\n")}\n`,
  );
  const at = new Date(Date.parse("2026-03-02T10:00:00.000Z") + second * 1000);
  utimesSync(file, at, at);
  return file;
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-find-")));
  cwd = join(root, "project");
  dir = join(root, "sessions");
  mkdirSync(cwd);
  mkdirSync(dir);
  writeSession("2026-03-02T10-00-00-001Z_prefixed.jsonl", PREFIXED, 10, "", "  Grow math.ts \t");
  // Newer, so that a substring match would both list it and open it.
  writeSession("2026-03-02T10-00-00-002Z_inside.jsonl", INSIDE, 500);
  writeSession("2026-03-02T10-00-00-003Z_inside-bom.jsonl", INSIDE_BOM, 900, "\uFEFF");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("findSessions matches an id prefix from the start", () => {
  for (const version of ["1.x", "0.74"] as const) {
    it(`Pi ${version}: only the session whose id starts with the argument is a candidate, and it opens`, async () => {
      const found = await findSessions({ version, arg: "0a11ce00", cwd, home: root, env: {}, sessionDir: dir, text: "never", pool: { threads: 0 } });
      expect(found.candidates.map((c) => c.session.info.id)).toEqual([PREFIXED]);
      expect(found.opens?.info.id).toBe(PREFIXED);
      // Its name as Pi's list reads it: `name?.trim() || undefined`.
      expect(found.opens?.info.name).toBe("Grow math.ts");
      // In full: the prefixed session, and for 0.74 the one whose header has a byte order mark
      // (Pi 1.x cannot open it); of the other, the header only.
      expect(found.read).toEqual({ full: version === "1.x" ? 1 : 2, files: 3 });
    });
  }
});
