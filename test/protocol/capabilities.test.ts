/**
 * The capabilities the server announces in its `initialize` result, for a client that pushes
 * diagnostics, one that pulls them, and one that says nothing. The announced JSON is compared as
 * text, so that a change to the request table that reorders or reshapes a capability shows here,
 * not only in a client that reads it.
 */

import type { ClientCapabilities } from "vscode-languageserver";
import { afterEach, describe, expect, it } from "vitest";
import { VERSION } from "../../server/src/version";
import { type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, startInProcess } from "../helpers/lspClient";

let client: LspTestClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

/** The `initialize` result as the client receives it, as JSON text (member order included). */
async function initializeResult(capabilities: ClientCapabilities): Promise<string> {
  client = startInProcess();
  return JSON.stringify(await client.initialize(capabilities));
}

/** What every client is told, after the document synchronisation and the pull client's diagnostic provider. */
const FEATURES = {
  definitionProvider: true,
  referencesProvider: true,
  documentHighlightProvider: true,
  documentLinkProvider: { resolveProvider: false },
  hoverProvider: true,
  callHierarchyProvider: true,
  typeHierarchyProvider: true,
  workspaceSymbolProvider: true,
  documentSymbolProvider: { label: "Pi session" },
  foldingRangeProvider: true,
  inlayHintProvider: { resolveProvider: false },
  completionProvider: { triggerCharacters: ['"', ":", ","], resolveProvider: false },
  renameProvider: { prepareProvider: true },
  documentFormattingProvider: true,
  codeActionProvider: {
    codeActionKinds: ["quickfix", "source.fixAll.piSession", "source.piSession.fixAllUnsafe", "source.piSession.redactSecrets", "refactor", "refactor.extract"],
    resolveProvider: true,
  },
  codeLensProvider: { resolveProvider: true },
  executeCommandProvider: { commands: ["piSession.showContext", "piSession.compareBranches", "piSession.exportMarkdown"] },
};
const SYNC = { textDocumentSync: { openClose: true, change: 2 } };
const SERVER_INFO = { name: "pi-session-lsp", version: VERSION };

describe("the initialize result", () => {
  it("announces no diagnostic provider to a client that takes pushed diagnostics", async () => {
    expect(await initializeResult(PUSH_CAPABILITIES)).toBe(JSON.stringify({ capabilities: { ...SYNC, ...FEATURES }, serverInfo: SERVER_INFO }));
  });

  it("announces a diagnostic provider, right after the document synchronisation, to a client that pulls", async () => {
    const diagnosticProvider = { interFileDependencies: false, workspaceDiagnostics: true };
    expect(await initializeResult(PULL_CAPABILITIES)).toBe(
      JSON.stringify({ capabilities: { ...SYNC, diagnosticProvider, ...FEATURES }, serverInfo: SERVER_INFO }),
    );
  });

  it("announces the same to a client that states no capabilities as to one that takes pushed diagnostics", async () => {
    expect(await initializeResult({})).toBe(JSON.stringify({ capabilities: { ...SYNC, ...FEATURES }, serverInfo: SERVER_INFO }));
  });
});
