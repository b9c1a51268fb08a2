/**
 * `diff FILE LEAF_A [LEAF_B]` on the branches of sessions the real Pi 1.6 wrote (the parity
 * corpus), on a generated session whose branches read different files, and on hostile input. The
 * expected values are worked out from the files themselves (the lines each branch holds, their
 * usage), not copied from the command's output.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDiff } from "../../server/src/cli/diff";
import type { BranchDiff } from "../../server/src/features/api/diff";

const fixture = (name: string) => join(__dirname, "../parity/fixtures", `${name}.jsonl`);
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pi-diff-"));
});

function run(...args: string[]) {
  let out = "";
  let err = "";
  const status = runDiff(args, { out: (t) => (out += t), err: (t) => (err += t), cwd: root }) as number;
  return { status, out, err };
}

function json(...args: string[]): BranchDiff {
  const r = run("--json", ...args);
  expect(r.status, r.err).toBe(0);
  return JSON.parse(r.out) as BranchDiff;
}

/** The lines (1-based) of a fixture by id, and each line's parsed value. */
function linesOf(name: string) {
  return readFileSync(fixture(name), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id?: string; message?: { role?: string; usage?: { cost?: { total?: number } } } });
}

describe("diff on the branches Pi 1.6 wrote", () => {
  it("finds where two branches part, the messages only each has, and what each branch cost", () => {
    const d = json(fixture("written-16-branches"), "2ee8");
    expect(d.ancestor).toEqual({ id: "70035268", line: 2, type: "message" });
    expect(d.a.leaf.id).toBe("2ee82633");
    expect(d.b.leaf.id).toBe("01597670");
    // A's path after the shared user message: 7ce62d48, acb255e2, fea926d3, 88aaf919 (an empty
    // branch summary, which sends nothing), 0dce061d, 2ee82633.
    expect(d.a.branchEntries).toBe(6);
    expect(d.a.only.map((m) => m.id)).toEqual(["7ce62d48", "acb255e2", "fea926d3", "0dce061d", "2ee82633"]);
    expect(d.b.only.map((m) => m.id)).toEqual(["01597670"]);
    expect(d.shared).toBe(1);
    const lines = linesOf("written-16-branches");
    const costOf = (ids: string[]) =>
      lines.filter((l) => l.id && ids.includes(l.id) && l.message?.role === "assistant").reduce((sum, l) => sum + (l.message?.usage?.cost?.total ?? 0), 0);
    expect(d.a.cost).toBeCloseTo(costOf(["7ce62d48", "fea926d3", "2ee82633"]), 10);
    expect(d.a.assistantMessages).toBe(3);
    expect(d.b.cost).toBeCloseTo(costOf(["01597670"]), 10);
    expect(d.a.onlyTokens).toBe(d.a.only.reduce((sum, m) => sum + m.tokens, 0));
  });

  it("counts a branch summary as the message only its side has", () => {
    const d = json(fixture("written-16-branches"), "2ee8", "45c2");
    expect(d.ancestor?.id).toBe("7ce62d48");
    expect(d.b.only.map((m) => [m.id, m.role])).toEqual([
      ["0aede2f1", "branchSummary"],
      ["59340dfd", "user"],
      ["45c249d1", "assistant"],
    ]);
  });

  it("with one leaf on the other's path: the ancestor is that leaf, and it has nothing of its own", () => {
    const d = json(fixture("written-16-branches"), "7ce6", "2ee8");
    expect(d.ancestor?.id).toBe("7ce62d48");
    expect(d.a.onlyCount).toBe(0);
    expect(d.a.branchEntries).toBe(0);
    expect(d.b.onlyCount).toBe(4);
  });

  it("follows Pi 0.74's rules with --pi 0.74: a context edit changes nothing there", () => {
    const modern = json(fixture("written-16-context-edit"), "f8b5");
    const classic = json("--pi", "0.74", fixture("written-16-context-edit"), "f8b5");
    expect(classic.ancestor).toEqual(modern.ancestor);
    // Pi 1.x applies the context edit on the resumed branch (it drops a message there); 0.74 ignores it.
    expect(classic.b.contextMessages).toBe(modern.b.contextMessages + 1);
  });

  it("the same leaf twice: every message shared", () => {
    const d = json(fixture("written-16-branches"), "0159");
    expect(d.a.onlyCount + d.b.onlyCount).toBe(0);
    expect(d.shared).toBe(d.a.contextMessages);
  });

  it("behind a compaction: the messages it summarised are the earlier leaf's alone, the summary the later one's", () => {
    const d = json(fixture("written-16-compaction"), "0bc6");
    expect(d.ancestor?.id).toBe("0bc69f73");
    expect(d.a.only.map((m) => m.id)).toContain("27a32afe");
    expect(d.b.only.some((m) => m.role === "compactionSummary")).toBe(true);
    expect(d.shared + d.a.onlyCount).toBe(d.a.contextMessages);
    expect(d.shared + d.b.onlyCount).toBe(d.b.contextMessages);
  });
});

