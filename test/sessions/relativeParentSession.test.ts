/**
 * A relative `parentSession` in a header is keyed, in `/resume`'s threaded view, against Pi's own
 * cwd: both versions' `buildSessionTree` (modes/interactive/components/session-selector.js) key it
 * with `canonicalizePath`, `realpathSync` of the value as it is, which Node reads against the
 * process cwd. `--cwd DIR` stands for `cd DIR && pi`, so the fork sits under its parent when the
 * path names the parent from DIR, whatever this process's cwd is; it was keyed against this
 * process's cwd, and the fork was listed as a root whose parent is missing.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt } from "../helpers/lspClient";

let root: string;
let project: string;
const PARENT = "019cae1a-4f00-7000-8000-000000000001";
const FORK = "019cae1a-4f00-7000-8000-000000000002";

function session(id: string, text: string, extra: Record<string, unknown> = {}): string {
  const header = JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-02T10:00:00.000Z", cwd: project, ...extra });
  const user = JSON.stringify({
    type: "message",
    id: "a0000002",
    parentId: null,
    timestamp: "2026-03-02T10:00:02.000Z",
    message: { role: "user", content: text, timestamp: 1772445602000 },
  });
  return `${header}\n${user}\n`;
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-relative-parent-")));
  project = join(root, "project");
  mkdirSync(join(project, "s"), { recursive: true });
  mkdirSync(join(root, "elsewhere"));
  mkdirSync(join(root, "home"));
  writeFileSync(join(project, "s", "p.jsonl"), session(PARENT, "parent message"));
  writeFileSync(join(project, "s", "f.jsonl"), session(FORK, "fork message", { parentSession: "s/p.jsonl" }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a relative parentSession", () => {
  for (const pi of ["1.x", "0.74"]) {
    it(`threads the fork under the parent it names from --cwd (Pi ${pi})`, () => {
      const r = spawnSync(process.execPath, [BIN, "sessions", "--pi", pi, "--cwd", project, "--session-dir", join(project, "s")], {
        cwd: join(root, "elsewhere"),
        env: { PATH: process.env.PATH ?? "", HOME: join(root, "home") },
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
      const fork = r.stdout.split("\n").find((l) => l.includes("fork message"));
      expect(fork, r.stdout).toBeDefined();
      expect(fork).toContain("└─ fork message");
      expect(fork).toContain(`forked from ${PARENT.slice(0, 8)}`);
      expect(fork).not.toContain("missing");
    });
  }
});
