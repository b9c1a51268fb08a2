/**
 * Context lenses and the built-context request, on branched, compacted and summarised sessions:
 * which lines get a lens, what each resolves to, failing builds, stale lenses after an edit, the cap,
 * and that listing builds no context.
 *
 * The context builder and the token estimate are wrapped in spies (the real functions run), so a
 * test can say how many contexts were built.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CodeLens } from "vscode-languageserver";
import * as builder from "../../server/src/core/pi/buildContext";
import * as walk from "../../server/src/core/session/semantics/walk";
import { SessionDocument } from "../../server/src/core/session/document";
import * as tokens from "../../server/src/core/pi/tokens";
import { computeCodeLenses as allLenses, resolveCodeLens, STALE_TITLE, type LensData } from "../../server/src/features/codeLens";
import { formatTokens } from "../../server/src/core/pi/tokens";
import { computeContextRequest, computeShowContext, SHOW_CONTEXT_COMMAND } from "../../server/src/features/contextRequest";
import { assistant, compaction, HEADER, modelChange, session, thinkingChange, user } from "../helpers/piLines";

vi.mock("../../server/src/core/pi/buildContext", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../server/src/core/pi/buildContext")>();
  return { ...real, buildContext: vi.fn(real.buildContext), selectEntries: vi.fn(real.selectEntries) };
});
vi.mock("../../server/src/core/session/semantics/walk", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../server/src/core/session/semantics/walk")>();
  return { ...real, pathTo: vi.fn(real.pathTo) };
});
vi.mock("../../server/src/core/pi/tokens", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../server/src/core/pi/tokens")>();
  return { ...real, estimateContextTokens: vi.fn(real.estimateContextTokens) };
});

const FIXTURES = join(__dirname, "../parity/fixtures");
const uri = "file:///work/sessions/fixture.jsonl";

/**
 * The context lenses: every lens but the branch tips' "compare with the active branch", which
 * `compareLenses.test.ts` tests.
 */
function computeCodeLenses(d: SessionDocument, options?: Parameters<typeof allLenses>[1]): CodeLens[] {
  return allLenses(d, options).filter((l) => (l.data as LensData).kind !== "compare");
}

