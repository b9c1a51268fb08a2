/**
 * The language server: with `stdio.ts`, the only code that knows JSON-RPC. It wires LSP requests and
 * notifications to the pure features and owns the open documents.
 *
 * Diagnostics (pulled or pushed) live in `diagnostics.ts`; every request runs behind the `Guard`
 * (`guard.ts`): lifecycle, cancellation, and a failure that costs one answer only.
 */

import {
  CodeLensRefreshRequest,
  type Connection,
  type DocumentFormattingParams,
  ErrorCodes,
  type InitializeResult,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type TextEdit,
} from "vscode-languageserver";
import { SessionDocument } from "../core/session/document";
import { CODE_ACTION_KINDS, computeCodeActions } from "../features/codeActions";
import { isForkActionData, resolveForkAction } from "../features/entryActions";
import { computeCodeLenses, resolveCodeLens } from "../features/codeLens";
import { computeCompletion } from "../features/completion";
import {
  BUILD_CONTEXT_REQUEST,
  type BuildContextParams,
  type BuildContextResult,
  type ContextAnswer,
  computeContextRequest,
  computeShowContext,
  SHOW_CONTEXT_COMMAND,
} from "../features/contextRequest";
import { capDiagnostics, MAX_PER_CODE } from "../features/diagnosticCap";
import { applySeverityOverrides, collectDiagnostics } from "../features/diagnostics";
import { computeFadingHints } from "../features/fading";
import { computeFoldingRanges } from "../features/folding";
import { formattingSteps } from "../features/formatting";
import {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
} from "../features/hierarchy";
import { computeHover } from "../features/hover";
import { computeInlayHints } from "../features/inlayHints";
import { isMigrationActionData, resolveMigrationAction } from "../features/migration";
import { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "../features/navigation";
import { computeRename, isRenameRefusal, prepareRename } from "../features/rename";
import { computeDocumentSymbols } from "../features/symbols";
import { VERSION } from "../version";
import { DiagnosticsService } from "./diagnostics";
import { compactLines } from "./lineStorage";
import { MemoryReclaimer } from "./memory";
import { takeSplitText } from "./messageReader";
import { Guard } from "./guard";
import { DEFAULT_SETTINGS, readSettings, SETTINGS_SECTION, type Settings } from "./settings";
import { attachWorkspaceIndex } from "./workspaceIndex";

/** How long the server waits for typing to pause before asking the client to re-request lenses. */
const LENS_REFRESH_DELAY_MS = 150;

/** What the transport needs to know about the server it started. */
export interface ServerHandle {
  /** Whether the client has sent `shutdown` (an end of input after it is a clean exit). */
  readonly shutDown: boolean;
}

export function startServer(connection: Connection): ServerHandle {
  const guard = new Guard(connection);
  // Versions restart when a document is closed and reopened; each opening is a new object.
  const documents = new TextDocuments<SessionDocument>({
    // A large text the reader decoded line by line comes with its lines (`takeSplitText`).
    create: (uri, languageId, version, content) => new SessionDocument(uri, languageId, version, content, takeSplitText(content)),
    update: (document, changes, version) => {
      // A malformed change throws after the changes before it were applied; the document is then
      // still returned, so that the library reports the change and diagnostics follow the text.
      guard.safe("textDocument/didChange", undefined, () => document.update(changes, version));
      return document;
    },
  });
  // Every session on disk, not only the open ones (workspace symbols, forks, moved projects).
  const workspace = attachWorkspaceIndex(connection, documents);
  let diagnostics: DiagnosticsService | undefined;
  let diagnosticRefreshSupport = false;
  /** Whether the client can fetch a code action's edit later (`codeAction/resolve`). */
  let resolveEditSupport = false;
  /** Whether the client applies a `CreateFile` in `documentChanges` (the fork action), and shows disabled actions. */
  let entryActionSupport = { createFiles: false, disabledSupport: false };
  let snippetSupport = false;
  let configurationSupport = false;
  let codeLensRefreshSupport = false;
  let lensRefresh: NodeJS.Timeout | undefined;
  /** Settings from `initializationOptions`, under those read from `workspace/configuration`. */
  let initialSettings: Settings = DEFAULT_SETTINGS;
  let settings: Settings = DEFAULT_SETTINGS;
  let foldingRangeLimit: number | undefined;
  /** Documents whose outline was cut at `maxSymbols` and whose user was told, so they are told once. */
  const toldTruncated = new Set<string>();

  connection.onInitialize((params): InitializeResult => {
    const capabilities = params.capabilities;
    const pull = capabilities.textDocument?.diagnostic !== undefined;
    configurationSupport = capabilities.workspace?.configuration === true;
    foldingRangeLimit = capabilities.textDocument?.foldingRange?.rangeLimit;
    codeLensRefreshSupport = capabilities.workspace?.codeLens?.refreshSupport === true;
    diagnosticRefreshSupport = capabilities.workspace?.diagnostics?.refreshSupport === true;
    resolveEditSupport = capabilities.textDocument?.codeAction?.resolveSupport?.properties.includes("edit") === true;
    const workspaceEdit = capabilities.workspace?.workspaceEdit;
    entryActionSupport = {
      createFiles: workspaceEdit?.documentChanges === true && workspaceEdit.resourceOperations?.includes("create") === true,
      disabledSupport: capabilities.textDocument?.codeAction?.disabledSupport === true,
    };
    snippetSupport = capabilities.textDocument?.completion?.completionItem?.snippetSupport === true;
    initialSettings = readSettings(params.initializationOptions);
    settings = initialSettings;
    diagnostics = new DiagnosticsService(connection, diagnosticsSource, pull);
    workspace.initialize(params);
    guard.state = "running";
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        ...(pull ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}),
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
        codeActionProvider: { codeActionKinds: CODE_ACTION_KINDS, resolveProvider: true },
        codeLensProvider: { resolveProvider: true },
        executeCommandProvider: { commands: [SHOW_CONTEXT_COMMAND] },
      },
      serverInfo: { name: "pi-session-lsp", version: VERSION },
    };
  });
  connection.onShutdown(() => {
    guard.state = "shut-down";
    memory.dispose();
    workspace.dispose();
  });

  /** What the editor shows: the checker's diagnostics, plus the fading hints unless turned off. */
  const diagnosticsSource = {
    compute: (document: SessionDocument) => {
      const facts = guard.safe("session facts", {}, () => workspace.facts(document));
      const collected = collectDiagnostics(document, MAX_PER_CODE, facts);
      const found = capDiagnostics(collected.diagnostics, { overflow: collected.overflow }).diagnostics;
      return applySeverityOverrides(settings.fadeInactive ? found.concat(computeFadingHints(document)) : found, settings.severity);
    },
    get: (uri: string) => documents.get(uri),
    all: () => documents.all(),
    error: (message: string) => connection.console.error(message),
  };

  async function refreshSettings(): Promise<void> {
    if (!configurationSupport) return;
    try {
      applySettings(readSettings(await connection.workspace.getConfiguration(SETTINGS_SECTION), initialSettings));
    } catch (error) {
      connection.console.warn(`reading settings failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Takes new settings; when they change what diagnostics contain (fading, severities), every open document's are redone. */
  function applySettings(next: Settings): void {
    const diagnosticsChanged = next.fadeInactive !== settings.fadeInactive || JSON.stringify(next.severity) !== JSON.stringify(settings.severity);
    settings = next;
    if (diagnosticsChanged) diagnostics?.settingsChanged(diagnosticRefreshSupport);
  }

  /** The codes the user turned off with `piSession.severity`. */
  function offCodes(current: Settings): Set<string> {
    return new Set(
      Object.entries(current.severity)
        .filter(([, level]) => level === "off")
        .map(([code]) => code),
    );
  }

  connection.onInitialized(() => {
    void refreshSettings();
    workspace.initialized();
  });
  connection.onDidChangeConfiguration((change) => {
    if (configurationSupport) void refreshSettings();
    else applySettings(readSettings(change.settings, initialSettings));
  });

  /** Asks the client to re-request lenses once typing pauses, when it says it can (`refreshSupport`). */
  function scheduleLensRefresh(): void {
    if (!codeLensRefreshSupport) return;
    clearTimeout(lensRefresh);
    lensRefresh = setTimeout(() => {
      lensRefresh = undefined;
      connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    }, LENS_REFRESH_DELAY_MS);
  }

  const memory = new MemoryReclaimer(
    () => documents.keys().length,
    undefined,
    () => {
      for (const document of documents.all()) compactLines(document);
    },
  );
  documents.onDidOpen((event) => {
    diagnostics?.changed(event.document);
    memory.changed(event.document.textLength());
  });
  documents.onDidChangeContent((event) => {
    diagnostics?.changed(event.document);
    memory.changed(0);
    scheduleLensRefresh();
  });
  documents.onDidClose((event) => {
    toldTruncated.delete(event.document.uri);
    diagnostics?.closed(event.document.uri);
    memory.closed();
  });

  connection.languages.diagnostics.on(
    guard.request("textDocument/diagnostic", { kind: "full", items: [] } as const, (p: { textDocument: { uri: string }; previousResultId?: string }) =>
      diagnostics ? diagnostics.report(p.textDocument.uri, p.previousResultId) : { kind: "full" as const, items: [] },
    ),
  );

  /** A request on an open document, answering `fallback` for unknown documents and on failure. */
  function onDocument<P extends { textDocument: { uri: string } }, R>(what: string, fallback: R, work: (document: SessionDocument, params: P) => R) {
    return guard.request<P, R>(what, fallback, (p) => {
      const document = documents.get(p.textDocument.uri);
      return document ? work(document, p) : fallback;
    });
  }

  // The binding table: one line per request, each a pure feature over the open document.
  connection.onDefinition(onDocument("textDocument/definition", [], (d, p) => workspace.definition(d, p.position) ?? computeDefinition(d, p.position)));
  connection.onReferences(
    onDocument(
      "textDocument/references",
      [],
      (d, p) => workspace.references(d, p.position, p.context.includeDeclaration) ?? computeReferences(d, p.position, p.context.includeDeclaration),
    ),
  );
  connection.onDocumentHighlight(onDocument("textDocument/documentHighlight", [], (d, p) => computeDocumentHighlights(d, p.position)));
  connection.onDocumentLinks(onDocument("textDocument/documentLink", [], (d) => computeDocumentLinks(d)));
  connection.onDocumentSymbol(
    onDocument("textDocument/documentSymbol", [], (d) => {
      const result = computeDocumentSymbols(d, { maxSymbols: settings.maxSymbols });
      if (result.truncated) reportTruncated(d.uri, "documentSymbols", settings.maxSymbols);
      return result.symbols;
    }),
  );
  connection.onFoldingRanges(onDocument("textDocument/foldingRange", [], (d) => computeFoldingRanges(d, { maxRanges: foldingRangeLimit })));
  connection.languages.inlayHint.on(onDocument("textDocument/inlayHint", [], (d, p) => computeInlayHints(d, p.range)));
  // A refused rename is an InvalidParams error with the reason, as the protocol asks.
  connection.onPrepareRename(
    onDocument("textDocument/prepareRename", null, (d, p) => {
      const result = prepareRename(d, p.position);
      if (isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
      return result;
    }),
  );
  connection.onRenameRequest(
    onDocument("textDocument/rename", null, (d, p) => {
      const result = computeRename(d, p.position, p.newName);
      if (isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
      return result;
    }),
  );
  connection.onCodeAction(
    onDocument("textDocument/codeAction", [], (d, p) =>
      computeCodeActions(d, p.range, p.context, { lazyEdits: resolveEditSupport, ignoredCodes: offCodes(settings) }, entryActionSupport),
    ),
  );
  connection.onCodeActionResolve((action, token) => {
    guard.admit(token, "codeAction/resolve", action);
    return guard.safe("codeAction/resolve", action, () => {
      if (isForkActionData(action.data)) {
        const forked = documents.get(action.data.uri);
        return forked ? resolveForkAction(forked, action, entryActionSupport) : action;
      }
      const uri = isMigrationActionData(action.data) ? action.data.uri : undefined;
      const document = uri === undefined ? undefined : documents.get(uri);
      return document ? resolveMigrationAction(document, action) : action;
    });
  });
  // Formatting reads every line of the file: run as steps, so that a cancel or an edit stops it.
  connection.onDocumentFormatting(
    guard.stepped("textDocument/formatting", [] as TextEdit[], (p: DocumentFormattingParams) => {
      const document = documents.get(p.textDocument.uri);
      if (!document) return undefined;
      // The revision, not the version: a change that keeps the version still makes the edits stale.
      const revision = document.revision;
      return { steps: formattingSteps(document), stillValid: () => documents.get(p.textDocument.uri) === document && document.revision === revision };
    }),
  );
  connection.onCompletion(
    onDocument("textDocument/completion", { isIncomplete: false, items: [] }, (d, p) => computeCompletion(d, p.position, { snippets: snippetSupport })),
  );
  connection.onHover(onDocument("textDocument/hover", null, (d, p) => computeHover(d, p.position)));
  connection.languages.callHierarchy.onPrepare(onDocument("textDocument/prepareCallHierarchy", [], (d, p) => prepareHierarchy(d, p.position)));
  connection.languages.callHierarchy.onIncomingCalls(onItem("callHierarchy/incomingCalls", (d, p) => callHierarchyIncomingCalls(d, p.item)));
  connection.languages.callHierarchy.onOutgoingCalls(onItem("callHierarchy/outgoingCalls", (d, p) => callHierarchyOutgoingCalls(d, p.item)));
  connection.languages.typeHierarchy.onPrepare(onDocument("textDocument/prepareTypeHierarchy", [], (d, p) => prepareHierarchy(d, p.position)));
  connection.languages.typeHierarchy.onSupertypes(onItem("typeHierarchy/supertypes", (d, p) => typeHierarchySupertypes(d, p.item)));
  connection.languages.typeHierarchy.onSubtypes(onItem("typeHierarchy/subtypes", (d, p) => typeHierarchySubtypes(d, p.item)));
  connection.onWorkspaceSymbol(guard.request("workspace/symbol", [], (p) => workspace.symbols(p.query)));
  connection.onCodeLens(onDocument("textDocument/codeLens", [], (d) => computeCodeLenses(d)));
  connection.onCodeLensResolve((lens, token) => {
    guard.admit(token, "codeLens/resolve", lens);
    return guard.safe("codeLens/resolve", lens, () => resolveCodeLens(documents.get((lens.data as { uri?: string } | undefined)?.uri ?? ""), lens));
  });
  connection.onExecuteCommand((p, token) => {
    guard.admit(token, "workspace/executeCommand", p);
    if (p.command !== SHOW_CONTEXT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${p.command}`);
    return answerContext("workspace/executeCommand", p.arguments?.[0], (d) => computeShowContext(d, p.arguments ?? []));
  });
  connection.onRequest(BUILD_CONTEXT_REQUEST, (p: Partial<BuildContextParams> | undefined, token) => {
    guard.admit(token);
    return answerContext(BUILD_CONTEXT_REQUEST, p?.uri, (d) => computeContextRequest(d, p ?? {}));
  });

  /** A request on a hierarchy item, whose document is named by the item's `uri`. */
  function onItem<P extends { item: { uri: string } }, R>(what: string, work: (document: SessionDocument, params: P) => R[]) {
    return guard.request<P, R[]>(what, [], (p) => {
      const document = documents.get(p.item.uri);
      return document ? work(document, p) : [];
    });
  }

  /**
   * The built context for an open document; an unknown document or entry is refused with
   * InvalidParams, a failure inside is logged and answered with null.
   */
  function answerContext(what: string, uri: unknown, work: (document: SessionDocument) => ContextAnswer): BuildContextResult | null {
    const document = typeof uri === "string" ? documents.get(uri) : undefined;
    if (!document)
      throw new ResponseError(
        ErrorCodes.InvalidParams,
        `${what}: ${typeof uri === "string" ? JSON.stringify(uri.slice(0, 200)) : "no uri"} is not an open session`,
      );
    const answer = guard.safe(what, null, () => work(document));
    if (answer && !answer.ok) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: ${answer.message}`);
    return answer ? answer.result : null;
  }

  /**
   * Tells the client that a list was cut at its limit: a `piSession/resultLimitReached`
   * notification for clients that handle it, and one message per document for people.
   */
  function reportTruncated(uri: string, feature: string, limit: number): void {
    void connection.sendNotification("piSession/resultLimitReached", { uri, feature, limit });
    if (toldTruncated.has(uri)) return;
    toldTruncated.add(uri);
    // A notification, not `window.showInformationMessage` (a request that clients may refuse).
    void connection.sendNotification(ShowMessageNotification.type, {
      type: MessageType.Info,
      message: `pi-session-lsp: the outline of this session stops at ${limit} symbols (setting piSession.maxSymbols).`,
    });
  }

  documents.listen(connection);
  connection.listen();
  return {
    get shutDown() {
      return guard.state === "shut-down";
    },
  };
}
