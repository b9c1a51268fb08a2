/**
 * The built context as Markdown (`renderContextMarkdown`): whole documents as inline snapshots for a
 * small branched and compacted session, and the bounds that keep a huge message short.
 */

import { describe, expect, it } from "vitest";
import { buildContext, type ContextBuild, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { contextMarkdownOptions, renderContextMarkdown } from "../../server/src/features/contextMarkdown";
import { shorten } from "../../server/src/features/markdown";
import { sessionName as sessionNameQuery } from "../../server/src/core/session/semantics/sessionName";

const sessionName = (a: Parameters<typeof sessionNameQuery>[0]) => sessionNameQuery(a).name;
import {
  HEADER,
  assistant,
  assistantCalling,
  branchSummary,
  compaction,
  modelChange,
  session,
  sessionInfo,
  thinkingChange,
  toolResult,
  user,
} from "../helpers/piLines";

const doc = (text: string) => new SessionDocument("file:///context.jsonl", "jsonl", 1, text);

function built(text: string, leafId?: string, flavor: PiFlavor = "1.x"): { build: ContextBuild; markdown: string } {
  const a = doc(text).analysis;
  const result = buildContext(a, { leaf: leafId === undefined ? undefined : a.byId.get(leafId), flavor });
  if (!result.ok) throw new Error(`no context: ${result.failure.kind}`);
  return { build: result.build, markdown: renderContextMarkdown(result.build, contextMarkdownOptions(a, flavor)) };
}

/**
 * u1 → a1 (read) → r1 → a2 ─┬─ u2 → a3                      (an abandoned branch)
 *                           └─ b1 (summary of it) → u3 → a4 → c1 (compaction, keeps from a1) → s1 (name) → u4 → a5
 */
const BRANCHED_AND_COMPACTED = session(
  HEADER,
  modelChange("m1", null, "anthropic", "claude-sonnet-4-5", 1),
  thinkingChange("t1", "m1", "high", 2),
  user("u1", "t1", "Fix the failing parser test.", 3),
  assistantCalling("a1", "u1", ["read"], 4),
  toolResult("r1", "a1", "toolu_a1_0", "read", 5),
  assistant("a2", "r1", "The parser drops the **last** token.", 6),
  user("u2", "a2", "Try a regex instead.", 7),
  assistant("a3", "u2", "Regex version ready.", 8),
  branchSummary("b1", "a2", "a3", "Tried a regex; it was slower.", 9),
  user("u3", "b1", "Go back to the loop and fix the off-by-one.", 10),
  assistant("a4", "u3", "Fixed the off-by-one in `next()`.", 11),
  compaction("c1", "a4", "a1", 48210, 12),
  sessionInfo("s1", "c1", "Parser fix", 13),
  user("u4", "s1", "Now add a test.", 14),
  assistant("a5", "u4", "Added `parser.test.ts`.", 15),
);

describe("renderContextMarkdown", () => {
  it("reads a branched, compacted session from its last entry, as Pi resumes it", () => {
    expect(built(BRANCHED_AND_COMPACTED).markdown).toMatchInlineSnapshot(`
      "# Context of “Parser fix”

      session \`019cadfd-8900-79df-9839-64c588162ed6\` · leaf \`a5\` (line 16) · as Pi 1.x builds it

      ## 1. compaction summary (48,210 tokens before) · \`c1\`

      *Summary of the earlier conversation, which the model no longer sees, sent as a user message:*

      \`\`\`markdown
      ## Goal
      Fix the parser.

      ## Progress
      - Tests pass.
      \`\`\`

      ## 2. assistant (anthropic/claude-sonnet-4-5) · \`a1\`

      > *thinking:* Let me look.

      → \`read(path: "src/a.ts")\`

      ## 3. tool result (read) · \`r1\`

      \`\`\`
      ok
      \`\`\`

      ## 4. assistant (anthropic/claude-sonnet-4-5) · \`a2\`

      \`\`\`markdown
      The parser drops the **last** token.
      \`\`\`

      ## 5. branch summary (of the branch left at \`a3\`) · \`b1\`

      *Summary of a branch the conversation left, sent to the model as a user message:*

      \`\`\`markdown
      Tried a regex; it was slower.
      \`\`\`

      ## 6. user · \`u3\`

      \`\`\`markdown
      Go back to the loop and fix the off-by-one.
      \`\`\`

      ## 7. assistant (anthropic/claude-sonnet-4-5) · \`a4\`

      \`\`\`markdown
      Fixed the off-by-one in \`next()\`.
      \`\`\`

      ## 8. user · \`u4\`

      \`\`\`markdown
      Now add a test.
      \`\`\`

      ## 9. assistant (anthropic/claude-sonnet-4-5) · \`a5\`

      \`\`\`markdown
      Added \`parser.test.ts\`.
      \`\`\`

      ---

      - **messages:** 9 (2 user, 4 assistant, 1 tool result, 1 branch summary, 1 compaction summary)
      - **estimated tokens:** ~3,309 (the usage recorded on message 9)
      - **model:** anthropic/claude-sonnet-4-5
      - **thinking level:** high
      - **compaction:** yes, \`c1\` (line 13): earlier entries are replaced by its summary
      "
    `);
  });

  it("reads the abandoned branch from its tip", () => {
    expect(built(BRANCHED_AND_COMPACTED, "a3").markdown).toMatchInlineSnapshot(`
      "# Context of “Parser fix”

      session \`019cadfd-8900-79df-9839-64c588162ed6\` · leaf \`a3\` (line 9) · as Pi 1.x builds it

      ## 1. user · \`u1\`

      \`\`\`markdown
      Fix the failing parser test.
      \`\`\`

      ## 2. assistant (anthropic/claude-sonnet-4-5) · \`a1\`

      > *thinking:* Let me look.

      → \`read(path: "src/a.ts")\`

      ## 3. tool result (read) · \`r1\`

      \`\`\`
      ok
      \`\`\`

      ## 4. assistant (anthropic/claude-sonnet-4-5) · \`a2\`

      \`\`\`markdown
      The parser drops the **last** token.
      \`\`\`

      ## 5. user · \`u2\`

      \`\`\`markdown
      Try a regex instead.
      \`\`\`

      ## 6. assistant (anthropic/claude-sonnet-4-5) · \`a3\`

      \`\`\`markdown
      Regex version ready.
      \`\`\`

      ---

      - **messages:** 6 (2 user, 3 assistant, 1 tool result)
      - **estimated tokens:** ~3,309 (the usage recorded on message 6)
      - **model:** anthropic/claude-sonnet-4-5
      - **thinking level:** high
      - **compaction:** none
      "
    `);
  });

  it("says when the context is empty", () => {
    expect(built(session(HEADER)).markdown).toMatchInlineSnapshot(`
      "# Context of session 019cadfd-8900-79df-9839-64c588162ed6

      no entries · as Pi 1.x builds it

      *The context is empty: the model sees no messages.*

      ---

      - **messages:** 0
      - **estimated tokens:** ~0
      - **model:** none
      - **thinking level:** off
      - **compaction:** none
      "
    `);
  });

  it("takes the session name as Pi does: the last session_info in file order, trimmed", () => {
    const a = doc(session(HEADER, user("u1", null, "hi", 1), sessionInfo("s1", "u1", "First", 2), sessionInfo("s2", "u1", "  Second  ", 3))).analysis;
    expect(sessionName(a)).toBe("Second");
    expect(
      sessionName(doc(session(HEADER, user("u1", null, "hi", 1), sessionInfo("s1", "u1", "Named", 2), sessionInfo("s2", "s1", "  ", 3))).analysis),
    ).toBeUndefined();
  });

  it("shortens a 400 KB tool output to its first 20 lines and says how many more there were", () => {
    const output = Array.from({ length: 40_000 }, (_, i) => `line ${i + 1} of the build log`).join("\n");
    expect(output.length).toBeGreaterThan(400_000);
    const text = session(HEADER, assistantCalling("a1", null, ["bash"], 1), toolResultWith("r1", "a1", "bash", output, 2));
    const { markdown } = built(text);
    expect(markdown.length).toBeLessThan(3_000);
    expect(markdown).toContain("line 20 of the build log\n```\n*… (39,980 more lines)*");
    expect(markdown).not.toContain("line 21 of");
  });

  it("shortens a 400 KB single-line output by characters, and a 400 KB tool call argument to a preview", () => {
    const blob = "x".repeat(400_000);
    const call = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"write","arguments":{"path":"big.txt","content":${JSON.stringify(blob)}}}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`;
    const { markdown } = built(session(HEADER, call, toolResultWith("r1", "a1", "write", blob, 2)));
    expect(markdown.length).toBeLessThan(5_000);
    expect(markdown).toContain(`→ \`write(path: "big.txt", content: "${"x".repeat(60)}…")\``);
    expect(markdown).toContain(`${"x".repeat(2000)}…\n\`\`\`\n*… (398,000 more characters)*`);
  });

  it("shows images by type, marks errors, and fences output holding backticks", () => {
    const result = `{"type":"message","id":"r1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"a \`\`\`fence\`\`\` inside"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":true,"timestamp":1}}`;
    const { markdown } = built(session(HEADER, result));
    expect(markdown).toContain("## 1. tool result (read, error) · `r1`\n\n````\na ```fence``` inside\n````\n\n\\[image: image/png\\]");
  });

  it("fences message text longer than any fence inside it, so a fence the shortening cut open swallows nothing", () => {
    const text = `Here is the fix:\n\`\`\`ts\n${Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`).join("\n")}\n\`\`\`\nDone.`;
    const { markdown } = built(session(HEADER, assistant("a1", null, text, 1)));
    expect(markdown).toContain("````markdown\nHere is the fix:\n```ts\n");
    expect(markdown).toContain("const v17 = 17;\n````\n*… (14 more lines)*");
  });

  it("shows what a session holds as characters: no link, image or HTML of its text renders", () => {
    const hostile = "[run](command:workbench.action.terminal.new) ![x](https://example.invalid/t.png) <img src=x>";
    const named = `{"type":"session_info","id":"n1","parentId":"a1","timestamp":"2026-03-02T10:00:02.000Z","name":${JSON.stringify(hostile)}}`;
    const reply = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(hostile)}}],"api":"x","provider":${JSON.stringify("<b>p</b>")},"model":"[m](command:x)","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}`;
    const { markdown } = built(session(HEADER, reply, named));
    // Outside fenced blocks, no unescaped "[", "<" or "![" from the session is left.
    const outside = markdown
      .split(/^````?[a-z]*$/m)
      .filter((_, i) => i % 2 === 0)
      .join("\n");
    expect(outside).not.toMatch(/(^|[^\\])\[(run|m)\]/);
    expect(outside).not.toMatch(/(^|[^\\])<(img|b)/);
    expect(markdown).toContain("# Context of “\\[run\\](command:workbench.action.terminal.new)");
    expect(markdown).toContain("## 1. assistant (\\<b\\>p\\</b\\>/\\[m\\](command:x))");
  });

  it("shows only the last messages when asked, and still counts them all", () => {
    const { build } = built(BRANCHED_AND_COMPACTED);
    const markdown = renderContextMarkdown(build, { maxMessages: 2 });
    expect(markdown).toContain("*… 7 earlier messages not shown*");
    expect(markdown).not.toContain("## 7.");
    expect(markdown).toContain("## 8. user");
    expect(markdown).toContain("- **messages:** 9 (");
  });
});

