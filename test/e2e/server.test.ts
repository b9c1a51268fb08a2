/**
 * End-to-end tests over stdio: the compiled server, started as a user starts it
 * (`node bin/pi-session-lsp.js --stdio`), driven by a real JSON-RPC client.
 *
 * These cover what only a real process can show: capability negotiation, push and pull
 * diagnostics, the lifecycle and exit codes, and that no input takes the process down.
 */

import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver/node";
import {
  describeDiagnostics,
  ensureBuilt,
  type LspTestClient,
  PULL_CAPABILITIES,
  PUSH_CAPABILITIES,
  seededRandom,
  sleep,
  spawnServer,
  withUri,
} from "../helpers/lspClient";

/**
 * These tests compare the checker's diagnostics; the fading hints (on by default, tested in
 * test/e2e/context.test.ts and test/features/fading.test.ts) are turned off here.
 */
const CHECKER_ONLY = { initializationOptions: { piSession: { fadeInactive: false } } };

/** The server's push debounce is 150 ms; waiting this long after the last publish shows none is late. */
const QUIET_MS = 400;

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"missing01","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix the test 🧪, please."}],"timestamp":1772445602000}}`;
const ASSISTANT = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":812,"output":64,"cacheRead":0,"cacheWrite":0,"totalTokens":876,"cost":{"input":0.002436,"output":0.00096,"cacheRead":0,"cacheWrite":0,"total":0.003396}},"stopReason":"stop","timestamp":1772445603100}}`;

/** A small session whose only fault is the dangling parentId "missing01" on line 3 (index 2). */
const SESSION = `${HEADER}\n${MODEL}\n${USER}\n${ASSISTANT}\n`;
const DANGLING_LINE = 2;
const DANGLING_START = USER.indexOf(`"missing01"`);
const DANGLING_END = DANGLING_START + `"missing01"`.length;

const codes = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => String(d.code));

let client: LspTestClient | undefined;

function start(): LspTestClient {
  client = spawnServer();
  return client;
}

beforeAll(async () => {
  await ensureBuilt();
});

afterEach(() => {
  client?.dispose();
  client = undefined;
});