function fixture(name: string): SessionDocument {
  return new SessionDocument(uri, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
}

function doc(text: string): SessionDocument {
  return new SessionDocument(uri, "jsonl", 1, text);
}

/** `line kind` for each listed lens. */
function listed(d: SessionDocument): string[] {
  return computeCodeLenses(d).map((l) => `${l.range.start.line} ${(l.data as LensData).kind}`);
}

/** `line: title` for each lens, resolved. */
function titles(d: SessionDocument): string[] {
  return computeCodeLenses(d).map((l) => `${l.range.start.line}: ${resolveCodeLens(d, l).command!.title}`);
}

function lensAt(d: SessionDocument, line: number): CodeLens {
  const lens = computeCodeLenses(d).find((l) => l.range.start.line === line);
  if (!lens) throw new Error(`no lens on line ${line}`);
  return lens;
}

/** A compacted session with a side branch, in Pi's line shapes. */
const COMPACTED = session(
  HEADER,
  modelChange("m1", null), // 1
  thinkingChange("t1", "m1", "high"), // 2
  user("u1", "t1", "Fix the parser"), // 3
  assistant("a1", "u1", "Looking."), // 4
  user("u2", "a1", "Now the lexer"), // 5
  assistant("a2", "u2", "Done."), // 6
  compaction("c1", "a2", "u2", 48210), // 7
  user("u3", "c1", "Next"), // 8
  assistant("a3", "u3", "OK."), // 9
  user("s1", "a1", "Side question"), // 10: the tip of a side branch
  user("u4", "a3", "Continue"), // 11: the last entry, where Pi resumes
);

beforeEach(() => {
  vi.mocked(builder.buildContext).mockClear();
  vi.mocked(walk.pathTo).mockClear();
  vi.mocked(builder.selectEntries).mockClear();
  vi.mocked(tokens.estimateContextTokens).mockClear();
});

describe("which lines get a lens", () => {
  it("puts one on the header, on each branch tip but the last entry, and on each compaction", () => {
    expect(listed(doc(COMPACTED))).toEqual(["0 context", "7 compaction", "10 branch"]);
  });

  it("finds every branch tip of a Pi-written session with branch summaries", () => {
    // Leaves on lines 7, 9, 12, 15, 18, 20; line 21, the last entry, is the header's context.
    expect(listed(fixture("written-16-branches.jsonl"))).toEqual(["0 context", "7 branch", "9 branch", "12 branch", "15 branch", "18 branch", "20 branch"]);
  });

  it("finds every compaction of a Pi-written compacted session", () => {
    expect(listed(fixture("written-16-compaction.jsonl"))).toEqual(["0 context", "12 compaction", "18 compaction", "21 compaction"]);
  });

  it("gives a lens only its position and data until it is resolved", () => {
    const [header, ...rest] = computeCodeLenses(doc(COMPACTED));
    expect(header).toEqual({
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      data: { uri, entryId: null, line: 0, kind: "context" },
    });
    expect(rest.map((l) => l.data)).toEqual([
      { uri, entryId: "c1", line: 7, kind: "compaction" },
      { uri, entryId: "s1", line: 10, kind: "branch" },
    ]);
    expect(rest.every((l) => l.command === undefined)).toBe(true);
  });

  it("lists nothing for an empty document", () => {
    expect(computeCodeLenses(doc(""))).toEqual([]);
  });
});

describe("listing is cheap", () => {
  it("builds no context, walks no path and estimates no tokens", () => {
    for (const d of [doc(COMPACTED), fixture("written-16-branches.jsonl"), fixture("written-16-compaction.jsonl"), fixture("fault-cycle-leaf-path.jsonl")]) {
      expect(computeCodeLenses(d).length).toBeGreaterThan(0);
    }
    expect(builder.buildContext).not.toHaveBeenCalled();
    expect(walk.pathTo).not.toHaveBeenCalled();
    expect(builder.selectEntries).not.toHaveBeenCalled();
    expect(tokens.estimateContextTokens).not.toHaveBeenCalled();
  });

  it("builds a context when a lens is resolved, once per leaf and version", () => {
    const d = fixture("written-16-branches.jsonl");
    const lenses = computeCodeLenses(d);
    resolveCodeLens(d, lenses[0]!);
    resolveCodeLens(d, lenses[0]!);
    resolveCodeLens(d, lenses[1]!);
    resolveCodeLens(d, lenses[1]!);
    expect(builder.buildContext).toHaveBeenCalledTimes(2);
    // An edit inside a line the active context reads updates it in place (core/pi/contextUpdate.ts);
    // one that changes the tree builds it again.
    d.update([{ range: { start: { line: 2, character: 1 }, end: { line: 2, character: 1 } }, text: " " }], 2);
    resolveCodeLens(d, computeCodeLenses(d)[0]!);
    expect(builder.buildContext).toHaveBeenCalledTimes(2);
    d.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: "x" }], 3);
    resolveCodeLens(d, computeCodeLenses(d)[0]!);
    expect(builder.buildContext).toHaveBeenCalledTimes(3);
  });
});

