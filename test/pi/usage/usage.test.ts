/**
 * `usage FILE` against the real Pi 1.6: on every fixture of the parity corpus, Pi's own
 * `SessionManager.open` and `AgentSession#getSessionStats` (what `/session` prints) and
 * `getUsageCostBreakdown` (its cost per model), run on Node 22 from Pi's dist (`piTotals.mjs`),
 * against `usage FILE --json` and `usage FILE --by model --json`: the totals equal to the last bit
 * where Pi sums numbers, a note naming Pi's error where Pi throws, a skip where Pi does not open the
 * file. Then sessions with hostile usage values, where Pi's sums turn into NaN or text or throw.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { runUsage } from "../../../server/src/cli/usage";
import type { UsageReport } from "../../../server/src/cli/usageReport";
import { pi16 } from "../pi16";

const FIXTURES = join(__dirname, "..", "..", "parity", "fixtures");
const SCRIPT = join(__dirname, "piTotals.mjs");

interface PiAnswer {
  file: string;
  open: string;
  stats?: { tokens: Record<string, unknown>; cost: unknown };
  tokenTypes?: Record<string, string>;
  costType?: string;
  statsThrew?: string;
  breakdown?: { key: string; cost: number; tokens: number }[];
  breakdownThrew?: string;
}

/** What Pi 1.6 computes from each file, from one run of Node 22. */
function askPi(files: string[]): PiAnswer[] {
  const pi = pi16();
  const home = mkdtempSync(join(tmpdir(), "pi-usage-home-"));
  mkdirSync(join(home, "agent"));
  const out = execFileSync(pi.node, [SCRIPT, pi.packageDir, ...files], {
    encoding: "utf8",
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: join(home, "agent"), PI_OFFLINE: "1", PI_TELEMETRY: "0" },
  });
  return JSON.parse(out.trim().split("\n").pop()!) as PiAnswer[];
}

async function usage(args: string[]): Promise<{ status: number; out: string; report?: UsageReport }> {
  let out = "";
  const status = await runUsage(args, { out: (t) => (out += t), err: () => {}, env: {}, isTTY: false });
  return { status, out, ...(args.includes("--json") ? { report: JSON.parse(out) as UsageReport } : {}) };
}

describe("usage FILE equals Pi 1.6's /session on the parity corpus", () => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(FIXTURES, f));
  let answers: PiAnswer[];
  beforeAll(() => {
    answers = askPi(files);
  }, 200_000);

  test("every fixture Pi opens: totals equal, or Pi's error named; every fixture it refuses: skipped", async () => {
    let equal = 0;
    let throwing = 0;
    for (const pi of answers) {
      const { report } = await usage(["--json", pi.file]);
      const name = pi.file.slice(FIXTURES.length + 1);
      if (pi.open !== "ok") {
        expect(
          report!.skipped.map((s) => s.path),
          name,
        ).toEqual([pi.file]);
        expect(report!.files, name).toBe(0);
        continue;
      }
      expect(report!.skipped, name).toEqual([]);
      if (pi.statsThrew !== undefined) {
        throwing++;
        expect(report!.notes.map((n) => n.note).join("\n"), name).toContain(`Pi's /session throws on this session (${pi.statsThrew})`);
        continue;
      }
      const t = pi.stats!.tokens;
      const total = report!.total;
      expect({ input: total.input, output: total.output, cacheRead: total.cacheRead, cacheWrite: total.cacheWrite, total: total.totalTokens }, name).toEqual(t);
      // `toBe` on the floating-point cost: the same additions in the same order, equal to the last bit.
      expect(total.cost, name).toBe(pi.stats!.cost);
      expect(report!.notes, name).toEqual([]);
      equal++;
    }
    console.log(`usage equals Pi 1.6's /session totals on ${equal} of ${files.length} fixtures (${throwing} where Pi throws, the rest not opened by Pi)`);
    expect(equal).toBeGreaterThanOrEqual(60);
  }, 120_000);

  test("--by model: the rows are Pi's getUsageCostBreakdown, key for key", async () => {
    let compared = 0;
    for (const pi of answers) {
      if (pi.open !== "ok" || pi.breakdown === undefined || pi.statsThrew !== undefined) continue;
      const { report } = await usage(["--json", "--by", "model", pi.file]);
      const ours = report!.rows.filter((r) => r.cost > 0 || r.totalTokens > 0).map((r) => ({ key: r.key, cost: r.cost, tokens: r.totalTokens }));
      expect(ours, pi.file).toEqual(pi.breakdown);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(60);
  }, 120_000);
});

describe("hostile usage values: what Pi's /session does is said, never NaN", () => {
  const dir = mkdtempSync(join(tmpdir(), "usage-hostile-"));
  const base = readFileSync(join(FIXTURES, "written-16-conversation.jsonl"), "utf8").split("\n");
  const assistantAt = base.findIndex((l) => l.includes('"role":"assistant"'));
  /** The conversation with its first assistant message's usage changed by `change`. */
  const variant = (name: string, change: (usage: Record<string, unknown>, message: Record<string, unknown>) => void) => {
    const lines = [...base];
    const entry = JSON.parse(lines[assistantAt]!);
    change(entry.message.usage, entry.message);
    lines[assistantAt] = JSON.stringify(entry);
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, lines.join("\n"));
    return path;
  };
  const cases = {
    "input-text": variant("input-text", (u) => {
      u.input = "5";
    }),
    "no-cost": variant("no-cost", (u) => {
      delete u.cost;
    }),
    "no-cache-write": variant("no-cache-write", (u) => {
      delete u.cacheWrite;
    }),
    "input-null": variant("input-null", (u) => {
      u.input = null;
    }),
    "no-usage": variant("no-usage", (_u, m) => {
      delete m.usage;
    }),
    "cost-total-text": variant("cost-total-text", (u) => {
      (u.cost as Record<string, unknown>).total = "0.5";
    }),
  };
  let answers: Map<string, PiAnswer>;
  beforeAll(() => {
    answers = new Map(askPi(Object.values(cases)).map((a) => [a.file, a]));
  }, 200_000);

  test.each(Object.entries(cases))("%s", async (_name, file) => {
    const pi = answers.get(file)!;
    expect(pi.open).toBe("ok");
    const { report } = await usage(["--json", file]);
    const text = (await usage([file])).out;
    const notes = report!.notes.map((n) => n.note).join("\n");
    if (pi.statsThrew !== undefined) expect(notes).toContain(`Pi's /session throws on this session (${pi.statsThrew})`);
    else if (Object.values(pi.tokenTypes!).includes("string") || pi.costType === "string")
      expect(notes).toContain("Pi's /session shows text instead of numbers");
    else if (Object.values(pi.tokenTypes!).includes("NaN") || pi.costType === "NaN") expect(notes).toContain("Pi's /session shows NaN");
    else expect(notes).toContain("Pi's /session adds them as JavaScript converts them");
    // The odd usage is left out, counted, and no number printed is NaN (only the note says Pi's).
    expect(notes).toContain("1 usage whose numbers are not all numbers left out here");
    const table = text.split("\n").filter((l) => !l.startsWith("note: "));
    expect(table.join("\n")).not.toMatch(/NaN/);
    for (const value of Object.values(report!.total)) expect(Number.isFinite(value)).toBe(true);
  });
});
