/**
 * The entry actions over stdio: the server reads from the client's capabilities whether it can
 * create files, and a resolving client gets the fork's `CreateFile` only on `codeAction/resolve`.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeAction, ClientCapabilities, CreateFile } from "vscode-languageserver/node";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, spawnServer } from "../helpers/lspClient";

const text = readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8");
const URI = "file:///home/dev/.pi/agent/sessions/--home-dev-project--/s.jsonl";
const CREATING: ClientCapabilities = {
  ...PULL_CAPABILITIES,
  workspace: { ...PULL_CAPABILITIES.workspace, workspaceEdit: { documentChanges: true, resourceOperations: ["create"] } },
  textDocument: { ...PULL_CAPABILITIES.textDocument, codeAction: { resolveSupport: { properties: ["edit"] } } },
};
const clients: LspTestClient[] = [];

async function started(capabilities: ClientCapabilities): Promise<LspTestClient> {
  const client = spawnServer();
  clients.push(client);
  await client.initialize(capabilities, { initializationOptions: { piSession: { fadeInactive: false } } });
  await client.open(URI, text);
  return client;
}

const at = (line: number) => ({ start: { line, character: 2 }, end: { line, character: 2 } });
async function actionsAt(client: LspTestClient, line: number): Promise<CodeAction[]> {
  return (await client.connection.sendRequest("textDocument/codeAction", {
    textDocument: { uri: URI },
    range: at(line),
    context: { diagnostics: [] },
  })) as CodeAction[];
}

beforeAll(async () => {
  await ensureBuilt();
});

afterAll(async () => {
  for (const client of clients) expect((await client.shutdownAndExit()).code).toBe(0);
});

describe("entry actions over stdio", () => {
  it("a client that creates files and resolves edits gets the fork's CreateFile on resolve", async () => {
    const client = await started(CREATING);
    const actions = await actionsAt(client, 2);
    expect(actions.map((a) => a.kind)).toEqual(["refactor.piSession.resumeFrom", "refactor.piSession.dropFromContext", "refactor.extract.piSession.fork"]);
    const fork = actions[2]!;
    expect(fork.edit).toBeUndefined();
    const resolved = (await client.connection.sendRequest("codeAction/resolve", fork)) as CodeAction;
    const create = resolved.edit?.documentChanges?.[0] as CreateFile;
    expect(create.kind).toBe("create");
    expect(create.uri.startsWith("file:///home/dev/.pi/agent/sessions/--home-dev-project--/")).toBe(true);
  });

  it("a client without resource operations gets no fork, and resume and drop as appended lines", async () => {
    const client = await started(PULL_CAPABILITIES);
    const actions = await actionsAt(client, 2);
    expect(actions.map((a) => a.kind)).toEqual(["refactor.piSession.resumeFrom", "refactor.piSession.dropFromContext"]);
    const edit = actions[0]!.edit!.changes![URI]![0]!;
    expect(edit.range.start).toEqual({ line: text.split("\n").length - 1, character: 0 });
    expect(JSON.parse(edit.newText)).toMatchObject({ type: "custom", parentId: JSON.parse(text.split("\n")[2]!).id });
  });
});
