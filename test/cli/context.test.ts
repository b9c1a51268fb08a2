/**
 * The `context` command as a user runs it: the built `bin/pi-session-lsp.js` on the parity corpus.
 * Its JSON is compared byte for byte with what the real Pi's `buildSessionContext()` returned
 * (test/parity/expected, field `context`), for Pi 1.6.0 and, where the versions differ, Pi 0.74.2.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { contextMarkdownOptions, renderContextMarkdown } from "../../server/src/features/contextMarkdown";
import { parseFixture } from "../helpers/fixture";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const parity = join(__dirname, "../parity");
const fixture = (name: string) => join(parity, "fixtures", `${name}.jsonl`);
const golden = (name: string, pi: "1.6.0" | "0.74.2") =>
  JSON.parse(readFileSync(join(parity, "expected", `${name}.${pi}.json`), "utf8")) as { context: unknown };

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function analysisOf(name: string) {
  return new SessionDocument(`file://${fixture(name)}`, "jsonl", 0, readFileSync(fixture(name), "utf8")).analysis;
}

beforeAll(async () => {
  await ensureBuilt();
});

describe("pi-session-lsp context --format json", () => {
  for (const name of [
    "written-16-conversation",
    "written-16-compaction",
    "written-16-branches",
    "written-16-context-edit",
    "written-16-system",
    "written-074-compaction",
  ]) {
    it(`prints exactly what Pi 1.6.0 builds for ${name}`, () => {
      const r = run("context", fixture(name));
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${JSON.stringify(golden(name, "1.6.0").context)}\n`);
    });
  }

  for (const name of ["written-16-context-edit", "written-16-compaction", "written-16-compaction-retain-none"]) {
    it(`prints exactly what Pi 0.74.2 builds for ${name} with --pi 0.74`, () => {
      const old = JSON.stringify(golden(name, "0.74.2").context);
      // The versions differ on this file, so the flag is what makes the output right.
      expect(old).not.toBe(JSON.stringify(golden(name, "1.6.0").context));
      const r = run("context", "--pi", "0.74", fixture(name));
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${old}\n`);
      expect(run("context", "--pi=0.74", "--format=json", fixture(name)).stdout).toBe(`${old}\n`);
    });
  }

  it("builds from --leaf: the entry Pi resolves that id to, here the tip of another branch", () => {
    const name = "written-16-branches";
    const a = analysisOf(name);
    const leaf = a.byId.get("68a11877")!;
    expect(leaf).not.toBe(a.leaf);
    const result = buildContext(a, { leaf });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const r = run("context", "--leaf", "68a11877", fixture(name));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(result.build.context)}\n`);
    expect(r.stdout).not.toBe(run("context", fixture(name)).stdout);
    expect(r.stdout).toContain("`cal.ts` then.");
  });

  it("reads standard input for -", () => {
    const name = "written-16-branches";
    const r = spawnSync(process.execPath, [bin, "context", "-"], { encoding: "utf8", input: readFileSync(fixture(name)) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(golden(name, "1.6.0").context)}\n`);
  });

  it("prints Pi's empty context for an empty file (Pi writes a fresh header into it)", () => {
    const r = run("context", fixture("fault-empty"));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(golden("fault-empty", "1.6.0").context)}\n`);
  });

  it("sends one compaction summary, the last one, when its kept range holds an older compaction", () => {
    // See test/core/olderCompactionKept.test.ts for the whole context.
    const source = readFileSync(join(__dirname, "../fixtures/diagnostics/compaction-kept-range-holds-older-compaction.txt"), "utf8");
    for (const pi of ["1.x", "0.74"]) {
      const r = spawnSync(process.execPath, [bin, "context", "--format", "json", "--pi", pi, "-"], { encoding: "utf8", input: parseFixture(source).text });
      expect(r.status).toBe(0);
      const { messages } = JSON.parse(r.stdout) as { messages: { role: string; summary?: string }[] };
      expect(messages.filter((m) => m.role === "compactionSummary").map((m) => m.summary)).toEqual([
        "## Goal\nSecond summary: add(), subtract() and multiply() work.",
      ]);
      expect(messages[0]!.role).toBe("compactionSummary");
      expect(messages).toHaveLength(7);
    }
  });
});

describe("pi-session-lsp context --format markdown", () => {
  it("prints what renderContextMarkdown renders, with a title and a footer", () => {
    const name = "written-16-compaction";
    const a = analysisOf(name);
    const result = buildContext(a);
    if (!result.ok) throw new Error("no context");
    const r = run("context", "--format", "markdown", fixture(name));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(renderContextMarkdown(result.build, contextMarkdownOptions(a, "1.x")));
    expect(r.stdout.split("\n")[0]).toBe("# Context of session 019cadfd-8900-70c4-be01-07da4201e03a");
    expect(r.stdout).toContain("## 2. compaction summary (9,000 tokens before) · `d184b77c`");
    expect(r.stdout).toContain("- **compaction:** yes, `d184b77c` (line 22)");
  });

  it("names the leaf and the Pi version it follows", () => {
    const r = run("context", "--format", "markdown", "--pi", "0.74", "--leaf", "68a11877", fixture("written-16-branches"));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("leaf `68a11877` (line 8) · as Pi 0.74 builds it");
  });
});

describe("pi-session-lsp context failures", () => {
  it("exits 1 on a leaf whose path runs into a parent cycle, saying what Pi would do", () => {
    const r = run("context", fixture("fault-cycle-leaf-path"));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      'cannot build the context from entry "a0000007" (line 8): its parentId chain runs into a cycle (3 entries: "a0000007" → "a0000006" → "a0000005" → "a0000007"',
    );
    expect(r.stderr).toContain("RangeError: Invalid array length");
    const old = run("context", "--pi", "0.74", fixture("fault-cycle-leaf-path"));
    expect(old.status).toBe(1);
    expect(old.stderr).toContain("Pi 0.73/0.74 walks round the cycle forever and hangs");
  });

  it("exits 1 on a message entry without a message, where Pi throws a TypeError", () => {
    const r = run("context", fixture("fault-message-missing-message"));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('entry "a0000008" (line 9) is a message entry without a message. Pi throws a TypeError');
  });

  it("prints what Pi builds from a v1 or v2 file after migrating it, and says Pi rewrites the file", () => {
    for (const name of ["fault-v1", "fault-v2"]) {
      for (const [pi, flavor] of [
        ["1.6.0", "1.x"],
        ["0.74.2", "0.74"],
      ] as const) {
        const r = run("context", "--pi", flavor, fixture(name));
        expect(r.status, name).toBe(0);
        expect(r.stdout, `${name} as Pi ${pi} builds it`).toBe(`${JSON.stringify(golden(name, pi).context)}\n`);
        expect(r.stderr).toContain("Pi migrates it to version 3 when it opens it and rewrites the file");
      }
    }
    expect(run("context", fixture("fault-v1")).stderr).toContain("giving every entry a new random id");
  });

  it("exits 1 for files Pi refuses or overwrites instead of building from them", () => {
    for (const [name, said] of [
      ["fault-no-header", "not a Pi session"],
      ["fault-header-missing-id", "has no string id"],
      ["fault-bom", "byte order mark"],
    ] as const) {
      const r = run("context", fixture(name));
      expect(r.status, name).toBe(1);
      expect(r.stderr, name).toContain(said);
    }
    // Pi 0.74 strips the byte order mark, and throws on a null line that Pi 1.x skips.
    expect(run("context", "--pi", "0.74", fixture("fault-bom")).stdout).toBe(`${JSON.stringify(golden("fault-bom", "0.74.2").context)}\n`);
    expect(run("context", fixture("fault-null-line")).stdout).toBe(`${JSON.stringify(golden("fault-null-line", "1.6.0").context)}\n`);
    const nullLine = run("context", "--pi", "0.74", fixture("fault-null-line"));
    expect(nullLine.status).toBe(1);
    expect(nullLine.stderr).toContain("is `null`: Pi 0.73/0.74 throws a TypeError");
  });

  it("exits 2 for an unknown --leaf id, with a short message however long the id", () => {
    const r = run("context", "--leaf", "nope", fixture("written-16-branches"));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `pi-session-lsp context: ${fixture("written-16-branches")}: no entry has the id "nope" (the last entry, where Pi resumes, is "01597670")\n`,
    );
    const long = run("context", "--leaf", "x".repeat(10_000), fixture("written-16-branches"));
    expect(long.status).toBe(2);
    expect(long.stderr.length).toBeLessThan(400);
  });

  it("exits 2 naming the wrong word for bad options and two files, with usage for no file", () => {
    for (const [args, said] of [
      [["context"], "Usage: pi-session-lsp context"],
      [["context", "a.jsonl", "b.jsonl"], 'give exactly one file (given 2: "a.jsonl", "b.jsonl")'],
      [["context", "--nope", "x"], 'unknown option "--nope"'],
      [["context", "--lef", "x"], 'unknown option "--lef" (did you mean --leaf?)'],
      [["context", "--format", "xml", "x"], '--format must be json or markdown, not "xml"'],
      [["context", "--format=text", "x"], '--format must be json or markdown, not "text"'],
      [["context", "--pi", "2", "x"], '--pi must be 1.x, 0.74 or retained-tail, not "2"'],
      [["context", "--pi", "constructor", "x"], '--pi must be 1.x, 0.74 or retained-tail, not "constructor"'],
      [["context", "x", "--leaf"], "--leaf needs a value"],
      [["context", "--leaf", "--format", "x"], '--leaf needs a value, but the next word is the option "--format"'],
    ] as const) {
      const r = run(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(`${said}`);
      expect(r.stdout).toBe("");
    }
  });

  it("exits 2 for a file that cannot be read", () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-context-"));
    const missing = join(dir, "missing.jsonl");
    const r = run("context", missing);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot read ${missing}`);
    expect(run("context", dir).status).toBe(2);
    writeFileSync(join(dir, "ok.jsonl"), readFileSync(fixture("written-16-branches")));
    expect(run("context", join(dir, "ok.jsonl")).status).toBe(0);
  });

  it("is listed in the top-level help", () => {
    const r = run("--help");
    expect(r.stdout).toMatch(/^ {2}context FILE\|ID +print the context Pi builds/m);
    expect(run("context", "--help").stdout).toContain("Usage: pi-session-lsp context");
  });
});
