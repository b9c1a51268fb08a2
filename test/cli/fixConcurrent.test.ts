/**
 * `check --fix` on a multi-megabyte session while another process appends to it the way Pi does
 * (`appendFileSync(path, line)`, in bursts a few milliseconds apart): whatever the timing, every
 * appended entry ends up in the live file exactly once, and the file is either fixed or left as
 * it was with every append, as the command reports.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";
import { HANG_MS } from "../helpers/limits";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const entry = (id: string, parent: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-03-02T10:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1772445601000 },
  });

/**
 * Appends `app-N` entries to the file: bursts of 1–6 appends 1–4 ms apart, then a pause of up to
 * `pauseMs`, until its standard input closes; then prints how many it appended.
 */
const APPENDER = `
const fs = require("node:fs");
const [file, pauseMs, seed] = process.argv.slice(1);
let state = Number(seed) >>> 0;
const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
let n = 0, stop = false, burst = 0;
process.stdin.on("end", () => (stop = true)).resume();
function step() {
  if (stop) { process.stdout.write(String(n)); return; }
  const line = JSON.stringify({ type: "message", id: "app-" + n, parentId: n === 0 ? "e0" : "app-" + (n - 1), timestamp: "2026-03-02T10:00:02.000Z", message: { role: "user", content: "appended " + n, timestamp: 1772445602000 } });
  fs.appendFileSync(file, line + "\\n");
  n++;
  if (burst-- > 0) return setTimeout(step, 1 + Math.floor(random() * 4));
  burst = Math.floor(random() * 6);
  setTimeout(step, Math.floor(random() * Number(pauseMs)));
}
process.stdout.write("ready\\n");
step();
`;

interface Run {
  fixer: { status: number | null; stdout: string; stderr: string };
  appended: number;
}

function runOnce(file: string, pauseMs: number, seed: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const appender = spawn(process.execPath, ["-e", APPENDER, file, String(pauseMs), String(seed)], { stdio: ["pipe", "pipe", "inherit"] });
    let appenderOut = "";
    appender.stdout.setEncoding("utf8");
    appender.on("error", reject);
    appender.stdout.on("data", (chunk: string) => {
      appenderOut += chunk;
      if (appenderOut !== "ready\n") return;
      const fixer = spawn(process.execPath, [bin, "check", "--fix", file], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      fixer.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
      fixer.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      fixer.on("error", reject);
      fixer.on("close", (status) => {
        // Let the appender go on a little after the fix, then stop it.
        setTimeout(() => appender.stdin.end(), 60);
        appender.on("close", () => resolve({ fixer: { status, stdout, stderr }, appended: Number(appenderOut.slice("ready\n".length)) }));
      });
    });
  });
}

let dir: string;
let original: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "pi-concurrent-"));
  // About 3 MB: 1,500 entries of 2 KB, with a self-parent near the top for --fix to mend.
  const lines = [header, entry("e0", null, "start")];
  for (let i = 1; i < 1500; i++) lines.push(entry(`e${i}`, i === 1 ? `e${i}` : `e${i - 1}`, "x".repeat(2000)));
  original = `${lines.join("\n")}\n`;
});

// PI_CONCURRENT_ROUNDS=500 runs it many more times by hand.
const rounds = Number(process.env.PI_CONCURRENT_ROUNDS ?? 12);

describe("check --fix while another process appends", () => {
  it(
    "never loses an appended entry, in many runs with different timings",
    async () => {
      let fixed = 0;
      let leftAlone = 0;
      for (let round = 0; round < rounds; round++) {
        const file = join(dir, `live-${round}.jsonl`);
        writeFileSync(file, original);
        const pause = [5, 40, 150, 400][round % 4]!;
        const { fixer, appended } = await runOnce(file, pause, round + 1);
        expect(appended, `round ${round}`).toBeGreaterThan(0);
        const live = readFileSync(file, "utf8");
        const lines = live.split("\n");
        // Every appended entry is in the live file, exactly once, as a whole line.
        for (let n = 0; n < appended; n++) {
          const count = lines.filter((l) => l.startsWith(`{"type":"message","id":"app-${n}",`)).length;
          expect(count, `round ${round}: app-${n} of ${appended} appears ${count} times\n${fixer.stdout}\n${fixer.stderr}`).toBe(1);
        }
        expect(lines.filter((l) => l.includes('"id":"app-')).length, `round ${round}`).toBe(appended);
        // The original entries are all there too (e1 is the one the fix re-links).
        const liveLines = new Set(lines);
        const missing = original
          .trimEnd()
          .split("\n")
          .filter((line) => !line.includes('"id":"e1",') && !liveLines.has(line));
        expect(missing, `round ${round}`).toEqual([]);
        if (fixer.stdout.includes(": fixed self-parent")) {
          fixed++;
          expect(live).toContain('"id":"e1","parentId":"e0"');
          expect(fixer.status, fixer.stderr).not.toBe(2);
        } else {
          leftAlone++;
          expect(fixer.stderr, `round ${round}`).toContain("it changed while it was being fixed");
          expect(fixer.status).toBe(2);
          expect(live.startsWith(original)).toBe(true);
        }
      }
      if (process.env.PI_CONCURRENT_ROUNDS) process.stdout.write(`fixed ${fixed}, left alone ${leftAlone} of ${rounds}\n`);
      expect(fixed + leftAlone).toBe(rounds);
    },
    Math.max(HANG_MS, rounds * 5_000),
  );
});
