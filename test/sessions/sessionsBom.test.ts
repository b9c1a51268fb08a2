/**
 * Why Pi 1.6's list leaves out a session file that starts with a byte order mark. `buildSessionInfo`
 * reads lines with `readline` and `JSON.parse`s each as it is (core/session-manager.js:314, 516-521),
 * so the mark makes the header line unparsable and skipped: the file is dropped for having no header
 * first (checked by hand: Pi 1.6.0's SessionManager.list leaves both files below out). The reason
 * given names the mark, which cannot be seen in an editor, instead of "it has no entries".
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

function omitted(pi: string): { path: string; reason: string }[] {
  const r = spawnSync(process.execPath, [BIN, "sessions", "--json", "--pi", pi], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" },
    encoding: "utf8",
  });
  return JSON.parse(r.stdout).omitted;
}

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-sessions-bom-")));
  home = join(root, "home");
  project = join(root, "p");
  mkdirSync(project, { recursive: true });
  const folder = join(home, ".pi", "agent", "sessions", `--${project.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(folder, { recursive: true });
  const header = JSON.stringify({ type: "session", version: 3, id: "b1", timestamp: "2026-01-01T00:00:00.000Z", cwd: project });
  const message = JSON.stringify({
    type: "message",
    id: "m1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: "hi" },
  });
  writeFileSync(join(folder, "header-only.jsonl"), `\uFEFF${header}\n`);
  writeFileSync(join(folder, "with-message.jsonl"), `\uFEFF${header}\n${message}\n`);
  writeFileSync(join(folder, "garbage.jsonl"), "garbage\n");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a byte order mark before the header", () => {
  it("is named as the reason Pi 1.x leaves the file out", () => {
    const reasons = Object.fromEntries(omitted("1.x").map((o) => [o.path.slice(o.path.lastIndexOf("/") + 1), o.reason]));
    expect(reasons["header-only.jsonl"]).toBe(
      "no line of it parses as JSON; the file starts with a byte order mark (U+FEFF), which makes Pi skip the header line as unparsable",
    );
    expect(reasons["with-message.jsonl"]).toBe(
      "its first entry is not a session header; the file starts with a byte order mark (U+FEFF), which makes Pi skip the header line as unparsable",
    );
    expect(reasons["garbage.jsonl"]).toBe("no line of it parses as JSON");
  });

  it("is not blamed under Pi 0.74's rules, which trim the text first", () => {
    expect(
      omitted("0.74")
        .map((o) => o.reason)
        .join("\n"),
    ).not.toContain("byte order mark");
  });
});
