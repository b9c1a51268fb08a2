/**
 * Everything the server keeps between two messages, in one object that every request handler is
 * given: the open documents, the workspace index, what the client said it supports, the settings,
 * the diagnostics service, and the few timers and memories of what the user was told. A handler
 * reads it; only the lifecycle messages (`server.ts`) and the methods below change it.
 */

import { type ClientCapabilities, CodeLensRefreshRequest, type Connection, MessageType, ShowMessageNotification, TextDocuments } from "vscode-languageserver";
import { SessionDocument } from "../core/session/document";
import type { DiagnosticsService } from "./diagnostics";
import { Guard } from "./guard";
import { compactLines } from "./lineStorage";
import { MemoryReclaimer } from "./memory";
import { takeSplitText } from "./messageReader";
import { DEFAULT_SETTINGS, readSettings, SETTINGS_SECTION, type Settings } from "./settings";
import { WorkspaceDiagnostics } from "./workspaceDiagnostics";
import { attachWorkspaceIndex, type WorkspaceIndexHooks } from "./workspaceIndex";

/** How long the server waits for typing to pause before asking the client to re-request lenses. */
const LENS_REFRESH_DELAY_MS = 150;

/** What the client said in `initialize` it can do, as far as the server's answers depend on it. */
export interface ClientSupport {
  /** The client pulls diagnostics (`textDocument/diagnostic`) instead of taking them pushed. */
  readonly pullDiagnostics: boolean;
  readonly diagnosticRefresh: boolean;
  /** The client can fetch a code action's edit later (`codeAction/resolve`). */
  readonly resolveEdit: boolean;
  /** The client applies a `CreateFile` in `documentChanges` (the fork action), and shows disabled actions. */
  readonly entryActions: { readonly createFiles: boolean; readonly disabledSupport: boolean };
  readonly snippets: boolean;
  /** The client answers `workspace/configuration`. */
  readonly configuration: boolean;
  readonly codeLensRefresh: boolean;
  readonly foldingRangeLimit: number | undefined;
}

/** Reads the client's capabilities once, in `initialize`. */
export function readClientSupport(capabilities: ClientCapabilities): ClientSupport {
  const workspaceEdit = capabilities.workspace?.workspaceEdit;
  return {
    pullDiagnostics: capabilities.textDocument?.diagnostic !== undefined,
    diagnosticRefresh: capabilities.workspace?.diagnostics?.refreshSupport === true,
    resolveEdit: capabilities.textDocument?.codeAction?.resolveSupport?.properties.includes("edit") === true,
    entryActions: {
      createFiles: workspaceEdit?.documentChanges === true && workspaceEdit.resourceOperations?.includes("create") === true,
      disabledSupport: capabilities.textDocument?.codeAction?.disabledSupport === true,
    },
    snippets: capabilities.textDocument?.completion?.completionItem?.snippetSupport === true,
    configuration: capabilities.workspace?.configuration === true,
    codeLensRefresh: capabilities.workspace?.codeLens?.refreshSupport === true,
    foldingRangeLimit: capabilities.textDocument?.foldingRange?.rangeLimit,
  };
}

/** How a server is started; the program starts it with none. */
export interface ServerOptions {
  /** How long a request written as steps runs before it lets other messages in (`guard.ts`'s `SLICE_MS` unless given). */
  readonly sliceMs?: number;
}

/** Before `initialize`, the server assumes the client supports nothing. */
const NO_SUPPORT = readClientSupport({});

