/**
 * An edit after the idle release on a line the released contexts read (the newest messages) is
 * answered at once with a provisional list, and the complete list follows once typing pauses
 * (`lsp/diagnostics.ts`, `COMPLETE_AFTER_QUIET_MS`): the provisional list holds every check's
 * findings of the new text but the provider request's, which stand as the last complete list had
 * them except on the edited lines; the complete list equals what a server that never let anything
 * go answers for the same text.
 *
 * In-process, with the reclaimer's timers and clock faked. The edit breaks the newest user message's
 * timestamp (a finding of its line) and empties its text, which Pi sends to the provider without
 * text (`empty-user-message`, a finding of the provider request that only the complete list has).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver";
import { describe, expect, it, vi } from "vitest";
import { cachedChars } from "../../server/src/core/line/values";
import { COMPLETE_AFTER_QUIET_MS } from "../../server/src/lsp/diagnostics";
import { IDLE_SESSION, openAndRelease, settle, withIdleServer } from "../helpers/idleRelease";
import { type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const URI = "file:///provisional.jsonl";
const NEWEST_USER = '"timestamp":"2026-03-02T10:00:49.040Z","message":{"role":"user","content":"Thanks!"';
const EDITED_USER = '"timestamp":"not a time","message":{"role":"user","content":""';
const EDITED_TEXT = IDLE_SESSION.replace(NEWEST_USER, EDITED_USER);

const codes = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => d.code);

/** What a pushing client gets for `text` from a server that just opened it. */
async function freshList(text: string): Promise<Diagnostic[]> {
  const client = startInProcess();
  try {
    await client.initialize(PUSH_CAPABILITIES);
    await client.open("file:///fresh.jsonl", text);
    return (await client.waitForDiagnostics("file:///fresh.jsonl", (p) => p.version === 1)).diagnostics;
  } finally {
    client.dispose();
  }
}

/** The published lists of `URI` since `mark`, with their versions. */
function publishedSince(client: LspTestClient, mark: number): PublishDiagnosticsParams[] {
  return client.published.slice(mark).filter((p) => p.uri === URI);
}

