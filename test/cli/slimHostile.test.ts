/**
 * `slim` on files written to break it: lines Pi skips (malformed, invalid UTF-8, `null`, blank)
 * copied byte for byte, a parent cycle and a line too long to read refused with the file left as
 * it was, and seeded hostile sessions either slimmed to the same contexts (checked with the core's
 * full path) or left byte for byte.
 */

import { spawnSync } from "node:child_process";
import { linkSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { slimSession } from "../../server/src/cli/slimRun";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { buildProviderRequest, providerViewJson } from "../../server/src/core/pi/provider/request";
import { SessionDocument } from "../../server/src/core/session/document";
import { ensureBuilt } from "../helpers/lspClient";

let root: string;
let count = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pi-slim-hostile-"));
  process.env.PI_SESSION_LSP_BACKUP_DIR = join(root, "history");
});

function sessionFile(bytes: string | Buffer): string {
  const file = join(root, `h${count++}.jsonl`);
  writeFileSync(file, bytes);
  return file;
}

function fullPath(text: string): string[] {
  const doc = new SessionDocument("file:///s.jsonl", "jsonl", 0, text);
  return (["1.x", "0.74"] as PiFlavor[]).flatMap((flavor) => {
    const built = buildContext(doc.analysis, { flavor });
    if (!built.ok) return [`fails: ${built.failure.kind}`];
    const request = buildProviderRequest(built.build, { flavor, now: () => 0 });
    return [JSON.stringify(built.build.context), request.ok ? providerViewJson(request.request) : `fails: ${request.reason}`];
  });
}

const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-00000000000h","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
const image = (n: number) => `{"type":"image","data":"${"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ".padEnd(n, "A")}","mimeType":"image/png"}`;
const user = (id: string, parent: string | null, content: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":${content},"timestamp":1772445601000}}`;

/** Splits on "\n" bytes: the lines as Pi reads them, as raw bytes. */
function byteLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let start = 0; start <= bytes.length; ) {
    let nl = bytes.indexOf(10, start);
    if (nl < 0) nl = bytes.length;
    out.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  return out;
}

