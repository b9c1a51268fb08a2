/**
 * `slim`: the session it writes resumes to the same request. Each run is checked here with the
 * full path of the core, independently of the command's own streamed proof: the file read into a
 * `SessionDocument`, the context built by `buildContext` and the provider request by
 * `providerRequestOf`, for Pi 1.x and Pi 0.74, byte for byte before and after. On generated
 * image-heavy sessions (branches, a compaction), on the parity corpus, and on hostile files.
 */

import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type SlimOptions, slimSession } from "../../server/src/cli/slimRun";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { buildProviderRequest, providerViewJson } from "../../server/src/core/pi/provider/request";
import { SessionDocument } from "../../server/src/core/session/document";
import { heavy } from "../helpers/heavySession";

const parity = join(__dirname, "../parity/fixtures");
let root: string;
let imageSession: (options?: { turns?: number; branchEvery?: number; compactAt?: number }) => string;

beforeAll(async () => {
  ({ imageSession } = await import("../helpers/imageSessions.mjs"));
  root = mkdtempSync(join(tmpdir(), "pi-slim-"));
  process.env.PI_SESSION_LSP_BACKUP_DIR = join(root, "history");
});

/** What the core's full path builds from a session's text, per Pi: the context's and the request's JSON. */
function fullPath(text: string): string[] {
  const doc = new SessionDocument("file:///s.jsonl", "jsonl", 0, text);
  const out: string[] = [];
  for (const flavor of ["1.x", "0.74"] as PiFlavor[]) {
    const built = buildContext(doc.analysis, { flavor });
    if (!built.ok) {
      out.push(`fails: ${built.failure.kind} at ${built.failure.entry.line}`);
      continue;
    }
    out.push(JSON.stringify(built.build.context));
    const request = buildProviderRequest(built.build, { flavor, now: () => 0 });
    out.push(request.ok ? providerViewJson(request.request) : `fails: ${request.reason}`);
  }
  return out;
}

let count = 0;
function sessionFile(text: string | Buffer, name = "s"): string {
  const folder = mkdtempSync(join(root, `${name}-`));
  const file = join(folder, `${name}-${count++}.jsonl`);
  writeFileSync(file, text);
  return file;
}

function slim(file: string, options: Partial<SlimOptions> = {}) {
  return slimSession(file, { minBytes: 4096, ...options });
}

const lines = (text: string) => text.split("\n");

describe("slim on generated image-heavy sessions", () => {
  let original: string;
  beforeAll(() => {
    original = imageSession({ turns: 6, branchEvery: 2, compactAt: 4 });
  });

  it("keeps the context and provider request of both Pis byte for byte, and removes images and outputs", () => {
    const file = sessionFile(original);
    const outcome = slim(file);
    expect(outcome.status).toBe("slimmed");
    if (outcome.status !== "slimmed") return;
    const after = readFileSync(file, "utf8");
    expect(fullPath(after)).toEqual(fullPath(original));
    expect(outcome.totals.kinds.image.count).toBeGreaterThan(0);
    expect(outcome.totals.kinds.toolOutput.count).toBeGreaterThan(0);
    expect(outcome.totals.kinds.bashOutput.count).toBeGreaterThan(0);
    expect(outcome.totals.bytesIn - outcome.totals.bytesOut).toBe(original.length - after.length);
    expect(after.length).toBeLessThan(original.length / 2);
    expect(outcome.plan.offPath).toBeGreaterThan(0);
    expect(outcome.plan.behindCompaction).toBeGreaterThan(0);
    // The backup is the original, byte for byte.
    expect(outcome.backup).toBe(`${file}.bak`);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(original);
  });

  it("changes no id, parent, type or timestamp, removes no line, and leaves every line Pi sends as it was", () => {
    const file = sessionFile(original);
    slim(file);
    const before = lines(original);
    const after = lines(readFileSync(file, "utf8"));
    expect(after.length).toBe(before.length);
    const doc = new SessionDocument("file:///s.jsonl", "jsonl", 0, original);
    const built = buildContext(doc.analysis);
    if (!built.ok) throw new Error("the generated session builds");
    const sent = new Set(built.build.sources.map((e) => e.line));
    let changed = 0;
    for (let k = 0; k < before.length; k++) {
      if (before[k] === after[k]) continue;
      changed++;
      expect(sent.has(k)).toBe(false);
      expect(after[k]).toContain("removed by pi-session-lsp slim]");
      const [a, b] = [JSON.parse(before[k]!), JSON.parse(after[k]!)];
      for (const field of ["id", "parentId", "type", "timestamp"]) expect(b[field]).toEqual(a[field]);
      expect(b.message.role).toBe(a.message.role);
      expect(Array.isArray(b.message.content) || typeof b.message.output === "string").toBe(true);
    }
    expect(changed).toBeGreaterThan(0);
  });

  it("replaces an image block with a text block naming its type and size", () => {
    const file = sessionFile(original);
    slim(file);
    const blocks = lines(readFileSync(file, "utf8"))
      .filter((l) => l.includes("slimmed: image/"))
      .flatMap((l) => JSON.parse(l).message.content as { type: string; text?: string }[]);
    expect(blocks.some((b) => b.type === "text" && /^\[slimmed: image\/(png|jpeg) of [\d,]+ bytes removed by pi-session-lsp slim\]$/.test(b.text ?? ""))).toBe(
      true,
    );
  });

  it("finds nothing more to slim the second time", () => {
    const file = sessionFile(original);
    slim(file);
    const once = readFileSync(file, "utf8");
    expect(slim(file).status).toBe("nothing");
    expect(readFileSync(file, "utf8")).toBe(once);
  });

  it("writes to --out and leaves the file, and never overwrites an existing --out", () => {
    const file = sessionFile(original);
    const out = `${file}.slim.jsonl`;
    const outcome = slim(file, { out });
    expect(outcome.status).toBe("slimmed");
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(existsSync(`${file}.bak`)).toBe(false);
    expect(fullPath(readFileSync(out, "utf8"))).toEqual(fullPath(original));
    expect(() => slim(file, { out })).toThrow(/EEXIST/);
  });

  it("counts the same savings on a dry run, and writes nothing", () => {
    const file = sessionFile(original);
    const dry = slim(file, { dryRun: true });
    expect(dry.status).toBe("dry-run");
    expect(readdirSync(join(file, "..")).length).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(original);
    const real = slim(file);
    if (dry.status !== "dry-run" || real.status !== "slimmed") throw new Error("unexpected outcome");
    expect(dry.totals).toEqual(real.totals);
  });

  it("keeps only what is large enough: --min-bytes above every value leaves nothing to slim", () => {
    const file = sessionFile(original);
    expect(slim(file, { minBytes: 10_000_000 }).status).toBe("nothing");
    expect(readFileSync(file, "utf8")).toBe(original);
  });
});

