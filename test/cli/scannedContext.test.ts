/**
 * The differential test of `context`'s shortcut (`core/pi/scannedContext.ts`): on every file of the
 * parity corpus, on hostile sessions from test/helpers/hostile.mjs, and on each of them rewritten
 * in ways that move ids, links and bytes (CRLF and lone "\r", a byte order mark, blank and broken
 * lines, escaped and repeated keys, duplicate and numeric ids, cycles, message-less entries,
 * invalid UTF-8, deep nesting, v1/v2 headers), `runContext` — which answers through the shortcut
 * whenever it is sure — prints exactly what the full path (`printContext` over a
 * `SessionDocument`) prints: the same stdout, stderr and exit status, for the default leaf and
 * `--leaf`, each `--pi`, `--format markdown` and `--stage provider`. The counts at the end make
 * sure the shortcut answered, and declined, often enough for the agreement to mean something.
 *
 * It runs the built `out/` tree, as the command does (the full path is loaded there lazily).
 */

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../server/src/cli/io";
import { ensureBuilt } from "../helpers/lspClient";

const out = join(__dirname, "../../out");
const fixtures = join(__dirname, "../parity/fixtures");
const nodeRequire = createRequire(__filename);

interface Built {
  runContext: typeof import("../../server/src/cli/contextCommand").runContext;
  printContext: typeof import("../../server/src/cli/contextFromDocument").printContext;
  scannedContext: typeof import("../../server/src/core/pi/scannedContext").scannedContext;
  decodeSession: typeof import("../../server/src/io/checkRead").decodeSession;
  escapeControls: typeof import("../../server/src/cli/terminal").escapeControls;
  errorText: typeof import("../../server/src/cli/walk").errorText;
  forgetValues: typeof import("../../server/src/core/line/values").forgetValues;
  parseLine: typeof import("../../server/src/core/line/parse").parseLine;
}
let built: Built;

beforeAll(async () => {
  await ensureBuilt();
  const load = <T>(path: string) => nodeRequire(join(out, path)) as T;
  built = {
    ...load<Pick<Built, "runContext">>("cli/contextCommand.js"),
    ...load<Pick<Built, "printContext">>("cli/contextFromDocument.js"),
    ...load<Pick<Built, "scannedContext">>("core/pi/scannedContext.js"),
    ...load<Pick<Built, "decodeSession">>("io/checkRead.js"),
    ...load<Pick<Built, "escapeControls">>("cli/terminal.js"),
    ...load<Pick<Built, "errorText">>("cli/walk.js"),
    ...load<Pick<Built, "forgetValues">>("core/line/values.js"),
    ...load<Pick<Built, "parseLine">>("core/line/parse.js"),
  };
});

interface Answer {
  status: number;
  out: string;
  err: string;
}

function capture(): { io: CliIo; answer: Omit<Answer, "status"> } {
  const answer = { out: "", err: "" };
  const io: CliIo = { out: (t) => (answer.out += t), err: (t) => (answer.err += t), isTTY: false, errIsTTY: false, env: {}, cwd: "/" };
  return { io, answer };
}

const FLAVORS = { "1.x": "1.x", "0.74": "0.74", "retained-tail": "retained-tail" } as const;

interface Options {
  pi?: keyof typeof FLAVORS;
  leaf?: string;
  format?: "json" | "markdown";
  stage?: "context" | "provider";
}

function argsOf(o: Options): string[] {
  return [
    ...(o.pi ? ["--pi", o.pi] : []),
    ...(o.leaf !== undefined ? ["--leaf", o.leaf] : []),
    ...(o.format ? ["--format", o.format] : []),
    ...(o.stage ? ["--stage", o.stage] : []),
  ];
}

/** The full path, as `runContext` runs it after reading and decoding the file. */
function fullPath(file: string, bytes: Buffer, o: Options): Answer | undefined {
  const decoded = built.decodeSession(bytes);
  if (decoded.encoding !== "utf-8") return undefined;
  const shown = built.escapeControls(file);
  const { io, answer } = capture();
  let status: number;
  try {
    status = built.printContext(
      file,
      shown,
      decoded.text,
      { format: o.format ?? "json", flavor: FLAVORS[o.pi ?? "1.x"], leafId: o.leaf, stage: o.stage ?? "context" },
      io,
    );
  } catch (error) {
    answer.err += `pi-session-lsp context: ${shown}: internal error: ${built.escapeControls(built.errorText(error))}\n`;
    status = 2;
  }
  return { status, ...answer };
}

/**
 * The answer with the times read from the clock (the provider stage's synthetic tool results are
 * stamped "now") replaced, since the two runs read it a few milliseconds apart.
 */
function withoutClock(answer: Answer): Answer {
  const now = Date.now();
  const clock = (text: string) => text.replace(/\b\d{13}\b/g, (ms) => (Math.abs(Number(ms) - now) < 600_000 ? "<now>" : ms));
  return { ...answer, out: clock(answer.out) };
}

const counts = { compared: 0, shortcut: 0, declined: 0 };

