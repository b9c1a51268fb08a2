/**
 * What an idle server lets go (`releaseKept`): the resumed contexts, the answers made from them and
 * the messages each line contributes are computed again when next asked for, and every answer
 * after the release equals the one before it, and after an edit the one of a fresh document.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { activeContext, activeContext074 } from "../../server/src/core/pi/activeContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import { labels } from "../../server/src/core/session/semantics/labels";
import { computeCodeLenses, resolveCodeLens } from "../../server/src/features/codeLens";
import { computeContextRequest } from "../../server/src/features/contextRequest";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { computeHover } from "../../server/src/features/hover";
import { forgetValues } from "../../server/src/core/line/values";
import { computeInlayHints } from "../../server/src/features/inlayHints";

const T = (s: number) => `2026-03-02T10:00:${String(s).padStart(2, "0")}.000Z`;
const message = (id: string, parentId: string, s: number, body: object) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: T(s), message: { ...body, timestamp: 1 } });
const user = (id: string, parentId: string, s: number, text: string) => message(id, parentId, s, { role: "user", content: text });
const assistant = (id: string, parentId: string, s: number, content: object[]) =>
  message(id, parentId, s, { role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "toolUse" });

/** A compacted session with a label, a tool call answered late and one never answered (Pi's placeholder). */
const LINES = [
  JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000ee", timestamp: T(0), cwd: "/home/dev/p" }),
  user("u1", null as unknown as string, 1, "Look at the logs — all of them."),
  assistant("a1", "u1", 2, [{ type: "toolCall", id: "call-1", name: "bash", arguments: { command: "ls" } }]),
  JSON.stringify({ type: "compaction", id: "c1", parentId: "a1", timestamp: T(3), summary: "Logs listed.", firstKeptEntryId: "a1", tokensBefore: 100 }),
  user("u2", "c1", 4, "And the tests?"),
  message("r1", "u2", 5, { role: "toolResult", toolCallId: "call-1", toolName: "bash", content: [{ type: "text", text: "a.log" }], isError: false }),
  assistant("a2", "r1", 6, [{ type: "toolCall", id: "call-2", name: "read", arguments: { path: "x" } }]),
  JSON.stringify({ type: "label", id: "l1", parentId: "a2", timestamp: T(7), targetId: "u2", label: "tests" }),
  user("u3", "l1", 8, "Go on “please”."),
];

const open = (text = `${LINES.join("\n")}\n`) => new SessionDocument("file:///release.jsonl", "jsonl", 1, text);

/** Every answer that reads the kept contexts, as JSON. */
function answers(doc: SessionDocument): string {
  const lenses = computeCodeLenses(doc).map((lens) => resolveCodeLens(doc, lens));
  const end = { line: doc.lineCount, character: 0 };
  return JSON.stringify({
    diagnostics: computeDiagnostics(doc),
    lenses,
    context: computeContextRequest(doc, {}),
    provider: computeContextRequest(doc, { stage: "provider" }),
    older: computeContextRequest(doc, { stage: "provider", flavor: "0.74" }),
    inlay: computeInlayHints(doc, { start: { line: 0, character: 0 }, end }),
    hover: computeHover(doc, { line: 4, character: 30 }),
    labels: [...labels(doc.analysis).byTarget.entries()],
  });
}

describe("releaseKept", () => {
  beforeEach(() => {
    // The provider's placeholder results are dated when their request is built.
    vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets the kept contexts go, and every answer built again is the same", () => {
    const doc = open();
    const before = answers(doc);
    const context = activeContext(doc.analysis);
    const older = activeContext074(doc.analysis);
    expect(activeContext(doc.analysis)).toBe(context);
    releaseKept();
    expect(activeContext(doc.analysis)).not.toBe(context);
    expect(activeContext074(doc.analysis)).not.toBe(older);
    expect(activeContext(doc.analysis)).toEqual(context);
    expect(answers(doc)).toBe(before);
    expect(before).toContain("No result provided");
  });

  it("after a release and an edit, answers as a fresh document of the edited text", () => {
    const doc = open();
    answers(doc);
    releaseKept();
    const line = 4;
    const old = doc.getText().split("\n")[line]!;
    doc.update([{ range: { start: { line, character: 0 }, end: { line, character: old.length } }, text: user("u2", "c1", 4, "And the slow tests?") }], 2);
    const edited = answers(doc);
    expect(edited).toContain("slow tests");
    expect(edited).toBe(answers(open(doc.getText())));
  });
});

describe("a closed document", () => {
  /** V8's full collection, as `lsp/memory.ts` asks for it; WeakRefs are cleared once the current job has ended. */
  async function collectFully(): Promise<void> {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }

  /** Weak references to a document that answered every request, and to its parses and kept context, the document itself dropped. */
  function answeredAndDropped(): WeakRef<object>[] {
    const doc = open();
    answers(doc);
    return [new WeakRef(doc), new WeakRef(doc.parsed[2]!), new WeakRef(doc.parsed[6]!), new WeakRef(activeContext(doc.analysis))];
  }

  it("leaves nothing of itself in the module caches once the server lets them go", async () => {
    const refs = answeredAndDropped();
    // What the server does when the last document is closed and it is idle (`lsp/memory.ts`).
    forgetValues();
    releaseKept();
    await collectFully();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true, true]);
  });

  it("is kept by the value cache until then (the check above can see a cache entry)", async () => {
    const refs = answeredAndDropped();
    await collectFully();
    expect(refs.some((r) => r.deref() !== undefined)).toBe(true);
    forgetValues();
    releaseKept();
    await collectFully();
    expect(refs.every((r) => r.deref() === undefined)).toBe(true);
  });
});
