/**
 * The context and provider request kept across edits and updated in place (core/pi/contextUpdate.ts,
 * core/pi/provider/requestUpdate.ts) equal those built from scratch: after random edits inside the
 * lines of the resumed context of every parity fixture (typing, emptying a text, a stop reason
 * that drops the turn or stops dropping it, a tool call renamed, an image added, a content made
 * null, another model named, a usage over the window, a summary or command edited, a `!!` run),
 * for both Pi versions, the kept build and request equal a fresh document's, and so do the
 * diagnostics. The edits are applied several at a time between comparisons, and the test checks
 * that the updates, not only the fresh builds, were exercised. After random structural edits (a line
 * broken, mended, copied or deleted, a parentId changed), mostly off the resumed context, the build
 * and request carried over to the new tree (core/pi/contextCarry.ts), or the request of a build made
 * afresh from the same messages, equal a fresh document's too.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { Entry } from "../../server/src/core/session/entry";
import { buildContext, type ContextResult, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { activeContext, activeContext074, contextInputLines } from "../../server/src/core/pi/activeContext";
import { contextCarry } from "../../server/src/core/pi/contextCarry";
import { contextSplice } from "../../server/src/core/pi/contextUpdate";
import { SessionDocument } from "../../server/src/core/session/document";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";
import type { ProviderResult } from "../../server/src/core/pi/provider/types";
import { requestSplice } from "../../server/src/core/pi/provider/requestUpdate";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { providerRequestOf } from "../../server/src/features/providerView";
import { editInContext } from "../helpers/contextEdits";
import { seededRandom } from "../helpers/lspClient";
import { editAboveSelection, randomEdit } from "../helpers/structuralEdits";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

const lines = (entries: readonly (Entry | undefined)[]) => entries.map((e) => (e ? e.line : null));

/** A build as data: what Pi's context holds and which lines it comes from. */
function contextData(result: ContextResult) {
  if (!result.ok) return { failure: result.failure.kind, line: result.failure.entry.line };
  const b = result.build;
  return {
    context: JSON.stringify(b.context),
    path: lines(b.path),
    selected: lines(b.selected),
    compaction: b.compaction?.line,
    sources: lines(b.sources),
  };
}

/** A request as data, the synthetic results' times left out (Pi dates them when it sends). */
function requestData(result: ProviderResult) {
  if (!result.ok) return { reason: result.reason, line: result.entry?.line, index: result.contextIndex, model: result.model };
  const r = result.request;
  const messages = r.messages.map((m, k) => (r.contextIndex[k]! < 0 ? { ...(m as object), timestamp: 0 } : m));
  return {
    model: r.model,
    selected: r.selected,
    messages: JSON.stringify(messages),
    sources: lines(r.sources),
    contextIndex: r.contextIndex,
    leftOut: r.leftOut.map((x) => [x.entry?.line, x.contextIndex, x.why]),
    dropped: r.dropped.map((x) => [x.entry?.line, x.contextIndex, x.stopReason]),
    placeholders: r.placeholders.map((p) => [p.at, p.call?.line, p.toolCallId, p.toolName]),
    held: r.held.map((x) => [x.entry?.line, x.contextIndex]),
    imagesOmitted: r.imagesOmitted,
  };
}

/**
 * Compares both versions' kept contexts and requests of `doc` with those built from scratch for
 * `fresh`, a new document of the same text; says how many were updated in place or carried over.
 */
function compareWithFresh(
  doc: SessionDocument,
  fresh: SessionDocument,
  where: string,
): { updated: number; carried: number; rebuilt: number; selection: number; requests: number } {
  const counted = { updated: 0, carried: 0, rebuilt: 0, selection: 0, requests: 0 };
  for (const [flavor, kept] of [
    ["1.x", activeContext],
    ["0.74", activeContext074],
  ] as const) {
    const built = kept(doc.analysis);
    const scratch = buildContext(fresh.analysis, { flavor: flavor as PiFlavor });
    expect(contextData(built), `${where}, ${flavor}`).toEqual(contextData(scratch));
    if (!built.ok || !scratch.ok) continue;
    if (contextSplice(built.build)) counted.updated++;
    const carry = contextCarry(built.build);
    if (carry?.samePath) counted.carried++;
    // The selection carried onto a path that changed above it keeps the very context object.
    else if (carry && carry.from.context === built.build.context) counted.selection++;
    else if (carry) counted.rebuilt++;
    const request = providerRequestOf(built.build, flavor);
    if (request.ok && requestSplice(request.request)) counted.requests++;
    expect(requestData(request), `${where}, ${flavor}`).toEqual(requestData(buildProviderRequest(scratch.build, { flavor, now: () => 0 })));
  }
  return counted;
}