describe("push diagnostics (client without textDocument.diagnostic)", () => {
  it("negotiates incremental sync and no diagnosticProvider", async () => {
    const c = start();
    const result = await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    expect(result.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 /* Incremental */ });
    expect(result.capabilities.diagnosticProvider).toBeUndefined();
    expect(result.serverInfo?.name).toBe("pi-session-lsp");
  });

  it("publishes versioned diagnostics on open and after an incremental fix, clears them on close, exits 0", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    const uri = "file:///e2e/push.jsonl";

    await c.open(uri, SESSION);
    const first = await c.waitForDiagnostics(uri, (p) => p.version === 1, { what: "the publish for version 1" });
    expect(describeDiagnostics(first.diagnostics)).toEqual([`L3 ${DANGLING_START}-${DANGLING_END} error dangling-parent`]);
    const dangling = first.diagnostics[0]!;
    expect(dangling.range).toEqual({ start: { line: DANGLING_LINE, character: DANGLING_START }, end: { line: DANGLING_LINE, character: DANGLING_END } });
    expect(dangling.message).toContain(`"missing01"`);
    expect(dangling.source).toBe("pi-session");

    // Fix it by editing only the inside of the string: "missing01" -> "a0000001".
    const version = await c.replace(uri, "missing01", "a0000001");
    expect(version).toBe(2);
    const fixed = await c.waitForDiagnostics(uri, (p) => p.version === 2, { what: "the publish for version 2" });
    expect(codes(fixed.diagnostics)).not.toContain("dangling-parent");
    expect(fixed.diagnostics).toEqual([]);

    const beforeClose = c.mark();
    await c.close(uri);
    const cleared = await c.waitForDiagnostics(uri, () => true, { since: beforeClose, what: "the publish after didClose" });
    expect(cleared.diagnostics).toEqual([]);

    expect(c.errorLogs()).toEqual([]);
    expect(await c.shutdownAndExit()).toEqual({ code: 0, signal: null });
  });

  it("never publishes a version older than one already published, and ends on the last version", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    const uri = "file:///e2e/rapid.jsonl";
    const since = c.mark();
    await c.open(uri, SESSION);
    // Versions 2, 3, 4 back to back, without waiting for anything in between.
    await c.replace(uri, "missing01", "a0000001"); // v2: fixed
    await c.replace(uri, `"parentId":"a0000002"`, `"parentId":"gone"`); // v3: line 4 dangles
    await c.replace(uri, `"parentId":"a0000001"`, `"parentId":"lost"`); // v4: lines 3 and 4 dangle
    const last = await c.waitForDiagnostics(uri, (p) => p.version === 4, { since, what: "the publish for version 4" });
    expect(describeDiagnostics(last.diagnostics)).toEqual([
      `L3 ${USER.indexOf(`"missing01"`)}-${USER.indexOf(`"missing01"`) + `"lost"`.length} error dangling-parent`,
      `L4 ${ASSISTANT.indexOf(`"a0000002"`, ASSISTANT.indexOf("parentId"))}-${ASSISTANT.indexOf(`"a0000002"`, ASSISTANT.indexOf("parentId")) + `"gone"`.length} error dangling-parent`,
    ]);

    // Then edits spaced around the debounce, so some publishes interleave with changes.
    for (const [i, delay] of [0, 60, 120, 150, 180, 0, 300].entries()) {
      await sleep(delay);
      await c.change(uri, [{ range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, text: i % 2 === 0 ? "\n" : "" }]);
    }
    const finalVersion = c.model(uri).version;
    expect(finalVersion).toBe(11);
    await c.waitForDiagnostics(uri, (p) => p.version === finalVersion, { since, what: `the publish for version ${finalVersion}` });
    await sleep(QUIET_MS); // Anything published late would arrive now.

    const versions = c.published
      .slice(since)
      .filter((p) => p.uri === uri)
      .map((p) => p.version);
    for (let i = 1; i < versions.length; i++) {
      expect(versions[i]!, `publish #${i + 1} (versions in order: ${versions.join(", ")})`).toBeGreaterThanOrEqual(versions[i - 1]!);
    }
    expect(versions.at(-1), `versions in order: ${versions.join(", ")}`).toBe(finalVersion);
  });
});

describe("pull diagnostics (client with textDocument.diagnostic)", () => {
  it("advertises diagnosticProvider, answers full then unchanged reports, and never pushes", async () => {
    const c = start();
    const result = await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    expect(result.capabilities.diagnosticProvider).toMatchObject({ interFileDependencies: false, workspaceDiagnostics: true });
    expect(result.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 });
    const uri = "file:///e2e/pull.jsonl";
    await c.open(uri, SESSION);

    const full = await c.pullDiagnostics(uri);
    expect(full.kind).toBe("full");
    if (full.kind !== "full") return;
    expect(describeDiagnostics(full.items)).toEqual([`L3 ${DANGLING_START}-${DANGLING_END} error dangling-parent`]);
    expect(typeof full.resultId).toBe("string");

    const again = await c.pullDiagnostics(uri, full.resultId);
    expect(again).toEqual({ kind: "unchanged", resultId: full.resultId });

    await c.replace(uri, "missing01", "a0000001");
    const afterEdit = await c.pullDiagnostics(uri, full.resultId);
    expect(afterEdit.kind, "a pull after an edit must not be 'unchanged'").toBe("full");
    if (afterEdit.kind !== "full") return;
    expect(afterEdit.items).toEqual([]);
    expect(afterEdit.resultId).not.toBe(full.resultId);

    await c.close(uri);
    await sleep(QUIET_MS); // Longer than the push debounce: a push, if any, would have arrived.
    expect(c.published, "a pull client must never receive publishDiagnostics").toEqual([]);
    expect(c.errorLogs()).toEqual([]);
    expect(await c.shutdownAndExit()).toEqual({ code: 0, signal: null });
  });
});

