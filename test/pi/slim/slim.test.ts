/**
 * `slim` against the real Pi 1.6: on several sessions (generated image-heavy ones with branches and
 * compactions, and sessions Pi wrote made heavy), Pi's own `SessionManager` builds the same context
 * from the slimmed file as from the original, keeps every entry and id, and draws the same tree.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { slimSession } from "../../../server/src/cli/slimRun";
import { pi16 } from "../pi16";
import { heavy } from "../../helpers/heavySession";

const corpus = join(__dirname, "../../parity/fixtures");
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pi-slim-real-"));
  process.env.PI_SESSION_LSP_BACKUP_DIR = join(root, "history");
});

/** What the real Pi 1.6 makes of each file. */
function piOpens(files: string[]): { context: unknown; ids: unknown[]; nodes: number }[] {
  const pi = pi16();
  const home = mkdtempSync(join(tmpdir(), "pi-slim-home-"));
  const out = execFileSync(pi.node, [join(__dirname, "piContext.mjs"), pi.packageDir, ...files], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") },
  });
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { context: unknown; ids: unknown[]; nodes: number });
}

it("Pi 1.6 builds the same context, entries and tree from each slimmed session as from its original", async () => {
  const { imageSession } = await import("../../helpers/imageSessions.mjs");
  const sessions: [string, string][] = [
    ["generated-branches-compaction", imageSession({ turns: 6, branchEvery: 2, compactAt: 4 })],
    ["generated-branches-only", imageSession({ turns: 5, branchEvery: 1, compactAt: 0 })],
    ["generated-late-compaction", imageSession({ turns: 8, branchEvery: 3, compactAt: 7, imageBytes: 60_000 })],
    ...["written-16-branches", "written-16-compaction", "written-16-context-edit", "written-16-branched-session"].map(
      (name) => [`heavy-${name}`, heavy(readFileSync(join(corpus, `${name}.jsonl`), "utf8"), { imageChars: 12_000, outputChars: 9000 })] as [string, string],
    ),
  ];
  const pairs: string[] = [];
  let slimmed = 0;
  for (const [name, text] of sessions) {
    const file = join(root, `${name}.jsonl`);
    writeFileSync(file, text);
    const out = join(root, `${name}.slim.jsonl`);
    const outcome = slimSession(file, { out, minBytes: 4096 });
    expect(["slimmed", "nothing"], name).toContain(outcome.status);
    if (outcome.status !== "slimmed") continue;
    slimmed++;
    expect(readFileSync(out).length, name).toBeLessThan(text.length);
    pairs.push(file, out);
  }
  expect(slimmed).toBeGreaterThanOrEqual(5);
  const opened = piOpens(pairs);
  for (let k = 0; k < opened.length; k += 2) {
    const [before, after] = [opened[k]!, opened[k + 1]!];
    expect(JSON.stringify(after.context), pairs[k]).toBe(JSON.stringify(before.context));
    expect(after.ids, pairs[k]).toEqual(before.ids);
    expect(after.nodes, pairs[k]).toBe(before.nodes);
  }
});