describe("resolved titles", () => {
  it("says what the active context holds, on the header", () => {
    // The summary, u2 a2 (kept), u3 a3 u4; the last usage (3,309) plus "Continue" (2 tokens).
    expect(titles(doc(COMPACTED))).toEqual([
      "0: context: 6 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5 · thinking high · after compaction",
      "7: summarises 4 entries (lines 2–5) · 48,210 tokens before · keeps from line 6",
      "10: branch context: 3 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5 · thinking high",
    ]);
  });

  it("runs the show-context command with the uri and the entry (null for the active context)", () => {
    const d = doc(COMPACTED);
    const commands = computeCodeLenses(d).map((l) => resolveCodeLens(d, l).command!);
    expect(commands.map((c) => c.command)).toEqual([SHOW_CONTEXT_COMMAND, SHOW_CONTEXT_COMMAND, SHOW_CONTEXT_COMMAND]);
    expect(commands.map((c) => c.arguments)).toEqual([
      [uri, null],
      [uri, "c1"],
      [uri, "s1"],
    ]);
  });

  it("says what each compaction of a Pi-written session summarised", () => {
    expect(titles(fixture("written-16-compaction.jsonl"))).toEqual([
      "0: context: 6 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5 · thinking low · after compaction",
      "12: summarises 7 entries (lines 2–8) · 18,230 tokens before · keeps from line 9",
      // Pi's order: the earlier summary, its kept entries, then the rest; the cut is at line 11.
      "18: summarises 3 entries (lines 9–13) · 21,007 tokens before · keeps from line 11",
      "21: summarises 8 entries (lines 11–19) · 9,000 tokens before · keeps from line 20",
    ]);
  });

  it("counts branch summaries in the context of the branches after them", () => {
    const d = fixture("written-16-branches.jsonl");
    expect(titles(d)).toEqual([
      "0: context: 2 messages · ~2.9k tokens · anthropic/claude-sonnet-4-5",
      "7: branch context: 6 messages · ~2.7k tokens · anthropic/claude-sonnet-4-5",
      "9: branch context: 4 messages · ~2.7k tokens · anthropic/claude-sonnet-4-5",
      "12: branch context: 5 messages · ~2.8k tokens · anthropic/claude-sonnet-4-5",
      "15: branch context: 6 messages · ~2.8k tokens · anthropic/claude-sonnet-4-5",
      "18: branch context: 3 messages · ~2.9k tokens · anthropic/claude-sonnet-4-5",
      "20: branch context: 2 messages · ~2.9k tokens · anthropic/claude-sonnet-4-5",
    ]);
    const tip = computeShowContext(d, [uri, "45c249d1"]);
    if (!tip.ok) throw new Error(tip.message);
    expect(tip.result.stats.byRole).toEqual({ user: 2, assistant: 2, branchSummary: 1 });
  });

  it("says no model when none is in force, and a single message", () => {
    expect(titles(doc(session(HEADER, user("u1", null, "Hello there"))))).toEqual(["0: context: 1 message · ~3 tokens · no model"]);
  });

  it("rounds tokens the way the titles show them", () => {
    expect([0, 950, 1000, 9140, 9960, 48210, 999_499, 999_500, 1_250_000].map(formatTokens)).toEqual([
      "0",
      "950",
      "1k",
      "9.1k",
      "10k",
      "48k",
      "999k",
      "1M",
      "1.3M",
    ]);
  });
});

describe("failing builds", () => {
  it("says Pi cannot build the context when the active path runs into a parent cycle", () => {
    const d = fixture("fault-cycle-leaf-path.jsonl");
    expect(resolveCodeLens(d, lensAt(d, 0)).command!.title).toBe("context: Pi cannot build it (parent cycle)");
  });

  it("says Pi cannot build a branch tip whose path runs into a cycle, and builds the others", () => {
    const d = doc(
      session(
        HEADER,
        user("r", null, "Root"), // 1
        user("x", "y", "In a cycle"), // 2
        user("y", "x", "In a cycle too"), // 3
        user("z", "x", "Hangs from the cycle"), // 4: a leaf whose path never ends
        assistant("last", "r", "Fine."), // 5
      ),
    );
    expect(titles(d)).toEqual(["0: context: 2 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5", "4: branch context: Pi cannot build it (parent cycle)"]);
    const answer = computeShowContext(d, [uri, "z"]);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.context).toBeNull();
    expect(answer.result.error).toEqual({ kind: "cycle", line: 4, message: expect.stringContaining("lines 3, 4") as unknown });
  });

  it("says Pi cannot build a compaction in or below a parent cycle, without walking its path", () => {
    // Walking up from k1 or k2 never ends: the title must come from the cycle flag, not the path.
    const d = doc(
      session(
        HEADER,
        user("x", "k1", "In a cycle", 1), // 1
        compaction("k1", "x", "x", 100, 2), // 2: in the cycle x, k1
        compaction("k2", "x", "x", 200, 3), // 3: below it
        user("r", null, "Root", 4), // 4
      ),
    );
    expect(resolveCodeLens(d, lensAt(d, 2)).command!.title).toBe("compaction: Pi cannot build it (parent cycle)");
    expect(resolveCodeLens(d, lensAt(d, 3)).command!.title).toBe("compaction: Pi cannot build it (parent cycle)");
  });

  it("says Pi throws when an entry makes it fail", () => {
    const d = fixture("fault-message-missing-message.jsonl");
    expect(resolveCodeLens(d, lensAt(d, 0)).command!.title).toMatch(/^context: Pi fails here \(TypeError: a message entry without a message, line \d+\)$/);
  });

  it("never throws on lens data it does not know", () => {
    const d = doc(COMPACTED);
    for (const data of [undefined, null, 3, { uri }, { uri, entryId: 5, line: 1, kind: "branch" }, { uri, entryId: null, line: 0, kind: "other" }]) {
      expect(resolveCodeLens(d, { range: lensAt(d, 0).range, data }).command).toEqual({ title: STALE_TITLE, command: "" });
    }
    expect(resolveCodeLens(undefined, lensAt(d, 0)).command).toEqual({ title: STALE_TITLE, command: "" });
  });
});

