/**
 * Writing and mending sessions over stdio: quick fixes attached to their diagnostics, fix all,
 * and the v1/v2 migration whose edit a resolving client fetches only when it is chosen.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeAction, Diagnostic } from "vscode-languageserver/node";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, spawnServer } from "../helpers/lspClient";

const broken = readFileSync(join(__dirname, "../../client-samples/sessions/broken.jsonl"), "utf8");
const v2 = readFileSync(join(__dirname, "../parity/fixtures/fault-v2.jsonl"), "utf8");
const RESOLVING = { ...PULL_CAPABILITIES, textDocument: { ...PULL_CAPABILITIES.textDocument, codeAction: { resolveSupport: { properties: ["edit"] } } } };
let client: LspTestClient;

beforeAll(async () => {
  await ensureBuilt();
  client = spawnServer();
  await client.initialize(RESOLVING, { initializationOptions: { piSession: { fadeInactive: false } } });
});

afterAll(async () => {
  expect((await client.shutdownAndExit()).code).toBe(0);
});

async function actions(uri: string, diagnostics: Diagnostic[], only?: string[]): Promise<CodeAction[]> {
  const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return (await client.connection.sendRequest("textDocument/codeAction", {
    textDocument: { uri },
    range,
    context: { diagnostics, ...(only ? { only } : {}) },
  })) as CodeAction[];
}

describe("mending a session over stdio", () => {
  it("offers fixes attached to their diagnostics, and a fix-all edit", async () => {
    const uri = "file:///work/broken.jsonl";
    await client.open(uri, broken);
    const diagnostics = await client.pullItems(uri);
    const duplicate = diagnostics.find((d) => d.code === "duplicate-id")!;
    const fixes = await actions(uri, [duplicate]);
    expect(fixes.length).toBeGreaterThan(0);
    expect(fixes.every((f) => f.kind === "quickfix" && f.diagnostics?.[0]?.code === "duplicate-id" && f.edit?.changes?.[uri])).toBe(true);
    const [fixAll] = await actions(uri, [], ["source.fixAll"]);
    expect(fixAll?.kind).toBe("source.fixAll.piSession");
    expect(fixAll?.edit?.changes?.[uri]?.length).toBeGreaterThan(0);
  });

  it("leaves the migration's edit to codeAction/resolve, and resolves it", async () => {
    const uri = "file:///work/v2.jsonl";
    await client.open(uri, v2);
    const oldVersion = (await client.pullItems(uri)).filter((d) => d.code === "old-version");
    expect(oldVersion).toHaveLength(1);
    const migrate = (await actions(uri, oldVersion)).find((a) => /v3/i.test(a.title));
    expect(migrate).toBeDefined();
    expect(migrate!.edit).toBeUndefined();
    const resolved = (await client.connection.sendRequest("codeAction/resolve", migrate)) as CodeAction;
    const edits = resolved.edit?.changes?.[uri] ?? [];
    expect(edits.some((e) => e.newText.includes('"version":3'))).toBe(true);
  });
});
