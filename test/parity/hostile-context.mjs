// The context of sessions with odd ids, against the real Pi (issue 10, item 10): the generator of
// test/cli/hostile.test.ts writes sessions whose ids are numbers, booleans, null, arrays, objects,
// prototype keys and strings with control characters; each file is opened by the real
// `SessionManager.open` + `buildSessionContext()` of Pi 0.74.2 and 1.6.0 (a child process each,
// killed after a timeout) and by `pi-session-lsp context --pi 0.74|1.x`, whose output is exactly
// `JSON.stringify` of Pi's context. Too slow for every test run (two Node processes per file and
// version); run it by hand after changing how ids are keyed:
//
//   npm run build && node test/parity/hostile-context.mjs [COUNT] [SEED]
//
// Needs the oracle install (test/parity/oracle, see test/parity/README.md). Prints one line per
// difference and a summary; exits 1 when any context differs.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeGen, seeded } from "../helpers/hostile.mjs";
import { PI_PACKAGES, sessionManagerOf } from "./piPackages.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(HERE, "..", "..", "bin", "pi-session-lsp.js");
const PI = { 0.74: PI_PACKAGES["0.74.2"], "1.x": PI_PACKAGES["1.6.0"] };
const TIMEOUT_MS = 20_000;

if (process.argv[2] === "--child") {
  // One Pi, one file (a copy: open can rewrite it): the context as JSON, or what Pi threw.
  const [, , , pkg, file] = process.argv;
  const { SessionManager } = await import(pathToFileURL(sessionManagerOf(pkg)).href);
  let out;
  try {
    out = { ok: JSON.stringify(SessionManager.open(file).buildSessionContext()) };
  } catch (error) {
    out = { threw: `${error?.name}: ${error?.message}` };
  }
  fs.writeSync(1, JSON.stringify(out));
  process.exit(0);
}

for (const [flavor, pi] of Object.entries(PI)) if (!pi.pkg || !pi.node) throw new Error(`Pi ${flavor} not found (see test/parity/piPackages.mjs)`);
const count = Number(process.argv[2] ?? 100);
const seed = Number(process.argv[3] ?? 10);
const gen = makeGen(seeded(seed));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-hostile-context-"));
let same = 0;
let differ = 0;
let piFails = 0;
for (let i = 0; i < count; i++) {
  const text = gen.session({ oddIds: true, entries: 2 + (i % 12) });
  const file = path.join(dir, `s${i}.jsonl`);
  fs.writeFileSync(file, text);
  for (const [flavor, pi] of Object.entries(PI)) {
    const copy = path.join(dir, `s${i}.${flavor}.copy.jsonl`);
    fs.copyFileSync(file, copy);
    const child = spawnSync(pi.node, [fileURLToPath(import.meta.url), "--child", pi.pkg, copy], {
      encoding: "utf8",
      timeout: TIMEOUT_MS,
      killSignal: "SIGKILL",
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, PI_CODING_AGENT_DIR: path.join(dir, ".pi-agent"), TZ: "UTC" },
    });
    const real = child.status === 0 ? JSON.parse(child.stdout) : { hung: true };
    const ours = spawnSync(process.execPath, [CLI, "context", "--pi", flavor, file], { encoding: "utf8", timeout: TIMEOUT_MS });
    const oursOk = ours.status === 0 ? ours.stdout.trimEnd() : undefined;
    if (real.ok !== undefined && oursOk === real.ok) same++;
    else if (real.ok === undefined && ours.status === 1) {
      // Pi cannot build it (it threw or hung), and we say so with status 1.
      same++;
      piFails++;
    } else {
      differ++;
      console.log(
        `s${i}.jsonl (${flavor}): Pi ${real.ok !== undefined ? "built" : real.threw ? `threw ${real.threw}` : "hung"}, we ${ours.status === 0 ? "built" : `exited ${ours.status}: ${ours.stderr.trim().slice(0, 200)}`}`,
      );
      if (real.ok !== undefined && oursOk !== undefined) console.log(`  Pi:  ${real.ok.slice(0, 400)}\n  we:  ${oursOk.slice(0, 400)}`);
      fs.copyFileSync(file, path.join(dir, `DIFF-s${i}.jsonl`));
    }
  }
}
console.log(
  `${count} sessions x 2 Pi versions: ${same} the same (${piFails} where Pi cannot build the context, and we say so), ${differ} different; files in ${dir}`,
);
process.exit(differ > 0 ? 1 : 0);
