/**
 * `find TEXT`'s prefilter reads a file in chunks of 256 KiB into one buffer it reuses, keeping the
 * end of each chunk for the next (`io/searchPrefilter.ts`). Whatever it looks for must be found
 * when it lies across a chunk's end, at every split: a word, a phrase (whose line is carried
 * whole), and the type `session_info"` of a line whose name a fuzzy word matches scattered (the
 * word itself is nowhere in the file). For each split, the exact search (no prefilter) says the
 * file matches, and the prefilter must keep it; the same file with a name that cannot match is
 * passed over, which shows that the names were read.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PhraseBytes } from "../../server/src/core/disk/searchPrefilter";
import { scanFile } from "../../server/src/io/scanFile";

const CHUNK = 256 * 1024;
const HEADER = '{"type":"session","version":3,"id":"0a11ce00-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.001Z","cwd":"/work/a"}';

/** A user message line whose text is `text`. */
const message = (id: string, parent: string | null, text: string) =>
  `{"type":"message","id":"${id}","parentId":${JSON.stringify(parent)},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":${JSON.stringify(text)},"timestamp":1}}`;

/**
 * A session whose line `tail` starts so that its byte `pivot` falls `shift` bytes after the first
 * chunk's end (negative: before it): a filler message before it takes up the rest.
 */
function sessionWith(tail: (parent: string) => string, pivot: number, shift: number): string {
  const head = `${HEADER}\n`;
  const empty = message("f1", null, "");
  const fillerLength = CHUNK + shift - pivot - head.length - empty.length - 1;
  const filler = message("f1", null, "o".repeat(fillerLength));
  const text = `${head}${filler}\n${tail("f1")}\n`;
  expect(text.indexOf(tail("f1")) + pivot).toBe(CHUNK + shift);
  return text;
}

const nameLine = (name: string) => (parent: string) =>
  `{"type":"session_info","id":"n1","parentId":"${parent}","timestamp":"2026-03-02T10:00:02.000Z","name":${JSON.stringify(name)}}`;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-prefilter-chunks-"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The prefilter's answer and the exact search's on one file. */
function both(text: string, query: string): { exact: boolean; ruledOut: boolean } {
  const path = join(dir, "s.jsonl");
  writeFileSync(path, text);
  const exact = scanFile({ path, version: "1.x", read: "info", query }).scan?.search !== undefined;
  const ruledOut = scanFile({ path, version: "1.x", read: "info", query, prefilter: true }).ruledOut === true;
  return { exact, ruledOut };
}

describe("the prefilter across a chunk's end", () => {
  it("finds a word at every split", () => {
    const line = (parent: string) => message("u1", parent, "the Cookie crumbles");
    const at = line("f1").indexOf("Cookie");
    for (let split = -1; split <= "Cookie".length + 1; split++) {
      expect(both(sessionWith(line, at, -split), "cookie"), `split ${split}`).toEqual({ exact: true, ruledOut: false });
    }
  });

  it("finds a phrase at every split, its line carried whole", () => {
    const line = (parent: string) => message("u1", parent, "a FLAKY \n cookie again");
    const at = line("f1").indexOf("FLAKY");
    for (let split = -1; split <= 20; split++) {
      expect(both(sessionWith(line, at, -split), '"flaky cookie"'), `split ${split}`).toEqual({ exact: true, ruledOut: false });
    }
  });

  it("finds a phrase split over two messages, whichever chunks hold them", () => {
    const ends = (parent: string) => message("u1", parent, "see flaky");
    const starts = (parent: string) =>
      `{"type":"message","id":"a1","parentId":"${parent}","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"cookie now"}],"timestamp":2}}`;
    // The message that starts with the anchor begins just before the chunk's end, or after it.
    for (const split of [-1, 0, 1, 10, 40, 80, 300]) {
      const pair = (parent: string) => `${ends(parent)}\n${starts("u1")}`;
      const at = pair("f1").indexOf(starts("u1"));
      expect(both(sessionWith(pair, at, -split), '"flaky cookie"'), `split ${split}`).toEqual({ exact: true, ruledOut: false });
    }
    // Between them, a tool's output longer than a chunk: Pi's joined text still holds the phrase.
    const output = `{"type":"message","id":"t1","parentId":"u1","timestamp":"2026-03-02T10:00:01.500Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"${"o".repeat(CHUNK + 1000)}"}],"isError":false,"timestamp":2}}`;
    const apart = `${HEADER}\n${ends("")}\n${output}\n${starts("t1")}\n`.replace('"parentId":""', '"parentId":null');
    expect(both(apart, '"flaky cookie"')).toEqual({ exact: true, ruledOut: false });
    // Neither word at a string's end, nor the two in a row: passed over.
    const far = `${HEADER}\n${message("u1", null, "see flaky please")}\n${output}\n${starts("t1")}\n`;
    expect(both(far, '"flaky cookie"')).toEqual({ exact: false, ruledOut: true });
  });

  it("looks for a phrase's words in a file's last chunk only once its anchor was seen, answering as the exact search does", () => {
    const occursIn = vi.spyOn(PhraseBytes.prototype, "occursIn");
    try {
      const small = (second: string) => `${HEADER}\n${message("u1", null, "see flaky")}\n${message("u2", "u1", second)}\n`;
      // One chunk without the anchor: passed over, and the words were never looked for.
      expect(both(small("biscuits now"), '"flaky cookie"')).toEqual({ exact: false, ruledOut: true });
      expect(occursIn).not.toHaveBeenCalled();
      // The anchor in the same chunk: the words are looked for, and the phrase over two messages is found.
      expect(both(small("Cookie now"), '"flaky cookie"')).toEqual({ exact: true, ruledOut: false });
      expect(occursIn).toHaveBeenCalled();
      // A last line without "\n" holding the phrase, after the anchor: found.
      expect(both(`${HEADER}\n${message("u1", null, "a flaky cookie")}`, '"flaky cookie"')).toEqual({ exact: true, ruledOut: false });
      // Two chunks, the anchor only in the first and the first word ending a string in the last:
      // the words are looked for in the last chunk, the bytes could match, and the file is kept
      // for the exact search (which finds no phrase: the anchor comes before the word).
      occursIn.mockClear();
      const twoChunks = sessionWith((parent) => message("u1", parent, "see flaky"), 0, 100).replace('"o', '"cookie o');
      expect(twoChunks.length).toBeGreaterThan(CHUNK);
      expect(both(twoChunks, '"flaky cookie"')).toEqual({ exact: false, ruledOut: false });
      expect(occursIn).toHaveBeenCalled();
    } finally {
      occursIn.mockRestore();
    }
  });

  it("reads a name of a session_info line at every split of its type", () => {
    const at = nameLine("q u e t z a l")("f1").indexOf('session_info"');
    for (let split = -1; split <= 'session_info"'.length + 1; split++) {
      const matching = both(sessionWith(nameLine("q u e t z a l"), at, -split), "quetzal");
      expect(matching, `split ${split}`).toEqual({ exact: true, ruledOut: false });
    }
    // Far from the chunk's end, the name is read, and a name that cannot match lets the file go.
    expect(both(sessionWith(nameLine("nothing here"), at, 4096), "quetzal")).toEqual({ exact: false, ruledOut: true });
    expect(both(sessionWith(nameLine("nothing here"), at, -4096), "quetzal")).toEqual({ exact: false, ruledOut: true });
  });
});
