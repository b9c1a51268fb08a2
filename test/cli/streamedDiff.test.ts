/**
 * `diff` streams the file (issue 31) and prints what it printed when it read the file whole: for
 * every session of the corpus (the parity fixtures, the diagnostic fixtures, UTF-16 ones among
 * them), for leaves at the start, middle and end of each file, as text and `--json`, for Pi 1.x
 * and Pi 0.73/0.74, the exit status, standard output and standard error equal those recorded from
 * the whole-file `diff` of commit 4d8da7e (`expected/diffCorpus.json`, each run's status and the start of a sha256, since the
 * outputs themselves would be megabytes).
 *
 * To record again from another build: `DIFF_RECORD_FROM=/path/to/out npx vitest run
 * test/cli/streamedDiff.test.ts` runs that build's compiled `diff` instead and rewrites the record.
 */

import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runDiff as runStreamedDiff } from "../../server/src/cli/diff";
import { parseFixture } from "../helpers/fixture";

const RECORD_FROM = process.env.DIFF_RECORD_FROM;
const RECORD = join(__dirname, "expected/diffCorpus.json");
const runDiff: typeof runStreamedDiff = RECORD_FROM ? createRequire(__filename)(join(RECORD_FROM, "cli/diff.js")).runDiff : runStreamedDiff;

const parity = join(__dirname, "../parity/fixtures");
const diagnosticFixtures = join(__dirname, "../fixtures/diagnostics");
const corpus: [string, Buffer][] = [
  ...readdirSync(parity)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name): [string, Buffer] => [`parity/${name}`, readFileSync(join(parity, name))]),
  ...readdirSync(diagnosticFixtures)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .map((name): [string, Buffer] => [`diagnostics/${name}`, Buffer.from(parseFixture(readFileSync(join(diagnosticFixtures, name), "utf8")).text, "utf8")]),
];
// UTF-16, as Windows PowerShell writes it: little-endian with a byte order mark, big-endian without.
const branched = readFileSync(join(parity, "written-16-branches.jsonl"), "utf8");
const littleEndian = Buffer.from(`\ufeff${branched}`, "utf16le");
corpus.push(["utf16/le-with-bom.jsonl", littleEndian], ["utf16/be-without-bom.jsonl", Buffer.from(branched, "utf16le").swap16()]);

const folder = mkdtempSync(join(tmpdir(), "streamed-diff-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The string ids of a file's lines, in file order (a line that does not parse has none). */
function idsOf(bytes: Buffer): string[] {
  const ids: string[] = [];
  for (const line of bytes.toString("utf8").split("\n")) {
    try {
      const id = (JSON.parse(line) as { id?: unknown } | null)?.id;
      if (typeof id === "string" && id.length > 0) ids.push(id);
    } catch {
      // A line Pi skips has no id to compare from.
    }
  }
  return ids;
}

/** The runs of one file: leaves at its start, middle and end, one against another and against Pi's leaf. */
function runsOf(bytes: Buffer): string[][] {
  const ids = idsOf(bytes);
  const pick = [ids[1] ?? ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 1]].filter((id): id is string => id !== undefined);
  const leaves: string[][] = [...pick.map((id) => [id]), ...(pick.length > 1 ? [[pick[1]!, pick[0]!]] : []), ["no-such-entry"]];
  const runs: string[][] = [];
  for (const pi of [[], ["--pi", "0.74"]]) for (const format of [[], ["--json"]]) for (const pair of leaves) runs.push([...pi, ...format, "FILE", ...pair]);
  return runs;
}

/** One run's status, and its status and outputs (the file's path replaced by FILE) hashed. */
function digest(path: string, args: string[]): string {
  let out = "";
  let err = "";
  const status = runDiff(
    args.map((arg) => (arg === "FILE" ? path : arg)),
    { out: (t) => (out += t), err: (t) => (err += t), cwd: folder },
  );
  expect(typeof status).toBe("number");
  const text = `${String(status)}\n${out.split(path).join("FILE")}\n${err.split(path).join("FILE")}`;
  return `${String(status)} ${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}

function digestsOf(name: string, bytes: Buffer): Record<string, string> {
  const path = join(folder, name.replace("/", "-"));
  writeFileSync(path, bytes);
  const digests: Record<string, string> = {};
  for (const args of runsOf(bytes)) digests[args.join(" ")] = digest(path, args);
  return digests;
}

describe("the streamed diff prints what the whole-file diff printed", () => {
  const recorded: Record<string, Record<string, string>> = RECORD_FROM ? {} : JSON.parse(readFileSync(RECORD, "utf8"));

  it("has a record for every file of the corpus", () => {
    expect(corpus.length).toBeGreaterThan(200);
    if (!RECORD_FROM) expect(Object.keys(recorded).sort()).toEqual(corpus.map(([name]) => name).sort());
  });

  it.each(corpus)("%s", (name, bytes) => {
    const digests = digestsOf(name, bytes);
    if (RECORD_FROM) recorded[name] = digests;
    else expect(digests).toEqual(recorded[name]);
  });

  afterAll(() => {
    if (RECORD_FROM) writeFileSync(RECORD, `${JSON.stringify(recorded, null, 1)}\n`);
  });
});
