/**
 * The language server: with `stdio.ts`, the only code that knows JSON-RPC. It answers the
 * lifecycle and document notifications here, and every request through the list in
 * `requests/index.ts` (one file per request: its method, capability, params shape and handler).
 *
 * What it keeps between messages is one `ServerState` (`state.ts`). Diagnostics (pulled or
 * pushed) live in `diagnostics.ts`; every request runs behind the `Guard` (`guard.ts`):
 * lifecycle, cancellation, params, and a failure that costs one answer only.
 */

import {
  CancellationToken,
  type Connection,
  type Diagnostic,
  type InitializeResult,
  type ServerCapabilities,
  TextDocumentSyncKind,
} from "vscode-languageserver";
import { runToEnd, type Steps } from "../core/base/steps";
import type { SessionDocument } from "../core/session/document";
import {
  applySeverityOverrides,
  capDiagnostics,
  collectDiagnosticsSteps,
  collectProvisionalDiagnostics,
  type CollectedDiagnostics,
  collectStructuralDiagnostics,
  computeFadingHints,
  MAX_PER_CODE,
  rederiveRequestDiagnosticsSteps,
} from "../features/api";
import { VERSION } from "../version";
import { type DiagnosticsSource, DiagnosticsService } from "./diagnostics";
import { REQUESTS } from "./requests";
import { readSettings } from "./settings";
import { readClientSupport, type ServerOptions, ServerState } from "./state";

/** What the transport needs to know about the server it started. */
export interface ServerHandle {
  /** Whether the client has sent `shutdown` (an end of input after it is a clean exit). */
  readonly shutDown: boolean;
}

export function startServer(connection: Connection, options: ServerOptions = {}): ServerHandle {
  const state = new ServerState(connection, options);
  const { guard, documents, workspace, memory } = state;

  connection.onInitialize((params): InitializeResult => {
    state.client = readClientSupport(params.capabilities);
    state.initialSettings = readSettings(params.initializationOptions);
    state.settings = state.initialSettings;
    const source = diagnosticsSource(state);
    state.diagnostics = new DiagnosticsService(connection, source, state.client.pullDiagnostics, state.client.diagnosticRefresh);
    memory.rederiveWith(rederiveOpenDocuments(state, source));
    workspace.initialize(params);
    guard.state = "running";
    const capabilities: ServerCapabilities = { textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental } };
    for (const request of REQUESTS) Object.assign(capabilities, request.capabilities?.(params.capabilities));
    return { capabilities, serverInfo: { name: "pi-session-lsp", version: VERSION } };
  });
  connection.onShutdown(() => {
    guard.state = "shut-down";
    memory.dispose();
    workspace.dispose();
    state.workspaceDiagnostics.dispose();
  });
  connection.onInitialized(() => {
    void state.refreshSettings();
    workspace.initialized();
  });
  connection.onDidChangeConfiguration((change) => {
    if (state.client.configuration) void state.refreshSettings();
    else state.applySettings(readSettings(change.settings, state.initialSettings));
  });

  documents.onDidOpen((event) => {
    state.diagnostics?.changed(event.document);
    memory.changed(event.document.textLength());
  });
  documents.onDidChangeContent((event) => {
    state.diagnostics?.changed(event.document);
    memory.changed(0);
    state.scheduleLensRefresh();
  });
  documents.onDidClose((event) => {
    state.toldTruncated.delete(event.document.uri);
    state.diagnostics?.closed(event.document.uri);
    memory.closed();
  });

  // Every request is admitted the same way (lifecycle, cancellation, its params' shape) before its handler runs.
  for (const request of REQUESTS) {
    const handler = (params: unknown, token: CancellationToken) => {
      guard.admit(token, request, params);
      // Someone works on an open document (the cursor moved there, a hover, a code action): what
      // the idle release let go is derived again at the next pause. Not for a request on no open
      // document, which a client may send on its own schedule while nobody works (VS Code pulls
      // `workspace/diagnostic` two seconds after each answer): it would derive it again and let it
      // go again every few seconds for as long as the editor stays open.
      if (namesOpenDocument(params, state)) memory.activity();
      return request.handler(params as never, state, token);
    };
    if (typeof request.type === "string") connection.onRequest(request.type, handler);
    else connection.onRequest(request.type, handler);
  }

  documents.listen(connection);
  connection.listen();
  return {
    get shutDown() {
      return guard.state === "shut-down";
    },
  };
}

/** Whether a request's params name an open document (`textDocument.uri`, as every `textDocument/` request's do). */
function namesOpenDocument(params: unknown, state: ServerState): boolean {
  const uri = (params as { textDocument?: { uri?: unknown } } | null | undefined)?.textDocument?.uri;
  return typeof uri === "string" && state.documents.get(uri) !== undefined;
}

