// Runs inside Pi 1.6's Node 22 (started by usage.test.ts): for each session file named on the
// command line, opens a copy with Pi's own SessionManager.open and answers what Pi's /session
// computes from it, AgentSession#getSessionStats (called on a stand-in holding the session
// manager, as /session calls it on the live session) and getUsageCostBreakdown, both from Pi's
// own dist. One JSON line on stdout: an array with, per file, "open" ("ok" or what open threw),
// "stats" (without sessionFile and contextUsage) or "statsThrew", and "breakdown" or "breakdownThrew".

import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, ...files] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(packageDir, "dist", p)).href);
const { SessionManager } = await load("core/session-manager.js");
const { AgentSession } = await load("core/agent-session.js");
const { getUsageCostBreakdown } = await load("core/usage-totals.js");

const work = mkdtempSync(join(tmpdir(), "pi-usage-"));
const described = (error) => `${error?.name ?? "Error"}: ${error?.message ?? String(error)}`;
const results = [];
for (const [i, file] of files.entries()) {
  const dir = mkdtempSync(join(work, `${i}-`));
  const copy = join(dir, basename(file));
  copyFileSync(file, copy);
  const result = { file };
  let manager;
  try {
    manager = SessionManager.open(copy);
    result.open = "ok";
  } catch (error) {
    result.open = described(error);
    results.push(result);
    continue;
  }
  try {
    const self = { sessionManager: manager, sessionFile: copy, sessionId: manager.getSessionId(), getContextUsage: () => undefined };
    const stats = AgentSession.prototype.getSessionStats.call(self);
    delete stats.sessionFile;
    delete stats.contextUsage;
    // NaN and strings are kept apart from numbers: JSON would write NaN as null.
    result.stats = stats;
    result.tokenTypes = Object.fromEntries(Object.entries(stats.tokens).map(([k, v]) => [k, Number.isNaN(v) ? "NaN" : typeof v]));
    result.costType = Number.isNaN(stats.cost) ? "NaN" : typeof stats.cost;
  } catch (error) {
    result.statsThrew = described(error);
  }
  try {
    result.breakdown = getUsageCostBreakdown(manager.getEntries());
  } catch (error) {
    result.breakdownThrew = described(error);
  }
  results.push(result);
}
process.stdout.write(`${JSON.stringify(results)}\n`);
