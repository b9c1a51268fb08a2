/**
 * The open document's model of Pi's index (`analyze` and `semantics/`) and the model of a file on
 * disk (`disk/skeleton`, `disk/tree`, `disk/info`) are built by different code from different
 * shapes, and both must give what Pi gives. On every session fixture they must give the same: the
 * holders of each duplicated id, each entry's parent, each node's children in Pi's order, the
 * labels (in `labelsById` order), the active path from the leaf, and the session name.
 *
 * Where Pi itself reads the index by two rules, each side is held to the same one: parents by the
 * walk's rule (a truthy `parentId`, its last holder), and children by comparing the order of the
 * children both models give a node, since `getTree` makes a self-parent a root and merges the
 * children of an id's holders where the walk does neither.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionAnalysis } from "../../server/src/core/session/analysis";
import type { Entry } from "../../server/src/core/session/entry";
import { SessionDocument } from "../../server/src/core/session/document";
import { labels } from "../../server/src/core/session/semantics/labels";
import { sessionName } from "../../server/src/core/session/semantics/sessionName";
import { sortSiblings } from "../../server/src/core/session/semantics/siblings";
import { LastSessionName } from "../../server/src/core/session/rules";
import { ABSENT_KEY, KeyMaker, truthyKey } from "../../server/src/core/disk/keys";
import { lastIndexByKey, type Skeleton, SkeletonBuilder, walkParentOf, walkUp } from "../../server/src/core/disk/skeleton";
import { treeGraph } from "../../server/src/core/disk/tree";
import { scanFile } from "../../server/src/io/scanFile";

const ROOT = join(__dirname, "../..");
// scripts/mutants.mjs copies the tests without client-samples/, so a folder may be missing there.
const FOLDERS = ["test/parity/fixtures", "client-samples/sessions"].filter((folder) => existsSync(join(ROOT, folder)));
const fixtures = FOLDERS.flatMap((folder) =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(ROOT, folder, name)),
);

interface Models {
  a: SessionAnalysis;
  sk: Skeleton;
  /** The skeleton's entry at each line. */
  atLine: Map<number, number>;
  name: LastSessionName;
}

function models(path: string): Models {
  const text = readFileSync(path, "utf8");
  const a = new SessionDocument(`file://${path}`, "jsonl", 1, text).analysis;
  const name = new LastSessionName();
  const builder = new SkeletonBuilder("1.x", [name.observe]);
  const lines = text.split("\n");
  let start = 0;
  for (const [line, piece] of lines.entries()) {
    if (line === lines.length - 1 && piece === "") break;
    const bytes = Buffer.byteLength(piece);
    builder.line(piece, { line, start, bytes, newline: line < lines.length - 1 });
    start += bytes + 1;
  }
  const sk = builder.finish();
  const atLine = new Map<number, number>();
  for (let i = 0; i < sk.n; i++) atLine.set(sk.lines[i]!, i);
  return { a, sk, atLine, name };
}

/** The skeleton's key of an id as the open document keys it (objects aside, which no fixture has). */
const keyOf = (id: unknown) => new KeyMaker().key(id);
const lineOf = (e: Entry | undefined) => e?.line;

/** Fixtures Pi opens as they are: a migrated file gets new ids in Pi, which the document does not model. */
function comparable(m: Models): boolean {
  return m.sk.load === "ok" && m.sk.migrates === 0;
}

let compared = 0;

