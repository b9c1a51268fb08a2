/**
 * `tree` and `info` against the real Pi: for every session of the fake home and every file of the
 * parity corpus, the rows of Pi 1.6's `/tree` (its TreeSelectorComponent rendered headless, for
 * each filter mode) and Pi's `/session` totals (`AgentSession#getSessionStats`, 1.6.0 and 0.74.2,
 * and 1.6's `getUsageCostBreakdown`), recorded by oracle.mjs in expected/files.*.json.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILTER_MODES, statusLine } from "../../server/src/core/disk/tree";
import { StatsCollector } from "../../server/src/core/disk/stats";
import { piRowLine, treeReport } from "../../server/src/cli/tree";
import { readSkeleton } from "../../server/src/io/skeletonReader";
import { ensureBuilt } from "../helpers/lspClient";
import type { FakeHome } from "./fakeHome.mjs" with { "resolution-mode": "import" };

const PARITY = join(__dirname, "../parity/fixtures");
const BIN = join(__dirname, "../../bin/pi-session-lsp.js");
const recorded = (short: string) => JSON.parse(readFileSync(join(__dirname, "expected", `files.${short}.json`), "utf8")) as Record<string, Recorded>;

interface Recorded {
  threw?: string;
  hung?: boolean;
  leafId?: string;
  rows?: Record<string, string[] | { threw?: string; hung?: boolean }>;
  stats?: Record<string, unknown>;
  usageBreakdown?: unknown;
}

let root: string;
let home: FakeHome;

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-tree-test-")));
  const { buildFakeHome } = await import("./fakeHome.mjs");
  home = buildFakeHome(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function fileOf(name: string): string {
  if (name.startsWith("fake-")) return home.written[name.slice(5) as keyof FakeHome["written"]].path;
  return join(PARITY, `${name}.jsonl`);
}

/** Pi's rows of `/tree` for a filter mode, as our tree command lays them out. */
function ourRows(file: string, filter: (typeof FILTER_MODES)[number]): string[] {
  const r = treeReport(file, "1.x", { filter, all: true, home: home.home });
  if (r.view.rows.length === 0) return ["  No entries found", statusLine(r.view)];
  return [...r.view.rows.map((_, i) => piRowLine(r.printed.get(i)!)), statusLine(r.view)];
}

const names = Object.keys(recorded("16"));

describe("tree: Pi 1.6's /tree row for row", () => {
  it("covers the fake home and the whole parity corpus", () => {
    expect(names.filter((n) => n.startsWith("fake-")).length).toBeGreaterThanOrEqual(10);
    // A fixture added to the corpus needs `node test/sessions/oracle.mjs --only files` to be recorded.
    const corpus = readdirSync(PARITY)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));
    for (const short of ["16", "074"]) expect(corpus.filter((f) => !(f in recorded(short)))).toEqual([]);
  });
  for (const name of names) {
    it(name, () => {
      const want = recorded("16")[name]!;
      const file = fileOf(name);
      if (want.threw || want.hung || !want.rows) {
        // Pi refuses the file or never returns its tree: we say so instead of drawing one.
        const r = treeReport(file, "1.x", { all: true, home: home.home });
        expect(r.sk.load !== "ok" || r.view.hangs !== undefined || r.rowThrows !== undefined, `${name}: Pi ${want.threw ?? "hangs"}`).toBe(true);
        return;
      }
      for (const mode of FILTER_MODES) {
        const rows = want.rows[mode]!;
        if (!Array.isArray(rows)) {
          const r = treeReport(file, "1.x", { filter: mode, all: true, home: home.home });
          expect(r.view.hangs ?? r.view.throws ?? r.rowThrows, `${name} ${mode}: Pi ${JSON.stringify(rows)}`).toBeDefined();
          continue;
        }
        expect(ourRows(file, mode), `${name}, filter ${mode}`).toEqual(rows);
      }
    });
  }
});