describe("renderContextMarkdown asked again", () => {
  it("gives the text joined before for the same messages and sections, and the new text when a section differs", () => {
    const { build } = built(BRANCHED_AND_COMPACTED);
    const first = renderContextMarkdown(build, { sessionName: "Parser fix" });
    expect(renderContextMarkdown(build, { sessionName: "Parser fix" })).toBe(first);
    const renamed = renderContextMarkdown(build, { sessionName: "Parser fixed" });
    expect(renamed).not.toBe(first);
    expect(renamed).toBe(first.replace("Parser fix”", "Parser fixed”"));
    const fewer = renderContextMarkdown(build, { sessionName: "Parser fix", maxMessages: 2 });
    expect(fewer).toContain("*… 7 earlier messages not shown*");
    // Another message list with the same messages renders the same text, made afresh.
    const copy = { ...build, context: { ...build.context, messages: build.context.messages.slice() } };
    expect(renderContextMarkdown(copy, { sessionName: "Parser fix" })).toBe(first);
  });
});

describe("shorten", () => {
  it("keeps short text whole, without trailing whitespace", () => {
    expect(shorten("one\ntwo\n\n", { lines: 20, chars: 2000 })).toEqual({ text: "one\ntwo", more: "" });
  });

  it("cuts at a line break when there is one in the second half of the limit", () => {
    const text = `${"a".repeat(60)}\n${"b".repeat(60)}`;
    expect(shorten(text, { lines: 20, chars: 100 })).toEqual({ text: "a".repeat(60), more: "… (1 more line)" });
  });

  it("never splits a surrogate pair", () => {
    const text = `${"a".repeat(9)}😀😀😀`;
    expect(shorten(text, { lines: 20, chars: 10 })).toEqual({ text: `${"a".repeat(9)}…`, more: "… (6 more characters)" });
  });
});

function toolResultWith(id: string, parent: string, toolName: string, text: string, second: number): string {
  const ts = new Date(Date.parse("2026-03-02T10:00:00.000Z") + second * 1000).toISOString();
  return `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"${ts}","message":{"role":"toolResult","toolCallId":"toolu_${parent}_0","toolName":"${toolName}","content":[{"type":"text","text":${JSON.stringify(text)}}],"isError":false,"timestamp":1}}`;
}
