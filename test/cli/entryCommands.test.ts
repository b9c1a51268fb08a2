/**
 * `resume-from`, `drop-from-context` and `fork` on real files: what they append or write, the
 * backup, the refusals, and Pi appending while the command runs (nothing is lost, the line is
 * computed again from what the file holds then).
 */

import * as fs from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDropFromContext, runFork, runResumeFrom } from "../../server/src/cli/entryCommands";
import type { FixFs } from "../../server/src/cli/replace";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { HEADER, assistant, label, session, user } from "../helpers/piLines";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-entry-commands-"));
});

const TEXT = session(
  HEADER,
  user("u1", null, "one", 1),
  assistant("a1", "u1", "two", 2),
  label("l1", "a1", "u1", "start", 3),
  user("u2", "l1", "three", 4),
  assistant("a2", "u2", "four", 5),
);

function sessionFile(text = TEXT): string {
  const folder = mkdtempSync(join(dir, "s-"));
  const file = join(folder, "s.jsonl");
  writeFileSync(file, text);
  return file;
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

const contextOf = (text: string, leafId?: string) => {
  const doc = new SessionDocument("file:///x.jsonl", "jsonl", 0, text);
  const leaf = leafId === undefined ? undefined : doc.analysis.byId.get(leafId);
  const r = buildContext(doc.analysis, { leaf });
  return r.ok ? JSON.stringify(r.build.context) : "failed";
};

describe("resume-from", () => {
  it("appends one custom line whose parent is the entry, keeps the file as FILE.bak, and Pi's context is the entry's", () => {
    const file = sessionFile();
    const t = io();
    expect(runResumeFrom([file, "a1"], t.io)).toBe(0);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(TEXT)).toBe(true);
    const added = after.slice(TEXT.length).trimEnd().split("\n");
    expect(added).toHaveLength(1);
    expect(JSON.parse(added[0]!)).toMatchObject({ type: "custom", customType: "pi-session-lsp.resume-from", parentId: "a1" });
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(TEXT);
    expect(contextOf(after)).toBe(contextOf(TEXT, "a1"));
    expect(t.out.join("")).toMatch(/appended line 7/);
  });

  it("takes a unique prefix, refuses an unknown id and the leaf, and --dry-run writes nothing", () => {
    const file = sessionFile();
    const t = io();
    expect(runResumeFrom(["--dry-run", file, "u"], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/2 entries have ids starting with "u"/);
    expect(runResumeFrom([file, "nope"], t.io)).toBe(2);
    expect(runResumeFrom([file, "a2"], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/already resumes/);
    expect(runResumeFrom(["--dry-run", file, "a"], t.io)).toBe(2);
    expect(runResumeFrom(["--dry-run", file, "u2"], t.io)).toBe(0);
    expect(JSON.parse(t.out.join(""))).toMatchObject({ parentId: "u2" });
    expect(readFileSync(file, "utf8")).toBe(TEXT);
    expect(readdirSync(join(file, ".."))).toEqual(["s.jsonl"]);
  });

  it("warns that Pi 1.x refuses a file that starts with a byte order mark, and appends for Pi 0.73/0.74", () => {
    const file = sessionFile(`\ufeff${TEXT}`);
    const t = io();
    expect(runResumeFrom([file, "a1"], t.io)).toBe(0);
    expect(t.err.join("")).toBe(
      `pi-session-lsp resume-from: warning: ${file}: Pi 1.x refuses this file as it is, so only Pi 0.73/0.74 resumes from the new line: the file starts with a byte order mark (U+FEFF), on which Pi 1.x's header line does not parse (\`pi-session-lsp check --fix\` removes it)\n`,
    );
    expect(readFileSync(file, "utf8").startsWith(`\ufeff${TEXT}`)).toBe(true);
    const plain = io();
    expect(runResumeFrom([sessionFile(), "a1"], plain.io)).toBe(0);
    expect(plain.err).toEqual([]);
  });

  it("says plainly what the line does, and resume-from then drop-from-context checks clean", () => {
    const file = sessionFile();
    const t = io();
    expect(runResumeFrom([file, "a1"], t.io)).toBe(0);
    expect(runDropFromContext([file, "u1"], t.io)).toBe(0);
    const [resumed, dropped] = t.out.join("").split("\n");
    expect(resumed).toMatch(
      new RegExp(
        `^${file}: appended line 7, entry [0-9a-f]{8}: its parent is line 3 \\(a1\\), the entry Pi now resumes from\\. The file as it was: ${file}\\.bak$`,
      ),
    );
    expect(dropped).toMatch(
      /: appended line 8, entry [0-9a-f]{8}: it drops the message on line 2 \(u1\) from the context Pi 1\.x sends the model \(Pi 0\.73\/0\.74 ignores/,
    );
    // The drop's context_edit hangs on the resume marker, which hangs on an older entry: chosen, not stale.
    const after = new SessionDocument("file:///x.jsonl", "jsonl", 0, readFileSync(file, "utf8"));
    expect(computeDiagnostics(after).map((d) => d.code)).not.toContain("leaf-hides-messages");
    // The same context_edit on a branch nobody chose (a custom entry of an extension) is still reported.
    const stale = new SessionDocument("file:///y.jsonl", "jsonl", 0, readFileSync(file, "utf8").replace("pi-session-lsp.resume-from", "my-extension"));
    expect(computeDiagnostics(stale).map((d) => d.code)).toContain("leaf-hides-messages");
  });

  it("computes the line again when Pi appends after the file was read, losing none of Pi's line", () => {
    const file = sessionFile();
    const pis = `${user("p1", "a2", "from pi", 6)}\n`;
    let appended = false;
    // Pi appends between the read and the append (the first time the writer resolves the path).
    const racing: FixFs = {
      ...fs,
      realpathSync: ((p: string) => {
        if (!appended) {
          appended = true;
          fs.appendFileSync(file, pis);
        }
        return fs.realpathSync(p);
      }) as typeof fs.realpathSync,
    };
    const t = io();
    expect(runDropFromContext([file, "u1"], t.io, racing)).toBe(0);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(TEXT + pis)).toBe(true);
    // The edit hangs on Pi's new line, so Pi still resumes the newest branch.
    expect(JSON.parse(after.trimEnd().split("\n").pop()!)).toMatchObject({ type: "context_edit", parentId: "p1", targetId: "u1", replacement: null });
    // The first attempt's backup was removed; the second one's holds the file with Pi's line.
    expect(readdirSync(join(file, "..")).sort()).toEqual(["s.jsonl", "s.jsonl.bak"]);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(TEXT + pis);
  });
});

describe("drop-from-context", () => {
  it("appends a context_edit with replacement null: Pi 1.x's context loses the message", () => {
    const file = sessionFile();
    expect(runDropFromContext([file, "u2"], io().io)).toBe(0);
    const after = readFileSync(file, "utf8");
    const messages = (JSON.parse(contextOf(after)) as { messages: { content: unknown }[] }).messages;
    expect(messages.map((m) => m.content)).toEqual(["one", [{ type: "text", text: "two" }], [{ type: "text", text: "four" }]]);
  });

  it("refuses a label, and a message that is not in the context", () => {
    const file = sessionFile(session(HEADER, user("u1", null, "one", 1), user("u9", null, "other", 2), assistant("a1", "u1", "two", 3)));
    const t = io();
    expect(runDropFromContext([file, "u9"], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/no message to the context/);
    const file2 = sessionFile();
    expect(runDropFromContext([file2, "l1"], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/edits only user, assistant/);
  });
});

describe("fork", () => {
  it("writes the path to the entry in Pi's file name next to the source, which stays as it was", () => {
    const file = sessionFile();
    const t = io();
    expect(runFork(["--leaf", "u2", file], t.io)).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(TEXT);
    const names = readdirSync(join(file, "..")).filter((n) => n !== "s.jsonl");
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
    const forked = readFileSync(join(file, "..", names[0]!), "utf8");
    const lines = forked
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", version: 3, parentSession: file, cwd: "/home/dev/project" });
    expect(names[0]).toContain(lines[0].id);
    // The label is left out of the path and written again after it; u2 is re-chained onto a1.
    expect(lines.slice(1).map((l) => [l.type, l.id ?? "", l.parentId])).toEqual([
      ["message", "u1", null],
      ["message", "a1", "u1"],
      ["message", "u2", "a1"],
      ["label", lines[4].id, "u2"],
    ]);
    expect(contextOf(forked)).toBe(contextOf(TEXT, "u2"));
  });

  it("--out names the file or its folder, and an existing file is never overwritten", () => {
    const file = sessionFile();
    const out = join(file, "..", "fork.jsonl");
    const t = io();
    expect(runFork(["--out", out, file], t.io)).toBe(0);
    const first = readFileSync(out, "utf8");
    expect(runFork(["--out", out, file], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/exists; it is left as it is/);
    expect(readFileSync(out, "utf8")).toBe(first);
    const folder = mkdtempSync(join(dir, "out-"));
    expect(runFork(["--out", folder, file], t.io)).toBe(0);
    expect(readdirSync(folder)).toHaveLength(1);
  });
});

describe("ids too long to print", () => {
  // An id of 2 MB in the file, or given on the command line, is echoed in every message: each must
  // stay a short line, as context --leaf's does.
  const long = `Z${"b".repeat(2_000_000)}`;
  const text = session(HEADER, user("u1", null, "one", 1), assistant(long, "u1", "two", 2), user("u2", long, "three", 3), assistant("a2", "u2", "four", 4));

  it("resume-from, drop-from-context and fork print a clipped id when they succeed", () => {
    for (const run of [runResumeFrom, runDropFromContext]) {
      const t = io();
      expect(run([sessionFile(text), "Z"], t.io)).toBe(0);
      expect(t.out.join("")).toMatch(/appended line 6, .*Zbbb/);
      expect(t.out.join("").length).toBeLessThan(1000);
    }
    const t = io();
    expect(runFork(["--leaf", "Z", sessionFile(text)], t.io)).toBe(0);
    expect(t.out.join("")).toMatch(/from the root to line 3 \(Zbbb/);
    expect(t.out.join("").length).toBeLessThan(1000);
  });

  it("an unknown id given on the command line is clipped in the error", () => {
    const file = sessionFile();
    for (const run of [runResumeFrom, runDropFromContext]) {
      const t = io();
      expect(run([file, long], t.io)).toBe(2);
      expect(t.err.join("")).toMatch(/no entry has the id "Zbbb/);
      expect(t.err.join("").length).toBeLessThan(1000);
    }
    const t = io();
    expect(runFork(["--leaf", long, file], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/no entry has the id "Zbbb/);
    expect(t.err.join("").length).toBeLessThan(1000);
  });
});

describe("an empty id", () => {
  // "" is a prefix of every id: with one entry whose id is a string, it named that entry, so a
  // forgotten value (`--leaf "$ID"` with ID unset) forked or resumed from whatever was there.
  it("names no entry, even where one entry has a string id", () => {
    const text = session(
      HEADER,
      user("u1", null, "one", 1),
      `{"type":"custom","customType":"x","id":7,"parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z"}`,
    );
    const t = io();
    expect(runResumeFrom([sessionFile(text), ""], t.io)).toBe(2);
    expect(runFork(["--leaf", "", sessionFile(session(HEADER, user("u1", null, "one", 1)))], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/^(pi-session-lsp (resume-from|fork): .*: no entry has the id ""\n){2}$/);
  });
});

describe("an empty --out", () => {
  // resolve("") is the current folder, so `--out "$OUT"` with OUT unset wrote the fork wherever the
  // command ran instead of saying that the path was missing.
  it("is a usage error, and nothing is written", () => {
    const file = sessionFile();
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const t = io();
      expect(runFork(["--out", "", file], t.io)).toBe(2);
      expect(t.err.join("")).toMatch(/--out needs a path/);
      expect(readdirSync(cwd)).toEqual([]);
      expect(readdirSync(join(file, ".."))).toEqual(["s.jsonl"]);
    } finally {
      process.chdir(before);
    }
  });
});