for (const [version, short] of [
  ["1.x", "16"],
  ["0.74", "074"],
] as const) {
  describe(`info: Pi ${version}'s /session totals`, () => {
    for (const name of Object.keys(recorded(short))) {
      it(name, () => {
        const want = recorded(short)[name]!;
        if (want.threw || want.hung || !want.stats) return expect(want.threw ?? want.hung ?? "no stats").toBeTruthy();
        const collector = new StatsCollector(version);
        const sk = readSkeleton(fileOf(name), version, [collector.observe]);
        const report = collector.finish(sk);
        if (sk.load !== "ok") {
          // Pi starts a new, empty session in place of this file (with a random id): nothing to total.
          expect(want.stats).toMatchObject({ totalMessages: 0, cost: 0 });
          expect(report.piStats).toBeUndefined();
          return;
        }
        if ("threw" in want.stats) {
          expect(report.piStats && "throws" in report.piStats ? report.piStats.throws : "no error", name).toBe(want.stats.threw);
          return;
        }
        expect(report.piStats).toEqual(want.stats);
        if (version === "1.x") expect(report.usageBreakdown).toEqual(want.usageBreakdown);
      });
    }
  });
}

describe("tree and info on the command line", () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", HOME: home.home, TZ: "UTC" }, encoding: "utf8" });

  it("tree prints Pi's rows under a one-line summary, with the selected row marked", () => {
    const r = run("tree", home.written.a1.path);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("Session 019d1a00-0000-7000-8000-00000000a001: 17 entries, leaf a0010017; /tree filter default, 10 rows");
    expect(lines[1]).toMatch(/^Each row starts with its entry's id/);
    expect(lines[3]).toBe("");
    // Each row is its entry's id, then Pi's row as Pi draws it; the leaf's row ends with a mark,
    // and Pi's status line with what it counts.
    const rows = lines.slice(4, -1);
    const pis = rows.map((line) => line.slice(9).replace(/ {2}← leaf$/, ""));
    const status = lines.at(-1)!.replace(/ {2}\(Pi's status: .*\)$/, "");
    expect([...pis, status]).toEqual(recorded("16")["fake-a1"]!.rows!.default);
    for (const line of rows) expect(line.slice(0, 9)).toMatch(/^a00100\d\d $/);
    // The leaf, a0010017, is a bookkeeping entry the default filter hides: no row is marked, and the
    // status line says why the selected row is another.
    expect(rows.filter((line) => line.endsWith("  ← leaf"))).toEqual([]);
    expect(lines.at(-1)).toBe(
      "  (7/10)  (Pi's status: › is row 7 of the 10 rows filter default shows, of 17 entries; filter default hides the leaf, so › marks its nearest shown ancestor)",
    );
    const all = run("tree", "--filter", "all", home.written.a1.path).stdout.trimEnd().split("\n");
    expect(all.filter((line) => line.endsWith("  ← leaf"))).toEqual([expect.stringMatching(/^a0010017 › /)]);
  });

  it("info --json carries Pi's totals and the lineage of a fork", () => {
    const r = run("info", "--json", home.written.a2.path);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.piStats).toEqual(recorded("16")["fake-a2"]!.stats);
    expect(doc.lineage).toEqual([{ path: home.written.a1.path, exists: true, id: home.written.a1.id, cwd: home.projects.alpha }]);
    expect(doc.toolCalls).toEqual([
      { name: "read", calls: 1 },
      { name: "bash", calls: 1 },
      { name: "edit", calls: 1 },
    ]);
    expect(doc.files).toEqual({ read: ["test/login.test.ts"], changed: ["test/login.test.ts"], more: 0 });
  });

  it("info names a moved project and where Pi now looks", () => {
    const r = run("info", home.written.g1.path);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Moved\? +.*old\/gamma no longer exists/);
  });

  it("info shows the compaction and Pi 1.x's usage entries in the totals", () => {
    const doc = JSON.parse(run("info", "--json", home.written.a3.path).stdout);
    expect(doc.compactionCount).toBe(1);
    expect(doc.compactions[0].tokensBefore).toBe(48210);
    expect(doc.byType.usage).toBe(1);
    expect(doc.files.read).toEqual(["src/cli.ts", "src/args.ts"]);
    expect(doc.files.changed).toEqual(["src/verbose.ts"]);
  });
});
