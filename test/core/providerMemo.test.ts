/**
 * The provider request is built once per context build and Pi version and shared: the request
 * diagnostics, the lenses and the provider stage of `piSession/buildContext` get the same object,
 * and an edit that leaves everything the request depends on as it was reuses it. Each reuse is
 * checked against a request built from scratch on a fresh document of the edited text.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContext, type PiFlavor } from "../../server/src/core/pi/buildContext";
import { activeContext, activeContext074 } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { buildProviderRequest } from "../../server/src/core/pi/provider/request";
import type { ProviderResult } from "../../server/src/core/pi/provider/types";
import { computeContextRequest } from "../../server/src/features/contextRequest";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { providerRequestOf } from "../../server/src/features/providerView";

const T = (s: number) => `2026-03-02T10:00:${String(s).padStart(2, "0")}.000Z`;
const message = (id: string, parentId: string, s: number, body: object) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: T(s), message: { ...body, timestamp: 1 } });
const user = (id: string, parentId: string, s: number, text: string) => message(id, parentId, s, { role: "user", content: text });
/** An assistant turn of a virtual model (`api: "pi-virtual"`) that called a tool. */
const virtualTurn = (id: string, parentId: string, s: number) =>
  message(id, parentId, s, {
    role: "assistant",
    content: [{ type: "toolCall", id: `call-${id}`, name: "bash", arguments: {} }],
    api: "pi-virtual",
    provider: "pi",
    model: "router",
    stopReason: "toolUse",
  });

/**
 * A compacted session whose kept range holds no assistant that answered: Pi 1.x resumes with the
 * model of the `model_change` on line 1, which lies before the kept range and behind an assistant
 * message of a virtual model (skipped by Pi's `getBranchSelection`). The open tool call of line 5
 * gets Pi's "No result provided", so the request differs from the context.
 */
const LINES = [
  JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000cc", timestamp: T(0), cwd: "/home/dev/p" }),
  JSON.stringify({ type: "model_change", id: "m1", parentId: null, timestamp: T(1), provider: "anthropic", modelId: "claude-sonnet-4-5" }),
  user("u1", "m1", 2, "Look at the logs."),
  virtualTurn("v1", "u1", 3),
  user("u2", "v1", 4, "And the tests?"),
  virtualTurn("v2", "u2", 5),
  JSON.stringify({ type: "compaction", id: "c1", parentId: "v2", timestamp: T(6), summary: "Logs read.", firstKeptEntryId: "u2", tokensBefore: 100 }),
  user("u3", "c1", 7, "Go on."),
];

const open = () => new SessionDocument("file:///memo.jsonl", "jsonl", 1, `${LINES.join("\n")}\n`);

/** Replaces line `line` of `doc` with `text` (a new version). */
function edit(doc: SessionDocument, line: number, text: string): void {
  const old = doc.getText().split("\n")[line]!;
  doc.update([{ range: { start: { line, character: 0 }, end: { line, character: old.length } }, text }], doc.version + 1);
}

/** The request a fresh document of the same text gives, with the clock the shared one was dated with. */
function fresh(doc: SessionDocument, flavor: PiFlavor, shared: ProviderResult): string {
  const again = new SessionDocument("file:///fresh.jsonl", "jsonl", 1, doc.getText());
  const built = buildContext(again.analysis, { flavor });
  if (!built.ok) throw new Error("no context");
  const stamp = shared.ok
    ? (shared.request.messages.find((m) => (m as { isError?: boolean }).isError) as { timestamp?: number } | undefined)?.timestamp
    : undefined;
  return viewOf(buildProviderRequest(built.build, { flavor, now: () => stamp ?? 0 }));
}

const viewOf = (r: ProviderResult) => JSON.stringify(r.ok ? { model: r.request.model, messages: r.request.messages } : { error: r.reason });

function shared(doc: SessionDocument, flavor: "1.x" | "0.74"): ProviderResult {
  const built = flavor === "1.x" ? activeContext(doc.analysis) : activeContext074(doc.analysis);
  if (!built.ok) throw new Error("no context");
  return providerRequestOf(built.build, flavor);
}

