/**
 * The language server: the only module that knows JSON-RPC. It wires LSP requests and
 * notifications to the pure features and owns the open documents.
 *
 * Diagnostics are pulled when the client supports `textDocument/diagnostic` and pushed otherwise
 * (Neovim before 0.10, Vim/ALE, Eglot, Helix). Pushed results carry the document version and are
 * computed from the current version when a short debounce fires, so a result for a stale version is
 * never published. Every handler runs behind `runSafe`: an exception is logged and answered with an
 * empty result, never allowed to take the server down.
 */

import {
  CodeLensRefreshRequest,
  DocumentDiagnosticReportKind,
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type Connection,
  type DocumentDiagnosticReport,
  type InitializeResult,
} from "vscode-languageserver";
import { SessionDocument } from "../core/document";
import { CODE_ACTION_KINDS, computeCodeActions } from "../features/codeActions";
import { computeCodeLenses, resolveCodeLens } from "../features/codeLens";
import { computeCompletion } from "../features/completion";
import {
  BUILD_CONTEXT_REQUEST,
  computeContextRequest,
  computeShowContext,
  SHOW_CONTEXT_COMMAND,
  type BuildContextParams,
  type BuildContextResult,
  type ContextAnswer,
} from "../features/contextRequest";
import { applySeverityOverrides, computeDiagnostics } from "../features/diagnostics";
import { computeFadingHints } from "../features/fading";
import { computeInlayHints } from "../features/inlayHints";
import {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
} from "../features/hierarchy";
import { computeFoldingRanges } from "../features/folding";
import { computeFormatting } from "../features/formatting";
import { isMigrationActionData, resolveMigrationAction } from "../features/migration";
import { computeRename, isRenameRefusal, prepareRename } from "../features/rename";
import { computeHover } from "../features/hover";
import { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "../features/navigation";
import { computeDocumentSymbols } from "../features/symbols";
import { computeWorkspaceSymbols } from "../features/workspaceSymbols";
import { DEFAULT_SETTINGS, readSettings, SETTINGS_SECTION, type Settings } from "./settings";
import { VERSION } from "../version";

/** How long pushed diagnostics wait for typing to pause. */
const PUSH_DELAY_MS = 150;

export function startServer(connection: Connection): void {
  const documents = new TextDocuments<SessionDocument>({
    create: (uri, languageId, version, content) => {
      const document = new SessionDocument(uri, languageId, version, content);
      openings.set(document, ++openCount);
      return document;
    },
    update: (document, changes, version) => {
      document.update(changes, version);
      return document;
    },
  });
  let pullDiagnostics = false;
  let diagnosticRefreshSupport = false;
  /** Whether the client can fetch a code action's edit later (`codeAction/resolve`). */
  let resolveEditSupport = false;
  /** Bumped when a setting changes what diagnostics contain, so pulled result ids change too. */
  let settingsGeneration = 0;
  let configurationSupport = false;
  let codeLensRefreshSupport = false;
  let lensRefresh: NodeJS.Timeout | undefined;
  /** Settings from `initializationOptions`, under those read from `workspace/configuration`. */
  let initialSettings: Settings = DEFAULT_SETTINGS;
  let settings: Settings = DEFAULT_SETTINGS;
  let foldingRangeLimit: number | undefined;
  /** Documents whose outline was cut at `maxSymbols` and whose user was told, so they are told once. */
  const toldTruncated = new Set<string>();
  // Versions restart when a document is closed and reopened, so pulled result ids also carry
  // which opening of the document they belong to.
  const openings = new WeakMap<SessionDocument, number>();
  let openCount = 0;
  const pending = new Map<string, NodeJS.Timeout>();

  function runSafe<R>(what: string, fallback: R, work: () => R): R {
    try {
      return work();
    } catch (error) {
      connection.console.error(`${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return fallback;
    }
  }

  connection.onInitialize((params): InitializeResult => {
    pullDiagnostics = params.capabilities.textDocument?.diagnostic !== undefined;
    configurationSupport = params.capabilities.workspace?.configuration === true;
    foldingRangeLimit = params.capabilities.textDocument?.foldingRange?.rangeLimit;
    codeLensRefreshSupport = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    diagnosticRefreshSupport = params.capabilities.workspace?.diagnostics?.refreshSupport === true;
    resolveEditSupport = params.capabilities.textDocument?.codeAction?.resolveSupport?.properties.includes("edit") === true;
    initialSettings = readSettings(params.initializationOptions);
    settings = initialSettings;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        ...(pullDiagnostics ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}),
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
    if (!diagnosticsChanged) return;
    settingsGeneration++;
    if (pullDiagnostics) {
      if (diagnosticRefreshSupport) void connection.languages.diagnostics.refresh();
    } else {
      for (const document of documents.all()) schedulePush(document.uri);
    }
  }

  /** The codes the user turned off with `piSession.severity`. */
  function offCodes(current: Settings): Set<string> {
    return new Set(
      Object.entries(current.severity)
        .filter(([, level]) => level === "off")
        .map(([code]) => code),
    );
  }

  /** What the editor shows: the checker's diagnostics, plus the fading hints unless turned off. */
  function diagnosticsFor(document: SessionDocument) {
    const diagnostics = computeDiagnostics(document);
    return applySeverityOverrides(settings.fadeInactive ? diagnostics.concat(computeFadingHints(document)) : diagnostics, settings.severity);
  }

  connection.onInitialized(() => void refreshSettings());
  connection.onDidChangeConfiguration((change) => {
    if (configurationSupport) void refreshSettings();
    else applySettings(readSettings(change.settings, initialSettings));
  });

  function schedulePush(uri: string): void {
    if (pullDiagnostics) return;
    clearTimeout(pending.get(uri));
    pending.set(
      uri,
      setTimeout(() => {
        pending.delete(uri);
        runSafe("publishing diagnostics", undefined, () => {
          const document = documents.get(uri);
          if (!document) return;
          const diagnostics = diagnosticsFor(document);
          void connection.sendDiagnostics({ uri, version: document.version, diagnostics });
        });
      }, PUSH_DELAY_MS),
    );
  }

  /** Asks the client to re-request lenses once typing pauses, when it says it can (`refreshSupport`). */
  function scheduleLensRefresh(): void {
    if (!codeLensRefreshSupport) return;
    clearTimeout(lensRefresh);
    lensRefresh = setTimeout(() => {
      lensRefresh = undefined;
      connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    }, PUSH_DELAY_MS);
  }

  documents.onDidOpen((event) => schedulePush(event.document.uri));
  documents.onDidChangeContent((event) => {
    schedulePush(event.document.uri);
    scheduleLensRefresh();
  });
  documents.onDidClose((event) => {
    const uri = event.document.uri;
    clearTimeout(pending.get(uri));
    pending.delete(uri);
    toldTruncated.delete(uri);
    if (!pullDiagnostics) void connection.sendDiagnostics({ uri, diagnostics: [] });
  });

  connection.languages.diagnostics.on((params): DocumentDiagnosticReport => {
    const empty: DocumentDiagnosticReport = { kind: DocumentDiagnosticReportKind.Full, items: [] };
    return runSafe("textDocument/diagnostic", empty, () => {
      const document = documents.get(params.textDocument.uri);
      if (!document) return empty;
      // A client that already holds this version's diagnostics is told they are unchanged
      // instead of receiving them again.
      const resultId = `${openings.get(document) ?? 0}:${document.version}:${settingsGeneration}`;
      if (params.previousResultId === resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
      return { kind: DocumentDiagnosticReportKind.Full, resultId, items: diagnosticsFor(document) };
    });
  });

  /** Runs a feature on an open document, answering `fallback` for unknown documents and on failure. */
  function onDocument<R>(what: string, uri: string, fallback: R, work: (document: SessionDocument) => R): R {
    return runSafe(what, fallback, () => {
      const document = documents.get(uri);
      return document ? work(document) : fallback;
    });
  }

  // The binding table: one line per request, each a pure feature over the open document.
  connection.onDefinition((p) => onDocument("textDocument/definition", p.textDocument.uri, [], (d) => computeDefinition(d, p.position)));
  connection.onReferences((p) =>
    onDocument("textDocument/references", p.textDocument.uri, [], (d) => computeReferences(d, p.position, p.context.includeDeclaration)),
  );
  connection.onDocumentHighlight((p) => onDocument("textDocument/documentHighlight", p.textDocument.uri, [], (d) => computeDocumentHighlights(d, p.position)));
  connection.onDocumentLinks((p) => onDocument("textDocument/documentLink", p.textDocument.uri, [], (d) => computeDocumentLinks(d)));
  connection.onDocumentSymbol((p) =>
    onDocument("textDocument/documentSymbol", p.textDocument.uri, [], (d) => {
      const result = computeDocumentSymbols(d, { maxSymbols: settings.maxSymbols });
      if (result.truncated) reportTruncated(d.uri, "documentSymbols", settings.maxSymbols);
      return result.symbols;
    }),
  );
  connection.onFoldingRanges((p) =>
    onDocument("textDocument/foldingRange", p.textDocument.uri, [], (d) => computeFoldingRanges(d, { maxRanges: foldingRangeLimit })),
  );
  connection.languages.inlayHint.on((p) => onDocument("textDocument/inlayHint", p.textDocument.uri, [], (d) => computeInlayHints(d, p.range)));
  // A refused rename is an InvalidParams error with the reason, as the protocol asks; it is thrown
  // outside `runSafe`, which would turn it into an empty answer.
  connection.onPrepareRename((p) => {
    const result = onDocument("textDocument/prepareRename", p.textDocument.uri, null, (d) => prepareRename(d, p.position));
    if (result && isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
    return result;
  });
  connection.onRenameRequest((p) => {
    const result = onDocument("textDocument/rename", p.textDocument.uri, null, (d) => computeRename(d, p.position, p.newName));
    if (result && isRenameRefusal(result)) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
    return result;
  });
  connection.onCodeAction((p) =>
    onDocument("textDocument/codeAction", p.textDocument.uri, [], (d) =>
      computeCodeActions(d, p.range, p.context, { lazyEdits: resolveEditSupport, ignoredCodes: offCodes(settings) }),
    ),
  );
  connection.onCodeActionResolve((action) => {
    const uri = isMigrationActionData(action.data) ? action.data.uri : undefined;
    return uri ? onDocument("codeAction/resolve", uri, action, (d) => resolveMigrationAction(d, action)) : action;
  });
  connection.onDocumentFormatting((p) => onDocument("textDocument/formatting", p.textDocument.uri, [], (d) => computeFormatting(d)));
  connection.onCompletion((p) =>
    onDocument("textDocument/completion", p.textDocument.uri, { isIncomplete: false, items: [] }, (d) => computeCompletion(d, p.position)),
  );
  connection.onHover((p) => onDocument("textDocument/hover", p.textDocument.uri, null, (d) => computeHover(d, p.position)));
  connection.languages.callHierarchy.onPrepare((p) =>
    onDocument("textDocument/prepareCallHierarchy", p.textDocument.uri, [], (d) => prepareHierarchy(d, p.position)),
  );
  connection.languages.callHierarchy.onIncomingCalls((p) =>
    onDocument("callHierarchy/incomingCalls", p.item.uri, [], (d) => callHierarchyIncomingCalls(d, p.item)),
  );
  connection.languages.callHierarchy.onOutgoingCalls((p) =>
    onDocument("callHierarchy/outgoingCalls", p.item.uri, [], (d) => callHierarchyOutgoingCalls(d, p.item)),
  );
  connection.languages.typeHierarchy.onPrepare((p) =>
    onDocument("textDocument/prepareTypeHierarchy", p.textDocument.uri, [], (d) => prepareHierarchy(d, p.position)),
  );
  connection.languages.typeHierarchy.onSupertypes((p) => onDocument("typeHierarchy/supertypes", p.item.uri, [], (d) => typeHierarchySupertypes(d, p.item)));
  connection.languages.typeHierarchy.onSubtypes((p) => onDocument("typeHierarchy/subtypes", p.item.uri, [], (d) => typeHierarchySubtypes(d, p.item)));
  connection.onWorkspaceSymbol((p) => runSafe("workspace/symbol", [], () => computeWorkspaceSymbols(documents.all(), p.query)));
  connection.onCodeLens((p) => onDocument("textDocument/codeLens", p.textDocument.uri, [], (d) => computeCodeLenses(d)));
  connection.onCodeLensResolve((lens) =>
    runSafe("codeLens/resolve", lens, () => resolveCodeLens(documents.get((lens.data as { uri?: string } | undefined)?.uri ?? ""), lens)),
  );
  connection.onExecuteCommand((p) => {
    if (p.command !== SHOW_CONTEXT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${p.command}`);
    return answerContext("workspace/executeCommand", p.arguments?.[0], (d) => computeShowContext(d, p.arguments ?? []));
  });
  connection.onRequest(BUILD_CONTEXT_REQUEST, (p: Partial<BuildContextParams> | undefined) =>
    answerContext(BUILD_CONTEXT_REQUEST, p?.uri, (d) => computeContextRequest(d, p ?? {})),
  );

  /**
   * The built context for an open document; an unknown document or entry is refused with
   * InvalidParams, a failure inside is logged and answered with null.
   */
  function answerContext(what: string, uri: unknown, work: (document: SessionDocument) => ContextAnswer): BuildContextResult | null {
    const document = typeof uri === "string" ? documents.get(uri) : undefined;
    if (!document) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: ${JSON.stringify(uri)} is not an open session`);
    const answer = runSafe(what, null, () => work(document));
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
}
