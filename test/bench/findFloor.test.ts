/**
 * The floor of `find TEXT` (bench/findFloor.mjs) does the work it claims, so that the benchmark's
 * floor is honest: every file of every project folder is read whole, and a text is found wherever
 * it lies, across the end of a 256 KiB chunk too, on one thread and on two.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = join(__dirname, "..", "..", "bench", "findFloor.mjs");
const CHUNK = 256 * 1024;
const TEXT = "flaky cookie";

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pi-find-floor-"));
  mkdirSync(join(root, "--a--"));
  mkdirSync(join(root, "--b--"));
  // The text across the first chunk's end, at every split, each in a file of its own.
  for (let split = 1; split < TEXT.length; split++) writeFileSync(join(root, "--a--", `across-${split}.jsonl`), `${"o".repeat(CHUNK - split)}${TEXT}\n`);
  writeFileSync(join(root, "--b--", "late.jsonl"), `${"o".repeat(3 * CHUNK + 5)}${TEXT}`);
  writeFileSync(join(root, "--b--", "small.jsonl"), `{"text":"a ${TEXT}"}\n`);
  // Files that hold no match: the text's words apart, its other case, a name that is not a session's.
  writeFileSync(join(root, "--b--", "apart.jsonl"), `flaky\ncookie\n${"o".repeat(CHUNK)}`);
  writeFileSync(join(root, "--b--", "case.jsonl"), TEXT.toUpperCase());
  writeFileSync(join(root, "--b--", "notes.txt"), TEXT);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bench/findFloor.mjs", () => {
  for (const threads of [1, 2])
    it(`finds the text in every file that holds it, across a chunk's end too, on ${threads} thread(s)`, () => {
      const r = spawnSync(process.execPath, [SCRIPT, "--once", "--sessions", root, "--text", TEXT, "--threads", String(threads)], { encoding: "utf8" });
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout)).toEqual({ files: TEXT.length - 1 + 4, hits: TEXT.length - 1 + 2 });
    });
});