describe("lifecycle", () => {
  it("exits with code 1 on exit without shutdown", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    expect(await c.exitWithoutShutdown()).toEqual({ code: 1, signal: null });
  });

  it("exits when the client closes its end of stdin instead of lingering", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    c.connection.end();
    // Without a shutdown first, this counts as an unclean end: exit code 1, like `exit` alone.
    expect(await c.waitForExit()).toEqual({ code: 1, signal: null });
  });
});

describe("language ids", () => {
  it("gives the same diagnostics whatever the languageId", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    const results: Record<string, string[]> = {};
    const text = `${HEADER}\n${MODEL}\n${USER}\n${MODEL}\n`; // dangling parent + duplicate id with related info
    for (const languageId of ["jsonl", "json", "plaintext"]) {
      const uri = `file:///e2e/lang-${languageId}.jsonl`;
      await c.open(uri, text, languageId);
      const items = withUri(await c.pullItems(uri), "file:///same");
      results[languageId] = items.map((d) => JSON.stringify(d));
    }
    expect(results.jsonl!.length).toBeGreaterThan(1);
    expect(results.json).toEqual(results.jsonl);
    expect(results.plaintext).toEqual(results.jsonl);
  });

  it("pushes the same diagnostics whatever the languageId", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    const got: Record<string, PublishDiagnosticsParams> = {};
    const since = c.mark();
    const languageIds = ["jsonl", "json", "plaintext"];
    for (const languageId of languageIds) await c.open(`file:///e2e/lang-push-${languageId}.jsonl`, SESSION, languageId);
    for (const languageId of languageIds) {
      got[languageId] = await c.waitForDiagnostics(`file:///e2e/lang-push-${languageId}.jsonl`, (p) => p.version === 1, { since });
    }
    expect(describeDiagnostics(got.jsonl!.diagnostics)).toEqual([`L3 ${DANGLING_START}-${DANGLING_END} error dangling-parent`]);
    expect(got.json!.diagnostics).toEqual(got.jsonl!.diagnostics);
    expect(got.plaintext!.diagnostics).toEqual(got.jsonl!.diagnostics);
  });
});