describe("lenses while the user types", () => {
  it("resolves a lens listed before an edit elsewhere on the same line as before", () => {
    const d = doc(COMPACTED);
    const old = computeCodeLenses(d);
    // Typing inside the text of the user message on line 8.
    const at = d.lines[8]!.indexOf("Next") + 4;
    d.update([{ range: { start: { line: 8, character: at }, end: { line: 8, character: at } }, text: " step" }], 2);
    expect(listed(d)).toEqual(["0 context", "7 compaction", "10 branch"]);
    expect(resolveCodeLens(d, old[2]!).command!.title).toBe("branch context: 3 messages · ~3.3k tokens · anthropic/claude-sonnet-4-5 · thinking high");
    expect(resolveCodeLens(d, old[0]!).command!.title).toMatch(/^context: 6 messages/);
  });

  it("gives a neutral title to a lens whose entry moved or lost its id", () => {
    const d = doc(COMPACTED);
    const old = computeCodeLenses(d);
    // A line inserted above the branch tip: the entry on line 10 is now another one.
    d.update([{ range: { start: { line: 9, character: 0 }, end: { line: 9, character: 0 } }, text: `${user("n1", "a3", "Inserted")}\n` }], 2);
    expect(resolveCodeLens(d, old[2]!).command).toEqual({ title: STALE_TITLE, command: "" });
    // The id of the compaction edited away.
    const at = d.lines[7]!.indexOf('"c1"');
    d.update([{ range: { start: { line: 7, character: at + 1 }, end: { line: 7, character: at + 3 } }, text: "c9" }], 3);
    expect(resolveCodeLens(d, old[1]!).command).toEqual({ title: STALE_TITLE, command: "" });
    // The header lens still follows the active context.
    expect(resolveCodeLens(d, old[0]!).command!.command).toBe(SHOW_CONTEXT_COMMAND);
  });

  it("keeps the same set while a line is broken mid-edit", () => {
    const d = fixture("written-16-branches.jsonl");
    const before = listed(d);
    // Line 5 loses its closing brace: its parent (line 4) must not turn into a branch tip.
    const end = d.lines[5]!.length;
    d.update([{ range: { start: { line: 5, character: end - 1 }, end: { line: 5, character: end } }, text: "" }], 2);
    expect(d.parsed[5]!.kind).toBe("malformed");
    expect(listed(d)).toEqual(before);
  });
});

describe("the lens cap", () => {
  it("lists the first lenses only, and says how many more there are", () => {
    const lines = [HEADER, user("root", null, "Start")];
    for (let i = 0; i < 30; i++) lines.push(user(`tip${i}`, "root", `Try ${i}`));
    lines.push(assistant("last", "root", "Done."));
    const d = doc(session(...lines));
    const lenses = computeCodeLenses(d, { maxLenses: 10 });
    expect(lenses).toHaveLength(12);
    expect(lenses.slice(1, 11).map((l) => (l.data as LensData).entryId)).toEqual(Array.from({ length: 10 }, (_, i) => `tip${i}`));
    const note = lenses[11]!;
    expect(note.range.start.line).toBe(0);
    expect(note.command).toEqual({ title: "20 more lenses not shown (limit 10)", command: "" });
    expect(resolveCodeLens(d, note)).toEqual(note);
    expect(computeCodeLenses(d)).toHaveLength(31);
  });
});