describe("an edit in the resumed context after the idle release", () => {
  it("changes the text as the test means to", () => {
    expect(IDLE_SESSION).toContain(NEWEST_USER);
    expect(EDITED_TEXT).not.toBe(IDLE_SESSION);
  });

  describe("pushed", () => {
    const { server } = withIdleServer(PUSH_CAPABILITIES);

    it("is published at once without building the contexts again, and the complete list once typing pauses", async () => {
      const client = server();
      const opened = await openAndRelease(client, URI, true);
      expect(codes(opened)).not.toContain("empty-user-message");
      expect(cachedChars()).toBe(0);
      const mark = client.mark();
      await client.replace(URI, NEWEST_USER, EDITED_USER);
      const first = await client.waitForDiagnostics(URI, (p) => p.version === 2);
      // The line's own finding is there; the provider request's new one is not.
      expect(codes(first.diagnostics)).toContain("invalid-timestamp");
      expect(codes(first.diagnostics)).not.toContain("empty-user-message");
      const parsedFirst = cachedChars();

      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS - 1);
      await settle();
      expect(publishedSince(client, mark)).toHaveLength(1);
      vi.advanceTimersByTime(1);
      await settle();
      const lists = publishedSince(client, mark);
      expect(lists).toHaveLength(2);
      expect(lists[1]!.version).toBe(2);
      expect(codes(lists[1]!.diagnostics)).toContain("empty-user-message");
      // The complete list parsed the lines the contexts read, which the first answer had not.
      expect(cachedChars()).toBeGreaterThan(parsedFirst);
      expect(lists[1]!.diagnostics).toEqual(await freshList(EDITED_TEXT));
    });

    it("publishes a line added above the kept findings at once, the findings moved with their lines", async () => {
      // The newest user message without text: a provider request finding whose message names no line.
      const empty = IDLE_SESSION.replace(NEWEST_USER, NEWEST_USER.replace('"Thanks!"', '""'));
      const client = server();
      const opened = await openAndRelease(client, URI, true, empty);
      const before = opened.filter((d) => d.code === "empty-user-message");
      expect(before).toHaveLength(1);
      expect(cachedChars()).toBe(0);
      const mark = client.mark();
      // Enter at the start of the line after the header: every line from there moves down one.
      await client.change(URI, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }]);
      const first = await client.waitForDiagnostics(URI, (p) => p.version === 2);
      const moved = first.diagnostics.filter((d) => d.code === "empty-user-message");
      expect(moved.map((d) => d.range)).toEqual(
        before.map((d) => ({ start: { ...d.range.start, line: d.range.start.line + 1 }, end: { ...d.range.end, line: d.range.end.line + 1 } })),
      );
      const parsedFirst = cachedChars();
      // As a server that never let anything go answers.
      const edited = empty.replace("\n", "\n\n");
      expect(first.diagnostics).toEqual(await freshList(edited));
      // The complete list, made once typing pauses, is the same: it is not sent again. It parsed
      // the lines the contexts read, which the first answer had not.
      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS);
      await settle();
      expect(publishedSince(client, mark)).toHaveLength(1);
      expect(cachedChars()).toBeGreaterThan(parsedFirst);
    });

    it("leaves a kept finding that names a line moved to the complete list", async () => {
      // The tool result's finding names its call's line ("its call's turn (line 3)"), which moves.
      const orphaned = readFileSync(join(__dirname, "../parity/fixtures/fault-tool-result-after-aborted-call.jsonl"), "utf8");
      const client = server();
      const opened = await openAndRelease(client, URI, true, orphaned);
      expect(codes(opened)).toEqual(["orphaned-tool-result"]);
      const mark = client.mark();
      await client.change(URI, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }]);
      const first = await client.waitForDiagnostics(URI, (p) => p.version === 2);
      expect(codes(first.diagnostics)).not.toContain("orphaned-tool-result");
      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS);
      await settle();
      const lists = publishedSince(client, mark);
      expect(lists.map((p) => p.version)).toEqual([2, 2]);
      const complete = await freshList(orphaned.replace("\n", "\n\n"));
      expect(complete.find((d) => d.code === "orphaned-tool-result")?.message).toContain("(line 4)");
      expect(lists[1]!.diagnostics).toEqual(complete);
    });

    it("makes the complete list of the last text only, once the edits pause", async () => {
      const client = server();
      await openAndRelease(client, URI, true);
      const mark = client.mark();
      await client.replace(URI, NEWEST_USER, EDITED_USER);
      await client.waitForDiagnostics(URI, (p) => p.version === 2);
      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS - 1);
      await settle();
      // A second edit of the same line before the pause: "not a time" becomes "not a timeX".
      await client.replace(URI, '"not a time"', '"not a timeX"');
      await settle();
      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS - 1);
      await settle();
      expect(publishedSince(client, mark).every((p) => codes(p.diagnostics).includes("empty-user-message") === false)).toBe(true);
      vi.advanceTimersByTime(1);
      await settle();
      const complete = publishedSince(client, mark).filter((p) => codes(p.diagnostics).includes("empty-user-message"));
      expect(complete.map((p) => p.version)).toEqual([3]);
      expect(complete[0]!.diagnostics).toEqual(await freshList(EDITED_TEXT.replace('"not a time"', '"not a timeX"')));
    });
  });

  describe("pulled, by a client that can be asked to pull again", () => {
    const { server } = withIdleServer({ ...PULL_CAPABILITIES, workspace: { ...PULL_CAPABILITIES.workspace, diagnostics: { refreshSupport: true } } });

    it("answers the pull at once, then asks for another once typing pauses, which gets the complete list", async () => {
      const client = server();
      await openAndRelease(client, URI);
      await client.replace(URI, NEWEST_USER, EDITED_USER);
      const first = await client.pullDiagnostics(URI);
      expect(first.kind).toBe("full");
      const firstItems = first.kind === "full" ? first.items : [];
      expect(codes(firstItems)).toContain("invalid-timestamp");
      expect(codes(firstItems)).not.toContain("empty-user-message");
      const refreshes = () => client.serverRequests.filter((r) => r.method === "workspace/diagnostic/refresh").length;
      const before = refreshes();
      vi.advanceTimersByTime(COMPLETE_AFTER_QUIET_MS);
      await settle();
      expect(refreshes()).toBe(before + 1);
      const again = await client.pullDiagnostics(URI, first.kind === "full" ? first.resultId : undefined);
      expect(again.kind).toBe("full");
      expect(again.kind === "full" ? again.items : []).toEqual(await freshList(EDITED_TEXT));
    });
  });
});
