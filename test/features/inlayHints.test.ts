/**
 * Inlay hints: the parent preview after `parentId`, and the role and cumulative context tokens at
 * the end of every line that contributes a message to the context Pi builds when it resumes.
 * Hints are rendered as `line:character label` (0-based), and token numbers are checked against
 * Pi's estimate (`estimateContextTokens`) applied to each prefix of the built context.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { InlayHint, Range } from "vscode-languageserver";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { estimateContextTokens } from "../../server/src/core/pi/tokens";
import { computeFadingHints, resumesAsIs } from "../../server/src/features/fading";
import { computeInlayHints } from "../../server/src/features/inlayHints";
import { HEADER, assistant, assistantCalling, branchSummary, compaction, label, modelChange, session, toolResult, user } from "../helpers/piLines";

const doc = (text: string) => new SessionDocument("file:///hints.jsonl", "jsonl", 1, text);

const ALL: Range = { start: { line: 0, character: 0 }, end: { line: 1_000_000, character: 0 } };

const lines = (first: number, last: number): Range => ({ start: { line: first, character: 0 }, end: { line: last, character: Number.MAX_SAFE_INTEGER } });

function render(hints: readonly InlayHint[]): string[] {
  return hints.map((h) => `${h.position.line}:${h.position.character} ${h.label as string}`);
}

/** Parent previews only, as `line: label`. */
function parents(d: SessionDocument, range = ALL): string[] {
  return computeInlayHints(d, range)
    .filter((h) => (h.label as string).startsWith("←"))
    .map((h) => `${h.position.line}: ${h.label as string}`);
}

/** Token hints only, as `line: label`. */
function tokens(d: SessionDocument, range = ALL): string[] {
  return computeInlayHints(d, range)
    .filter((h) => !(h.label as string).startsWith("←"))
    .map((h) => `${h.position.line}: ${h.label as string}`);
}

/** A user message whose text is `chars` characters long (so its estimate is chars / 4). */
const long = (id: string, parent: string | null, chars: number) => user(id, parent, "x".repeat(chars));

describe("parent previews", () => {
  const text = session(
    HEADER, //                                          0
    modelChange("m1", null), //                         1
    user("u1", "m1", "Fix the failing test in src/parser.ts please"), // 2
    assistantCalling("a1", "u1", ["read", "bash"]), //  3
    toolResult("r1", "a1", "toolu_a1_0", "read"), //    4
    user("u2", "gone", "Orphan."), //                   5 dangling
  );

  it("shows the parent's title right after the parentId value", () => {
    const d = doc(text);
    expect(parents(d)).toEqual([
      "2: ← model: anthropic/claude-sonnet-4-5",
      '3: ← user: "Fix the failing test in src/parser.ts pl…"',
      "4: ← assistant: toolCall read, bash",
      "5: ← (no such entry)",
    ]);
    for (const h of computeInlayHints(d, ALL).filter((x) => (x.label as string).startsWith("←"))) {
      const before = d.lines[h.position.line]!.slice(0, h.position.character);
      expect(before).toMatch(/"parentId":"[^"]*"$/);
      expect(h.paddingLeft).toBe(true);
    }
    const [first] = computeInlayHints(d, lines(3, 3));
    expect(first!.tooltip).toBe("Parent: line 3");
  });

  it("shows nothing for null, empty or non-string parents", () => {
    const d = doc(
      session(
        HEADER,
        user("u1", null, "Root."),
        user("u2", "", "Also a root."),
        `{"type":"message","id":"u3","parentId":7,"timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"user","content":"x"}}`,
      ),
    );
    expect(parents(d)).toEqual([]);
  });

  it("positions in UTF-16 units after emoji, and clips emoji previews on code points", () => {
    const parent = user("😀🧪", null, "Fix 🧪 the 𝄞 test, é, and then some more words to clip");
    const child = assistant("a1", "😀🧪", "Done.");
    const d = doc(session(HEADER, parent, child));
    const [hint] = computeInlayHints(d, lines(2, 2));
    const expected = child.indexOf('"parentId":"😀🧪"') + '"parentId":"😀🧪"'.length;
    expect(hint!.position).toEqual({ line: 2, character: expected });
    expect(hint!.label).toBe('← user: "Fix 🧪 the 𝄞 test, é, and then some more…"');
  });

  it("works on CRLF files and after a byte order mark", () => {
    const crlf = doc(`${[HEADER, user("u1", null, "Fix."), assistant("a1", "u1", "Done.")].join("\r\n")}\r\n`);
    const [p, t] = computeInlayHints(crlf, lines(2, 2));
    expect(p!.label).toBe('← user: "Fix."');
    expect(crlf.lines[2]!.slice(0, p!.position.character).endsWith('"parentId":"u1"')).toBe(true);
    // The token hint sits at the end of the text, before the "\r\n".
    expect(t!.position).toEqual({ line: 2, character: assistant("a1", "u1", "Done.").length });
    const bom = doc(`\uFEFF${user("u1", "u0", "Fix.")}\n${user("u0", null, "Root.")}\n`);
    const [b] = computeInlayHints(bom, lines(0, 0));
    expect(bom.lines[0]!.slice(0, b!.position.character).endsWith('"parentId":"u0"')).toBe(true);
  });

  it("names the parent Pi resolves for a duplicated id, and a self-parent", () => {
    const d = doc(session(HEADER, user("u1", null, "First."), user("u1", null, "Second."), assistant("a1", "u1", "Done."), user("s", "s", "Me.")));
    expect(parents(d)).toEqual(['3: ← user: "Second."', "4: ← itself (a parent cycle)"]);
  });
});