/**
 * What the server derives again after an idle release (`memory.ts`): for the open documents whose
 * complete list was made, what the next edit inside the resumed context reads (both versions'
 * contexts, requests and findings, then the rest of their diagnostics, thrown away: they equal that
 * list), a slice at a time, so that a keystroke meanwhile waits for one slice at most. A document
 * opened or edited since is left to the work its change started. The promise answers whether every
 * document's work got to the end: one that an edit ended is taken up again at the next pause.
 */
function rederiveOpenDocuments(state: ServerState, source: DiagnosticsSource): () => Promise<boolean> {
  const { documents, guard, memory } = state;
  return () => {
    const works: Promise<boolean>[] = [];
    for (const document of documents.all()) {
      if (!state.diagnostics?.isComplete(document)) continue;
      // A close or an edit meanwhile ends the work (the driver's `ContentModified`), which is nobody's answer.
      const work = guard
        .steps("deriving the kept contexts again", undefined, CancellationToken.None, () => {
          const rederived = rederivation(document, source);
          // Its slices count as activity, as the diagnostics' own do: the idle collections wait for
          // the work to end, and their release does not throw away what it has built so far.
          return {
            steps: rederived.steps,
            stillValid: () => {
              memory.changed(0);
              return rederived.stillValid();
            },
          };
        })
        .then(
          () => true,
          () => false,
        );
      works.push(work);
    }
    return Promise.all(works).then((done) => done.every(Boolean));
  };
}

/**
 * What the idle release let go of `document`, built again as steps (the provider request's pieces
 * and findings, then the rest of its diagnostics), and whether they may go on: only while the
 * document is open and unedited. The steps hold the analysis they started on, which a structural
 * edit takes over (`resplice.ts`): going on after an edit would keep values made from a replaced
 * analysis for the new one (a diagnostic lost after a line deleted, `rederiveRaces.test.ts`). What
 * was built before the edit stays, and the next pause takes the work up again (`memory.ts`).
 */
export function rederivation(
  document: SessionDocument,
  source: { steps(document: SessionDocument): Steps<unknown>; get(uri: string): SessionDocument | undefined },
): { steps: Steps<void>; stillValid: () => boolean } {
  const { uri, revision } = document;
  function* steps(): Steps<void> {
    yield* rederiveRequestDiagnosticsSteps(document);
    yield;
    yield* source.steps(document);
  }
  return { steps: steps(), stillValid: () => source.get(uri) === document && document.revision === revision };
}

/** What the editor shows: the checker's diagnostics, plus the fading hints unless turned off. */
function diagnosticsSource(state: ServerState): DiagnosticsSource {
  const { guard, documents, workspace, connection } = state;
  // The session's facts on disk (the file's encoding, where it lies): the same checks `check` runs.
  const factsOf = (document: SessionDocument) => guard.safe("session facts", {}, () => workspace.facts(document));
  /** The checker's diagnostics, capped, with the fading hints and the user's severities. */
  function* shown(document: SessionDocument, collected: CollectedDiagnostics): Steps<Diagnostic[]> {
    const found = capDiagnostics(collected.diagnostics, { overflow: collected.overflow }).diagnostics;
    const { fadeInactive, severity } = state.settings;
    if (fadeInactive) yield;
    return applySeverityOverrides(fadeInactive ? found.concat(computeFadingHints(document)) : found, severity);
  }
  function* steps(document: SessionDocument): Steps<Diagnostic[]> {
    return yield* shown(document, yield* collectDiagnosticsSteps(document, MAX_PER_CODE, factsOf(document)));
  }
  return {
    compute: (document) => runToEnd(steps(document)),
    provisional: (document) => {
      const collected = collectProvisionalDiagnostics(document, MAX_PER_CODE, () => factsOf(document));
      return collected && runToEnd(shown(document, collected));
    },
    structural: (document) => {
      const collected = collectStructuralDiagnostics(document, MAX_PER_CODE);
      return applySeverityOverrides(capDiagnostics(collected.diagnostics, { overflow: collected.overflow }).diagnostics, state.settings.severity);
    },
    steps,
    drive: (work, stillValid) =>
      guard.drive(work, CancellationToken.None, () => {
        // The work counts as activity: the idle collection (`memory.ts`) would pause it, and the
        // release of the kept contexts that follows would throw away what it has built so far.
        state.memory.changed(0);
        return stillValid();
      }),
    get: (uri: string) => documents.get(uri),
    all: () => documents.all(),
    error: (message: string) => connection.console.error(message),
  };
}
