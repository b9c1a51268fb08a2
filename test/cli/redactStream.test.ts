/**
 * `redact` streams the file: its copy is byte for byte the one the whole text gives (`redactText`,
 * under the same key) on the corpus's sessions with credentials and on generated ones; a secret
 * across the reader's 1 MiB chunk boundary and inside a 10 MB line is found and replaced like any
 * other; what Pi appends while `--out FILE` replaces FILE is carried over, unless it holds a
 * credential; a line longer than the reader takes and a line that is not UTF-8 are refused.
 */

import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactFile } from "../../server/src/cli/redact";
import { redactSession } from "../../server/src/cli/redactRun";
import { redactionPlaceholder, redactText } from "../../server/src/core/edits/redact";
import { CHUNK_BYTES } from "../../server/src/io/lineReader";
import { parseFixture } from "../helpers/fixture";

const KEY = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const GITHUB = "ghp_R8sT1wY5zB3cD6fG0hJQ7vX2mK9pL4nAb123";
const PASSWORD = "S3cr3tPa55";
const RUN_KEY = new Uint8Array(32).fill(7);
const placeholderOf = (kind: Parameters<typeof redactionPlaceholder>[0], value: string) => redactionPlaceholder(kind, value, RUN_KEY);

const HEADER = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-0000000000aa","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const entry = (id: string, parentId: string | null, message: object) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-03-02T10:00:01.000Z", message: { timestamp: 1772445601000, ...message } });

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), isTTY: false, errIsTTY: false, env: {}, cwd: "/" }, out, err };
}

/** A session holding one key in a fresh folder: the folder, the file and its text. */
function keyedSession(prefix: string) {
  const text = `${HEADER}\n${entry("u1", null, { role: "user", content: `export ANTHROPIC_API_KEY=${KEY}` })}\n`;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, "s.jsonl");
  writeFileSync(file, text);
  return { text, dir, file };
}

/** Redacts `text` through the command, under the fixed key; the copy's bytes, and what the command said. */
function streamed(text: string | Buffer, name = "s.jsonl") {
  const dir = mkdtempSync(join(tmpdir(), "pi-redact-stream-"));
  const file = join(dir, name);
  writeFileSync(file, text);
  const out = join(dir, "copy.jsonl");
  const { io, out: said, err } = capture();
  const status = redactFile(file, { out, dryRun: false, key: RUN_KEY }, io);
  return { status, copy: existsSync(out) ? readFileSync(out) : undefined, out: said.join(""), err: err.join(""), file, dir };
}

