/**
 * Migration of v1/v2 sessions to v3 as Pi does it on open, with stable ids: compared with the file
 * the real Pi 1.6.0 rewrote (`fileAfter` in the parity corpus), up to the ids Pi draws at random;
 * re-checking the result gives no `old-version`; lines Pi cannot parse are kept; the quick fix is
 * attached to the `old-version` diagnostic only.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WorkspaceEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeMigration, migrationAction, MIGRATION_TITLE, migrationFix, needsMigration, resolveMigrationAction } from "../../server/src/features/migration";

const PARITY = join(__dirname, "..", "parity");

function doc(text: string, uri = "file:///m.jsonl"): SessionDocument {
  return new SessionDocument(uri, "jsonl", 1, text);
}

function migrate(text: string): string {
  const d = doc(text);
  const edit = computeMigration(d);
  if (!edit) throw new Error("no migration");
  return applyEdit(d, edit);
}

function applyEdit(d: SessionDocument, edit: WorkspaceEdit): string {
  return TextDocument.applyEdits(TextDocument.create(d.uri, "jsonl", 1, d.getText()), edit.changes?.[d.uri] ?? []);
}

const ID_FIELDS = ["id", "parentId", "firstKeptEntryId", "targetId", "fromId"] as const;

/**
 * Whether `ours` is `pi` up to a renaming of entry ids: line by line, each entry's id maps to
 * Pi's (one to one), and every line with its ids mapped is Pi's line, byte for byte.
 */
function sameUpToIds(ours: string, pi: string): void {
  const a = ours.split("\n").filter((l) => l.trim() !== "");
  const b = pi.split("\n").filter((l) => l.trim() !== "");
  expect(a.length).toBe(b.length);
  const map = new Map<string, string>();
  for (let i = 1; i < a.length; i++) {
    const ourId = JSON.parse(a[i]!).id as string;
    const piId = JSON.parse(b[i]!).id as string;
    expect(typeof ourId).toBe("string");
    expect(map.has(ourId)).toBe(false);
    map.set(ourId, piId);
  }
  expect(new Set(map.values()).size).toBe(map.size);
  for (let i = 0; i < a.length; i++) {
    const o = JSON.parse(a[i]!) as Record<string, unknown>;
    if (i > 0) for (const field of ID_FIELDS) if (typeof o[field] === "string") o[field] = map.get(o[field] as string) ?? o[field];
    expect(JSON.stringify(o)).toBe(b[i]);
  }
}

function codes(text: string): string[] {
  return computeDiagnostics(doc(text)).map((d) => String(d.code));
}

const fixture = (name: string) => readFileSync(join(PARITY, "fixtures", `${name}.jsonl`), "utf8");
const piRewrite = (name: string, pi = "1.6.0") =>
  (JSON.parse(readFileSync(join(PARITY, "expected", `${name}.${pi}.json`), "utf8")) as { fileAfter: string }).fileAfter;

describe("computeMigration against the real Pi", () => {
  it("migrates fault-v1 as Pi 1.6.0 and 0.74.2 did, up to the ids", () => {
    const migrated = migrate(fixture("fault-v1"));
    sameUpToIds(migrated, piRewrite("fault-v1"));
    sameUpToIds(migrated, piRewrite("fault-v1", "0.74.2"));
    // One chain, ids in Pi's form, firstKeptEntryIndex 3 (counting the header) → the third entry.
    const entries = migrated
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    entries.forEach((e, i) => {
      expect(e.id).toMatch(/^[0-9a-f]{8}$/);
      expect(e.parentId).toBe(i === 0 ? null : entries[i - 1]!.id);
    });
    expect(entries[4]!.firstKeptEntryId).toBe(entries[2]!.id);
    expect("firstKeptEntryIndex" in entries[4]!).toBe(false);
  });

  it("migrates fault-v2 exactly as Pi 1.6.0 and 0.74.2 did", () => {
    expect(migrate(fixture("fault-v2"))).toBe(piRewrite("fault-v2"));
    expect(migrate(fixture("fault-v2"))).toBe(piRewrite("fault-v2", "0.74.2"));
  });

  it("leaves no old-version diagnostic, and nothing new", () => {
    for (const name of ["fault-v1", "fault-v2"]) {
      const before = codes(fixture(name));
      expect(before).toContain("old-version");
      const after = codes(migrate(fixture(name)));
      expect(after).not.toContain("old-version");
      expect(after.filter((c) => !before.includes(c))).toEqual([]);
      expect(needsMigration(doc(migrate(fixture(name))))).toBe(false);
    }
  });

  it("is reproducible: the same text always gets the same ids", () => {
    expect(migrate(fixture("fault-v1"))).toBe(migrate(fixture("fault-v1")));
  });
});

