/**
 * The streaming line reader: the same lines as splitting the whole text on "\n" (what Pi 1.x's
 * loadEntriesFromFile does chunk by chunk), whatever the chunk size, with byte offsets that read
 * each line back, lines over the limit reported without their text, and the same result from the
 * synchronous and the asynchronous reader.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LineFile, type LineMeta, NotRegularFile, readLines, readLinesSync } from "../../server/src/io/lineReader";

const dir = mkdtempSync(join(tmpdir(), "line-reader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${n++}`);
  writeFileSync(path, content);
  return path;
}

function collect(path: string, options: Parameters<typeof readLinesSync>[2] = {}) {
  const lines: (string | undefined)[] = [];
  const metas: LineMeta[] = [];
  const result = readLinesSync(
    path,
    (text, meta) => {
      lines.push(text);
      metas.push(meta);
    },
    options,
  );
  return { lines, metas, result };
}

/** What Pi 1.x sees: the text split on "\n", the piece after a final "\n" being empty (and skipped). */
function piLines(text: string): string[] {
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

const SAMPLES = [
  "",
  "\n",
  "one line without newline",
  '{"a":1}\n{"b":2}\n',
  "crlf\r\nline\r\n\r\nlast",
  "unicode: 🧪 ünï 中文\nsecond 🧪\n",
  "\n\n\nblank lines first\n",
  `${"x".repeat(5000)}\nshort\n${"y".repeat(3000)}`,
];

describe("readLinesSync", () => {
  for (const [i, sample] of SAMPLES.entries()) {
    for (const chunkBytes of [1, 2, 3, 7, 64, 1024 * 1024]) {
      it(`sample ${i} in chunks of ${chunkBytes} bytes gives Pi's lines`, () => {
        const path = file(sample);
        const { lines, metas, result } = collect(path, { chunkBytes });
        expect(lines).toEqual(piLines(sample));
        expect(result.bytes).toBe(Buffer.byteLength(sample));
        expect(result.endsWithNewline).toBe(sample.endsWith("\n"));
        // Every line's place reads the same text back.
        const back = new LineFile(path);
        try {
          for (const [k, meta] of metas.entries()) {
            expect(back.text(meta.start, meta.bytes)).toBe(lines[k]);
            expect(meta.line).toBe(k);
          }
        } finally {
          back.close();
        }
      });
    }
  }

  it("decodes broken UTF-8 to the same replacement characters as decoding the line whole", () => {
    const bytes = Buffer.concat([Buffer.from("ok "), Buffer.from([0xe2, 0x82]), Buffer.from("\nnext "), Buffer.from([0xff, 0xf0, 0x9f]), Buffer.from("\n")]);
    const { lines } = collect(file(bytes), { chunkBytes: 1 });
    expect(lines).toEqual(bytes.toString("utf8").split("\n").slice(0, 2));
    expect(lines[0]).toBe("ok \uFFFD");
  });

  it("reports a line over the limit with its length and no text, and reads on", () => {
    const long = "z".repeat(10_000);
    const { lines, metas, result } = collect(file(`first\n${long}\nafter\n`), { chunkBytes: 1000, maxLineBytes: 4096 });
    expect(lines).toEqual(["first", undefined, "after"]);
    expect(metas[1]).toEqual({ line: 1, start: 6, bytes: 10_000, newline: true });
    expect(metas[2]!.start).toBe(10_007);
    expect(result.longLines).toBe(1);
  });

  it("stops when the callback returns false", () => {
    const seen: string[] = [];
    const result = readLinesSync(file("a\nb\nc\n"), (text) => {
      seen.push(text!);
      return text !== "b";
    });
    expect(seen).toEqual(["a", "b"]);
    expect(result.stopped).toBe(true);
  });

  it("reads a byte range, taking its start as a line start", () => {
    const { lines } = collect(file("aaa\nbbb\nccc\n"), { start: 4, end: 8 });
    expect(lines).toEqual(["bbb"]);
  });
});

describe("readLines (asynchronous)", () => {
  it("gives the same lines and places as the synchronous reader", async () => {
    for (const sample of SAMPLES) {
      const path = file(sample);
      const got: [string | undefined, LineMeta][] = [];
      await readLines(path, (text, meta) => void got.push([text, meta]), { chunkBytes: 3 });
      const { lines, metas } = collect(path);
      expect(got.map(([t]) => t)).toEqual(lines);
      expect(got.map(([, m]) => m)).toEqual(metas);
    }
  });

  it("can be aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readLines(file("a\n"), () => undefined, { signal: controller.signal })).rejects.toThrow();
  });
});

describe("files that are not regular (issue 10, item 6: tree and info blocked on a FIFO and read /dev/zero forever)", () => {
  const fifo = join(dir, "x.jsonl");
  const zero = join(dir, "zero.jsonl");
  execFileSync("mkfifo", [fifo]);
  symlinkSync("/dev/zero", zero);

  it("refuses a FIFO and a link to /dev/zero at once, in every reader", async () => {
    for (const path of [fifo, zero, dir]) {
      expect(() => readLinesSync(path, () => undefined)).toThrow(NotRegularFile);
      await expect(readLines(path, () => undefined)).rejects.toThrow(NotRegularFile);
      expect(() => new LineFile(path)).toThrow(/not a regular file/);
    }
    expect(() => readLinesSync(fifo, () => undefined)).toThrow("it is a FIFO, not a regular file");
    expect(() => readLinesSync(zero, () => undefined)).toThrow("it is a character device, not a regular file");
  });
});
