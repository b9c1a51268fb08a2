/**
 * The open document's model of Pi's index (`analyze` and `semantics/`) and the model of a file on
 * disk (`disk/skeleton`, `disk/tree`, `disk/info`) are built by different code from different
 * shapes, and both must give what Pi gives. On every session fixture they must give the same: the
 * holders of each duplicated id, each entry's parent, each node's children in Pi's order, the
 * labels (in `labelsById` order), the active path from the leaf, and the session name.
 *
 * The last describe holds the third model, the byte scan of the `context` shortcut, to the same
 * index of ids as the other two, on small sessions made for the ids Pi keys oddly.
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
import { ABSENT_KEY, KeyMaker, NULL_KEY, truthyKey } from "../../server/src/core/disk/keys";
import { type EntryObserver, type Skeleton, SkeletonBuilder, skeletonIndex, walkParentOf, walkUp } from "../../server/src/core/disk/skeleton";
import { treeGraph } from "../../server/src/core/disk/tree";
import { scanFile } from "../../server/src/io/scanFile";
import { scanIndex, scannedContext } from "../../server/src/core/pi/scannedContext";

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

/** The skeleton of `text`, fed line by line as `io/skeletonReader.ts` feeds it. */
function skeletonOf(text: string, observers: EntryObserver[] = []): Skeleton {
  const builder = new SkeletonBuilder("1.x", observers);
  const lines = text.split("\n");
  let start = 0;
  for (const [line, piece] of lines.entries()) {
    if (line === lines.length - 1 && piece === "") break;
    const bytes = Buffer.byteLength(piece);
    builder.line(piece, { line, start, bytes, newline: line < lines.length - 1 });
    start += bytes + 1;
  }
  return builder.finish();
}

function models(path: string): Models {
  const text = readFileSync(path, "utf8");
  const a = new SessionDocument(`file://${path}`, "jsonl", 1, text).analysis;
  const name = new LastSessionName();
  const sk = skeletonOf(text, [name.observe]);
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
let scanned = 0;

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
      const index = skeletonIndex(sk);
      const byKey = index.byId;
      const diskParents = a.entries.map((e) => {
        const p = walkParentOf(sk, index, atLine.get(e.line)!);
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
        const path = walkUp(sk, index, byKey.get(sk.leafKey!));
        expect(path ? path.map((i) => sk.lines[i]!).reverse() : []).toEqual(a.activePath.map((e) => e.line));
      }

      // The byte scan of the `context` shortcut, where it is sure of the file: the same holders and parents.
      const bytes = readFileSync(path);
      const scan = bytes[0] === 0xef ? undefined : scanIndex(bytes);
      if (scan) {
        scanned++;
        expect(scan.lines).toEqual(a.entries.map((e) => e.line));
        expect(scan.ids.map((id) => scan.lines[scan.pi.byId.get(id)!])).toEqual(a.entries.map((e) => a.byId.get(e.key)!.line));
        const scanParents = scan.parentIds.map((parentId) => scan.pi.find(parentId));
        expect(scanParents.map((p) => (p === undefined ? undefined : scan.lines[p]))).toEqual(a.entries.map((e) => lineOf(a.parent[e.index])));
      }
    });
  }

  it("compared the index of most of them (the others Pi does not open as they are), and the scan on most of those", () => {
    expect(compared).toBeGreaterThan(55);
    expect(scanned).toBeGreaterThan(45);
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
    expect([...skeletonOf(text).labels]).toEqual([
      ["a", "renamed"],
      ["b", "second"],
    ]);
  });
});

/**
 * Pi's id index (`PiIndex`) as its three consumers build it from one file: the open document
 * (`analyze`, ids keyed by value), the skeleton the on-disk commands read (`skeletonIndex`, ids
 * keyed as strings) and the byte scan of the `context` shortcut (`scanIndex`, which declines a file
 * with an id that is neither a string nor absent). On each session they must give every entry the
 * same holder of its id, the same parent by the walk's rule, the same leaf and the same walk from it.
 */
