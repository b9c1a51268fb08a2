/**
 * The context builder on hand-made cases the parity corpus does not cover (the corpus itself is
 * compared byte for byte in test/parity/context.test.ts): leaves on other branches, the empty
 * context, failures, and the `retained-tail` flavour.
 */

import { describe, expect, it } from "vitest";
import { buildContext } from "../../server/src/core/buildContext";
import { SessionDocument } from "../../server/src/core/document";
import { HEADER, assistant, compaction, session, user } from "../helpers/piLines";

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

  it("reports a cycle and a message entry without a message instead of failing", () => {
    const cyclic = analysis(HEADER, user("u1", "u2", "A."), user("u2", "u1", "B."));
    expect(buildContext(cyclic)).toMatchObject({ ok: false, failure: { kind: "cycle" } });
    const broken = analysis(HEADER, user("u1", null, "A."), '{"type":"message","id":"m1","parentId":"u1","timestamp":"2026-03-02T10:00:09.000Z"}');
    expect(buildContext(broken)).toMatchObject({ ok: false, failure: { kind: "type-error" } });
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