const V1_HEADER = '{"type":"session","id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
const v1user = (text: string) => `{"type":"message","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":1}}`;
const v1compaction = (index: number) =>
  `{"type":"compaction","timestamp":"2026-03-02T10:00:02.000Z","summary":"S","firstKeptEntryIndex":${index},"tokensBefore":5}`;

function entriesOf(text: string): Record<string, unknown>[] {
  return text.split(/\r?\n/).flatMap((l) => {
    try {
      const v = JSON.parse(l) as Record<string, unknown>;
      return v && typeof v === "object" && v.type !== "session" ? [v] : [];
    } catch {
      return [];
    }
  });
}

describe("computeMigration details", () => {
  it("gives identical lines different ids", () => {
    const [a, b] = entriesOf(migrate(`${[V1_HEADER, v1user("same"), v1user("same")].join("\n")}\n`));
    expect(a!.id).not.toBe(b!.id);
    expect(b!.parentId).toBe(a!.id);
  });

  it("keeps blank and unparsable lines where they are, and chains across them", () => {
    const source = `${[V1_HEADER, v1user("one"), "", '{"type":"message", broken', "   ", v1user("two")].join("\n")}\n`;
    const migrated = migrate(source);
    const lines = migrated.split("\n");
    expect(lines.slice(2, 5)).toEqual(["", '{"type":"message", broken', "   "]);
    const [one, two] = entriesOf(migrated);
    expect(two!.parentId).toBe(one!.id);
  });

  it("converts firstKeptEntryIndex as Pi does: index 0 is the header, the index is deleted either way", () => {
    const at = (index: number) => entriesOf(migrate(`${[V1_HEADER, v1user("a"), v1user("b"), v1compaction(index), v1user("c")].join("\n")}\n`));
    const two = at(2);
    expect(two[2]!.firstKeptEntryId).toBe(two[1]!.id);
    for (const index of [0, 99, -1, 1.5]) {
      const e = at(index)[2]!;
      expect("firstKeptEntryId" in e).toBe(false);
      expect("firstKeptEntryIndex" in e).toBe(false);
    }
    // Its own index: Pi has just given it its id.
    const own = at(3);
    expect(own[2]!.firstKeptEntryId).toBe(own[2]!.id);
    // A later line has no id yet when Pi reads it.
    expect("firstKeptEntryId" in at(4)[2]!).toBe(false);
  });

  it("counts only the lines Pi parses in firstKeptEntryIndex", () => {
    const e = entriesOf(migrate(`${[V1_HEADER, "not json", v1user("a"), "", v1user("b"), v1compaction(2)].join("\n")}\n`));
    expect(e[2]!.firstKeptEntryId).toBe(e[1]!.id);
  });

  it("renames hookMessage to custom, in v1 files too, and versions every header", () => {
    const hook =
      '{"type":"message","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}}';
    const migrated = migrate(`${[V1_HEADER, hook, V1_HEADER.replace('"s1"', '"s2"')].join("\n")}\n`);
    const lines = migrated
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect((lines[1]!.message as Record<string, unknown>).role).toBe("custom");
    expect(lines[0]!.version).toBe(3);
    expect(lines[2]!.version).toBe(3);
    expect("id" in lines[2]! && lines[2]!.id).toBe("s2");
    expect("parentId" in lines[2]!).toBe(false);
  });

  it("keeps a version key where it is and CRLF endings", () => {
    const header = '{"type":"session","version":2,"id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
    const migrated = migrate(`${header}\r\n${v1user("x").replace('"type":"message"', '"type":"message","id":"a1","parentId":null')}\r\n`);
    expect(migrated).toBe(
      `${header.replace('"version":2', '"version":3')}\r\n${v1user("x").replace('"type":"message"', '"type":"message","id":"a1","parentId":null')}\r\n`,
    );
  });

  it('migrates a version Pi compares as old (the string "2")', () => {
    const header = '{"type":"session","version":"2","id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
    expect(migrate(`${header}\n`)).toBe(`${header.replace('"version":"2"', '"version":3')}\n`);
  });

  it('runs no step for a version that compares as NaN (the string "abc"), as Pi runs none', () => {
    // Pi's `version >= 3`, `version < 2` and `version < 3` are all false for NaN: it rewrites the
    // file as it is, with no hookMessage renamed and the version left alone.
    const header = '{"type":"session","version":"abc","id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
    const hook =
      '{"type":"message","id":"m1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"hookMessage","content":"x","timestamp":1}}';
    const d = doc(`${header}\n${hook}\n`);
    expect(needsMigration(d)).toBe(false);
    expect(computeMigration(d)).toBeUndefined();
  });

  it("does not throw on a version nested deeper than Pi's comparison can coerce, and migrates nothing", () => {
    const deep = `${"[".repeat(5000)}2${"]".repeat(5000)}`;
    const d = doc(`{"type":"session","version":${deep},"id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n`);
    expect(needsMigration(d)).toBe(false);
    expect(computeMigration(d)).toBeUndefined();
  });

  it("does nothing for a current file or one Pi would not open", () => {
    const v3 = V1_HEADER.replace('"type":"session"', '"type":"session","version":3');
    expect(computeMigration(doc(`${v3}\n${v1user("a")}\n`))).toBeUndefined();
    expect(computeMigration(doc(`${V1_HEADER.replace('"id":"s1",', "")}\n${v1user("a")}\n`))).toBeUndefined();
    expect(computeMigration(doc(`${v1user("a")}\n`))).toBeUndefined();
  });
});

