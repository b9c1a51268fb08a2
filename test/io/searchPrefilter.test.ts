/**
 * `find TEXT`'s byte prefilter (core/disk/searchPrefilter.ts, io/searchPrefilter.ts) must never
 * pass over a file that `/resume`'s search matches. Its rules rest on three facts checked here: the
 * only characters outside ASCII that lowercase to an ASCII letter or digit; the case-folded byte
 * search against a plain reference; and, on generated sessions that hide the query's words every
 * way the exact match still finds them (capitals, `\uXXXX` escapes, the Kelvin sign and dotted
 * capital I, whitespace runs, words split over messages, numbers and objects as text blocks, names,
 * a scattered match in the cwd, a word across the 1 MiB read boundary), that every file the exact
 * match finds is kept, while files that cannot match are passed over; and that `findSessions`
 * answers the same with and without it.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FoldedNeedle } from "../../server/src/core/base/foldedSearch";
import { anchorOf } from "../../server/src/core/disk/searchPrefilter";
import { probeHeader, scanFile } from "../../server/src/io/scanFile";
import { findSessions } from "../../server/src/io/sessionFind";
import { seededRandom as prng } from "../helpers/lspClient";

describe("the facts the prefilter rests on", () => {
  it("only U+0130 and U+212A lowercase to an ASCII letter or digit from outside ASCII", () => {
    const found: number[] = [];
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (/[a-z0-9]/.test(String.fromCodePoint(code).toLowerCase())) found.push(code);
    }
    expect(found).toEqual([0x130, 0x212a]);
  });

  it("anchors are the longest run of letters and digits that no number or object prints", () => {
    expect(anchorOf("flaky cookie")).toBe("cookie");
    expect(anchorOf("issue-32")).toBe("issue");
    expect(anchorOf("1e21")).toBeUndefined();
    expect(anchorOf("[object")).toBeUndefined();
    expect(anchorOf("infinity")).toBeUndefined();
    expect(anchorOf("café")).toBe("caf");
    expect(anchorOf("日本")).toBeUndefined();
  });

  it("the case-folded byte search finds what a folded reference finds, with rare and common letters", () => {
    const random = prng(7);
    const alphabets = ['abcXYZ \n"\\o', "oooooooooooooooooooooooooooooooooOk", "eEtTaA ,;{}[]0123456789"];
    for (let round = 0; round < 400; round++) {
      const alphabet = alphabets[round % alphabets.length]!;
      const length = 1 + Math.floor(random() * 5000);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const lower = text.toLowerCase();
      const start = Math.floor(random() * length);
      const needle = lower.slice(start, start + 1 + Math.floor(random() * 6)).replace(/[^a-z0-9]/g, "") || "ok";
      const bytes = Buffer.from(text, "latin1");
      const from = Math.floor(random() * Math.min(50, length));
      expect(new FoldedNeedle(needle).occursIn(bytes, from, bytes.length), `${needle} in round ${round}`).toBe(lower.slice(from).includes(needle));
    }
  });
});

const WORDS = ["flaky", "cookie", "parser", "shader", "deploy", "zebra", "kiwi", "issue", "v2", "abc123"];

/** A JSON string of `text` with the characters at the chosen places written as `\uXXXX` escapes. */
function escapedString(text: string, escaped: (i: number) => boolean): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += escaped(i) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : JSON.stringify(c).slice(1, -1);
  }
  return `${out}"`;
}

/** One word written one of the ways the exact match still reads as that word. */
function disguise(word: string, how: number): string {
  switch (how) {
    case 0:
      return word;
    case 1:
      return word.toUpperCase();
    case 2:
      return [...word].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("");
    case 3:
      return word.replace(/k/g, "\u212a");
    case 4:
      return word.replace(/i/g, "\u0130");
    default:
      return word;
  }
}

let root: string;
let sessionDir: string;
const files: string[] = [];

