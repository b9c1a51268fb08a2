/**
 * `find TEXT` probes each header (Pi 1.x's `readSessionHeader`) from the prefilter's first chunk
 * when the lines in it settle it (`probeHeaderIn`), and from the descriptor otherwise. On headers
 * of every shape the probe reads (blank, unparsable and falsy lines skipped, an entry that is not a
 * header, an id that is not a string, a byte order mark, "\r\n", a first line longer than the chunk
 * or than the scanned MiB, no line end at all, an empty file), the answer is `probeHeader`'s.
 */

import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeHeader, probeHeaderIn, scanFile } from "../../server/src/io/scanFile";

const HEADER = '{"type":"session","version":3,"id":"0a11ce00-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.001Z","cwd":"/work/a"}';
const MESSAGE = '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1}}';

/** Each file's text, and whether its first chunk (256 KiB) settles the probe. */
const CASES: readonly (readonly [string, string, boolean])[] = [
  ["a header", `${HEADER}\n${MESSAGE}\n`, true],
  ["blank lines first", `\n  \n${HEADER}\n`, true],
  ["an unparsable line first", `not json\n${HEADER}\n`, true],
  ["a falsy value first", `null\n0\n""\n${HEADER}\n`, true],
  ["a message first", `${MESSAGE}\n${HEADER}\n`, true],
  ["an id that is not a string", '{"type":"session","id":5}\n', true],
  ["a byte order mark (that line skipped)", `\uFEFF${HEADER}\n${MESSAGE}\n`, true],
  ["only lines that are skipped", `\uFEFF${HEADER}\n\n`, false],
  ["\\r\\n line ends", `${HEADER}\r\n${MESSAGE}\r\n`, true],
  ["a blank first line longer than the chunk", `${" ".repeat(300 * 1024)}\n${HEADER}\n`, false],
  ["a first line over the scanned MiB", `${" ".repeat(1100 * 1024)}\n${HEADER}\n`, false],
  ["a header without a line end", HEADER, false],
  ["an empty file", "", false],
];

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-header-probe-"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the header probed from the prefilter's first chunk", () => {
  for (const [what, text, settled] of CASES) {
    it(`answers as probeHeader: ${what}`, () => {
      const path = join(dir, `${what.replace(/\W+/g, "-")}.jsonl`);
      writeFileSync(path, text);
      const expected = probeHeader(path, statSync(path).size);
      const firstChunk = Buffer.from(text).subarray(0, 256 * 1024);
      const fromChunk = probeHeaderIn(firstChunk);
      if (settled) expect(fromChunk).toEqual(expected);
      else expect(fromChunk).toBeUndefined();
      // The sweep of `find TEXT` (a word in no session, an id in no header): the same probe either way.
      const swept = scanFile({ path, version: "1.x", read: "info", query: "qqqq", prefilter: true, probeForId: "zzzz-no-such-id" });
      expect(swept.probe).toEqual(expected);
    });
  }
});