describe("slim on broken lines", () => {
  it("copies the lines Pi skips byte for byte and slims the others, keeping a \\r", () => {
    const invalid = Buffer.concat([
      Buffer.from(
        user("b1", "r1", `[${image(9000)}]`)
          .replace('"data":"', '"data":"\xff')
          .slice(0, 120),
        "latin1",
      ),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const lines: (string | Buffer)[] = [
      header,
      user("r1", null, '"start"'),
      // A branch off the root: an image Pi no longer sends, on a line ending in "\r".
      `${user("b2", "r1", `[{"type":"text","text":"side"},${image(9000)}]`)}\r`,
      // Lines Pi skips: malformed, invalid UTF-8 with an image in it, null, blank.
      `{"type":"message","id":"zz","parentId":"r1","message":{"role":"user","content":[${image(9000)}`,
      invalid,
      Buffer.concat([Buffer.from(user("b3", "r1", `[${image(9000)}]`).slice(0, -3)), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]),
      "null",
      "",
      user("m1", "r1", '"the branch Pi resumes"'),
    ];
    const original = Buffer.concat(lines.flatMap((l) => [typeof l === "string" ? Buffer.from(l) : l, Buffer.from("\n")]));
    const file = sessionFile(original);
    const outcome = slimSession(file, { minBytes: 4096 });
    expect(outcome.status).toBe("slimmed");
    const after = readFileSync(file);
    const [before, now] = [byteLines(original), byteLines(after)];
    expect(now.length).toBe(before.length);
    for (const k of [3, 4, 5, 6, 7, 8]) expect(now[k]!.equals(before[k]!)).toBe(true);
    expect(now[2]!.toString()).toContain("[slimmed: image/png of 9,");
    expect(now[2]!.at(-1)).toBe(0x0d);
    expect(fullPath(after.toString("utf8"))).toEqual(fullPath(original.toString("utf8")));
  });

  it("leaves an image on a line of invalid UTF-8 that Pi reads as it is", () => {
    const line = Buffer.concat([
      Buffer.from(user("b4", "r1", `[{"type":"text","text":"`)),
      Buffer.from([0xff]),
      Buffer.from(`"},${image(9000)}]`.slice(0)),
      Buffer.from("}}"),
    ]);
    const text = Buffer.concat([
      Buffer.from(`${header}\n${user("r1", null, '"start"')}\n`),
      line.subarray(0, line.length - 2),
      Buffer.from("}\n"),
      Buffer.from(`${user("m1", "r1", '"x"')}\n`),
    ]);
    const file = sessionFile(text);
    const outcome = slimSession(file, { minBytes: 4096 });
    expect(["nothing", "refused"]).toContain(outcome.status);
    expect(readFileSync(file).equals(text)).toBe(true);
  });
});

describe("slim refuses what Pi cannot resume or it cannot read", () => {
  it("a parent cycle on the path Pi resumes", () => {
    const text = `${header}\n${user("a", "c", `[${image(9000)}]`)}\n${user("b", "a", '"b"')}\n${user("c", "b", '"c"')}\n`;
    const file = sessionFile(text);
    const outcome = slimSession(file, { minBytes: 4096 });
    expect(outcome).toMatchObject({ status: "refused", reason: expect.stringMatching(/parent cycle/) });
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a line longer than the reader holds", () => {
    const text = `${header}\n${user("r1", null, '"start"')}\n${user("b1", "r1", `[${image(50_000)}]`)}\n${user("m1", "r1", '"x"')}\n`;
    const file = sessionFile(text);
    const outcome = slimSession(file, { minBytes: 4096, maxLineBytes: 20_000 });
    expect(outcome).toMatchObject({ status: "refused", reason: expect.stringMatching(/too long/) });
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a file Pi would migrate", () => {
    const text = `{"type":"session","id":"x","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n{"type":"message","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":[${image(9000)}]}}\n`;
    const file = sessionFile(text);
    expect(slimSession(file, { minBytes: 4096 }).status).toBe("refused");
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("slim and links", () => {
  const text = () => `${header}\n${user("r1", null, '"start"')}\n${user("b1", "r1", `[${image(9000)}]`)}\n${user("m1", "r1", '"x"')}\n`;

  it("slims the file a symbolic link names, and the link stays a link", () => {
    const target = sessionFile(text());
    const link = join(root, `link-${count++}.jsonl`);
    symlinkSync(target, link);
    expect(slimSession(link, { minBytes: 4096 }).status).toBe("slimmed");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toContain("[slimmed: image/png");
    expect(readFileSync(`${target}.bak`, "utf8")).toBe(text());
  });

  it("refuses a file with a second hard link in place, and slims it into --out", () => {
    const file = sessionFile(text());
    linkSync(file, `${file}.other`);
    expect(slimSession(file, { minBytes: 4096 })).toMatchObject({ status: "refused", reason: expect.stringMatching(/2 hard links/) });
    expect(readFileSync(file, "utf8")).toBe(text());
    expect(slimSession(file, { minBytes: 4096, out: `${file}.slim` }).status).toBe("slimmed");
  });
});

describe("slim on seeded hostile sessions", () => {
  it("slims each to the same contexts, or leaves it byte for byte", async () => {
    const { makeGen, seeded } = await import("../helpers/hostile.mjs");
    for (let seed = 1; seed <= 25; seed++) {
      const text = makeGen(seeded(seed)).session({ entries: 60 });
      const file = sessionFile(text);
      const outcome = slimSession(file, { minBytes: 1 });
      const after = readFileSync(file, "utf8");
      if (outcome.status === "slimmed") expect(fullPath(after), `seed ${seed}`).toEqual(fullPath(text));
      else expect(after, `seed ${seed}`).toBe(text);
    }
  });
});

describe("slim on the command line", () => {
  const bin = join(__dirname, "../../bin/pi-session-lsp.js");
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bin, "slim", ...args], {
      encoding: "utf8",
      env: { ...process.env, PI_SESSION_LSP_BACKUP_DIR: join(root, "history") },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it("prints its help, refuses bad words with 2 and what Pi cannot resume with 1, and reports a run", async () => {
    await ensureBuilt();
    expect(cli("--help")).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: pi-session-lsp slim/) });
    expect(cli().status).toBe(2);
    expect(cli("--min-bytes", "x", "f.jsonl").status).toBe(2);
    expect(cli(join(root, "missing.jsonl")).status).toBe(2);
    const cycle = sessionFile(`${header}\n${user("a", "b", '"a"')}\n${user("b", "a", '"b"')}\n`);
    const refused = cli(cycle);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/is left as it is: .*parent cycle/);
    const file = sessionFile(`${header}\n${user("r1", null, '"start"')}\n${user("b1", "r1", `[${image(9000)}]`)}\n${user("m1", "r1", '"x"')}\n`);
    const slimmed = cli(file);
    expect(slimmed.status).toBe(0);
    expect(slimmed.stdout).toMatch(/saved .* images +1 replaced/s);
    expect(slimmed.stdout).toMatch(/proved: the context and provider request are byte-identical/);
    expect(slimmed.stdout).toContain(`backup: ${file}.bak`);
  });

  it("lists the sessions of a folder by what slimming would save, writing nothing", async () => {
    await ensureBuilt();
    const folder = mkdtempSync(join(root, "survey-"));
    const small = `${header}\n${user("r1", null, '"start"')}\n${user("b1", "r1", `[${image(9000)}]`)}\n${user("m1", "r1", '"x"')}\n`;
    const large = small.replace(image(9000), image(50_000));
    writeFileSync(join(folder, "small.jsonl"), small);
    writeFileSync(join(folder, "large.jsonl"), large);
    writeFileSync(join(folder, "cycle.jsonl"), `${header}\n${user("a", "b", '"a"')}\n${user("b", "a", '"b"')}\n`);
    const r = cli("--dry-run", folder);
    expect(r.status).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows.map((row) => row.match(/(\w+)\.jsonl/)?.[1])).toEqual(["large", "small", "cycle", undefined]);
    expect(rows[2]).toMatch(/refused: .*parent cycle/);
    expect(rows[3]).toMatch(/^slim would save .* in 3 sessions/);
    expect(readFileSync(join(folder, "large.jsonl"), "utf8")).toBe(large);
    expect(cli(join(folder, "small.jsonl"), join(folder, "large.jsonl")).status).toBe(2);
  });
});