/** Writes the generated sessions: each hides a few words one way, some hide nothing, one is over 1 MiB. */
function writeSessions(): void {
  const random = prng(32);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  for (let n = 0; n < 48; n++) {
    const id = `0${n.toString(16).padStart(7, "0")}-0000-7000-8000-000000000000`;
    const cwd = n % 5 === 0 ? `/work/zeb-ra/${n}` : `/work/project-${n}`;
    const header = `{"type":"session","version":3,"id":"${id}","timestamp":"2026-03-02T10:00:00.000Z","cwd":${JSON.stringify(cwd)}}`;
    const lines = [header];
    let parent: string | null = null;
    const entry = (body: string) => {
      const entryId = `e${lines.length}`;
      lines.push(`{"type":"message","id":"${entryId}","parentId":${JSON.stringify(parent)},"timestamp":"2026-03-02T10:00:0${lines.length % 10}.000Z",${body}}`);
      parent = entryId;
    };
    const how = n % 9;
    const words = [pick(WORDS), pick(WORDS)];
    const hidden = words.map((w) => disguise(w, how));
    const gap = pick([" ", "  ", "\n", "\t \n", "\u00a0"]);
    const escapeSome = how === 5 ? (i: number) => i % 3 === 1 : () => false;
    if (how === 6) {
      // The two words in two messages: the joined text holds them with one space between.
      entry(`"message":{"role":"user","content":${JSON.stringify(`see ${hidden[0]} Kiwi  `)},"timestamp":1}`);
      entry(`"message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(`\tzebra ${hidden[1]} now`)}}],"timestamp":2}`);
    } else if (how === 7) {
      // Text blocks that are not strings: a number, an object, an array.
      entry(
        `"message":{"role":"assistant","content":[{"type":"text","text":1e2},{"type":"text","text":{"a":1}},{"type":"text","text":["${hidden[0]}",3]}],"timestamp":2}`,
      );
    } else if (how === 8) {
      // A name (escaped) and no message with the words.
      entry(`"message":{"role":"user","content":"nothing here","timestamp":1}`);
      lines.push(
        `{"type":"session_info","id":"n1","parentId":${JSON.stringify(parent)},"timestamp":"2026-03-02T10:00:09.000Z","name":${escapedString(` ${hidden.join(gap)} `, (i) => n % 2 === 0 && i === 3)}}`,
      );
    } else if (n % 4 !== 3) {
      entry(`"message":{"role":"user","content":${escapedString(`Fix the ${hidden.join(gap)} please`, escapeSome)},"timestamp":1}`);
    } else {
      entry(`"message":{"role":"user","content":"Fix the build","timestamp":1}`);
    }
    if (n === 11) {
      // Over one read chunk, with a word across the 1 MiB boundary.
      const filler = "o".repeat(1024 * 1024 - lines.join("\n").length - 60);
      entry(`"message":{"role":"user","content":"${filler} Shader\\n parser ${words[0]} ${words[1]}","timestamp":3}`);
    }
    const file = join(sessionDir, `2026-03-02T10-00-00-000Z_${id}.jsonl`);
    writeFileSync(file, `${lines.join(n % 13 === 12 ? "\r\n" : "\n")}\n`);
    files.push(file);
  }
}

const QUERIES = [
  "flaky",
  "COOKIE",
  '"flaky cookie"',
  '"cookie  flaky"',
  "zebra",
  "zbra",
  "kiwi",
  "issue",
  "v2",
  "abc123",
  "123abc",
  "object",
  "100",
  "nothing",
  "parser shader",
  '"shader parser"',
  "absent-word",
  "qqqq",
  "work",
  "\u212aiwi",
  "flkcok",
  "prsr",
  "shdr",
  "kwi",
  '"parser please"',
  '"see shader"',
  '"kiwi now"',
  '"zebra kiwi"',
  '"kiwi zebra"',
];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-search-prefilter-")));
  sessionDir = join(root, "sessions");
  mkdirSync(sessionDir);
  mkdirSync(join(root, "project"));
  writeSessions();
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the prefilter keeps every file the search matches", () => {
  for (const version of ["1.x", "0.74"] as const) {
    it(`Pi ${version}: no matched file is passed over, and files that cannot match are`, () => {
      let ruledOut = 0;
      let matched = 0;
      for (const query of QUERIES) {
        for (const path of files) {
          const exact = scanFile({ path, version, read: "info", query });
          const filtered = scanFile({ path, version, read: "info", query, prefilter: true });
          if (exact.scan?.search) {
            matched++;
            expect(filtered.ruledOut, `${query} in ${path}`).toBeUndefined();
            expect(filtered.scan?.search).toEqual(exact.scan.search);
          }
          if (filtered.ruledOut) ruledOut++;
        }
      }
      expect(matched).toBeGreaterThan(100);
      expect(ruledOut).toBeGreaterThan(200);
    });
  }

  it("probes each header on the prefilter's descriptor (as probeHeader does), and never passes over a file whose id could match", () => {
    let kept = 0;
    for (const path of files) {
      const expected = probeHeader(path, statSync(path).size);
      const id = expected.header?.id;
      // A word in no session: the prefilter passes over the files without a hazard, unless their id could match.
      const other = scanFile({ path, version: "1.x", read: "info", query: "qqqq", prefilter: true, probeForId: "zzzz-no-such-id" });
      expect(other.probe, path).toEqual(expected);
      // An id that matches no header changes nothing: the file is passed over where it was without one.
      const plain = scanFile({ path, version: "1.x", read: "info", query: "qqqq", prefilter: true });
      expect(other.ruledOut, path).toBe(plain.ruledOut);
      if (id === undefined || !plain.ruledOut) continue;
      const own = scanFile({ path, version: "1.x", read: "info", query: "qqqq", prefilter: true, probeForId: id.slice(0, 8) });
      expect(own.ruledOut, path).toBeUndefined();
      expect(own.probe, path).toEqual(expected);
      kept++;
    }
    expect(kept).toBeGreaterThan(10);
  });

  it("findSessions answers the same with and without it", async () => {
    for (const version of ["1.x", "0.74"] as const) {
      for (const arg of QUERIES) {
        const request = { version, arg, cwd: join(root, "project"), home: root, env: {}, sessionDir, text: "always" as const, pool: { threads: 0 } };
        const plain = await findSessions({ ...request, prefilter: false });
        const filtered = await findSessions(request);
        expect(filtered, `${version} ${arg}`).toEqual(plain);
      }
    }
  });
});
