/**
 * Session lines in the exact shape Pi writes them (compare test/parity/fixtures/written-*.jsonl),
 * for tests that build small sessions in code. Timestamps are seconds after 10:00:00 on
 * 2026-03-02; every builder takes the entry's id, its parent id (null for a root) and, where the
 * order of siblings matters, the second it was written at.
 */

const BASE = Date.parse("2026-03-02T10:00:00.000Z");

export const HEADER =
  '{"type":"session","version":3,"id":"019cadfd-8900-79df-9839-64c588162ed6","timestamp":"2026-03-02T10:00:00.001Z","cwd":"/home/dev/project"}';

let autoSecond = 0;

/** The entry base fields, `"type":…,"id":…,"parentId":…,"timestamp":…`. */
function base(type: string, id: string, parent: string | null, second?: number): string {
  const at = second ?? ++autoSecond;
  return `"type":"${type}","id":${JSON.stringify(id)},"parentId":${JSON.stringify(parent)},"timestamp":"${new Date(BASE + at * 1000).toISOString()}"`;
}

const msgTime = (second?: number) => BASE + (second ?? autoSecond) * 1000 - 1;

const USAGE =
  '"usage":{"input":2125,"output":160,"cacheRead":1024,"cacheWrite":0,"totalTokens":3309,"cost":{"input":0.006375,"output":0.0024,"cacheRead":0.000307,"cacheWrite":0,"total":0.009082}}';

export function user(id: string, parent: string | null, text: string, second?: number): string {
  const head = base("message", id, parent, second);
  return `{${head},"message":{"role":"user","content":${JSON.stringify(text)},"timestamp":${msgTime(second)}}}`;
}

export function assistant(id: string, parent: string | null, text: string, second?: number): string {
  const head = base("message", id, parent, second);
  return `{${head},"message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(text)}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",${USAGE},"stopReason":"stop","timestamp":${msgTime(second)}}}`;
}

/** An assistant message with thinking and tool calls but no text. */
export function assistantCalling(id: string, parent: string | null, tools: string[], second?: number): string {
  const head = base("message", id, parent, second);
  const calls = tools.map((name, i) => `{"type":"toolCall","id":"toolu_${id}_${i}","name":"${name}","arguments":{"path":"src/a.ts"}}`);
  return `{${head},"message":{"role":"assistant","content":[{"type":"thinking","thinking":"Let me look.","thinkingSignature":"sig"},${calls.join(",")}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",${USAGE},"stopReason":"toolUse","timestamp":${msgTime(second)}}}`;
}

export function toolResult(id: string, parent: string, callId: string, toolName: string, second?: number): string {
  const head = base("message", id, parent, second);
  return `{${head},"message":{"role":"toolResult","toolCallId":"${callId}","toolName":"${toolName}","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":${msgTime(second)}}}`;
}

export function modelChange(id: string, parent: string | null, provider = "anthropic", modelId = "claude-sonnet-4-5", second?: number): string {
  return `{${base("model_change", id, parent, second)},"provider":"${provider}","modelId":"${modelId}"}`;
}

export function thinkingChange(id: string, parent: string | null, level: string, second?: number): string {
  return `{${base("thinking_level_change", id, parent, second)},"thinkingLevel":"${level}"}`;
}

export function compaction(id: string, parent: string, firstKeptEntryId: string, tokensBefore: number, second?: number): string {
  return `{${base("compaction", id, parent, second)},"summary":"## Goal\\nFix the parser.\\n\\n## Progress\\n- Tests pass.","firstKeptEntryId":"${firstKeptEntryId}","tokensBefore":${tokensBefore},"details":{"readFiles":["src/a.ts"],"modifiedFiles":[]}}`;
}

export function label(id: string, parent: string, targetId: string, text: string, second?: number): string {
  return `{${base("label", id, parent, second)},"targetId":"${targetId}","label":${JSON.stringify(text)}}`;
}

export function sessionInfo(id: string, parent: string, name: string, second?: number): string {
  return `{${base("session_info", id, parent, second)},"name":${JSON.stringify(name)}}`;
}

export function branchSummary(id: string, parent: string, fromId: string, summary: string, second?: number): string {
  return `{${base("branch_summary", id, parent, second)},"fromId":"${fromId}","summary":${JSON.stringify(summary)}}`;
}

export function custom(id: string, parent: string, customType: string, second?: number): string {
  return `{${base("custom", id, parent, second)},"customType":"${customType}","data":{"count":1}}`;
}

export function usage(id: string, parent: string, kind: string, second?: number): string {
  return `{${base("usage", id, parent, second)},"kind":"${kind}","provider":"anthropic","model":"claude-sonnet-4-5",${USAGE}}`;
}

export function contextEdit(id: string, parent: string, targetId: string, second?: number): string {
  return `{${base("context_edit", id, parent, second)},"targetId":"${targetId}","replacement":{"content":"(removed output)"}}`;
}

/** Lines joined into a session file, with the final newline Pi writes. */
export function session(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}
