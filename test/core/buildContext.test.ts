/**
 * The context builder on hand-made cases the parity corpus does not cover (the corpus itself is
 * compared byte for byte in test/parity/context.test.ts): leaves on other branches, the empty
 * context, failures, and the `retained-tail` flavour.
 */

import { describe, expect, it } from "vitest";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { pathTo } from "../../server/src/core/session/semantics/walk";
import { HEADER, assistant, compaction, session, thinkingChange, user } from "../helpers/piLines";

const analysis = (...lines: string[]) => new SessionDocument("file:///c.jsonl", "jsonl", 1, session(...lines)).analysis;
const texts = (messages: unknown[]) =>
  messages.map((m) => {
    const r = m as { role: string; content?: unknown; summary?: string };
    const content =
      typeof r.content === "string" ? r.content : Array.isArray(r.content) ? (r.content as { text?: string }[]).map((b) => b.text).join("") : r.summary;
    return `${r.role}: ${content}`;
  });

const SUMMARY = "compactionSummary: ## Goal\nFix the parser.\n\n## Progress\n- Tests pass.";

describe("buildContext", () => {
  it("builds from any leaf, and the empty context for a null leaf", () => {
    const a = analysis(HEADER, user("u1", null, "Hi."), assistant("a1", "u1", "Hello."), user("u2", "a1", "Left."), user("u3", "a1", "Right."));
    const left = buildContext(a, { leaf: a.byId.get("u2")! });
    expect(left.ok && texts(left.build.context.messages)).toEqual(["user: Hi.", "assistant: Hello.", "user: Left."]);
    const right = buildContext(a);
    expect(right.ok && texts(right.build.context.messages)).toEqual(["user: Hi.", "assistant: Hello.", "user: Right."]);
    const empty = buildContext(a, { leaf: null });
    expect(empty.ok && empty.build.context).toEqual({ messages: [], thinkingLevel: "off", model: null });
  });

  it("builds from Pi's leaf on a copy of the active path, which the analysis's next edits cannot change", () => {
    const a = analysis(HEADER, user("u1", null, "Hi."), assistant("a1", "u1", "Hello."), user("u2", "a1", "Left."), user("u3", "a1", "Right."));
    for (const flavor of ["1.x", "0.74"] as const) {
      const built = buildContext(a, { flavor });
      if (!built.ok) throw new Error("the context failed");
      // The entries of the walk from the leaf, root first, in an array of the build's own.
      expect(built.build.path).toEqual(pathTo(a, a.leaf!));
      expect(built.build.path.every((e, i) => e === a.activePath[i])).toBe(true);
      expect(built.build.path).not.toBe(a.activePath);
    }
  });

  it("takes the thinking level of the last change on the path, as Pi does", () => {
    const a = analysis(
      HEADER,
      user("u1", null, "Hi.", 1),
      thinkingChange("t1", "u1", "low", 2),
      assistant("a1", "t1", "Hello.", 3),
      thinkingChange("t2", "a1", "high", 4),
    );
    const built = buildContext(a);
    expect(built.ok && built.build.context.thinkingLevel).toBe("high");
  });

  it("reports a cycle and a message entry without a message instead of failing", () => {
    const cyclic = analysis(HEADER, user("u1", "u2", "A."), user("u2", "u1", "B."));
    expect(buildContext(cyclic)).toMatchObject({ ok: false, failure: { kind: "cycle" } });
    const broken = analysis(HEADER, user("u1", null, "A."), '{"type":"message","id":"m1","parentId":"u1","timestamp":"2026-03-02T10:00:09.000Z"}');
    expect(buildContext(broken)).toMatchObject({ ok: false, failure: { kind: "type-error" } });
  });

  it("gives no summary for an older compaction inside the newest one's kept range (as the real Pi 0.74.2 and 1.6.0 do)", () => {
    // c2 keeps from a1, which lies before c1: c1 is selected, but only c2, at the head, is summarised.
    // Pi 0.74.2 and 1.6.0, run on this very file, both return the five messages below.
    const second = compaction("c2", "a2", "a1", 2000, 6).replace("## Goal\\nFix the parser.\\n\\n## Progress\\n- Tests pass.", "Second summary.");
    const a = analysis(
      HEADER,
      user("u1", null, "First.", 1),
      assistant("a1", "u1", "One.", 2),
      compaction("c1", "a1", "u1", 1000, 3),
      user("u2", "c1", "Second.", 4),
      assistant("a2", "u2", "Two.", 5),
      second,
      user("u3", "c2", "After.", 7),
    );
    for (const flavor of ["0.74", "1.x"] as const) {
      const built = buildContext(a, { flavor });
      expect(built.ok && built.build.selected.map((e) => e.id)).toEqual(["c2", "a1", "c1", "u2", "a2", "u3"]);
      expect(built.ok && texts(built.build.context.messages)).toEqual([
        "compactionSummary: Second summary.",
        "assistant: One.",
        "user: Second.",
        "assistant: Two.",
        "user: After.",
      ]);
    }
  });

  it("ignores retainedTail as Pi 1.6 does, and uses it as a checkpoint with the retained-tail flavour", () => {
    const withTail = compaction("c1", "a2", "u2", 5000).replace(
      /}$/,
      ',"retainedTail":[{"role":"user","content":"kept request","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"kept reply"}],"timestamp":2}]}',
    );
    const a = analysis(
      HEADER,
      user("u1", null, "First."),
      assistant("a1", "u1", "One."),
      user("u2", "a1", "Second."),
      assistant("a2", "u2", "Two."),
      withTail,
      user("u3", "c1", "After."),
    );
    const piLike = buildContext(a, { flavor: "1.x" });
    expect(piLike.ok && texts(piLike.build.context.messages)).toEqual([SUMMARY, "user: Second.", "assistant: Two.", "user: After."]);
    const tail = buildContext(a, { flavor: "retained-tail" });
    expect(tail.ok && texts(tail.build.context.messages)).toEqual([SUMMARY, "user: kept request", "assistant: kept reply", "user: After."]);
    expect(tail.ok && tail.build.selected.map((e) => e.id)).toEqual(["c1", "u3"]);
  });
});
