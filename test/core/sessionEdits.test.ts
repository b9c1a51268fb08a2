/**
 * The session edits of core/edits/ on every fixture of the parity corpus, checked with the
 * context builder: resuming from an entry leaves the context Pi builds as it was at that entry (Pi
 * 1.x and 0.73/0.74), dropping a message leaves out exactly that message (Pi 1.x), and a fork
 * builds, from its last line, the context the source built at the entry, with no dangling parent.
 * (test/parity/verify-actions.mjs checks the same against the real Pi packages.)
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Entry } from "../../server/src/core/session/entry";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { appendedText, piReads } from "../../server/src/core/edits/appendLine";
import { dropFromContextLine } from "../../server/src/core/edits/dropFromContext";
import { forkSession } from "../../server/src/core/edits/fork";
import { RESUME_CUSTOM_TYPE, resumeFromLine } from "../../server/src/core/edits/resumeFrom";
import { HEADER, assistant, label, session, user } from "../helpers/piLines";

const FIXTURES = join(__dirname, "..", "parity", "fixtures");
const NOW = new Date("2026-04-01T12:00:00.000Z");
const clock = { now: NOW, random: () => 0.25 };
const SOURCE = "/home/dev/.pi/agent/sessions/--home-dev-project--/2026-03-02T10-00-00-001Z_x.jsonl";
const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"));

const docOf = (text: string) => new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
const contextAt = (doc: SessionDocument, leaf: Entry | undefined, flavor: PiFlavor) => {
  const r = buildContext(doc.analysis, { leaf, flavor });
  return r.ok ? JSON.stringify(r.build.context) : `failed: ${r.failure.kind}`;
};
const FLAVORS: PiFlavor[] = ["1.x", "0.74"];

describe.each(fixtures)("%s", (name) => {
  const text = readFileSync(join(FIXTURES, name), "utf8");
  const doc = docOf(text);
  const a = doc.analysis;

  it("resume from each entry: the new last line builds the context built at the entry", () => {
    let resumed = 0;
    for (const entry of a.entries) {
      const r = resumeFromLine(doc, entry, clock);
      if (!r.ok) continue;
      resumed++;
      const after = docOf(text + appendedText(doc, r.line));
      expect(after.getText().startsWith(text)).toBe(true);
      const leaf = after.analysis.leaf!;
      expect(leaf.id).toBe(r.id);
      expect(leaf.parsed.object?.customType).toBe(RESUME_CUSTOM_TYPE);
      for (const flavor of FLAVORS) expect(contextAt(after, leaf, flavor)).toBe(contextAt(doc, entry, flavor));
    }
    // Every file some Pi reads has at least one entry to resume from besides the leaf.
    if ((piReads(doc, "1.x") || piReads(doc, "0.74")) && a.entries.filter((e) => !a.reachesCycle[e.index]).length > 1) expect(resumed).toBeGreaterThan(0);
    else expect(resumed).toBe(0);
  });

  it("drop each message of the context: Pi 1.x's context loses that message only", () => {
    const before = buildContext(a, { flavor: "1.x" });
    let dropped = 0;
    for (const entry of a.entries) {
      const r = dropFromContextLine(doc, entry, clock);
      if (!r.ok) {
        // Refused: every message of a context Pi 1.x resumes from a nameable leaf could be dropped.
        const leafNameable = a.leaf !== undefined && typeof a.leaf.id === "string" && a.byId.get(a.leaf.key) === a.leaf;
        if (before.ok && piReads(doc, "1.x") && leafNameable && a.byId.get(entry.key) === entry)
          expect(before.build.sources.includes(entry) && ["user", "assistant", "toolResult"].includes(entry.parsed.role!)).toBe(false);
        expect(r.reason).not.toBe("");
        continue;
      }
      dropped++;
      expect(before.ok).toBe(true);
      if (!before.ok) continue;
      const after = docOf(text + appendedText(doc, r.line));
      const built = buildContext(after.analysis, { flavor: "1.x" });
      expect(built.ok).toBe(true);
      if (!built.ok) continue;
      const expected = before.build.context.messages.filter((_, i) => before.build.sources[i] !== entry);
      expect(JSON.stringify(built.build.context.messages)).toBe(JSON.stringify(expected));
      // Pi 0.73/0.74 ignores the edit.
      expect(contextAt(after, after.analysis.leaf, "0.74")).toBe(contextAt(doc, a.leaf, "0.74"));
    }
    expect(dropped).toBeLessThanOrEqual(before.ok ? before.build.context.messages.length : 0);
  });

  it("fork at each entry: the new session builds the source's context at that entry", () => {
    let forks = 0;
    for (const entry of a.entries) {
      const r = forkSession(doc, entry, SOURCE, clock);
      if (!r.ok) {
        expect(r.reason).not.toBe("");
        continue;
      }
      forks++;
      expect(r.path).toBe(`/home/dev/.pi/agent/sessions/--home-dev-project--/${r.fileName}`);
      expect(r.fileName).toBe(`2026-04-01T12-00-00-000Z_${r.sessionId}.jsonl`);
      const forked = docOf(r.text);
      const f = forked.analysis;
      expect(f.headerState).toBe("ok");
      expect(f.header).toMatchObject({ type: "session", version: 3, id: r.sessionId, parentSession: SOURCE });
      // No dangling parent: one root, every other entry finds its parent.
      expect(f.roots.length).toBe(1);
      expect(f.duplicates.size).toBe(0);
      for (const flavor of FLAVORS) expect(contextAt(forked, f.leaf, flavor)).toBe(contextAt(doc, entry, flavor));
    }
    // Some Pi reads the file: every entry with a string id of its own that reaches no cycle can be forked.
    const forkable =
      piReads(doc, "1.x") || piReads(doc, "0.74")
        ? a.entries.filter((e) => typeof e.id === "string" && e.id !== "" && a.byId.get(e.key) === e && !a.reachesCycle[e.index])
        : [];
    expect(forks).toBe(forkable.length);
  });
});

describe("fork", () => {
  it("re-chains past labels on the path and writes the path's labels after it, as Pi 1.6 does", () => {
    const text = session(
      HEADER,
      user("u1", null, "hi", 1),
      label("l1", "u1", "u1", "start", 2),
      assistant("a1", "l1", "hello", 3),
      label("l2", "a1", "zz", "elsewhere", 4),
    );
    const doc = docOf(text);
    const r = forkSession(doc, doc.analysis.byId.get("a1")!, SOURCE, clock);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const lines = r.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.id, l.parentId])).toEqual([
      ["session", r.sessionId, undefined],
      ["message", "u1", null],
      ["message", "a1", "u1"],
      ["label", lines[3].id, "a1"],
    ]);
    expect(lines[3]).toMatchObject({ targetId: "u1", label: "start", timestamp: "2026-03-02T10:00:02.000Z" });
    // Unchanged lines keep their bytes.
    expect(r.text.split("\n")[1]).toBe(text.split("\n")[1]);
    expect(r.relinked).toBe(1);
  });

  it("gives a root whose parent dangles a null parent", () => {
    const doc = docOf(session(HEADER, user("u1", "gone", "hi", 1), assistant("a1", "u1", "hello", 2)));
    const r = forkSession(doc, doc.analysis.byId.get("a1")!, SOURCE, clock);
    expect(r.ok && JSON.parse(r.text.split("\n")[1]!).parentId).toBe(null);
  });

  it("refuses a document that is not a file, and a v1 file", () => {
    const doc = docOf(session(HEADER, user("u1", null, "hi", 1)));
    const r = forkSession(doc, doc.analysis.entries[0]!, "untitled:1", clock);
    expect(r.ok ? "" : r.reason).toMatch(/not a file/);
    const v1 = docOf(
      '{"type":"session","id":"x","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n{"type":"message","message":{"role":"user","content":"hi"}}\n',
    );
    const r1 = forkSession(v1, v1.analysis.entries[0]!, SOURCE, clock);
    expect(r1.ok ? "" : r1.reason).toMatch(/migrat/);
  });
});

describe("resume from and drop", () => {
  it("adds the line break a file without one lacks", () => {
    const text = session(HEADER, user("u1", null, "hi", 1), assistant("a1", "u1", "hello", 2)).trimEnd();
    const doc = docOf(text);
    const r = resumeFromLine(doc, doc.analysis.byId.get("u1")!, clock);
    expect(r.ok && appendedText(doc, r.line)).toBe(`\n${r.ok ? r.line : ""}\n`);
  });

  it("refuses the leaf, and a duplicate id's earlier holder", () => {
    const doc = docOf(session(HEADER, user("u1", null, "hi", 1), user("u1", null, "again", 2), assistant("a1", "u1", "hello", 3)));
    const [first, , leaf] = doc.analysis.entries;
    expect(resumeFromLine(doc, leaf!, clock)).toMatchObject({ ok: false, reason: expect.stringMatching(/already resumes/) });
    expect(resumeFromLine(doc, first!, clock)).toMatchObject({ ok: false, reason: expect.stringMatching(/same id/) });
  });

  it("drop is made for Pi 1.x only: a file with a byte order mark is refused", () => {
    const doc = docOf(`\ufeff${session(HEADER, user("u1", null, "hi", 1), assistant("a1", "u1", "hello", 2))}`);
    expect(piReads(doc, "0.74")).toBe(true);
    expect(dropFromContextLine(doc, doc.analysis.byId.get("u1")!, clock)).toMatchObject({ ok: false, reason: expect.stringMatching(/Pi 1.x does not open/) });
  });
});