describe("slim while Pi appends", () => {
  let original: string;
  let last: { id: string };
  beforeAll(() => {
    original = imageSession({ turns: 4, branchEvery: 2, compactAt: 3 });
    last = JSON.parse(lines(original).at(-2)!) as { id: string };
  });

  it("carries an entry Pi appended during the run into the new file, and proves it again", () => {
    const file = sessionFile(original);
    const appended = `{"type":"message","id":"ffff0001","parentId":"${last.id}","timestamp":"2026-03-02T11:00:00.000Z","message":{"role":"user","content":"more","timestamp":1772449200000}}\n`;
    const outcome = slim(file, { beforeCommit: () => appendFileSync(file, appended) });
    expect(outcome.status).toBe("slimmed");
    if (outcome.status !== "slimmed") return;
    expect(outcome.carried).toBe(appended.length);
    const after = readFileSync(file, "utf8");
    expect(after.endsWith(appended)).toBe(true);
    expect(fullPath(after)).toEqual(fullPath(original + appended));
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(original + appended);
  });

  it("refuses, and leaves the file as Pi left it, when Pi appended onto a branch that was slimmed", () => {
    const file = sessionFile(original);
    // An entry whose parent is the first user message, which lies behind the compaction.
    const behind = JSON.parse(lines(original)[2]!) as { id: string };
    const appended = `{"type":"message","id":"ffff0002","parentId":"${behind.id}","timestamp":"2026-03-02T11:00:00.000Z","message":{"role":"user","content":"back","timestamp":1772449200000}}\n`;
    const outcome = slim(file, { beforeCommit: () => appendFileSync(file, appended) });
    expect(outcome.status).toBe("refused");
    expect(readFileSync(file, "utf8")).toBe(original + appended);
    expect(readdirSync(join(file, ".."))).toEqual([file.split("/").at(-1)]);
  });

  it("refuses when the file was rewritten during the run", () => {
    const file = sessionFile(original);
    const rewritten = original.replace("Look at screenshot 10.", "Look at screenshot 11.");
    const outcome = slim(file, { beforeCommit: () => writeFileSync(file, rewritten) });
    expect(outcome.status).toBe("refused");
    expect(readFileSync(file, "utf8")).toBe(rewritten);
  });
});

describe("slim on the parity corpus", () => {
  const names = readdirSync(parity).filter((n) => n.endsWith(".jsonl"));

  it.each(names)("%s made heavy: slimmed to the same contexts, or left byte for byte", (name) => {
    const text = heavy(readFileSync(join(parity, name), "utf8"), { imageChars: 8000, outputChars: 6000 });
    const file = sessionFile(text, "heavy");
    const outcome = slim(file);
    const after = readFileSync(file, "utf8");
    if (outcome.status === "slimmed") expect(fullPath(after)).toEqual(fullPath(text));
    else expect(after).toBe(text);
  });

  it.each(names)("%s: slimmed to the same contexts, or left byte for byte", (name) => {
    const bytes = readFileSync(join(parity, name));
    const file = sessionFile(bytes, "corpus");
    const outcome = slim(file, { minBytes: 1 });
    const after = readFileSync(file);
    if (outcome.status === "slimmed") {
      expect(fullPath(after.toString("utf8"))).toEqual(fullPath(bytes.toString("utf8")));
      expect(readFileSync(`${file}.bak`).equals(bytes)).toBe(true);
    } else {
      expect(after.equals(bytes)).toBe(true);
    }
  });
});