describe("the open document and the file on disk agree on Pi's index", () => {
  it("finds the fixtures", () => {
    expect(fixtures.length).toBeGreaterThan(70);
  });

  for (const path of fixtures) {
    const name = path.slice(ROOT.length + 1);
    it(name, () => {
      const m = models(path);
      const { a, sk, atLine } = m;

      // The session name, by getSessionName (both models) and by the /resume list where Pi lists the file.
      const named = sessionName(a);
      expect(m.name.name).toBe(named.name);
      const listed = scanFile({ path, version: "1.x", read: "info" }).scan?.info;
      if (listed && !named.throws) expect(listed.name).toBe(named.name);
      if (!comparable(m)) return;
      compared++;

      // The same entries, line for line.
      expect([...atLine.keys()]).toEqual(a.entries.map((e) => e.line));

      // The holders of each duplicated id.
      const holders = new Map<string, number[]>();
      for (let i = 0; i < sk.n; i++) {
        if (sk.keys[i] === ABSENT_KEY) continue;
        const list = holders.get(sk.keys[i]!);
        if (list) list.push(sk.lines[i]!);
        else holders.set(sk.keys[i]!, [sk.lines[i]!]);
      }
      const diskDuplicates = [...holders].filter(([, list]) => list.length > 1);
      const docDuplicates = [...a.duplicates].map(([id, list]) => [keyOf(id), list.map((e) => e.line)]);
      expect(diskDuplicates).toEqual(docDuplicates);

      // Each entry's parent, by the walk's rule.
      const byKey = lastIndexByKey(sk);
      const diskParents = a.entries.map((e) => {
        const p = walkParentOf(sk, byKey, atLine.get(e.line)!);
        return p === undefined ? undefined : sk.lines[p];
      });
      expect(diskParents).toEqual(a.entries.map((e) => lineOf(a.parent[e.index])));

      // Each node's children, in Pi's order: the children both give a node, in the same order
      // (getTree pushes an id's node once per holder, so a node can come twice on disk).
      const { children } = treeGraph(sk);
      for (const node of byKey.values()) {
        const entry = a.entryAtLine[sk.lines[node]!]!;
        const disk = (children.get(node) ?? []).map((c) => sk.lines[c]!);
        const doc = sortSiblings(a.childrenOf(entry)).map((c) => a.byId.get(c.key)!.line);
        const shared = new Set(disk.filter((line) => doc.includes(line)));
        expect([...new Set(disk.filter((line) => shared.has(line)))]).toEqual([...new Set(doc.filter((line) => shared.has(line)))]);
        if (a.duplicates.size === 0 && !a.cycles.length) expect(disk).toEqual(doc);
      }

      // The labels, in labelsById order.
      const docLabels = [...labels(a).byTarget].map(([target, label]) => [keyOf(target), label.value]);
      expect([...sk.labels]).toEqual(docLabels);

      // The active path from the leaf, root first (none when the walk meets a cycle).
      if (truthyKey(sk.leafKey)) {
        const path = walkUp(sk, byKey, byKey.get(sk.leafKey!));
        expect(path ? path.map((i) => sk.lines[i]!).reverse() : []).toEqual(a.activePath.map((e) => e.line));
      }
    });
  }

  it("compared the index of most of them (the others Pi does not open as they are)", () => {
    expect(compared).toBeGreaterThan(55);
  });
});

describe("labelsById keeps a relabelled target in its place, as Pi's Map does", () => {
  it("in the document and on disk alike", () => {
    const lines = [
      { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" },
      { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 0 } },
      { type: "message", id: "b", parentId: "a", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: "hi", timestamp: 0 } },
      { type: "label", id: "l1", parentId: "b", timestamp: "2026-01-01T00:00:03.000Z", targetId: "a", label: "first" },
      { type: "label", id: "l2", parentId: "l1", timestamp: "2026-01-01T00:00:04.000Z", targetId: "b", label: "second" },
      { type: "label", id: "l3", parentId: "l2", timestamp: "2026-01-01T00:00:05.000Z", targetId: "a", label: "renamed" },
    ];
    const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
    const a = new SessionDocument("file:///relabel.jsonl", "jsonl", 1, text).analysis;
    expect([...labels(a).byTarget].map(([target, label]) => [target, label.value])).toEqual([
      ["a", "renamed"],
      ["b", "second"],
    ]);
    const builder = new SkeletonBuilder("1.x");
    let start = 0;
    for (const [line, piece] of text.split("\n").slice(0, -1).entries()) {
      builder.line(piece, { line, start, bytes: Buffer.byteLength(piece), newline: true });
      start += Buffer.byteLength(piece) + 1;
    }
    expect([...builder.finish().labels]).toEqual([
      ["a", "renamed"],
      ["b", "second"],
    ]);
  });
});