describe("migrationAction", () => {
  it("attaches to the old-version diagnostic only", () => {
    const d = doc(fixture("fault-v1"));
    const diagnostics = computeDiagnostics(d);
    const old = diagnostics.find((x) => x.code === "old-version")!;
    const action = migrationAction(d, old)!;
    expect(action.title).toBe(MIGRATION_TITLE);
    expect(action.kind).toBe("quickfix");
    expect(action.diagnostics).toEqual([old]);
    expect(applyEdit(d, action.edit!)).toBe(migrate(fixture("fault-v1")));
    for (const other of diagnostics.filter((x) => x.code !== "old-version")) expect(migrationAction(d, other)).toBeUndefined();
  });

  it("attaches to an invalid-version diagnostic when Pi migrates that version, and not to a current file", () => {
    const header = '{"type":"session","version":"2","id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}';
    const d = doc(`${header}\n`);
    const invalid = computeDiagnostics(d).find((x) => x.code === "invalid-version")!;
    expect(migrationAction(d, invalid)?.edit).toEqual(computeMigration(d));
    const current = doc(`${header.replace('"2"', '"3"')}\n`);
    const notOld = computeDiagnostics(current).find((x) => x.code === "invalid-version")!;
    expect(migrationAction(current, notOld)).toBeUndefined();
  });

  it("can be listed without its edit and resolved later, for the same version only", () => {
    const d = doc(fixture("fault-v1"));
    const old = computeDiagnostics(d).find((x) => x.code === "old-version")!;
    const lazy = migrationAction(d, old, { lazy: true })!;
    expect(lazy.edit).toBeUndefined();
    expect(lazy.data).toEqual({ piSession: "migrate", uri: d.uri, version: 1, revision: d.revision });
    expect(resolveMigrationAction(d, lazy).edit).toEqual(computeMigration(d));
    const later = new SessionDocument(d.uri, "jsonl", 2, d.getText());
    expect(resolveMigrationAction(later, lazy).edit).toBeUndefined();
    // Reopened at the same version, or changed without raising it, the action is of another text.
    expect(resolveMigrationAction(new SessionDocument(d.uri, "jsonl", 1, d.getText()), lazy).edit).toBeUndefined();
    d.update([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }], 1);
    expect(resolveMigrationAction(d, lazy).edit).toBeUndefined();
  });

  it("is offered in the quick-fix table's shape as a safe fix", () => {
    const d = doc(fixture("fault-v2"));
    expect(migrationFix(d)).toEqual({ title: MIGRATION_TITLE, edits: computeMigration(d)!.changes![d.uri], safe: true });
    expect(migrationFix(doc(piRewrite("fault-v2")))).toBeUndefined();
  });
});