describe("the provider request, shared per build and Pi version", () => {
  it("is one object for the diagnostics, the lenses and the context request of a version", () => {
    const doc = open();
    computeDiagnostics(doc);
    const first = shared(doc, "1.x");
    const answer = computeContextRequest(doc, { stage: "provider" });
    expect(answer.ok).toBe(true);
    expect(answer.ok && answer.result.provider?.messages).toBe(first.ok && first.request.messages);
    expect(first.ok && first.request.placeholders.length).toBe(1);
    // Pi 0.73/0.74 has its own: it resumes with the context's model (the virtual one), not 1.x's.
    const older = shared(doc, "0.74");
    expect(older).not.toBe(first);
    expect(older.ok && older.request.model).toMatchObject({ inCatalog: false, id: "router" });
    expect(first.ok && first.request.model).toMatchObject({ provider: "anthropic", id: "claude-sonnet-4-5" });
  });

  it("is reused after an edit of a line the request does not read, and equals a fresh build", () => {
    const doc = open();
    const before = { "1.x": shared(doc, "1.x"), "0.74": shared(doc, "0.74") } as const;
    // Compacted history: neither the kept messages nor the resumed model.
    edit(doc, 2, user("u1", "m1", 2, "Look at the server logs."));
    for (const flavor of ["1.x", "0.74"] as const) {
      const after = shared(doc, flavor);
      expect(after).toBe(before[flavor]);
      expect(viewOf(after)).toBe(fresh(doc, flavor, after));
    }
  });

  it("is built again when the model Pi resumes with changes, though the context build is kept", () => {
    const doc = open();
    const build = activeContext(doc.analysis);
    const before = shared(doc, "1.x");
    // The model change sits before the kept range, behind a virtual assistant: the context build
    // does not read it, Pi 1.x's model choice does.
    edit(doc, 1, LINES[1]!.replace("claude-sonnet-4-5", "claude-opus-4-5"));
    expect(activeContext(doc.analysis)).toBe(build);
    const after = shared(doc, "1.x");
    expect(after).not.toBe(before);
    expect(after.ok && after.request.model).toMatchObject({ provider: "anthropic", id: "claude-opus-4-5" });
    expect(viewOf(after)).toBe(fresh(doc, "1.x", after));
  });

  it("is built again when a kept message changes", () => {
    const doc = open();
    const before = shared(doc, "1.x");
    edit(doc, 7, user("u3", "c1", 7, "Go on, and run the tests."));
    const after = shared(doc, "1.x");
    expect(after).not.toBe(before);
    expect(viewOf(after)).toContain("run the tests");
    expect(viewOf(after)).toBe(fresh(doc, "1.x", after));
  });
});

describe("the request diagnostics, after an edit of the model Pi resumes with", () => {
  /**
   * Pi 1.x resumes with the model change of line 1 (the assistants after it answered for a virtual
   * model). Its call on line 5 is answered late, after a user message: OpenAI's Responses API takes
   * a result anywhere after its call, Anthropic's only right after it.
   */
  const lines = [
    JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000dd", timestamp: T(0), cwd: "/home/dev/p" }),
    JSON.stringify({ type: "model_change", id: "m1", parentId: null, timestamp: T(1), provider: "openai", modelId: "gpt-5" }),
    // Two turns of the virtual model, the second interrupted: u0 v0 u1 v1 u2.
    ...["u0", "v0", "u1", "v1", "u2"].map((id, k, ids) =>
      id.startsWith("v") ? virtualTurn(id, ids[k - 1]!, k + 2) : user(id, ids[k - 1] ?? "m1", k + 2, `Turn ${k}.`),
    ),
    message("r1", "u2", 7, { role: "toolResult", toolCallId: "call-v1", toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false }),
    JSON.stringify({ type: "compaction", id: "c1", parentId: "r1", timestamp: T(8), summary: "Ran it.", firstKeptEntryId: "u1", tokensBefore: 100 }),
    user("u3", "c1", 9, "Go on."),
  ];
  const codes = (doc: SessionDocument) => computeDiagnostics(doc).map((d) => `${d.range.start.line}:${String(d.code)}`);

  it("are those of a fresh document of the edited text", () => {
    const doc = new SessionDocument("file:///model.jsonl", "jsonl", 1, `${lines.join("\n")}\n`);
    expect(codes(doc)).not.toContain("7:orphaned-tool-result");
    edit(doc, 1, lines[1]!.replace('"openai"', '"anthropic"').replace('"gpt-5"', '"claude-sonnet-4-5"'));
    const again = new SessionDocument("file:///fresh.jsonl", "jsonl", 1, doc.getText());
    expect(codes(again)).toContain("7:orphaned-tool-result");
    expect(codes(doc)).toEqual(codes(again));
  });
});

describe("the compaction check, after an edit of a compaction off the path Pi resumes", () => {
  it("puts its diagnostic where a fresh document of the edited text puts it", () => {
    const fixture = readFileSync(join(__dirname, "../parity/fixtures/fault-compaction-keeps-tool-result.jsonl"), "utf8");
    // A last line on another branch: Pi resumes there, and no request reads the compaction's line.
    const text = `${fixture}${user("z0000001", "a0000002", 20, "Start over.")}\n`;
    const doc = new SessionDocument("file:///branch.jsonl", "jsonl", 1, text);
    const ranges = (d: SessionDocument) =>
      computeDiagnostics(d)
        .filter((x) => x.code === "compaction-keeps-tool-result")
        .map((x) => x.range);
    expect(ranges(doc)).toHaveLength(1);
    // A longer summary moves the firstKeptEntryId the diagnostic points at.
    edit(doc, 8, text.split("\n")[8]!.replace("it was fixed.", "it was fixed, and every test passes now."));
    const again = new SessionDocument("file:///fresh.jsonl", "jsonl", 1, doc.getText());
    expect(ranges(doc)).toEqual(ranges(again));
    expect(ranges(again)[0]!.start.character).toBeGreaterThan(ranges(new SessionDocument("file:///before.jsonl", "jsonl", 1, text))[0]!.start.character);
  });
});