/** Each fixture Pi opens (its header is sound), as a document whose diagnostics were computed once. */
function* openedFixtures(): Generator<[string, SessionDocument]> {
  for (const name of files) {
    const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
    if (doc.analysis.headerState !== "ok") continue;
    computeDiagnostics(doc);
    yield [name, doc];
  }
}

type Counts = ReturnType<typeof compareWithFresh> & { compared: number };

/**
 * Edits each opened fixture up to `steps` times with `edit` (which says where it edited, `null` when
 * it made no edit, undefined when it can make none), and after most edits compares it with a fresh
 * document: the contexts, the requests and the diagnostics. Gives the counts summed.
 */
function compareAfterEdits(
  seed: number,
  steps: number,
  edit: (doc: SessionDocument, random: () => number) => string | null | undefined,
  docs: Iterable<[string, SessionDocument]> = openedFixtures(),
): Counts {
  const random = seededRandom(seed);
  const sums: Counts = { compared: 0, updated: 0, carried: 0, rebuilt: 0, selection: 0, requests: 0 };
  for (const [name, doc] of docs) {
    for (let step = 0; step < steps; step++) {
      const at = edit(doc, random);
      if (at === undefined) break;
      if (at === null || random() < 0.3) continue;
      const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
      const where = `${name}, edit ${step}${at}`;
      const counted = compareWithFresh(doc, fresh, where);
      for (const key of ["updated", "carried", "rebuilt", "selection", "requests"] as const) sums[key] += counted[key];
      expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
      sums.compared++;
    }
  }
  return sums;
}

describe("the context and provider request updated after edits in the resumed context", () => {
  it(`equal those built from scratch, for both Pi versions, in ${files.length} fixtures`, () => {
    const counts = compareAfterEdits(12, 60, (doc, random) => {
      const line = editInContext(doc, random);
      return line === undefined ? undefined : line < 0 ? null : ` on line ${line + 1}`;
    });
    expect(counts.compared).toBeGreaterThan(files.length * 5);
    // The updates ran, not only fresh builds.
    expect(counts.updated).toBeGreaterThan(counts.compared);
    expect(counts.requests).toBeGreaterThan(counts.compared / 2);
  });
});

