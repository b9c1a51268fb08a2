/**
 * Tool calls whose id is the empty string, far apart in one session. `""` is a string like any
 * other to Pi: `transformMessages` (pi-ai, core/provider/transformMessages.ts here) pairs a tool
 * result with the open calls of the assistant message before it by `toolCallId`, whatever its
 * truthiness, and the tree's pairing (core/semantics/toolPairs.ts) takes the nearest call above.
 * The second call's result lies more than the near search's 64 entries below it, so its pairing
 * comes from the index of every call and result by id, where a falsy `""` could be lost.
 */

import { describe, expect, it } from "vitest";
import { buildContext } from "../../server/src/core/pi/buildContext";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";
import { SessionDocument } from "../../server/src/core/session/document";
import { callFor, resultsFor } from "../../server/src/core/session/semantics/toolPairs";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { HEADER, assistant, custom, session, user } from "../helpers/piLines";

const USAGE =
  '"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}';
const at = (second: number) => new Date(Date.parse("2026-03-02T10:00:00.000Z") + second * 1000).toISOString();

function callingEmptyId(id: string, parent: string, second: number): string {
  return `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"${at(second)}","message":{"role":"assistant","content":[{"type":"toolCall","id":"","name":"read","arguments":{"path":"src/a.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",${USAGE},"stopReason":"toolUse","timestamp":${Date.parse(at(second)) - 1}}}`;
}

function emptyIdResult(id: string, parent: string, second: number): string {
  return `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"${at(second)}","message":{"role":"toolResult","toolCallId":"","toolName":"read","content":[{"type":"text","text":"ok ${id}"}],"isError":false,"timestamp":${Date.parse(at(second)) - 1}}}`;
}

/** u1, call1 (id ""), result1, 80 user/assistant turns, u2, call2 (id ""), 80 custom entries, result2, a final answer. */
function emptyIdsFarApart(): string {
  const lines = [HEADER, user("u1", null, "Read a.ts.", 1), callingEmptyId("call1", "u1", 2), emptyIdResult("result1", "call1", 3)];
  let parent = "result1";
  let second = 4;
  for (let i = 0; i < 80; i++) {
    lines.push(user(`q${i}`, parent, `Question ${i}.`, second++), assistant(`r${i}`, `q${i}`, `Answer ${i}.`, second++));
    parent = `r${i}`;
  }
  lines.push(user("u2", parent, "Read a.ts again.", second++), callingEmptyId("call2", "u2", second++));
  parent = "call2";
  // Entries that send nothing: the result still follows its call in the request.
  for (let i = 0; i < 80; i++) {
    lines.push(custom(`x${i}`, parent, "progress", second++));
    parent = `x${i}`;
  }
  lines.push(emptyIdResult("result2", parent, second++), assistant("done", "result2", "Done.", second++));
  return session(...lines);
}

describe('tool calls with the id "" far apart', () => {
  const doc = new SessionDocument("file:///empty-ids.jsonl", "jsonl", 1, emptyIdsFarApart());
  const a = doc.analysis;
  const entry = (id: string) => a.byId.get(id)!;

  it("pairs each result with the nearest call above it, through the index when the call is far", () => {
    expect(callFor(a, entry("result1"), "")).toBe(entry("call1"));
    expect(callFor(a, entry("result2"), "")).toBe(entry("call2"));
    // A call's results are those below it, nearest first: the second call's result lies 81 entries down.
    expect(resultsFor(a, entry("call2"), "").map((e) => e.id)).toEqual(["result2"]);
    expect(resultsFor(a, entry("call1"), "")[0]).toBe(entry("result1"));
  });

  it("sends both results right after their calls, with no placeholder, as Pi does", () => {
    const built = buildContext(a);
    if (!built.ok) throw new Error("the context should build");
    const request = buildProviderRequest(built.build, { flavor: "1.x", now: () => 0 });
    if (!request.ok) throw new Error("the request should build");
    const { messages, placeholders } = request.request;
    expect(placeholders).toEqual([]);
    const roles = (messages as { role: string; toolCallId?: string }[]).map((m) =>
      m.role === "toolResult" ? `toolResult(${JSON.stringify(m.toolCallId)})` : m.role,
    );
    expect(roles.slice(0, 3)).toEqual(["user", "assistant", 'toolResult("")']);
    expect(roles.slice(-4)).toEqual(["user", "assistant", 'toolResult("")', "assistant"]);
  });

  it("finds nothing wrong with the pairing", () => {
    expect(computeDiagnostics(doc).map((d) => d.code)).toEqual([]);
  });

  it('still reports a result with the id "" whose call is not on its path', () => {
    const lone = new SessionDocument("file:///lone.jsonl", "jsonl", 1, session(HEADER, user("u1", null, "Hi.", 1), emptyIdResult("result1", "u1", 2)));
    expect(computeDiagnostics(lone).map((d) => d.code)).toEqual(["unmatched-tool-result"]);
  });
});