/** The parity fixtures Pi 1.6 wrote, with credentials planted in their user and tool result texts. */
function plantedParity(): [string, string][] {
  const folder = join(__dirname, "../parity/fixtures");
  return readdirSync(folder)
    .filter((f) => f.startsWith("written-16-"))
    .map((name) => {
      const lines = readFileSync(join(folder, name), "utf8").split("\n");
      const planted = lines.map((line, i) => {
        if (!line.includes('"role":"user"') && !line.includes('"role":"toolResult"')) return line;
        const secret = [KEY, GITHUB, `postgres://admin:${PASSWORD}@db/app`][i % 3];
        return line.replace('"text":"', `"text":"see ${secret} `).replace(/"content":"/, `"content":"use ${secret} `);
      });
      return [name, planted.join("\n")];
    });
}

/** A token used as an entry's id only: left in place there. */
const ID_TOKEN = "ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNn";

/** A generated session: credentials repeated across lines, one in an id, one in a private key's escapes, CRLF endings, no final newline. */
function generated(seed: number): string {
  // A small linear congruential generator: the same session for the same seed.
  let state = seed;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const privateKey = `-----BEGIN RSA PRIVATE KEY-----\\n${"MIIEowIBAAKCAQEA7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(4)}\\n-----END RSA PRIVATE KEY-----`;
  const texts = [
    `export ANTHROPIC_API_KEY=${KEY}`,
    `token ${GITHUB} again ${KEY}`,
    `psql postgres://admin:${PASSWORD}@db:5432/app`,
    `key file:\\n${privateKey}`,
    "nothing secret here",
    `OPENAI_API_KEY=sk-proj-${"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1x".repeat(2)}`,
  ];
  const lines = [HEADER];
  let parent: string | null = null;
  for (let i = 0; i < 60; i++) {
    const id = i === 7 ? ID_TOKEN : `e${i}`;
    lines.push(entry(id, parent, { role: "user", content: `${pick(texts)} ${"é".repeat(Math.floor(random() * 40))}` }));
    parent = id;
  }
  return `${lines.join(seed % 2 === 0 ? "\r\n" : "\n")}${seed % 3 === 0 ? "" : "\n"}`;
}

describe("redact streamed", () => {
  const corpus: [string, string][] = [
    ...readdirSync(join(__dirname, "../fixtures/diagnostics"))
      .filter((f) => f.endsWith(".txt"))
      .map((f): [string, string] => [f, parseFixture(readFileSync(join(__dirname, "../fixtures/diagnostics", f), "utf8")).text]),
    ...plantedParity(),
    ...[1, 2, 3, 4, 5, 6].map((seed): [string, string] => [`generated-${seed}`, generated(seed)]),
  ].filter(([, text]) => redactText(text, placeholderOf).replacements.length > 0);

  it("has sessions with credentials to redact, from the corpus and generated", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    expect(corpus.some(([name]) => name === "secret.txt")).toBe(true);
  });

  it.each(corpus)("writes for %s the bytes the whole text gives", (_name, text) => {
    const whole = redactText(text, placeholderOf);
    const r = streamed(text);
    expect(r.err).toBe("");
    expect(r.status).toBe(0);
    expect(r.copy?.toString("utf8")).toBe(whole.text);
    expect(r.out).toContain(`${whole.replacements.length} replacement`);
  });

  it("replaces a secret that straddles the 1 MiB chunk boundary, and the same secret elsewhere by the same placeholder", () => {
    const before = `${HEADER}\n${entry("u1", null, { role: "user", content: "start" })}\n`;
    // The key's first half in the first chunk, its second half in the next.
    const pad = CHUNK_BYTES - Buffer.byteLength(before) - Buffer.byteLength(entry("u2", "u1", { role: "user", content: "" })) + 20 - KEY.length / 2;
    const big = entry("u2", "u1", { role: "user", content: `${"p".repeat(pad)}${KEY}` });
    const text = `${before}${big}\n${entry("u3", "u2", { role: "user", content: `again ${KEY}` })}\n`;
    const at = Buffer.byteLength(before) + big.indexOf(KEY);
    expect(at).toBeLessThan(CHUNK_BYTES);
    expect(at + KEY.length).toBeGreaterThan(CHUNK_BYTES);
    const r = streamed(text);
    expect(r.status).toBe(0);
    const copy = r.copy!.toString("utf8");
    expect(copy.includes(KEY)).toBe(false);
    expect(copy === redactText(text, placeholderOf).text).toBe(true);
    const placeholder = redactionPlaceholder("anthropic-api-key", KEY, RUN_KEY);
    expect(copy.split(placeholder)).toHaveLength(3);
  });

  it("replaces secrets inside a 10 MB line, at its start, across a chunk boundary inside it and at its end", () => {
    const start = entry("u1", null, { role: "user", content: "" });
    const contentAt = Buffer.byteLength(HEADER) + 1 + start.indexOf('"content":"') + '"content":"'.length;
    // The GitHub token starts 10 bytes before the second chunk boundary, inside the long line.
    const fill = "q".repeat(2 * CHUNK_BYTES - 10 - contentAt - KEY.length - 2);
    const content = `${KEY} ${fill} ${GITHUB} postgres://admin:${PASSWORD}@db/x ${"z".repeat(8 * 1024 * 1024)} ${KEY}`;
    const text = `${HEADER}\n${entry("u1", null, { role: "user", content })}\n`;
    expect(Buffer.from(text).indexOf(GITHUB)).toBe(2 * CHUNK_BYTES - 10);
    expect(Buffer.byteLength(text)).toBeGreaterThan(10 * 1024 * 1024);
    const r = streamed(text);
    expect(r.err).toBe("");
    expect(r.status).toBe(0);
    const copy = r.copy!.toString("utf8");
    for (const secret of [KEY, GITHUB, PASSWORD]) expect(copy.includes(secret)).toBe(false);
    expect(copy === redactText(text, placeholderOf).text).toBe(true);
    expect(r.out).toMatch(/^4 replacements of 3 secrets written to/m);
  });

  it("refuses a line longer than it reads, and a line that is not UTF-8, writing nothing", () => {
    const text = `${HEADER}\n${entry("u1", null, { role: "user", content: `${KEY} ${"w".repeat(5000)}` })}\n`;
    const dir = mkdtempSync(join(tmpdir(), "pi-redact-long-"));
    const file = join(dir, "s.jsonl");
    writeFileSync(file, text);
    const long = capture();
    expect(redactFile(file, { out: join(dir, "c.jsonl"), dryRun: false, maxLineBytes: 4096 }, long.io)).toBe(2);
    expect(long.err.join("")).toMatch(/line 2 is longer/);
    const broken = streamed(
      Buffer.concat([Buffer.from(`${text}${entry("u2", "u1", { role: "user", content: "é" })}\n`.replace("é", "\u0000")), Buffer.from([0xff, 0x0a])]),
    );
    expect(broken.status).toBe(2);
    expect(broken.err).toMatch(/is not UTF-8 \(line 4 is not valid UTF-8\)/);
    expect(broken.copy).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(["s.jsonl"]);
  });

  it("says it cannot write to a folder that does not exist, and leaves nothing behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-redact-nowhere-"));
    const file = join(dir, "s.jsonl");
    writeFileSync(file, `${HEADER}\n${entry("u1", null, { role: "user", content: `export ANTHROPIC_API_KEY=${KEY}` })}\n`);
    const { io, err } = capture();
    expect(redactFile(file, { out: join(dir, "missing", "c.jsonl"), dryRun: false }, io)).toBe(2);
    expect(err.join("")).toMatch(/cannot write .*missing\/c\.jsonl: ENOENT/);
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
  });

  it("carries over what Pi appends while --out FILE replaces FILE, and refuses what Pi appends with a credential", () => {
    const { text, dir, file } = keyedSession("pi-redact-append-");
    const clean = `${entry("u2", "u1", { role: "user", content: "and now the tests" })}\n`;
    const done = redactSession(file, { target: file, inPlace: true, listMax: 10, key: RUN_KEY, beforeCommit: () => appendFileSync(file, clean) });
    expect(done.status).toBe("proved");
    expect(readFileSync(file, "utf8")).toBe(redactText(text, placeholderOf).text + clean);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(text + clean);

    const other = join(dir, "t.jsonl");
    writeFileSync(other, text);
    const leaking = `${entry("u2", "u1", { role: "user", content: `token ${GITHUB}` })}\n`;
    const refused = redactSession(other, { target: other, inPlace: true, listMax: 10, key: RUN_KEY, beforeCommit: () => appendFileSync(other, leaking) });
    expect(refused).toMatchObject({ status: "refused", exit: 2 });
    expect(refused.status === "refused" && refused.reason).toMatch(/what it appended holds a credential/);
    expect(readFileSync(other, "utf8")).toBe(text + leaking);
    expect(readdirSync(dir).sort()).toEqual(["s.jsonl", "s.jsonl.bak", "t.jsonl"]);
  });

  it("refuses to replace FILE when its bytes were changed in place after they were read, keeping the change", () => {
    const text = `${HEADER}\n${entry("u1", null, { role: "user", content: `export ANTHROPIC_API_KEY=${KEY} and the notes` })}\n`;
    const dir = mkdtempSync(join(tmpdir(), "pi-redact-changed-"));
    const file = join(dir, "s.jsonl");
    writeFileSync(file, text);
    // An editor saving the session writes over the same inode: same size, other bytes.
    const edited = text.replace("and the notes", "and the NOTES");
    const outcome = redactSession(file, { target: file, inPlace: true, listMax: 10, key: RUN_KEY, beforeCommit: () => writeFileSync(file, edited) });
    expect(outcome).toMatchObject({ status: "refused", exit: 2 });
    expect(outcome.status === "refused" && outcome.reason).toMatch(/its content changed since it was read/);
    expect(readFileSync(file, "utf8")).toBe(edited);
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
  });

  it("--dry-run's copy has no name while it is proved: an interrupted run (Ctrl-C, a kill) leaves nothing in the temporary folder", () => {
    const { dir, file } = keyedSession("pi-redact-dry-");
    const temporary = mkdtempSync(join(tmpdir(), "pi-redact-tmpdir-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    let during: string[] | undefined;
    try {
      const outcome = redactSession(file, { target: undefined, inPlace: false, listMax: 10, key: RUN_KEY, afterCopy: () => (during = readdirSync(temporary)) });
      expect(outcome.status).toBe("proved");
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(during).toEqual([]);
    expect(readdirSync(temporary)).toEqual([]);
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
  });

  it("removes the copies an interrupted run (Ctrl-C, a kill) left beside the output, and only those of processes that are gone", () => {
    const { dir, file } = keyedSession("pi-redact-stale-");
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const left = `.c.jsonl.${gone}.0.redact`;
    const running = `.c.jsonl.${process.ppid}.0.redact`;
    for (const name of [left, running]) writeFileSync(join(dir, name), "{}\n");
    const { io } = capture();
    expect(redactFile(file, { out: join(dir, "c.jsonl"), dryRun: false, key: RUN_KEY }, io)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([running, "c.jsonl", "s.jsonl"]);
  });

  it("refuses to carry a line Pi was still writing when FILE was read, when its whole holds a credential split there", () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-redact-split-"));
    const file = join(dir, "s.jsonl");
    const line = entry("u2", "u1", { role: "user", content: `the key is ${KEY} for now` });
    const cut = line.indexOf(KEY) + 20;
    const read = `${HEADER}\n${entry("u1", null, { role: "user", content: `token ${GITHUB}` })}\n${line.slice(0, cut)}`;
    writeFileSync(file, read);
    const outcome = redactSession(file, {
      target: file,
      inPlace: true,
      listMax: 10,
      key: RUN_KEY,
      beforeCommit: () => appendFileSync(file, `${line.slice(cut)}\n`),
    });
    expect(outcome).toMatchObject({ status: "refused", exit: 2 });
    expect(outcome.status === "refused" && outcome.reason).toMatch(/what it appended holds a credential/);
    expect(readFileSync(file, "utf8")).toBe(`${read}${line.slice(cut)}\n`);
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
  });
});
