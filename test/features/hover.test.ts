/**
 * Hover on `$0` cursor fixtures: one per kind of token (type, role, entry, id, reference, tool
 * call, timestamp, header), plus the hard cases: dangling references, duplicate ids, cycles,
 * surrogate pairs before the cursor, CRLF, a 400 KB line, and lines with no hover.
 *
 * Fixtures are session lines with a `$0` marker; `mark(line, after)` puts the marker right after
 * the first occurrence of `after`, so a fixture reads as the session does.
 */

import { describe, expect, it } from "vitest";
import type { Hover } from "vscode-languageserver";
import type { SessionDocument } from "../../server/src/core/document";
import { ContextState, contextSelection, isInContext } from "../../server/src/core/context";
import { SessionDocument as Doc } from "../../server/src/core/document";
import { computeHover, duration, MAX_HOVER_CHARS, timeInWords } from "../../server/src/features/hover";
import { documentWithCursor, textOf } from "../helpers/cursor";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix 🧪 the 𝄞 test, é"}],"timestamp":1772445602000}}`;
const CALL = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.300Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"src/😀.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":2244,"output":627,"cacheRead":2000,"cacheWrite":580,"totalTokens":5451,"cost":{"input":0.006732,"output":0.009405,"cacheRead":0.0006,"cacheWrite":0.002175,"total":0.018912}},"stopReason":"toolUse","timestamp":1772445603100}}`;
const RESULT = `{"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2026-03-02T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"export const add = (a, b) => a - b; // 🐛"}],"isError":false,"timestamp":1772445605000}}`;
const LABEL = `{"type":"label","id":"a0000005","parentId":"a0000004","timestamp":"2026-03-02T10:00:06.000Z","targetId":"a0000002","label":"start"}`;
const COMPACTION = `{"type":"compaction","id":"a0000006","parentId":"a0000005","timestamp":"2026-03-02T10:00:07.000Z","summary":"Read the file.","firstKeptEntryId":"a0000003","tokensBefore":1200}`;
const REPLY = `{"type":"message","id":"a0000007","parentId":"a0000006","timestamp":"2026-03-02T10:03:19.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The *sign* is wrong: use <code>a + b</code>."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":30,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1772445606000}}`;
/** A branch off the user message: not on the active path. */
const SIDE = `{"type":"message","id":"b0000001","parentId":"a0000002","timestamp":"2026-03-02T10:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"An abandoned answer."}],"api":"anthropic-messages","provider":"anthropic","model":"gpt-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1772445609000}}`;

const LINES = [HEADER, MODEL, USER, CALL, RESULT, LABEL, COMPACTION, SIDE, REPLY];

/** `line` with the cursor marker right after the first occurrence of `after`. */
function mark(line: string, after: string): string {
  const i = line.indexOf(after);
  if (i < 0) throw new Error(`"${after}" is not in the line`);
  return `${line.slice(0, i + after.length)}$0${line.slice(i + after.length)}`;
}

/** The session `lines` (LF, final newline) with line `index` marked after `after`. */
function fixture(lines: readonly string[], index: number, after: string): string {
  return `${lines.map((l, i) => (i === index ? mark(l, after) : l)).join("\n")}\n`;
}

function hoverOf(source: string): { hover: Hover | null; doc: SessionDocument } {
  const { doc, position } = documentWithCursor(source);
  return { hover: computeHover(doc, position), doc };
}

/** The hover's Markdown and the text its range covers. */
function hover(source: string): { md: string; token: string } {
  const { hover: h, doc } = hoverOf(source);
  if (!h?.range) throw new Error("no hover, or a hover without a range");
  const md = (h.contents as { kind: string; value: string }).value;
  expect((h.contents as { kind: string }).kind).toBe("markdown");
  return { md, token: textOf(doc, h.range) };
}

describe("hover on an entry type", () => {
  it("describes the type on its value: summary, context, since, fields", () => {
    const { md, token } = hover(fixture(LINES, 6, '"type":"compac'));
    expect(token).toBe('"compaction"');
    expect(md).toMatchInlineSnapshot(`
      "**\`compaction\`** entry

      Replaces the history before \`firstKeptEntryId\` with a summary.

      - **In the model's context:** Yes: the last compaction on the path becomes a compaction summary message.
      - **Since:** session format v1
      - **Fields:** \`summary\` string, \`firstKeptEntryId\` string, \`tokensBefore\` number, \`fromHook?\` boolean, \`usage?\` object, \`systemMessage?\` object; and on every entry \`id\`, \`parentId\` (string or null), \`timestamp\`"
    `);
  });

  it("answers on the key too, and lists roles for message", () => {
    const { md, token } = hover(fixture(LINES, 2, '{"ty'));
    expect(token).toBe('"type"');
    expect(md).toContain("**`message`** entry");
    expect(md).toContain("- **Roles:** `user`, `assistant`, `toolResult`, `bashExecution`, `custom`, `system`");
  });

  it("says since when 1.x types exist", () => {
    const edit = `{"type":"context_edit","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","targetId":"a0000004","replacement":null}`;
    const { md } = hover(fixture([...LINES, edit], 9, '"type":"con'));
    expect(md).toContain("- **Since:** Pi 0.87 (1.x)");
    expect(md).toContain("No message of its own; edits its target's message (Pi 1.x only).");
  });

  it("describes the session header type", () => {
    const { md, token } = hover(fixture(LINES, 0, '"type":"ses'));
    expect(token).toBe('"session"');
    expect(md).toContain("**`session`** header");
    expect(md).toContain("`id` string, `version?` number, `timestamp` string, `cwd` string, `parentSession?` string");
  });

  it("says Pi ignores a second header", () => {
    const { md } = hover(fixture([...LINES, HEADER], 9, '"type":"ses'));
    expect(md).toContain("Pi ignores this line: the header is line 1.");
  });

  it("explains an unknown type", () => {
    const odd = `{"type":"bookmark","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z"}`;
    const { md } = hover(fixture([...LINES, odd], 9, '"type":"book'));
    expect(md).toContain("**`bookmark`**: not an entry type Pi knows");
    expect(md).toContain("it adds nothing to the model's context");
  });
});

describe("hover on a message role", () => {
  it("says what the role is and how Pi sends it to the model", () => {
    const { md, token } = hover(fixture(LINES, 3, '"role":"assis'));
    expect(token).toBe('"assistant"');
    expect(md).toContain("**`assistant`** message");
    expect(md).toContain("- **To the model:** Sent as it is");
  });

  it("bashExecution: user text, and excludeFromContext on this message", () => {
    const bash = `{"type":"message","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","message":{"role":"bashExecution","command":"ls","output":"a.ts","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":1772445840000}}`;
    const { md } = hover(fixture([...LINES, bash], 9, '"ro'));
    expect(md).toContain("Turned into a user text message: Ran `command`");
    expect(md).toContain("This message has `excludeFromContext`: Pi leaves it out of the model input.");
  });

  it("system (1.x), custom and summaries", () => {
    const sys = `{"type":"message","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","message":{"role":"system","content":"Be brief.","timestamp":1772445840000}}`;
    expect(hover(fixture([...LINES, sys], 9, '"role":"sys')).md).toContain("Pi 1.x sends it as a system message");
    const custom = sys.replace('"role":"system","content":"Be brief."', '"role":"custom","customType":"note","content":"Hi","display":true');
    expect(hover(fixture([...LINES, custom], 9, '"role":"cus')).md).toContain("Turned into a user message with its `content`.");
    const summary = sys.replace('"role":"system","content":"Be brief."', '"role":"compactionSummary","summary":"S"');
    expect(hover(fixture([...LINES, summary], 9, '"role":"comp')).md).toContain(
      "The conversation history before this point was compacted into the following summary:",
    );
  });

  it("unknown roles are dropped", () => {
    const odd = `{"type":"message","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","message":{"role":"narrator","content":"Once","timestamp":1772445840000}}`;
    const { md } = hover(fixture([...LINES, odd], 9, '"role":"nar'));
    expect(md).toContain("**`narrator`**: not a message role Pi knows");
    expect(md).toContain("converting it to model input drops it");
  });
});

describe("hover on an entry", () => {
  it("an assistant message: summary, tree, context, tokens and cost", () => {
    const { md, token } = hover(fixture(LINES, 3, '"cacheRe'));
    expect(token).toBe('"cacheRead"');
    expect(md).toMatchInlineSnapshot(`
      "**message · assistant** · \`anthropic/claude-sonnet-4-5\` · line 4

      > → read(path: "src/😀.ts")

      - **Tree:** depth 2 · 1 child · parent on line 3
      - **Active path:** on it
      - **Context:** in the built context
      - **Tokens:** 2,244 input · 627 output · 2,000 cache read · 580 cache write · 5,451 total
      - **Cost:** $0.0189"
    `);
  });

  it("a labelled message summarised by a compaction, with two children", () => {
    const { md } = hover(fixture(LINES, 2, "Fix 🧪"));
    expect(md).toContain("**message · user** · line 3");
    expect(md).toContain("> Fix 🧪 the 𝄞 test, é");
    expect(md).toContain("- **Tree:** depth 1 · 2 children (a branch point) · parent on line 2");
    expect(md).toContain("- **Label:** `start` (set on line 6)");
    expect(md).toContain("- **Context:** not in it: summarised by the compaction on line 7");
  });

  it("the leaf, escaped Markdown in the preview", () => {
    const { md } = hover(fixture(LINES, 8, "The *si"));
    expect(md).toContain("> The \\*sign\\* is wrong: use \\<code\\>a + b\\</code\\>.");
    expect(md).toContain("- **Active path:** on it: the leaf, where Pi resumes");
    expect(md).toContain("- **Context:** in the built context");
  });

  it("an entry on another branch", () => {
    const { md } = hover(fixture(LINES, 7, "An aband"));
    expect(md).toContain("`anthropic/gpt-5`");
    expect(md).toContain("- **Tree:** depth 2 · no children (a branch tip) · parent on line 3");
    expect(md).toContain("- **Active path:** not on it (another branch)");
    expect(md).toContain("- **Context:** not in it (not on the active path)");
  });

  it("the compaction itself and the entry it keeps from", () => {
    expect(hover(fixture(LINES, 6, '"summary":"Re')).md).toContain("- **Context:** in the built context, as the compaction summary");
    expect(hover(fixture(LINES, 6, '"summary":"Re')).md).toContain("**compaction** · 1,200 tokens before · keeps from `a0000003` · line 7");
    expect(hover(fixture(LINES, 4, '"isErr')).md).toContain("- **Context:** in the built context");
  });

  it("a label set and then cleared: the last label entry in file order wins", () => {
    const clear = `{"type":"label","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","targetId":"a0000002","label":""}`;
    const { md } = hover(fixture([...LINES, clear], 2, "Fix"));
    expect(md).toContain("- **Label:** none (cleared on line 10)");
    expect(hover(fixture([...LINES, clear], 9, '"label":"')).md).toContain("**label** · clears the label of `a0000002` · line 10");
  });

  it("an entry without an id", () => {
    const anon = `{"type":"custom","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","customType":"state"}`;
    const { md } = hover(fixture([...LINES, anon], 9, '"customTy'));
    expect(md).toContain("**custom** · `state` · line 10");
    expect(md).toContain("- **Id:** none: nothing can refer to this entry");
    expect(md).toContain("- **Context:** selected, but this entry adds no message");
  });

  it("a context edit removing a selected message (Pi 1.x)", () => {
    const edit = `{"type":"context_edit","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","targetId":"a0000004","replacement":null}`;
    const { md } = hover(fixture([...LINES, edit], 4, '"isErr'));
    expect(md).toContain("- **Context:** in the built context; Pi 1.x removes it (context_edit on line 10)");
  });

  it("a path whose last line leads into a cycle has no active path", () => {
    const lines = [
      HEADER,
      `{"type":"custom","id":"x","parentId":"y","timestamp":"2026-03-02T10:00:01.000Z","customType":"s"}`,
      `{"type":"custom","id":"y","parentId":"x","timestamp":"2026-03-02T10:00:02.000Z","customType":"s"}`,
    ];
    const { md } = hover(fixture(lines, 1, '"customTy'));
    expect(md).toContain("- **Tree:** in a parent cycle of 2 entries (lines 2, 3): Pi hangs walking up from here · 1 child");
    expect(md).toContain("- **Active path:** none: the last entry (line 3) leads into a parent cycle, so Pi hangs resuming this session");
    expect(md).toContain("- **Context:** not in it");
  });

  it("an entry below a cycle, and a self-parent", () => {
    const lines = [
      HEADER,
      `{"type":"custom","id":"x","parentId":"x","timestamp":"2026-03-02T10:00:01.000Z","customType":"s"}`,
      `{"type":"custom","id":"z","parentId":"x","timestamp":"2026-03-02T10:00:02.000Z","customType":"s"}`,
      MODEL,
    ];
    expect(hover(fixture(lines, 2, '"customTy')).md).toContain("- **Tree:** below a parent cycle: Pi hangs walking up from here");
    expect(hover(fixture(lines, 1, '"customTy')).md).toContain("in a parent cycle of 1 entry (line 2)");
    expect(hover(fixture(lines, 1, '"parentId":"')).md).toContain("This is the entry's own id: a parent cycle of one entry.");
    // The leaf (line 4) is fine: its path does not touch the cycle.
    expect(hover(fixture(lines, 3, '"modelId')).md).toContain("- **Active path:** on it: the leaf, where Pi resumes");
  });
});

describe("hover on ids and references", () => {
  it("an entry's own id: what names it", () => {
    const { md, token } = hover(fixture(LINES, 2, '"id":"a00'));
    expect(token).toBe('"a0000002"');
    expect(md).toContain("**Entry id** `a0000002`");
    expect(md).toContain("- **Named by:** 2 children, 1 label");
    expect(md).toContain("- **Label:** `start` (set on line 6)");
  });

  it("a parentId names its entry, with a preview", () => {
    const { md, token } = hover(fixture(LINES, 4, '"parentId":"a0'));
    expect(token).toBe('"a0000003"');
    expect(md).toMatchInlineSnapshot(`
      "**parentId** \`a0000003\` → **message · assistant** · \`anthropic/claude-sonnet-4-5\` · line 4

      > → read(path: "src/😀.ts")"
    `);
  });

  it("targetId and firstKeptEntryId", () => {
    expect(hover(fixture(LINES, 5, '"targetId":"a0')).md).toContain("**targetId** `a0000002` → **message · user** · line 3");
    expect(hover(fixture(LINES, 6, '"firstKeptEntryId":"a0')).md).toContain("**firstKeptEntryId** `a0000003` → **message · assistant**");
  });

  it("a dangling reference names no entry", () => {
    const orphan = `{"type":"message","id":"c1","parentId":"gone0001","timestamp":"2026-03-02T10:04:00.000Z","message":{"role":"user","content":"Hello","timestamp":1772445840000}}`;
    const { md } = hover(fixture([...LINES, orphan], 9, '"parentId":"go'));
    expect(md).toBe(
      "**parentId** `gone0001`\n\nNames no entry. Pi treats this entry as a root: a path through it stops here, and what is above drops out of the context.",
    );
    expect(hover(fixture([...LINES, orphan], 9, "Hel")).md).toContain("a root: its parent `gone0001` names no entry");
    const label = `{"type":"label","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","targetId":"nope","label":"x"}`;
    expect(hover(fixture([...LINES, label], 9, '"targetId":"n')).md).toContain("Names no entry. The label marks no entry.");
  });

  it("fromId: the root sentinel and a summary from an existing entry", () => {
    const summary = `{"type":"branch_summary","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","fromId":"root","summary":"Tried another way."}`;
    expect(hover(fixture([...LINES, summary], 9, '"fromId":"r')).md).toContain('The sentinel `"root"`');
    const from = summary.replace('"fromId":"root"', '"fromId":"b0000001"');
    expect(hover(fixture([...LINES, from], 9, '"fromId":"b')).md).toContain("**fromId** `b0000001` → **message · assistant** · `anthropic/gpt-5` · line 8");
    expect(hover(fixture([...LINES, from], 9, "Tried")).md).toContain("- **Context:** in the built context, as a branch summary");
  });

  it("a firstKeptEntryId off the path, and the compaction's own id", () => {
    const off = COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"b0000001"');
    const lines = [HEADER, MODEL, USER, CALL, RESULT, LABEL, SIDE, off, REPLY];
    expect(hover(fixture(lines, 7, '"firstKeptEntryId":"b')).md).toContain(
      "It is not on the path above this compaction: Pi keeps nothing from before the compaction.",
    );
    // Nothing from before it is kept: the user message is summarised away.
    expect(hover(fixture(lines, 3, '"cacheRe')).md).toContain("- **Context:** not in it: summarised by the compaction on line 8");
    const own = COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"a0000006"');
    expect(hover(fixture([HEADER, MODEL, USER, CALL, RESULT, LABEL, own], 6, '"firstKeptEntryId":"a')).md).toContain(
      "The compaction's own id: Pi 1.x's way of keeping nothing",
    );
  });

  it("duplicate ids: Pi uses the last", () => {
    const dup = MODEL.replace('"parentId":null', '"parentId":"a0000007"').replace('"modelId":"claude-sonnet-4-5"', '"modelId":"claude-opus-4-1"');
    const lines = [...LINES, dup];
    // A reference to the duplicated id resolves to the last holder (line 10).
    const ref = hover(fixture(lines, 2, '"parentId":"a0'));
    expect(ref.md).toContain("**parentId** `a0000001` → **model\\_change** · `anthropic/claude-opus-4-1` · line 10");
    expect(ref.md).toContain("`a0000001` is held by 2 entries (lines 2, 10); Pi uses the last, line 10.");
    // On the first holder's id: Pi ignores it.
    const first = hover(fixture(lines, 1, '"id":"a0'));
    expect(first.md).toContain("- **Duplicate:** `a0000001` is held by 2 entries (lines 2, 10); Pi uses the last, line 10, and ignores this one");
    expect(hover(fixture(lines, 1, '"modelId')).md).toContain(
      "- **Id:** `a0000001` is held by 2 entries (lines 2, 10); Pi uses the last, line 10, and ignores this one",
    );
  });

  it("a tool call and the tool result that answers it find each other", () => {
    const call = hover(fixture(LINES, 3, '"id":"tool'));
    expect(call.token).toBe('"toolu_01"');
    expect(call.md).toContain("**Tool call** `read` `toolu_01`");
    expect(call.md).toContain("Answered by **message · toolResult** · `read` · line 5");
    expect(call.md).toContain("> export const add = (a, b) =\\> a - b; // 🐛");
    const result = hover(fixture(LINES, 4, '"toolCallId":"to'));
    expect(result.md).toContain("**toolCallId** `toolu_01` answers `read` in **message · assistant** · `anthropic/claude-sonnet-4-5` · line 4");
  });

  it("a tool result further down, and a call nobody answered", () => {
    // A label sits between the call and its result.
    const between = `{"type":"label","id":"c0","parentId":"a0000003","timestamp":"2026-03-02T10:00:04.500Z","targetId":"a0000002","label":"x"}`;
    const later = RESULT.replace('"parentId":"a0000003"', '"parentId":"c0"');
    expect(hover(fixture([HEADER, MODEL, USER, CALL, between, later], 3, '"id":"tool')).md).toContain("Answered by **message · toolResult** · `read` · line 6");
    expect(hover(fixture([HEADER, MODEL, USER, CALL], 3, '"id":"tool')).md).toContain("No tool result below this message answers it.");
  });

  it("a tool result that answers no call on its path", () => {
    const stray = RESULT.replace('"id":"a0000004","parentId":"a0000003"', '"id":"c1","parentId":"a0000007"').replace("toolu_01", "toolu_99");
    const { md } = hover(fixture([...LINES, stray], 9, '"toolCallId":"to'));
    expect(md).toContain("No tool call with this id is on the path above this result");
    const elsewhere = RESULT.replace('"id":"a0000004","parentId":"a0000003"', '"id":"c1","parentId":"b0000001"');
    expect(hover(fixture([...LINES, elsewhere], 9, '"toolCallId":"to')).md).toContain("A tool call with this id is on line 4, on another branch.");
  });
});

describe("hover on a timestamp", () => {
  it("the time in words and the gap since the parent", () => {
    const { md, token } = hover(fixture(LINES, 3, '"timestamp":"2026'));
    expect(token).toBe('"2026-03-02T10:00:04.300Z"');
    expect(md).toBe("**Monday 2 March 2026, 10:00:04.300 UTC**\n\n+2.3 s after its parent (line 3)");
    expect(hover(fixture(LINES, 8, '"timestamp":"2026')).md).toContain("+3 min 12 s after its parent (line 7)");
  });

  it("a root, the header, an entry dated before its parent", () => {
    expect(hover(fixture(LINES, 1, '"timestamp":"2026')).md).toBe("**Monday 2 March 2026, 10:00:01 UTC**\n\nA root: no parent to compare with.");
    expect(hover(fixture(LINES, 0, '"timestamp":"2026')).md).toBe("**Monday 2 March 2026, 10:00:00 UTC**\n\nWhen the session was created.");
    const early = REPLY.replace("2026-03-02T10:03:19.000Z", "2026-03-02T09:59:00.000Z");
    expect(hover(fixture([...LINES.slice(0, 8), early], 8, '"timestamp":"2026')).md).toContain("1 min 7 s *before* its parent (line 7): out of order");
  });

  it("a timestamp that is not a valid time", () => {
    const bad = REPLY.replace("2026-03-02T10:03:19.000Z", "yesterday");
    expect(hover(fixture([...LINES.slice(0, 8), bad], 8, '"timestamp":"yes')).md).toContain("Not a valid time");
    const loose = REPLY.replace("2026-03-02T10:03:19.000Z", "2026-03-02 10:03");
    expect(hover(fixture([...LINES.slice(0, 8), loose], 8, '"timestamp":"2026')).md).toContain("Not in the form Pi writes");
  });

  it("formats durations and dates", () => {
    expect(timeInWords(Date.UTC(2026, 2, 2, 10, 0, 5))).toBe("Monday 2 March 2026, 10:00:05 UTC");
    expect([850, 2345, 252_000, 3_900_000, 183_600_000].map(duration)).toEqual(["850 ms", "2.3 s", "4 min 12 s", "1 h 5 min", "2 d 3 h"]);
  });
});

describe("hover on the header", () => {
  it("name, cwd, version, counts, parent session", () => {
    const header = HEADER.replace(
      '"cwd":"/home/dev/project"',
      '"cwd":"/home/dev/project","parentSession":"/home/dev/.pi/agent/sessions/--home-dev-project--/old.jsonl"',
    );
    const named = `{"type":"session_info","id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","name":"  Fix the adder  "}`;
    const { md, token } = hover(fixture([header, ...LINES.slice(1), named], 0, '"cw'));
    expect(token).toBe('"cwd"');
    expect(md).toMatchInlineSnapshot(`
      "**Session** \`Fix the adder\` · id \`019cae1a-4f00-7000-8000-000000000001\`

      - **Name:** \`Fix the adder\` (\`session_info\` on line 10)
      - **Working directory:** \`/home/dev/project\`
      - **Version:** 3 (current)
      - **Created:** Monday 2 March 2026, 10:00:00 UTC
      - **Entries:** 9 · 2 branches (leaves) · 1 root
      - **Resumes at:** line 10, depth 7
      - **Parent session:** \`/home/dev/.pi/agent/sessions/--home-dev-project--/old.jsonl\`"
    `);
    // The same on the parentSession value.
    expect(hover(fixture([header, ...LINES.slice(1), named], 0, '"parentSession":"/ho')).md).toContain("**Session** `Fix the adder`");
  });

  it("an empty session_info clears the name; an old version is migrated", () => {
    const name = (n: string, id: string) => `{"type":"session_info","id":"${id}","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z","name":"${n}"}`;
    const header = HEADER.replace('"version":3', '"version":2');
    const { md } = hover(fixture([header, ...LINES.slice(1), name("First", "c1"), name("   ", "c2")], 0, '"cw'));
    expect(md).toContain("- **Name:** none (cleared by the `session_info` on line 11)");
    expect(md).toContain("- **Version:** 2: Pi migrates the file on open and rewrites it");
    expect(hover(fixture([HEADER.replace('"version":3,', ""), MODEL], 0, '"cw')).md).toContain("none, so v1");
  });

  it("a file whose first line is not a header", () => {
    const { md } = hover(fixture([MODEL, USER], 0, '"provi'));
    expect(md).toContain("**model\\_change**");
    expect(md).toContain("is not a session header: Pi 0.73/0.74 overwrites the file with a fresh header, and Pi 1.x refuses to open it.");
  });
});

describe("positions and bounds", () => {
  it("surrogate pairs (emoji, CJK) before the cursor on the same line", () => {
    const line = `{"type":"message","message":{"role":"user","content":"日本語のテスト 😀🧪 𝄞 done","timestamp":1772445840000},"id":"c1","parentId":"a0000007","timestamp":"2026-03-02T10:04:00.000Z"}`;
    const ref = hover(fixture([...LINES, line], 9, '"parentId":"a0'));
    expect(ref.token).toBe('"a0000007"');
    expect(ref.md).toContain("**parentId** `a0000007` → **message · assistant**");
    const time = hover(fixture([...LINES, line], 9, '"timestamp":"2026'));
    expect(time.token).toBe('"2026-03-02T10:04:00.000Z"');
    const entry = hover(fixture([...LINES, line], 9, "😀"));
    expect(entry.token).toBe('"日本語のテスト 😀🧪 𝄞 done"');
    expect(entry.md).toContain("> 日本語のテスト 😀🧪 𝄞 done");
  });

  it("CRLF files", () => {
    const source = `${LINES.map((l, i) => (i === 4 ? mark(l, '"parentId":"a0') : l)).join("\r\n")}\r\n`;
    const ref = hover(source);
    expect(ref.token).toBe('"a0000003"');
    expect(ref.md).toContain("→ **message · assistant**");
    // The last token before a "\r\n": the header's cwd value.
    const cwd = hover(`${LINES.map((l, i) => (i === 0 ? mark(l, '"cwd":"/ho') : l)).join("\r\n")}\r\n`);
    expect(cwd.token).toBe('"/home/dev/project"');
    expect(cwd.md).toContain("- **Entries:** 8");
    const leaf = hover(`${LINES.map((l, i) => (i === 8 ? mark(l, "The *si") : l)).join("\r\n")}\r\n`);
    expect(leaf.md).toContain("on it: the leaf, where Pi resumes");
  });

  it("a 400 KB line stays under the bound", () => {
    const big = `${"x".repeat(200_000)} 😀 ${"y ".repeat(100_000)}`;
    const line = RESULT.replace("export const add = (a, b) => a - b; // 🐛", big)
      .replace('"id":"a0000004"', '"id":"c1"')
      .replace('"parentId":"a0000003"', '"parentId":"a0000007"');
    expect(line.length).toBeGreaterThan(400_000);
    const lines = [...LINES, line];
    const inText = hover(fixture(lines, 9, "xxxxxxxxxx"));
    expect(inText.md.length).toBeLessThan(MAX_HOVER_CHARS);
    expect(inText.md.length).toBeLessThan(1000);
    expect(inText.md).toMatch(/> x{160}…/);
    const after = hover(fixture(lines, 9, '"isErr'));
    expect(after.token).toBe('"isError"');
    expect(after.md.length).toBeLessThan(1000);
    // A reference to that entry previews it clipped too.
    const child = `{"type":"label","id":"c2","parentId":"c1","timestamp":"2026-03-02T10:04:00.000Z","targetId":"c1","label":"${"L".repeat(5000)}"}`;
    const ref = hover(fixture([...lines, child], 10, '"targetId":"c'));
    expect(ref.md).toContain("→ **message · toolResult**");
    expect(ref.md.length).toBeLessThan(1000);
    const labelled = hover(fixture([...lines, child], 9, '"toolNa'));
    expect(labelled.md).toContain("- **Label:** `LLLL");
    expect(labelled.md.length).toBeLessThan(1000);
    // A huge id is clipped wherever it is shown.
    const hugeId = MODEL.replace('"id":"a0000001"', `"id":"${"i".repeat(300_000)}"`);
    const idHover = hover(fixture([HEADER, hugeId], 1, '"id":"ii'));
    expect(idHover.md.length).toBeLessThan(1000);
  });

  it("a 50,000-deep chain: depth without a recursive walk", () => {
    const lines = [HEADER];
    for (let i = 0; i < 50_000; i++) {
      lines.push(`{"type":"custom","id":"e${i}","parentId":${i === 0 ? "null" : `"e${i - 1}"`},"timestamp":"2026-03-02T10:00:00.000Z","customType":"s"}`);
    }
    const { md } = hover(fixture(lines, 50_000, '"customTy'));
    expect(md).toContain("- **Tree:** depth 49,999 · no children (a branch tip) · parent on line 50000");
    expect(md).toContain("on it: the leaf, where Pi resumes");
    const header = hover(fixture(lines, 0, '"cw'));
    expect(header.md).toContain("- **Entries:** 50,000 · 1 branch (leaves) · 1 root");
  });

  it("no hover on blank, malformed or non-object lines", () => {
    expect(hoverOf(`${HEADER}\n  $0  \n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n$0\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n{"type":"mess$0age","id":\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\nnu$0ll\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n[1, 2$0]\n${MODEL}\n`).hover).toBeNull();
    expect(hoverOf(`${HEADER}\n${MODEL}\n$0`).hover).toBeNull();
  });

  it("after a byte order mark", () => {
    const { md, token } = hover(`\uFEFF${mark(HEADER, '"cwd":"/ho')}\n${MODEL}\n`);
    expect(token).toBe('"/home/dev/project"');
    expect(md).toContain("**Session**");
  });
});

describe("isInContext (section 5.3)", () => {
  const doc = (lines: string[]) => new Doc("file:///t.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);

  it("without a compaction: the whole active path", () => {
    const d = doc(LINES.filter((l) => l !== COMPACTION).map((l) => l.replace('"parentId":"a0000006"', '"parentId":"a0000005"')));
    const a = d.analysis;
    expect(a.entries.map((e) => isInContext(a, e))).toEqual([true, true, true, true, true, false, true]);
  });

  it("with a compaction: the compaction, the kept range, what follows", () => {
    const a = doc(LINES).analysis;
    const selection = contextSelection(a);
    expect(a.entries.map((e) => selection.state[e.index])).toEqual([2, 2, 1, 1, 1, 1, 0, 1]);
    expect(selection.compaction?.id).toBe("a0000006");
    expect(selection.keptFrom?.id).toBe("a0000003");
    expect(contextSelection(a)).toBe(selection); // memoised per analysis
  });

  it("a missing firstKeptEntryId keeps nothing before; system messages before it are dropped by 1.x", () => {
    const sys = `{"type":"message","id":"s1","parentId":"a0000001","timestamp":"2026-03-02T10:00:01.500Z","message":{"role":"system","content":"Be brief.","timestamp":1772445601500}}`;
    const lines = [
      HEADER,
      MODEL,
      sys,
      USER.replace('"parentId":"a0000001"', '"parentId":"s1"'),
      CALL,
      RESULT,
      LABEL,
      COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"a0000001"'),
    ];
    const a = doc(lines).analysis;
    expect(a.entries.map((e) => contextSelection(a).state[e.index])).toEqual([1, ContextState.DroppedSystem, 1, 1, 1, 1, 1]);
    const gone = doc([
      HEADER,
      MODEL,
      USER,
      CALL,
      COMPACTION.replace('"firstKeptEntryId":"a0000003"', '"firstKeptEntryId":"zzz"').replace('"parentId":"a0000005"', '"parentId":"a0000003"'),
    ]).analysis;
    expect(gone.entries.map((e) => isInContext(gone, e))).toEqual([false, false, false, true]);
  });
});

describe("hover on entries without text", () => {
  it("quotes nothing for an empty branch summary, on the entry and on a reference to it", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}';
    const summary = '{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","fromId":"root","summary":""}';
    const child =
      '{"type":"message","id":"u1","parentId":"b$01","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1}}';
    const { doc, position } = documentWithCursor([header, summary, child].join("\n"));
    const value = (computeHover(doc, position)?.contents as { value: string } | undefined)?.value;
    expect(value).toContain("b1");
    expect(value).not.toMatch(/^>\s*$/m);
    const onEntry = (computeHover(doc, { line: 1, character: 5 })?.contents as { value: string } | undefined)?.value;
    expect(onEntry).not.toMatch(/^>\s*$/m);
  });
});
