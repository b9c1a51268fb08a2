/**
 * The wiring of issue 31's editor commands, in process: the `secret` quick fix and the source action
 * that redacts every credential answer `textDocument/codeAction` with edits (the server writes
 * nothing), and `workspace/executeCommand piSession.compareBranches` answers `diff`'s text for a
 * branch tip that the compare lens names, and `piSession.exportMarkdown` the Markdown export.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction, CodeLens, Diagnostic } from "vscode-languageserver";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";
import { HEADER, session, user } from "../helpers/piLines";

const KEY = `sk-ant-api03-${"Q7vX2mK9pL4nR8sT1wY5zB3cD6fG0hJ".repeat(3)}AA`;
const URI = "file:///tmp/pi-session-lsp-editor31/s.jsonl";
const PLACEHOLDER = /^\[REDACTED:anthropic-api-key:[0-9a-f]{8}\]$/;

let client: LspTestClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

async function started(text: string): Promise<LspTestClient> {
  client = startInProcess();
  await client.initialize(PULL_CAPABILITIES);
  await client.open(URI, text);
  return client;
}

describe("the secret's code actions over the protocol", () => {
  it("answers the quick fix on the diagnostic's range, and the source action over the buffer, with one placeholder for one secret", async () => {
    const c = await started(session(HEADER, user("u1", null, `export ANTHROPIC_API_KEY=${KEY}`), user("u2", "u1", `again ${KEY}`)));
    const secrets = (await c.pullItems(URI)).filter((d: Diagnostic) => d.code === "secret");
    expect(secrets).toHaveLength(2);
    const textDocument = { uri: URI };
    const quick = await c.request<CodeAction[]>("textDocument/codeAction", { textDocument, range: secrets[0]!.range, context: { diagnostics: [secrets[0]] } });
    const fix = quick.find((a) => a.title.startsWith("Replace this credential with a placeholder"))!;
    expect(fix.kind).toBe("quickfix");
    const [edit] = fix.edit!.changes![URI]!;
    expect(edit!.range).toEqual(secrets[0]!.range);
    expect(edit!.newText).toMatch(PLACEHOLDER);
    const all = await c.request<CodeAction[]>("textDocument/codeAction", {
      textDocument,
      range: secrets[0]!.range,
      context: { diagnostics: [], only: ["source.piSession.redactSecrets"] },
    });
    expect(all.map((a) => a.kind)).toEqual(["source.piSession.redactSecrets"]);
    const edits = all[0]!.edit!.changes![URI]!;
    expect(edits).toHaveLength(2);
    // The server's key is stable for its process: the source action writes the quick fix's placeholder.
    for (const e of edits) expect(e.newText).toBe(edit!.newText);
  });
});

describe("compare with the active branch over the protocol", () => {
  it("resolves the compare lens to the command, and the command to diff's text", async () => {
    const c = await started(readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8"));
    const lenses = await c.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: URI } });
    const compare = lenses.find((l) => (l.data as { kind?: string }).kind === "compare")!;
    const resolved = await c.request<CodeLens>("codeLens/resolve", compare);
    expect(resolved.command?.command).toBe("piSession.compareBranches");
    const answer = await c.request<{ text: string; title: string }>("workspace/executeCommand", {
      command: resolved.command!.command,
      arguments: resolved.command!.arguments,
    });
    expect(answer.text).toMatch(/^A: "[0-9a-f]{8}" \(line \d+\)\nB: "01597670" \(line \d+\) \(the last entry, where Pi resumes\)\n/);
    expect(answer.title).toMatch(/^compare [0-9a-f]{8} with 01597670$/);
    await expect(c.request("workspace/executeCommand", { command: "piSession.compareBranches", arguments: [URI, "nope"] })).rejects.toThrow(
      /no entry has the id/,
    );
  });
});

describe("export as Markdown over the protocol", () => {
  it("answers the Markdown of the branch Pi resumes, and refuses a document that is not open", async () => {
    const c = await started(readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8"));
    const answer = await c.request<{ markdown: string; title: string; cut: number }>("workspace/executeCommand", {
      command: "piSession.exportMarkdown",
      arguments: [URI, null],
    });
    expect(answer.title).toBe("export of the resumed branch");
    expect(answer.cut).toBe(0);
    expect(answer.markdown).toMatch(/^# /);
    await expect(c.request("workspace/executeCommand", { command: "piSession.exportMarkdown", arguments: ["file:///nowhere.jsonl", null] })).rejects.toThrow(
      /is not an open session/,
    );
  });
});