describe("diff of tools and files", () => {
  it("lists the tools each branch called and the files it read", async () => {
    const { imageSession } = await import("../helpers/imageSessions.mjs");
    const text = imageSession({ turns: 2, branchEvery: 2, compactAt: 0, imageBytes: 100, outputBytes: 100 });
    const file = join(root, "tools.jsonl");
    writeFileSync(file, text);
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; message?: { role?: string } });
    // The side branch's last entry: the last line before the closing message whose parent is not on the main path.
    const sideLeaf = lines.at(-2)!.id;
    const d = json(file, sideLeaf);
    expect(d.a.tools).toEqual([{ name: "read", calls: 2 }]);
    expect(d.a.filesRead).toEqual(["src/file120.ts", "src/file220.ts"]);
    expect(d.b.filesRead).toEqual(["src/file20.ts"]);
    expect(d.a.filesChanged).toEqual([]);
  });
});

describe("diff on bad input", () => {
  const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-00000000000d","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
  const user = (id: string, parent: string | null, text: string) =>
    JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-03-02T10:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });

  it("escapes what the session says, in text", () => {
    const file = join(root, "escape.jsonl");
    writeFileSync(file, `${header}\n${user("r", null, "root")}\n${user("x", "r", "\u001b[2J\u202eevil")}\n${user("y", "r", "other")}\n`);
    const r = run(file, "x");
    expect(r.status).toBe(0);
    expect(r.out).not.toMatch(/[\u001b\u202e]/);
    expect(r.out).toContain("\\u202eevil");
  });

  it("refuses an unknown or ambiguous entry with exit status 2, and a cycle with 1", () => {
    const file = join(root, "bad.jsonl");
    writeFileSync(file, `${header}\n${user("ab1", null, "a")}\n${user("ab2", "ab1", "b")}\n${user("c1", "c2", "c")}\n${user("c2", "c1", "d")}\n`);
    expect(run(file, "zz").status).toBe(2);
    expect(run(file, "ab").err).toMatch(/2 entries have ids starting with/);
    const cycle = run(file, "ab2");
    expect(cycle.status).toBe(1);
    expect(cycle.err).toMatch(/parent cycle/);
    expect(run(file).status).toBe(2);
    expect(run(join(root, "missing.jsonl"), "a").status).toBe(2);
  });

  it("answers every seeded hostile session with a status, never an exception", async () => {
    const { makeGen, seeded } = await import("../helpers/hostile.mjs");
    for (let seed = 1; seed <= 15; seed++) {
      const file = join(root, `hostile-${seed}.jsonl`);
      writeFileSync(file, makeGen(seeded(seed)).session({ entries: 40 }));
      for (const args of [
        [file, "e"],
        ["--json", file, "0"],
        [file, "a", "b"],
      ])
        expect([0, 1, 2]).toContain(run(...args).status);
    }
  });
});
