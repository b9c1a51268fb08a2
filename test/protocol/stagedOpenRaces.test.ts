/**
 * The second part of a staged open (`DiagnosticsService` in `lsp/diagnostics.ts`) is started once
 * the first answer is on its way: a close (or an edit) handled before it starts must keep it from
 * running at all, since its first slice builds a large session's contexts for nothing.
 */

import type { Connection, Diagnostic } from "vscode-languageserver";
import { describe, expect, it } from "vitest";
import type { Steps } from "../../server/src/core/base/steps";
import { SessionDocument } from "../../server/src/core/session/document";
import { type DiagnosticsSource, DiagnosticsService } from "../../server/src/lsp/diagnostics";

/** The marker of a complete list, naming the revision it was computed for. */
const complete = (document: SessionDocument): Diagnostic => ({
  message: `complete at ${document.revision}`,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
});

const TEXT = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n';

/** A service that stages every open, over a fake client and source that count what they are asked. */
function harness(pull: boolean) {
  const open = new Map<string, SessionDocument>();
  const sent: { uri: string; diagnostics: Diagnostic[] }[] = [];
  let refreshes = 0;
  let stepsStarted = 0;
  const connection = {
    sendDiagnostics: (params: { uri: string; diagnostics: Diagnostic[] }) => {
      sent.push(params);
      return Promise.resolve();
    },
    languages: {
      diagnostics: {
        refresh: () => {
          refreshes++;
          return Promise.resolve();
        },
      },
    },
  } as unknown as Connection;
  const source: DiagnosticsSource = {
    compute: (document) => [complete(document)],
    // No provisional list: what this test races is the staged open alone.
    provisional: () => undefined,
    structural: () => [],
    steps: function* (document): Steps<Diagnostic[]> {
      stepsStarted++;
      yield;
      return [complete(document)];
    },
    drive: async (steps, stillValid) => {
      for (let next = steps.next(); ; next = steps.next()) {
        if (next.done) return next.value;
        await new Promise((resolve) => setImmediate(resolve));
        if (!stillValid()) throw new Error("changed");
      }
    },
    get: (uri) => open.get(uri),
    all: () => [...open.values()],
    error: () => undefined,
  };
  const service = new DiagnosticsService(connection, source, pull, true, 0);
  return {
    service,
    sent,
    open,
    counts: () => ({ refreshes, stepsStarted }),
  };
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a staged open's second part", () => {
  it("never starts for a document closed right after the first answer (pulled)", async () => {
    const h = harness(true);
    const uri = "file:///closed.jsonl";
    h.open.set(uri, new SessionDocument(uri, "jsonl", 1, TEXT));
    expect(h.service.report(uri, undefined).kind).toBe("full");
    h.open.delete(uri);
    h.service.closed(uri);
    await ticks(6);
    expect(h.counts()).toEqual({ refreshes: 0, stepsStarted: 0 });
  });

  it("never starts for a document closed right after the first publish (pushed), and nothing follows the close's empty list", async () => {
    const h = harness(false);
    const uri = "file:///closed.jsonl";
    const document = new SessionDocument(uri, "jsonl", 1, TEXT);
    h.open.set(uri, document);
    h.service.changed(document);
    // The first publish is made two turns of the event loop after the open.
    while (h.sent.length === 0) await ticks(1);
    h.open.delete(uri);
    h.service.closed(uri);
    await ticks(6);
    expect(h.counts().stepsStarted).toBe(0);
    expect(h.sent.map((p) => p.uri === uri && p.diagnostics.length)).toEqual([0, 0]);
  });

  it("gives a pushing client, edited right after the first publish, the complete list of the new text last", async () => {
    const h = harness(false);
    const uri = "file:///edited.jsonl";
    const document = new SessionDocument(uri, "jsonl", 1, TEXT);
    h.open.set(uri, document);
    h.service.changed(document);
    while (h.sent.length === 0) await ticks(1);
    document.update([{ text: `${TEXT}{}\n` }], 2);
    h.service.changed(document);
    await ticks(8);
    // The second part may have begun before the edit came; it is dropped, never published.
    expect(h.sent.at(-1)?.diagnostics.map((d) => d.message)).toEqual([`complete at ${document.revision}`]);
  });

  it("drops the second part for a setting changed right after the first pull, and answers the next pull with the complete list", async () => {
    const h = harness(true);
    const uri = "file:///settings.jsonl";
    const document = new SessionDocument(uri, "jsonl", 1, TEXT);
    h.open.set(uri, document);
    const first = h.service.report(uri, undefined);
    h.service.settingsChanged(true);
    await ticks(6);
    // The one refresh is the setting's: the second part neither ran nor asked for a pull.
    expect(h.counts()).toEqual({ refreshes: 1, stepsStarted: 0 });
    const next = h.service.report(uri, first.kind === "full" ? first.resultId : undefined);
    expect(next.kind === "full" && next.items.map((d) => d.message)).toEqual([`complete at ${document.revision}`]);
  });
});

describe("DiagnosticsService.isComplete", () => {
  it("is true only once the complete list of the document's current text was made", async () => {
    const h = harness(true);
    const uri = "file:///complete.jsonl";
    const document = new SessionDocument(uri, "jsonl", 1, TEXT);
    h.open.set(uri, document);
    expect(h.service.isComplete(document)).toBe(false);
    // The staged first answer is the structural part alone.
    h.service.report(uri, undefined);
    expect(h.service.isComplete(document)).toBe(false);
    while (h.counts().refreshes === 0) await ticks(1);
    expect(h.service.isComplete(document)).toBe(true);
    // An edit makes a new revision, whose list is not made until it is asked for.
    document.update([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "\n" }], 2);
    expect(h.service.isComplete(document)).toBe(false);
    h.service.report(uri, undefined);
    expect(h.service.isComplete(document)).toBe(true);
    // Another document object under the same URI (closed and opened again) is not the one the list was made for.
    const reopened = new SessionDocument(uri, "jsonl", 1, document.getText());
    expect(h.service.isComplete(reopened)).toBe(false);
  });
});