describe("the built-context request", () => {
  it("answers Pi's context with its statistics", () => {
    const answer = computeContextRequest(doc(COMPACTED), { uri });
    if (!answer.ok) throw new Error(answer.message);
    const { context, stats, error } = answer.result;
    expect(error).toBeUndefined();
    expect(context!.messages).toHaveLength(6);
    expect(context!.thinkingLevel).toBe("high");
    expect(context!.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(stats).toEqual({
      messages: 6,
      byRole: { compactionSummary: 1, user: 3, assistant: 2 },
      estimatedTokens: 3311,
      usageTokens: 3309,
      trailingTokens: 2,
      model: "anthropic/claude-sonnet-4-5",
      thinkingLevel: "high",
      compaction: { id: "c1", line: 7, tokensBefore: 48210, firstKeptEntryId: "u2" },
      leaf: { id: "u4", line: 11 },
      system: null,
    });
  });

  it("resolves a leaf id as Pi does, to the last entry holding it", () => {
    const d = fixture("fault-dup-id-no-cycle.jsonl");
    const [id, holders] = [...d.analysis.duplicates][0]!;
    if (typeof id !== "string") throw new Error("the fixture's duplicate id is a string");
    const answer = computeContextRequest(d, { uri, leafId: id });
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.stats.leaf).toEqual({ id, line: holders[holders.length - 1]!.line });
  });

  it("refuses an unknown leaf id and parameters of the wrong type", () => {
    const d = doc(COMPACTED);
    expect(computeContextRequest(d, { uri, leafId: "nope" })).toEqual({ ok: false, message: 'no entry has the id "nope"' });
    expect(computeContextRequest(d, { uri, flavor: "2.0" as never }).ok).toBe(false);
    expect(computeContextRequest(d, { uri, leafId: 3 as never }).ok).toBe(false);
    expect(computeShowContext(d, [uri, 3]).ok).toBe(false);
  });

  it("builds Pi 0.74's context when asked", () => {
    const d = fixture("written-16-compaction.jsonl");
    const golden = (pi: string) =>
      (JSON.parse(readFileSync(join(__dirname, `../parity/expected/written-16-compaction.${pi}.json`), "utf8")) as { context: unknown }).context;
    const modern = computeContextRequest(d, { uri });
    const old = computeContextRequest(d, { uri, flavor: "0.74" });
    if (!modern.ok || !old.ok) throw new Error("refused");
    expect(JSON.stringify(modern.result.context)).toBe(JSON.stringify(golden("1.6.0")));
    expect(JSON.stringify(old.result.context)).toBe(JSON.stringify(golden("0.74.2")));
  });

  it("adds the conversation as Markdown when asked", () => {
    const answer = computeContextRequest(doc(COMPACTED), { uri, format: "markdown" });
    if (!answer.ok) throw new Error(answer.message);
    expect(typeof answer.result.markdown).toBe("string");
    expect(answer.result.markdown).toContain("Continue");
    const json = computeContextRequest(doc(COMPACTED), { uri });
    expect(json.ok && json.result.markdown).toBeUndefined();
  });

  it("answers the empty context for a session without entries", () => {
    const answer = computeContextRequest(doc(session(HEADER)), { uri });
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.context).toEqual({ messages: [], thinkingLevel: "off", model: null });
    expect(answer.result.stats.leaf).toBeNull();
  });
});

describe("lens data sent back by clients", () => {
  it("resolves a header lens whose null entryId the client dropped (Neovim 0.7)", () => {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, `${HEADER}\n${user("u1", null, "Hi.")}\n`);
    const [header] = computeCodeLenses(doc);
    const { entryId: _dropped, ...withoutNull } = header!.data as Record<string, unknown>;
    const resolved = resolveCodeLens(doc, { ...header!, data: withoutNull });
    expect(resolved.command?.title).toMatch(/^context: 1 message/);
  });
});

describe("tables keyed by what the session holds", () => {
  it("counts roles named constructor, __proto__ and toString as roles", () => {
    const message = (id: string, parent: string | null, role: string) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"${role}","content":"x","timestamp":1}}`;
    const d = doc(
      session(HEADER, message("m1", null, "constructor"), message("m2", "m1", "__proto__"), message("m3", "m2", "toString"), message("m4", "m3", "toString")),
    );
    const answer = computeContextRequest(d, { uri });
    if (!answer.ok) throw new Error(answer.message);
    // JSON.parse makes "__proto__" an own key, as the table must hold it.
    expect(JSON.parse(JSON.stringify(answer.result.stats.byRole))).toEqual(JSON.parse('{"constructor":1,"__proto__":1,"toString":2}'));
  });
});
