/**
 * `sessions` names the origin of a fork whose parent file is not in the list (another project's
 * folder) by the parent's id and folder: "forked from parent00 in ~/other", with its space.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
let root: string;
let home: string;
let project: string;

const folderOf = (cwd: string) => join(home, ".pi", "agent", "sessions", `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-forked-from-")));
  home = join(root, "home");
  project = join(root, "p");
  const other = join(home, "other");
  mkdirSync(project, { recursive: true });
  mkdirSync(folderOf(project), { recursive: true });
  mkdirSync(folderOf(other), { recursive: true });
  const timestamp = "2026-01-01T00:00:00.000Z";
  const message = JSON.stringify({ type: "message", id: "m1", parentId: null, timestamp, message: { role: "user", content: "the fork" } });
  const parent = join(folderOf(other), "parent.jsonl");
  writeFileSync(parent, `${JSON.stringify({ type: "session", version: 3, id: "parent00-0000", timestamp, cwd: other })}\n`);
  const header = { type: "session", version: 3, id: "child000", timestamp, cwd: project, parentSession: parent };
  writeFileSync(join(folderOf(project), "child.jsonl"), `${JSON.stringify(header)}\n${message}\n`);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a fork whose parent is another project's", () => {
  it("names the parent's id, then a space, then its folder", () => {
    const r = spawnSync(process.execPath, [BIN, "sessions"], { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" }, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/the fork {2}forked from parent00 in ~\/other\n/);
  });
});