describe("robustness: the server survives garbage input", () => {
  const random = seededRandom(0x5e55);

  /** 10,000 random bytes, read as Latin-1 so every byte value (NUL, lone CR, …) is a character. */
  function randomBytes(n: number): string {
    const bytes = Buffer.alloc(n);
    for (let i = 0; i < n; i++) bytes[i] = Math.floor(random() * 256);
    return bytes.toString("latin1");
  }

  /** Lines that are almost sessions: truncated JSON, wrong shapes, deep nesting, control characters. */
  function garbageLines(n: number): string {
    const pieces = [
      HEADER.slice(0, 40),
      USER.slice(10),
      `{"type":"message","id":`,
      `[[[[[[[[[[`,
      `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
      `{"type":"message","id":"x","parentId":"x","message":${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}}`,
      `null`,
      `"\\ud800"`,
      `{"type":"session","id":{"nested":[1,2,{"x":null}]}}`,
      `{"type":"compaction","id":"c","parentId":"c","firstKeptEntryId":"c"}`,
      `{"type":"label","id":"l","parentId":null,"targetId":42}`,
      `\u0000\u0001\u0002\t\u000b`,
      `🧪🧪🧪\ud83e`,
      `{"a":1}{"b":2}`,
      `   `,
    ];
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(pieces[Math.floor(random() * pieces.length)]!);
    return lines.join(random() < 0.5 ? "\n" : "\r\n");
  }

  /** The server still answers: a pull for a known document gives its known diagnostics. */
  async function stillAnswers(c: LspTestClient, after: string): Promise<void> {
    const uri = "file:///e2e/sane.jsonl";
    const items = await c.pullItems(uri);
    expect(describeDiagnostics(items), `after ${after}, a pull of a sane document`).toEqual([`L3 ${DANGLING_START}-${DANGLING_END} error dangling-parent`]);
    expect(c.errorLogs(), `after ${after}, the server logged errors`).toEqual([]);
  }

  it("answers after each malformed change and garbage document (pull mode)", async () => {
    const c = start();
    await c.initialize(PULL_CAPABILITIES, CHECKER_ONLY);
    await c.open("file:///e2e/sane.jsonl", SESSION);
    await stillAnswers(c, "open");

    await c.notifyServer("textDocument/didChange", {
      textDocument: { uri: "file:///e2e/never-opened.jsonl", version: 2 },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "x" }],
    });
    await stillAnswers(c, "a didChange for a document that was never opened");
    const neverOpened = await c.pullDiagnostics("file:///e2e/never-opened.jsonl");
    expect(neverOpened).toMatchObject({ kind: "full", items: [] });

    // A range past the end of the document: the server must clamp it like the client model does.
    const beyond = "file:///e2e/beyond.jsonl";
    await c.open(beyond, SESSION);
    await c.change(beyond, [{ range: { start: { line: 99, character: 5 }, end: { line: 120, character: 0 } }, text: `${MODEL}\n` }]);
    await c.change(beyond, [{ range: { start: { line: 1, character: 10_000 }, end: { line: 1, character: 20_000 } }, text: "" }]);
    await stillAnswers(c, "a didChange with a range beyond the end of the document");
    const clampedUri = "file:///e2e/beyond-fresh.jsonl";
    await c.open(clampedUri, c.text(beyond));
    expect(withUri(await c.pullItems(beyond), "file:///same"), "the clamped edit should equal the client's model of it").toEqual(
      withUri(await c.pullItems(clampedUri), "file:///same"),
    );

    const documents: [string, string][] = [
      ["10,000 random bytes", randomBytes(10_000)],
      ["2,000 garbage lines", garbageLines(2_000)],
      ["an empty document", ""],
      ["a 1 MB single line", `{"type":"message","id":"big","parentId":"a0000001","message":{"role":"user","content":"${"x".repeat(1_000_000)}"}`],
      ["a 1 MB single line of garbage", "{".repeat(1_000_000)],
    ];
    for (const [name, text] of documents) {
      const uri = `file:///e2e/garbage-${name.replace(/\W+/g, "-")}.jsonl`;
      await c.open(uri, text);
      const items = await c.pullItems(uri);
      expect(Array.isArray(items), name).toBe(true);
      if (text === "") expect(codes(items)).toEqual(["empty-file"]);
      else expect(items.length, `${name} should get some diagnostic`).toBeGreaterThan(0);
      // Edit the garbage too: a small incremental change in the middle, then delete everything.
      const middle = c.model(uri).positionAt(Math.floor(text.length / 2));
      await c.change(uri, [{ range: { start: middle, end: middle }, text: "\n}\r\n🧪" }]);
      await c.pullItems(uri);
      await c.change(uri, [{ range: { start: { line: 0, character: 0 }, end: c.model(uri).positionAt(c.text(uri).length) }, text: "" }]);
      expect(codes(await c.pullItems(uri)), `${name}, emptied`).toEqual(["empty-file"]);
      await c.close(uri);
      await stillAnswers(c, name);
    }
    expect(await c.shutdownAndExit()).toEqual({ code: 0, signal: null });
  });

  it("keeps publishing after garbage documents (push mode)", async () => {
    const c = start();
    await c.initialize(PUSH_CAPABILITIES, CHECKER_ONLY);
    for (const [name, text] of [
      ["random bytes", randomBytes(10_000)],
      ["garbage lines", garbageLines(500)],
      ["a 1 MB line", "x".repeat(1_000_000)],
    ] as const) {
      const uri = `file:///e2e/push-garbage-${name.replace(/\W+/g, "-")}.jsonl`;
      await c.open(uri, text);
      const published = await c.waitForDiagnostics(uri, (p) => p.version === 1, { what: `the publish for ${name}` });
      expect(published.diagnostics.length, name).toBeGreaterThan(0);
    }
    const uri = "file:///e2e/push-after-garbage.jsonl";
    await c.open(uri, SESSION);
    const published = await c.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(describeDiagnostics(published.diagnostics)).toEqual([`L3 ${DANGLING_START}-${DANGLING_END} error dangling-parent`]);
    expect(c.errorLogs()).toEqual([]);
  });
});