describe("context tokens", () => {
  it("shows the role and Pi's estimate of each prefix of the built context", () => {
    const text = session(
      HEADER, //                                 0
      modelChange("m1", null), //                1 no message
      long("u1", "m1", 400), //                  2 100 tokens
      assistant("a1", "u1", "Done."), //         3 usage 3,309
      long("u2", "a1", 4000), //                 4 + 1,000
      label("l1", "u2", "u1", "start"), //       5 no message
      long("u3", "l1", 40_000), //               6 + 10,000
    );
    const d = doc(text);
    expect(tokens(d)).toEqual(["2: user · ~100 tokens", "3: assistant · ~3.3k tokens", "4: user · ~4.3k tokens", "6: user · ~14k tokens"]);
    const [hint] = computeInlayHints(d, lines(6, 6)).filter((h) => !(h.label as string).startsWith("←"));
    expect(hint!.tooltip).toMatch(/^Message 4 of 4 in the context Pi builds when it resumes\. Context up to and including it: about 14,309 tokens/);
  });

  it("agrees with estimateContextTokens on every prefix, in any request order", () => {
    const entries = [HEADER, modelChange("m1", null)];
    let parent = "m1";
    for (let i = 0; i < 60; i++) {
      const id = `e${i}`;
      entries.push(i % 7 === 0 ? assistantCalling(id, parent, ["read"]) : i % 3 === 0 ? assistant(id, parent, "y".repeat(i * 13)) : long(id, parent, i * 37));
      parent = id;
    }
    // An aborted reply: its usage does not count.
    entries.push(assistant("ab", parent, "partial").replace('"stopReason":"stop"', '"stopReason":"aborted"'), long("end", "ab", 999));
    const text = session(...entries);
    const a = doc(text).analysis;
    const build = buildContext(a);
    if (!build.ok) throw new Error("no context");
    const expected = new Map<number, number>();
    build.build.sources.forEach((entry, k) => {
      expected.set(entry.line, estimateContextTokens(build.build.context.messages.slice(0, k + 1)).tokens);
    });

    const exact = (h: InlayHint) => Number(/about ([\d,]+) tokens/.exec(h.tooltip as string)![1]!.replace(/,/g, ""));
    const check = (hints: InlayHint[]) => {
      for (const h of hints.filter((x) => !(x.label as string).startsWith("←"))) expect(exact(h)).toBe(expected.get(h.position.line));
    };
    // Viewports from the end backwards on one document, then the whole file on a fresh one.
    const d1 = doc(text);
    const pieces: InlayHint[] = [];
    for (let first = 60; first >= 0; first -= 10) pieces.unshift(...computeInlayHints(d1, lines(first, first + 9)));
    check(pieces);
    const whole = computeInlayHints(doc(text), ALL);
    check(whole);
    expect(render(pieces)).toEqual(render(whole));
    expect(whole.filter((h) => !(h.label as string).startsWith("←"))).toHaveLength(expected.size);
  });

  it("shows tokens only on the active context: not on side branches or compacted entries", () => {
    const text = session(
      HEADER, //                                            0
      long("u1", null, 400), //                             1 compacted
      assistant("a1", "u1", "Looking."), //                 2 compacted
      long("u2", "a1", 40), //                              3 kept: after the summary
      assistant("s1", "u2", "Abandoned."), //               4 side branch
      assistant("a2", "u2", "Done."), //                    5 kept, usage
      compaction("c1", "a2", "u2", 12000), //               6 the summary, first in the context
      branchSummary("b1", "c1", "s1", "Tried another way."), // 7
      long("u3", "b1", 4), //                               8
    );
    const d = doc(text);
    const summary = "## Goal\nFix the parser.\n\n## Progress\n- Tests pass.";
    const s = Math.ceil(summary.length / 4);
    expect(tokens(d)).toEqual([
      `3: user · ~${s + 10} tokens`,
      "5: assistant · ~3.3k tokens",
      `6: compactionSummary · ~${s} tokens`,
      "7: branchSummary · ~3.3k tokens",
      "8: user · ~3.3k tokens",
    ]);
  });

  it("gives no token hints when the leaf runs into a cycle, but still previews parents, without hanging", () => {
    const d = doc(session(HEADER, user("u1", null, "Fix."), assistant("a1", "u1", "Done."), user("c1", "c2", "x"), user("c2", "c1", "y")));
    expect(tokens(d)).toEqual([]);
    expect(parents(d)).toEqual(['2: ← user: "Fix."', '3: ← user: "y"', '4: ← user: "x"']);
  });

  it("gives no token hints in a file Pi does not resume as it stands: no header, a v1 header", () => {
    const entries = [user("u1", null, "Fix."), assistant("a1", "u1", "Done.")];
    expect(tokens(doc(session(...entries)))).toEqual([]);
    expect(tokens(doc(session('{"type":"session","id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}', ...entries)))).toEqual([]);
    expect(tokens(doc(session(HEADER, ...entries)))).toEqual(["1: user · ~1 token", "2: assistant · ~3.3k tokens"]);
  });

  it("gives no token hints when Pi would throw building the context", () => {
    const d = doc(session(HEADER, user("u1", null, "Fix."), `{"type":"message","id":"m","parentId":"u1","timestamp":"2026-03-02T10:00:09.000Z"}`));
    expect(tokens(d)).toEqual([]);
  });
});

