// bench/nullServer.cjs: a language server that does nothing, the transport's floor for the
// benchmark's open → first diagnostics (bench/stdio.mjs `nullPeer`). It is built on the same
// library as ours (vscode-languageserver over stdio), accepts every document and answers every
// pull with no diagnostics, so what it takes is the client writing the message, the pipe, and the
// library reading and decoding it.
const { createConnection, ProposedFeatures, TextDocumentSyncKind } = require("vscode-languageserver/node");

const connection = createConnection(ProposedFeatures.all);
connection.onInitialize(() => ({
  capabilities: {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false },
  },
}));
connection.onDidOpenTextDocument(() => undefined);
connection.onDidChangeTextDocument(() => undefined);
connection.onDidCloseTextDocument(() => undefined);
connection.languages.diagnostics.on(() => ({ kind: "full", items: [] }));
connection.listen();