export class ServerState {
  readonly guard: Guard;
  /** The open documents. Versions restart when a document is closed and reopened; each opening is a new object. */
  readonly documents: TextDocuments<SessionDocument>;
  /** Every session on disk, not only the open ones (workspace symbols, forks, moved projects). */
  readonly workspace: WorkspaceIndexHooks;
  /** The problems of the sessions that are not open (`workspace/diagnostic`). */
  readonly workspaceDiagnostics: WorkspaceDiagnostics;
  readonly memory: MemoryReclaimer;
  client: ClientSupport = NO_SUPPORT;
  /** Made in `initialize`, once the server knows whether the client pulls or takes pushed diagnostics. */
  diagnostics: DiagnosticsService | undefined;
  /** Settings from `initializationOptions`, under those read from `workspace/configuration`. */
  initialSettings: Settings = DEFAULT_SETTINGS;
  settings: Settings = DEFAULT_SETTINGS;
  private lensRefresh: NodeJS.Timeout | undefined;
  /** Documents whose outline was cut at `maxSymbols` and whose user was told, so they are told once. */
  readonly toldTruncated = new Set<string>();

  constructor(
    readonly connection: Connection,
    options: ServerOptions = {},
  ) {
    const guard = new Guard(connection, options.sliceMs);
    this.guard = guard;
    this.documents = new TextDocuments<SessionDocument>({
      // A large text the reader decoded line by line comes with its lines (`takeSplitText`).
      create: (uri, languageId, version, content) => new SessionDocument(uri, languageId, version, content, takeSplitText(content)),
      update: (document, changes, version) => {
        // A malformed change throws after the changes before it were applied; the document is then
        // still returned, so that the library reports the change and diagnostics follow the text.
        guard.safe("textDocument/didChange", undefined, () => document.update(changes, version));
        return document;
      },
    });
    this.workspace = attachWorkspaceIndex(connection, this.documents);
    this.workspaceDiagnostics = new WorkspaceDiagnostics({
      connection,
      documents: this.documents,
      settings: () => this.settings,
      folders: () => this.workspace.folders(),
      refreshSupport: () => this.client.pullDiagnostics && this.client.diagnosticRefresh,
    });
    this.workspace.onFilesChanged(() => this.workspaceDiagnostics.filesChanged());
    const documents = this.documents;
    this.memory = new MemoryReclaimer(
      () => documents.keys().length,
      undefined,
      () => {
        for (const document of documents.all()) compactLines(document);
      },
    );
  }

  /** Reads the settings from `workspace/configuration`, when the client answers it. */
  async refreshSettings(): Promise<void> {
    if (!this.client.configuration) return;
    try {
      this.applySettings(readSettings(await this.connection.workspace.getConfiguration(SETTINGS_SECTION), this.initialSettings));
    } catch (error) {
      this.connection.console.warn(`reading settings failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Takes new settings; when they change what diagnostics contain (fading, severities), every open document's are redone. */
  applySettings(next: Settings): void {
    const diagnosticsChanged = next.fadeInactive !== this.settings.fadeInactive || JSON.stringify(next.severity) !== JSON.stringify(this.settings.severity);
    this.settings = next;
    if (diagnosticsChanged) this.diagnostics?.settingsChanged(this.client.diagnosticRefresh);
  }

  /** Asks the client to re-request lenses once typing pauses, when it says it can (`refreshSupport`). */
  scheduleLensRefresh(): void {
    if (!this.client.codeLensRefresh) return;
    clearTimeout(this.lensRefresh);
    this.lensRefresh = setTimeout(() => {
      this.lensRefresh = undefined;
      this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    }, LENS_REFRESH_DELAY_MS);
  }

  /**
   * Tells the client that a list was cut at its limit: a `piSession/resultLimitReached`
   * notification for clients that handle it, and one message per document for people.
   */
  reportTruncated(uri: string, feature: string, limit: number): void {
    void this.connection.sendNotification("piSession/resultLimitReached", { uri, feature, limit });
    if (this.toldTruncated.has(uri)) return;
    this.toldTruncated.add(uri);
    // A notification, not `window.showInformationMessage` (a request that clients may refuse).
    void this.connection.sendNotification(ShowMessageNotification.type, {
      type: MessageType.Info,
      message: `pi-session-lsp: the outline of this session stops at ${limit} symbols (setting piSession.maxSymbols).`,
    });
  }
}
