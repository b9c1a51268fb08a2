/**
 * The count of grammar slips that keeps jsonrepair off long lines it would take minutes on, while
 * long lines with a slip or two are still mended.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_REPAIR_CHARS, repairLine } from "../../server/src/features/fixes/mend";
import { recoverLine } from "../../server/src/features/fixes/recover";
import { ALWAYS_REPAIRABLE_CHARS, countSlips, mayRepair } from "../../server/src/features/fixes/slips";
import { user } from "../helpers/piLines";

const free = () => false;
const MEND = join(__dirname, "../fixtures/mend");
const PARITY = join(__dirname, "../parity/fixtures");

describe("countSlips", () => {
  it("finds none in the lines of Pi's own sessions", () => {
    for (const name of readdirSync(PARITY).filter((f) => f.startsWith("written-") && f.endsWith(".jsonl")))
      for (const line of readFileSync(join(PARITY, name), "utf8").split("\n")) expect([name, countSlips(line, 8)]).toEqual([name, 0]);
  });

  it("counts one for each slip a mend repairs", () => {
    const u = user("a0000001", null, "hi, [there]", 1);
    expect(countSlips(u.replace(',"message"', '"message"'), 8)).toBe(1);
    expect(countSlips(u.replace(',"message"', '"message"').replace(',"timestamp":1', '"timestamp":1'), 8)).toBe(2);
    expect(countSlips(`${u}xyz`, 8)).toBe(1);
    // A cut: the string that never closes, and the containers left open.
    expect(countSlips(u.slice(0, 60), 8)).toBe(2);
    expect(countSlips('{"a":[{"b":1],"c":2}', 8)).toBe(1);
    expect(countSlips('{"a":1]}', 8)).toBe(1);
    expect(countSlips('{"a":[],"b":{},"c":[1,{"d":null}]}', 8)).toBe(0);
    expect(countSlips('{"a":1,}', 8)).toBe(1);
    expect(countSlips('{"a" 1}', 8)).toBe(1);
  });

  it("counts few slips in the broken lines of the mend fixtures that jsonrepair mends, but a missing quote misaligns the rest", () => {
    const most = (name: string) =>
      Math.max(
        ...readFileSync(join(MEND, `${name}.jsonl`), "utf8")
          .split("\n")
          .map((line) => countSlips(line, 8)),
      );
    expect(["missing-comma", "missing-bracket", "trailing-garbage", "lossy-repair"].map(most)).toEqual([1, 1, 1, 1]);
    // Every string after the missing quote is read as a word, and every word as a string: on a
    // line over 64 KiB such a line is not given to jsonrepair, and deleting it is left.
    expect(most("missing-quote")).toBe(9);
  });

  it("stops counting past the bound", () => {
    expect(countSlips(`{"a":${'"'.repeat(1000)}`, 8)).toBe(9);
  });
});

describe("lines jsonrepair is not given", () => {
  const quotes = `{"a":${'"'.repeat(MAX_REPAIR_CHARS - 10)}`;
  const commas = `{${Array.from({ length: MAX_REPAIR_CHARS / 10 }, (_, i) => `"k${i}":1`).join(" ")}}`;

  it("are long lines with many slips, which jsonrepair takes minutes on", () => {
    expect(mayRepair(quotes, 8)).toBe(false);
    expect(mayRepair(commas, 8)).toBe(false);
    expect(repairLine(quotes, free)).toBeUndefined();
    expect(repairLine(commas, free)).toBeUndefined();
    expect(recoverLine(`{"type":"custom","id":"c1","parentId":null,"data":${'"'.repeat(MAX_REPAIR_CHARS)}`, free)).toBeUndefined();
  });

  it("but a long line with one slip still is, and is mended", () => {
    const long = user("a0000002", "a0000001", "z".repeat(4 * ALWAYS_REPAIRABLE_CHARS), 2);
    const broken = long.replace(',"message"', '"message"');
    expect(mayRepair(broken, 8)).toBe(true);
    expect(repairLine(broken, free)?.insertions).toEqual([{ offset: long.indexOf(',"message"'), text: "," }]);
  });
});