describe("the context and provider request carried over structural edits", () => {
  it(`equal those built from scratch, for both Pi versions, in ${files.length} fixtures`, () => {
    const counts = compareAfterEdits(33, 12, (doc, random) => {
      // Most edits off the lines the resumed context reads, where the build can be carried over.
      const marked = contextInputLines(doc.analysis);
      const off: number[] = [];
      for (let line = 0; line < marked.length; line++) if (marked[line] === 0) off.push(line);
      const pick = (count: number) => (off.length > 0 && random() < 0.8 ? off[Math.floor(random() * off.length)]! : Math.floor(random() * count));
      return randomEdit(doc, random, pick) ? "" : null;
    });
    expect(counts.compared).toBeGreaterThan(files.length * 5);
    // The carries ran, not only fresh builds: of the path, and of the messages of a path that changed.
    expect(counts.carried).toBeGreaterThan(counts.compared / 2);
    expect(counts.rebuilt).toBeGreaterThan(files.length / 4);
  });

  it("are built again when the path above the selection sets other settings, or loses the entry kept first", () => {
    const t = (n: number) => `"timestamp":"2025-01-01T00:00:${String(n).padStart(2, "0")}.000Z"`;
    const user = (id: string, parent: string, n: number) =>
      `{"type":"message","id":"${id}","parentId":"${parent}",${t(n)},"message":{"role":"user","content":"turn ${id}","timestamp":1}}`;
    const model = (id: string, parent: string | null, n: number, provider: string, modelId: string) =>
      `{"type":"model_change","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},${t(n)},"provider":"${provider}","modelId":"${modelId}"}`;
    const thinking = (id: string, parent: string, n: number) =>
      `{"type":"thinking_level_change","id":"${id}","parentId":"${parent}",${t(n)},"thinkingLevel":"high"}`;
    // Settings above the kept range (line 3 names a model, line 4 a thinking level), or also after
    // the compaction (`settled`), and a system message kept first (line 6), which Pi 1.x drops there.
    const session = (settled: boolean) => {
      const lines = [
        `{"type":"session","version":3,"id":"s",${t(0)},"cwd":"/"}`,
        model("a", null, 1, "anthropic", "claude-sonnet-4-5"),
        user("b", "a", 2),
        model("c", "b", 3, "openai", "gpt-5"),
        thinking("k", "c", 4),
        user("x", "k", 5),
        `{"type":"message","id":"d","parentId":"x",${t(6)},"message":{"role":"system","content":"rules","timestamp":1}}`,
        user("e", "d", 7),
        `{"type":"compaction","id":"f","parentId":"e",${t(8)},"summary":"so far","firstKeptEntryId":"d","tokensBefore":10}`,
        settled ? model("g", "f", 9, "openai", "gpt-5") : user("g", "f", 9),
        settled ? thinking("h", "g", 10) : user("h", "g", 10),
        user("i", "h", 11),
      ];
      return new SessionDocument("file:///s.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    };
    const check = (doc: SessionDocument, edits: [number, string, string, string][]) => {
      const same = (where: string) => compareWithFresh(doc, new SessionDocument("file:///s.jsonl", "jsonl", 1, doc.getText()), where);
      same("opened");
      let carried = 0;
      for (const [line, from, to, where] of edits) {
        const text = doc.lines[line]!;
        doc.update([{ range: { start: { line, character: 0 }, end: { line, character: text.length } }, text: text.replace(from, to) }], doc.version + 1);
        const counts = same(where);
        carried += counts.carried + counts.selection;
      }
      return carried;
    };
    const carried = check(session(false), [
      [5, '"parentId":"k"', '"parentId":"c"', "the thinking level change left off the path"],
      [5, '"parentId":"c"', '"parentId":"k"', "put back"],
      [4, '"parentId":"c"', '"parentId":"b"', "the model change left off the path"],
      [4, '"parentId":"b"', '"parentId":"c"', "put back"],
      [5, '"parentId":"k"', '"parentId":"b"', "a parent changed above the kept range"],
    ]);
    // Each edit changes a setting Pi reads: none carries the context.
    expect(carried).toBe(0);
    // The entry kept first loses its id: its child becomes a root, and Pi keeps nothing from before the compaction.
    expect(check(session(true), [[6, '"id":"d"', '"id":"d2"', "the entry kept first given another id"]])).toBe(0);
  });

  it("equal those built from scratch after edits above what Pi selects, in generated sessions", async () => {
    // Loaded by URL so that the type checker does not need declarations for the script.
    const generator = pathToFileURL(join(__dirname, "../../bench/generate.mjs")).href;
    const { generateSession } = (await import(generator)) as { generateSession: (params: object) => string };
    // Long paths with compactions, settings changed often, branches and labels: parents changed
    // above a compaction's kept range leave settings off the path, or the kept entry's id above it.
    const originals = new Map<SessionDocument, string>();
    const docs = function* (): Generator<[string, SessionDocument]> {
      for (let seed = 1; seed <= 8; seed++) {
        const params = { seed, entries: 400, bigLines: 0, compactions: 2, changeEvery: 40, labelEvery: 60, branchEvery: [20, 40], textScale: 0.02 };
        const doc = new SessionDocument(`file:///generated-${seed}.jsonl`, "jsonl", 1, generateSession(params));
        computeDiagnostics(doc);
        originals.set(doc, doc.getText());
        yield [`generated-${seed}.jsonl`, doc];
      }
    };
    // A session whose path no longer has entries above the selection starts again from its text.
    const edit = (doc: SessionDocument, random: () => number) => {
      const at = editAboveSelection(doc, random);
      if (at !== undefined) return at;
      doc.update([{ text: originals.get(doc)! }], doc.version + 1);
      return " (the text put back)";
    };
    const counts = compareAfterEdits(35, 24, edit, docs());
    expect(counts.compared).toBeGreaterThan(100);
    // The selection was carried onto a path that changed above it, not only built again.
    expect(counts.selection).toBeGreaterThan(counts.compared / 4);
  });
});