/** Compares the command with the full path on `bytes` written to `file`. */
function compare(file: string, bytes: Buffer, options: Options[]): void {
  writeFileSync(file, bytes);
  for (const o of options) {
    built.forgetValues();
    const expected = fullPath(file, bytes, o);
    if (!expected) continue;
    built.forgetValues();
    const { io, answer } = capture();
    // The file exists, so it is read as a path, at once: no session id is looked up.
    const status = built.runContext([...argsOf(o), file], io) as number;
    expect(withoutClock({ status, ...answer }), `${file} ${argsOf(o).join(" ")}`).toEqual(withoutClock(expected));
    counts.compared++;
    if ((o.format ?? "json") === "json" && (o.stage ?? "context") === "context") {
      const result = built.scannedContext(bytes, { flavor: FLAVORS[o.pi ?? "1.x"], leafId: o.leaf });
      if (result?.ok) counts.shortcut++;
      else counts.declined++;
    }
  }
}

/** A few ids of the file's lines, for `--leaf`: the first, one in the middle, the last but one, and one that is not there. */
function leafIds(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split("\n")) {
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === "string") ids.push(id);
    } catch {
      // A line that does not parse has no id to ask for.
    }
  }
  const picked = [ids[1], ids[Math.floor(ids.length / 2)], ids[ids.length - 2], "no-such-id"];
  return [...new Set(picked.filter((id): id is string => id !== undefined))];
}

const lines = (text: string) => text.split("\n");
const entryLines = (text: string) =>
  lines(text)
    .map((line, i) => ({ line, i }))
    .filter(({ line, i }) => i > 0 && line.startsWith("{"));