describe("the document, the skeleton and the byte scan build the same index of ids", () => {
  const T = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
  const message = (id: unknown, parentId: unknown, s: number) => ({
    type: "message",
    id,
    parentId,
    timestamp: T(s),
    message: { role: "user", content: "hi", timestamp: 0 },
  });
  const session = (entries: object[]) =>
    `${[{ type: "session", version: 3, id: "s", timestamp: T(0), cwd: "/" }, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`;

  // Worked out by hand from Pi's rules, on the lines of the file (the header is line 0): each
  // entry's parent, and the walk from the leaf, root first (undefined on a cycle).
  const cases: { name: string; text: string; scanned: boolean; parents: (number | undefined)[]; path: number[] | undefined }[] = [
    {
      name: "duplicated ids: the last holder wins, for parents and the leaf alike",
      text: session([message("a", null, 1), message("b", "a", 2), message("c", "b", 3), message("b", "a", 4), message("d", "b", 5), message("a", "d", 6)]),
      scanned: true,
      parents: [undefined, 6, 4, 6, 4, 5],
      path: undefined,
    },
    {
      name: "duplicated ids without a cycle",
      text: session([message("a", null, 1), message("b", "a", 2), message("b", "a", 3), message("c", "b", 4)]),
      scanned: true,
      parents: [undefined, 1, 1, 3],
      path: [1, 3, 4],
    },
    {
      name: "a parent cycle above the leaf",
      text: session([message("x", "y", 1), message("y", "x", 2), message("z", "y", 3)]),
      scanned: true,
      parents: [2, 1, 2],
      path: undefined,
    },
    {
      name: "a self-parent",
      text: session([message("a", null, 1), message("s", "s", 2)]),
      scanned: true,
      parents: [undefined, 2],
      path: undefined,
    },
    {
      name: "a missing parent, an absent id and an empty one",
      text: session([
        message("a", "nowhere", 1),
        message(undefined, "a", 2),
        message("b", undefined, 3),
        message("", "b", 4),
        message("c", "", 5),
        message("", "c", 6),
      ]),
      scanned: true,
      parents: [undefined, 1, undefined, 3, undefined, 5],
      path: [5, 6],
    },
    {
      name: "ids that are not strings: numbers, booleans, objects, arrays, and a null leaf",
      text: session([
        message(5, null, 1),
        message("5", 5, 2),
        message("n", "5", 3),
        message(true, "n", 4),
        message(0, true, 5),
        message({ k: 1 }, 0, 6),
        message([1], { k: 1 }, 7),
        message(false, false, 8),
        message(5, "n", 9),
        message("m", 5, 10),
        message(null, "m", 11),
      ]),
      scanned: false,
      parents: [undefined, 9, 2, 3, 4, undefined, undefined, undefined, 3, 9, 10],
      path: [],
    },
    {
      name: "a number id as the leaf, and parents that are falsy numbers and booleans",
      text: session([message("a", null, 1), message(7, "a", 2), message("b", 0, 3), message(8, false, 4), message(0, 7, 5), message(9, 0, 6)]),
      scanned: false,
      parents: [undefined, 1, undefined, undefined, 2, undefined],
      path: [6],
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const a = new SessionDocument("file:///ids.jsonl", "jsonl", 1, c.text).analysis;
      const sk = skeletonOf(c.text);
      const disk = skeletonIndex(sk);
      const scan = scanIndex(Buffer.from(c.text));
      const n = a.entries.length;
      const cycle = c.path === undefined;
      expect(a.entries.map((e) => a.parent[e.index]?.line)).toEqual(c.parents);
      expect(cycle ? undefined : a.activePath.map((e) => e.line)).toEqual(c.path);
      expect(sk.n).toBe(n);
      expect(disk.size).toBe(n);
      const lines = a.entries.map((e) => e.line);
      expect(Array.from(sk.lines)).toEqual(lines);

      // Each entry's id finds the same holder (and so the same shadowed entries), and the same number of ids.
      const docHolders = a.entries.map((e) => a.byId.get(e.key)!.line);
      expect(sk.keys.map((key) => sk.lines[disk.byId.get(key)!])).toEqual(docHolders);
      expect(disk.byId.size).toBe(a.byId.size);
      // Each entry's parent by the walk's rule (a truthy id, its last holder).
      const docParents = a.entries.map((e) => a.parent[e.index]?.line);
      expect(a.entries.map((_, i) => sk.lines[walkParentOf(sk, disk, i)!])).toEqual(docParents);
      // The leaf Pi resumes from, and the walk from it (none on a cycle).
      const diskLeaf = disk.leaf;
      expect(diskLeaf === undefined ? undefined : sk.lines[diskLeaf]).toBe(a.leaf?.line);
      expect(a.nullLeaf === undefined).toBe(disk.lastKey !== NULL_KEY);
      const diskWalk = walkUp(sk, disk, diskLeaf);
      expect(diskWalk === undefined).toBe(cycle);
      expect(a.leaf !== undefined && a.reachesCycle[a.leaf.index] === 1).toBe(cycle);
      expect((diskWalk ?? []).map((i) => sk.lines[i]!).reverse()).toEqual(a.activePath.map((e) => e.line));

      if (!c.scanned) {
        // The shortcut declines the file: the full path, compared above, answers for it.
        expect(scan).toBeUndefined();
        return;
      }
      expect(scan).toBeDefined();
      const s = scan!;
      expect(s.lines).toEqual(lines);
      expect(s.ids.map((id) => s.lines[s.pi.byId.get(id)!])).toEqual(docHolders);
      expect(s.pi.byId.size).toBe(a.byId.size);
      expect(
        s.parentIds.map((parentId) => {
          const p = s.pi.find(parentId);
          return p === undefined ? undefined : s.lines[p];
        }),
      ).toEqual(docParents);
      expect(s.pi.leaf === undefined ? undefined : s.lines[s.pi.leaf]).toBe(a.leaf?.line);
      const scanWalk = s.pi.walk(s.pi.leaf, (e) => s.parentIds[e]);
      expect(scanWalk?.map((e) => s.lines[e]!)).toEqual(diskWalk?.map((i) => sk.lines[i]!));
      // On a cycle the shortcut declines, and the full path describes the cycle.
      const context = scannedContext(Buffer.from(c.text), { flavor: "1.x", leafId: undefined });
      expect(context === undefined).toBe(cycle);
    });
  }
});