describe("the requested range", () => {
  const text = session(
    HEADER,
    ...Array.from({ length: 20 }, (_, i) => (i % 2 ? assistant(`e${i}`, `e${i - 1}`, "ok") : user(`e${i}`, i ? `e${i - 1}` : null, "go"))),
  );

  it("gives hints only for the lines in it, and only at positions inside it", () => {
    const d = doc(text);
    const hints = computeInlayHints(d, lines(5, 7));
    expect(new Set(hints.map((h) => h.position.line))).toEqual(new Set([5, 6, 7]));
    // A range ending at the start of line 8 includes nothing of line 8; one starting after the
    // parentId of line 5 includes only its end-of-line hint.
    const end = computeInlayHints(d, { start: { line: 5, character: 60 }, end: { line: 8, character: 0 } });
    expect(render(end).map((x) => x.split(":")[0])).toEqual(["5", "6", "6", "7", "7"]);
    expect(computeInlayHints(d, { start: { line: 500, character: 0 }, end: { line: 600, character: 0 } })).toEqual([]);
  });

  it("returns at most maxHints hints", () => {
    expect(computeInlayHints(doc(text), ALL, { maxHints: 7 })).toHaveLength(7);
    expect(computeInlayHints(doc(text), ALL, { maxHints: 0 })).toEqual([]);
  });

  it("answers a 50-line viewport anywhere in a 50,000-entry chain", () => {
    const chain = [HEADER, user("e0", null, "start")];
    for (let i = 1; i < 50_000; i++) chain.push(i % 2 ? assistant(`e${i}`, `e${i - 1}`, `reply ${i}`) : user(`e${i}`, `e${i - 1}`, `ask ${i}`));
    const d = doc(session(...chain));
    for (const at of [100, 10_000, 24_000, 39_950, 49_950, 25_000]) {
      const hints = computeInlayHints(d, lines(at, at + 49));
      expect(hints.length).toBeGreaterThanOrEqual(99);
      expect(hints.every((h) => h.position.line >= at && h.position.line <= at + 49)).toBe(true);
    }
  });
});

describe("the sessions the real Pi wrote (test/parity/fixtures)", () => {
  const dir = join(__dirname, "../parity/fixtures");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
  let checked = 0;

  it.each(files)("%s: hints never throw, and the last token hint is the estimate of the whole context", (file) => {
    const d = doc(readFileSync(join(dir, file), "utf8"));
    computeFadingHints(d);
    const hints = computeInlayHints(d, ALL);
    for (const h of hints) expect(h.position.character).toBeLessThanOrEqual(d.lines[h.position.line]!.length);
    const build = buildContext(d.analysis);
    if (!resumesAsIs(d.analysis)) {
      // No header Pi accepts, or a v1 file Pi re-chains: no token hints.
      expect(hints.filter((h) => !(h.label as string).startsWith("←"))).toEqual([]);
      return;
    }
    if (!build.ok || build.build.context.messages.length === 0) return;
    // The entry of the context's last message shows the estimate of the whole context.
    const lastLine = build.build.sources.at(-1)!.line;
    const atLine = hints.find((h) => h.position.line === lastLine && !(h.label as string).startsWith("←"));
    expect(atLine).toBeDefined();
    expect(atLine!.tooltip as string).toContain(`about ${estimateContextTokens(build.build.context.messages).tokens.toLocaleString("en-US")} tokens`);
    checked++;
  });

  it("checked the estimate on most of them", () => {
    expect(checked).toBeGreaterThan(files.length / 2);
  });
});