/** Rewrites of a session that move what the shortcut reads; each returns the new bytes. */
const REWRITES: Record<string, (text: string, random: () => number) => Buffer | string> = {
  "as is": (t) => t,
  CRLF: (t) => t.replace(/\n/g, "\r\n"),
  "lone CR": (t) => t.replace(/,"parentId"/g, ',\r"parentId"').replace(/"\n/, '"\r\n'),
  BOM: (t) => `\uFEFF${t}`,
  "blank lines": (t) => t.replace(/\n/g, "\n\n \t\r\n"),
  "no final newline": (t) => t.replace(/\n+$/, ""),
  "spaces between tokens": (t) => t.replace(/","/g, '" , "').replace(/":"/g, '" :\t"'),
  "escaped keys": (t) => t.replace(/"id":/g, '"\\u0069d":').replace(/"parentId":/, '"p\\u0061rentId":'),
  "repeated keys": (t, r) =>
    lines(t)
      .map((line, i) => (i > 0 && line.endsWith("}") && r() < 0.3 ? `${line.slice(0, -1)},"parentId":null,"id":"rekeyed-${i}"}` : line))
      .join("\n"),
  "duplicate ids": (t, r) => {
    const entries = entryLines(t);
    const extra = entries.filter(() => r() < 0.2).map(({ line }) => line.replace(/"timestamp":"[^"]*"/, '"timestamp":"2026-03-02T11:00:00.000Z"'));
    return `${t.replace(/\n+$/, "")}\n${extra.join("\n")}\n`;
  },
  "a cycle": (t, r) => {
    const entries = entryLines(t);
    const ids = entries.map(({ line }) => /"id":("[^"]*")/.exec(line)?.[1]).filter((id) => id !== undefined);
    if (ids.length < 2) return t;
    const all = lines(t);
    const target = entries[Math.floor(r() * Math.min(entries.length, 5))]!;
    all[target.i] = target.line.replace(/"parentId":(null|"[^"]*")/, `"parentId":${ids[ids.length - 1]}`);
    return all.join("\n");
  },
  "a numeric id": (t, r) => {
    const entries = entryLines(t);
    if (entries.length === 0) return t;
    const all = lines(t);
    const target = entries[Math.floor(r() * entries.length)]!;
    all[target.i] = target.line.replace(/"id":"[^"]*"/, '"id":7');
    return all.join("\n");
  },
  "broken lines": (t, r) =>
    lines(t)
      .flatMap((line, i) => (i > 0 && r() < 0.15 ? [line.slice(0, Math.floor(line.length / 2))] : r() < 0.05 ? [line, '{"type":"message",'] : [line]))
      .join("\n"),
  "a broken last line": (t) => `${t.replace(/\n+$/, "")}\n{"type":"message","id":"cut","parentId":null\n`,
  "a message-less entry": (t) => {
    const ids = [...t.matchAll(/"id":("[^"]*")/g)].map((m) => m[1]);
    return `${t.replace(/\n+$/, "")}\n{"type":"message","id":"mnull","parentId":${ids.at(-1) ?? "null"},"timestamp":"2026-03-02T11:00:00.000Z","message":null}\n`;
  },
  "invalid UTF-8": (t) => {
    const bytes = Buffer.from(t, "utf8");
    for (let k = bytes.indexOf(0x22, Math.floor(bytes.length / 3)); k > 0 && k < bytes.length; k = bytes.indexOf(0x22, k + 997)) {
      if (bytes[k + 1]! >= 0x61 && bytes[k + 1]! <= 0x7a) bytes[k + 1] = k % 2 ? 0xff : 0xc3;
    }
    return bytes;
  },
  "control bytes in strings": (t) => t.replace(/"text":"/g, '"text":"\t').replace(/"content":"/, '"content":"\u0001'),
  "deep nesting": (t) => {
    const ids = [...t.matchAll(/"id":("[^"]*")/g)].map((m) => m[1]);
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    return `${t.replace(/\n+$/, "")}\n{"type":"custom","id":"deep1","parentId":${ids.at(-1) ?? "null"},"data":${deep(900)}}\n{"type":"custom","id":"deep2","parentId":"deep1","data":${deep(3000)}}\n`;
  },
  "a version 1 header": (t) => t.replace(/"version":3,/, ""),
  "a version 2 header": (t) => t.replace(/"version":3/, '"version":2'),
  "a string version": (t) => t.replace(/"version":3/, '"version":"3"'),
  "an indented line": (t) => t.replace(/\n\{/, "\n {"),
  "a no-break space line": (t) => t.replace(/\n/, "\n\u00a0\n"),
  "NUL bytes": (t) => t.replace(/"role":"user","content":"/, '"role":"user","content":"\u0000'),
};

const ALL_STAGES: Options[] = [{}, { pi: "retained-tail" }, { pi: "0.74" }, { format: "markdown" }, { stage: "provider" }];

describe("context: the shortcut prints what the full path prints", () => {
  const dir = mkdtempSync(join(tmpdir(), "scanned-context-"));
  const corpus = readdirSync(fixtures)
    .filter((name) => name.endsWith(".jsonl"))
    .sort();

  it("on the parity corpus, every option", () => {
    for (const name of corpus) {
      const bytes = readFileSync(join(fixtures, name));
      const text = bytes.toString("utf8");
      compare(join(dir, name), bytes, [...ALL_STAGES, ...leafIds(text).flatMap((leaf): Options[] => [{ leaf }, { leaf, pi: "retained-tail" }])]);
    }
  });

  it("on the parity corpus rewritten", async () => {
    const { seeded } = await import("../helpers/hostile.mjs");
    const random = seeded(7);
    for (const name of corpus) {
      const text = readFileSync(join(fixtures, name), "utf8");
      for (const [rewrite, apply] of Object.entries(REWRITES)) {
        const result = apply(text, random);
        const bytes = typeof result === "string" ? Buffer.from(result, "utf8") : result;
        const leaves = leafIds(bytes.toString("utf8")).slice(0, 2);
        compare(join(dir, `${rewrite.replace(/\W+/g, "-")}-${name}`), bytes, [
          {},
          { pi: "retained-tail" },
          { pi: "0.74" },
          ...leaves.map((leaf) => ({ leaf })),
        ]);
      }
    }
  });

  it("on hostile sessions, and those with odd ids, rewritten", async () => {
    const { makeGen, seeded } = await import("../helpers/hostile.mjs");
    const random = seeded(20261202);
    const gen = makeGen(random);
    const rewrites = Object.entries(REWRITES);
    for (let k = 0; k < 200; k++) {
      const text = gen.session({ oddIds: k % 2 === 1 });
      const [rewrite, apply] = k % 3 === 0 ? rewrites[0]! : rewrites[Math.floor(random() * rewrites.length)]!;
      const result = apply(text, random);
      const bytes = typeof result === "string" ? Buffer.from(result, "utf8") : result;
      const options: Options[] =
        k % 10 === 0
          ? ALL_STAGES
          : [
              {},
              ...leafIds(bytes.toString("utf8"))
                .slice(0, 2)
                .map((leaf) => ({ leaf })),
            ];
      compare(join(dir, `hostile-${k}-${rewrite.replace(/\W+/g, "-")}.jsonl`), bytes, options);
    }
  });

  it("a path entry's findings are those of the full parse, though the shortcut's parse leaves the checks out", () => {
    let found = 0;
    for (const name of corpus) {
      const bytes = readFileSync(join(fixtures, name));
      const lines = bytes.toString("utf8").split("\n");
      const result = built.scannedContext(bytes, { flavor: "1.x", leafId: undefined });
      if (!result?.ok) continue;
      for (const entry of result.build.path) {
        const full = built.parseLine(lines[entry.line]!.replace(/\r$/, ""));
        expect(full.kind).toBe("value");
        const findings = full.kind === "value" ? full.findings : [];
        expect(entry.parsed.findings, `${name}:${entry.line + 1}`).toEqual(findings);
        found += findings.length;
      }
    }
    // The corpus has entries with findings on the path, so the comparison is not only of empty lists.
    expect(found).toBeGreaterThan(0);
  });

  it("answered through the shortcut often, and declined often", () => {
    // The comparisons above mean something only if both ways were taken many times.
    console.log(`context shortcut: ${counts.compared} comparisons; of the JSON contexts, ${counts.shortcut} through the shortcut, ${counts.declined} declined`);
    expect(counts.compared).toBeGreaterThan(3000);
    expect(counts.shortcut).toBeGreaterThan(1000);
    expect(counts.declined).toBeGreaterThan(500);
  });
});
