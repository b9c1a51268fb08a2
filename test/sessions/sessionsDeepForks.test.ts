/**
 * `sessions` on a deep chain of forks. `/resume` draws three columns of tree prefix per level and
 * cuts the line to the terminal's width, so a deep fork shows no title there; our listing keeps the
 * prefix to a few levels ("…(depth N)") so that every line stays bounded and shows its title.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundedPrefix } from "../../server/src/cli/sessions";
import { ensureBuilt } from "../helpers/lspClient";

const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
const DEPTH = 80;
let root: string;
let home: string;
let project: string;

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-deep-forks-")));
  home = join(root, "home");
  project = join(root, "p");
  mkdirSync(project, { recursive: true });
  const folder = join(home, ".pi", "agent", "sessions", `--${project.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(folder, { recursive: true });
  let parent: string | undefined;
  for (let i = 0; i <= DEPTH; i++) {
    const file = join(folder, `2026-01-01_${String(i).padStart(4, "0")}.jsonl`);
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const header = { type: "session", version: 3, id: `f${i}`, timestamp, cwd: project, ...(parent ? { parentSession: parent } : {}) };
    const message = { type: "message", id: "m1", parentId: null, timestamp, message: { role: "user", content: `fork ${i}` } };
    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
    parent = file;
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a deep chain of forks", () => {
  it("keeps every line bounded and every title shown", () => {
    const r = spawnSync(process.execPath, [BIN, "sessions", "--limit", "0"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", COLUMNS: "120" },
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(160);
    const deepest = lines.find((l) => l.startsWith(`f${DEPTH} `));
    expect(deepest).toContain(`…(depth ${DEPTH})`);
    expect(deepest).toContain(`└─ fork ${DEPTH}  forked from f${DEPTH - 1}`);
  });

  it("boundedPrefix leaves a shallow prefix alone", () => {
    expect(boundedPrefix("   │  └─ ", 3)).toBe("   │  └─ ");
    const deep = `${"   ".repeat(40)}└─ `;
    expect(boundedPrefix(deep, 41)).toBe(`…(depth 41) ${deep.slice(-12)}`);
    expect(boundedPrefix(deep, 41).length).toBe(24);
  });
});
