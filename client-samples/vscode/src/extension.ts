/**
 * pi-session-lsp in VS Code: starts the server for Pi session files, forwards the `piSession`
 * settings, and shows the context a lens stands for in a read-only Markdown document beside the
 * session.
 *
 * - The server is the one bundled in the extension (`server/out/pi-session-lsp.js`, made by
 *   scripts/bundle.mjs), run on VS Code's own Node.js; `piSession.server.path` overrides it with a
 *   `.js` file (a checkout's `bin/pi-session-lsp.js`), run the same way, or any other command.
 *   `--stdio` is added by the client.
 * - A server that stops is restarted once; one that stops again within three minutes, or within
 *   ten seconds of its start (it would only stop again: a missing Node.js, an old one, a crash at
 *   start), stays stopped, and the user is told once, with the output that says why.
 * - Session files are `.jsonl` files under `.pi/agent/sessions/`; with `piSession.allJsonl`, every
 *   `.jsonl` file. Changing either setting restarts the client with the new selector.
 * - `piSession.maxSymbols`, `piSession.fadeInactive`, `piSession.severity` and the
 *   `piSession.workspaceDiagnostics…` settings reach the server three
 *   ways: `initializationOptions` at start, `workspace/configuration` (which the server asks for),
 *   and a `workspace/didChangeConfiguration` nudge when they change.
 * - Clicking a context lens runs the server's command `piSession.showContext [uri, entryId|null]`;
 *   a middleware adds `{format: "markdown"}` to it and opens the answer's Markdown as a `pi-context:`
 *   document. "Pi Session: Show Context" does the same for the active editor, from where Pi resumes.
 * - Clicking a branch tip's "compare with the active branch" lens runs the server's command
 *   `piSession.compareBranches [uri, entryId]`; the middleware opens its answer, the text `diff`
 *   prints, as a read-only `pi-compare:` document beside the session. "Pi Session: Export as
 *   Markdown" runs `piSession.exportMarkdown [uri, null]` for the active editor, and the middleware
 *   opens the Markdown of the branch Pi resumes as a read-only `pi-export:` document; "Pi Session:
 *   Export the Whole Tree as Markdown" runs `piSession.exportMarkdown [uri, null, {all: true}]`,
 *   every entry of the tree (what `export --all` writes).
 */

import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

const SECTION = "piSession";
/** The server's command, which the context lenses run; the language client registers it. */
const SHOW_CONTEXT_COMMAND = "piSession.showContext";
/** The server's request for a built context. */
const BUILD_CONTEXT_REQUEST = "piSession/buildContext";
/** Sent by the server when a list (such as the outline) was cut at its limit. */
const RESULT_LIMIT_NOTIFICATION = "piSession/resultLimitReached";
/** Where Pi keeps its sessions: `~/.pi/agent/sessions/<project>/<time>_<id>.jsonl`. */
const SESSION_PATTERN = "**/.pi/agent/sessions/**/*.jsonl";
const CONTEXT_SCHEME = "pi-context";
/** The server's command that compares a branch tip with the branch Pi resumes; the language client registers it. */
const COMPARE_BRANCHES_COMMAND = "piSession.compareBranches";
const COMPARE_SCHEME = "pi-compare";
/** The server's command that answers `export`'s Markdown of a branch; the language client registers it. */
const EXPORT_MARKDOWN_COMMAND = "piSession.exportMarkdown";
const EXPORT_SCHEME = "pi-export";

/**
 * The commands whose answer is text the extension shows as a read-only document: the scheme it is
 * shown under, the answer's field that holds the text, and the title when the answer gives none.
 */
const SHOWN_ANSWERS: Record<string, { scheme: string; field: string; title: string } | undefined> = {
  [COMPARE_BRANCHES_COMMAND]: { scheme: COMPARE_SCHEME, field: "text", title: "compare" },
  [EXPORT_MARKDOWN_COMMAND]: { scheme: EXPORT_SCHEME, field: "markdown", title: "export" },
};

/** The server inside the extension, relative to its folder (scripts/bundle.mjs writes it). */
const BUNDLED_SERVER = "server/out/pi-session-lsp.js";
/** The server's code actions that the extension's commands apply (server/src/features). */
const FIX_ALL_KIND = "source.fixAll.piSession";
const ENTRY_ACTIONS = {
  "piSession.resumeFromHere": "refactor.piSession.resumeFrom",
  "piSession.dropFromContext": "refactor.piSession.dropFromContext",
  "piSession.forkHere": "refactor.extract.piSession.fork",
} as const;
/** A server that stops this soon after it started would stop again if restarted. */
const EARLY_STOP_MS = 10_000;
const EARLY_STOP = "the server stopped right after it started and was not restarted";
/** How long a server has to answer `initialize`; the server answers in well under a second. */
const ANSWER_TIMEOUT_MS = 30_000;
/** A second stop within this time after a restart leaves the server stopped. */
const CRASH_WINDOW_MS = 3 * 60_000;

/** The part of a document selector this extension uses; it fits both VS Code's and the client's types. */
type Filter = { scheme: string; pattern?: string; language?: string };

interface BuildContextAnswer {
  markdown?: string;
}

let client: LanguageClient | undefined;
let selector: Filter[] = [];
let output: vscode.LogOutputChannel | undefined;
/** The extension's folder, where the bundled server is. */
let extensionPath = "";
/** Starts and stops run one after the other, however fast the settings change. */
let lifecycle: Promise<void> = Promise.resolve();

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel("Pi Session", { log: true });
  extensionPath = context.extensionPath;
  const contexts = new ContextDocuments();
  context.subscriptions.push(
    output,
    contexts,
    answers,
    vscode.workspace.registerTextDocumentContentProvider(CONTEXT_SCHEME, contexts),
    vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, answers),
    vscode.workspace.registerTextDocumentContentProvider(EXPORT_SCHEME, answers),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === CONTEXT_SCHEME) contexts.forget(document.uri);
      if (document.uri.scheme === COMPARE_SCHEME || document.uri.scheme === EXPORT_SCHEME) answers.forget(document.uri);
    }),
    vscode.commands.registerCommand("piSession.showActiveContext", () => showActiveContext(contexts)),
    vscode.commands.registerCommand("piSession.restartServer", () => restart(contexts)),
    vscode.commands.registerCommand("piSession.exportAsMarkdown", () => exportAsMarkdown(exportArguments("branch"))),
    vscode.commands.registerCommand("piSession.exportTreeAsMarkdown", () => exportAsMarkdown(exportArguments("tree"))),
    vscode.commands.registerCommand("piSession.fixAll", () => applyServerAction(FIX_ALL_KIND, "whole")),
    vscode.commands.registerCommand("piSession.resumeFromHere", () => applyServerAction(ENTRY_ACTIONS["piSession.resumeFromHere"], "cursor")),
    vscode.commands.registerCommand("piSession.dropFromContext", () => applyServerAction(ENTRY_ACTIONS["piSession.dropFromContext"], "cursor")),
    vscode.commands.registerCommand("piSession.forkHere", () => applyServerAction(ENTRY_ACTIONS["piSession.forkHere"], "cursor")),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The other settings are read by the running server; these two change how it is started.
      if (event.affectsConfiguration("piSession.allJsonl") || event.affectsConfiguration("piSession.server")) void restart(contexts);
    }),
  );
  void restart(contexts);
}

export function deactivate(): Thenable<void> {
  return (lifecycle = lifecycle.then(stopClient));
}

function restart(contexts: ContextDocuments): Promise<void> {
  lifecycle = lifecycle.then(stopClient).then(() => startClient(contexts));
  return lifecycle;
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (!running) return;
  try {
    await running.stop();
  } catch (error) {
    output?.warn(`stopping the server: ${message(error)}`);
  }
}

async function startClient(contexts: ContextDocuments): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  selector = sessionSelector();
  if (config.get<boolean>("allJsonl", false)) {
    selector.push({ scheme: "file", pattern: "**/*.jsonl" }, { scheme: "untitled", language: "jsonl" });
  }

  const clientOptions: LanguageClientOptions = {
    documentSelector: selector,
    outputChannel: output,
    errorHandler: new StopOnRepeatedCrash(),
    // The client's own notifications would say the same failure several ways; reportFailure says it once.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationFailedHandler: (error) => {
      output?.error(`the server did not initialize: ${message(error)}`);
      reportFailure(Date.now() - startedAt < EARLY_STOP_MS ? EARLY_STOP : `the server did not initialize (${message(error)})`);
      return false;
    },
    synchronize: { configurationSection: SECTION },
    // A function, so that every (re)start sends the settings as they are then.
    initializationOptions: () => ({ [SECTION]: serverSettings() }),
    middleware: {
      executeCommand: async (command, args, next) => {
        const shown = SHOWN_ANSWERS[command];
        if (shown) {
          const result: unknown = await next(command, args);
          const answer = result as Record<string, unknown> | null | undefined;
          const text = answer?.[shown.field];
          if (typeof text === "string") await answers.show(shown.scheme, String(args[0]), typeof answer?.title === "string" ? answer.title : shown.title, text);
          return result;
        }
        if (command !== SHOW_CONTEXT_COMMAND) return next(command, args);
        const [uri, leafId, options] = args as [unknown, unknown, unknown];
        const extra = options !== null && typeof options === "object" ? options : {};
        const result: unknown = await next(command, [uri, leafId ?? null, { ...extra, format: "markdown" }]);
        const markdown = (result as BuildContextAnswer | null | undefined)?.markdown;
        if (typeof uri === "string" && typeof markdown === "string") {
          await contexts.show(uri, typeof leafId === "string" ? leafId : null, markdown);
        }
        return result;
      },
    },
  };

  const started = new PiSessionClient("piSession", "Pi Session", serverOptions(config), clientOptions);
  startedAt = Date.now();
  reportedFailure = false;
  started.onNotification(RESULT_LIMIT_NOTIFICATION, (params: { uri?: string; feature?: string; limit?: number }) => {
    output?.info(`${params.feature ?? "a list"} of ${params.uri ?? "a document"} was cut at ${String(params.limit)} (piSession.maxSymbols)`);
  });
  // Whether the server has answered `initialize` since it was last (re)started: one that stops
  // before it answers is not restarted.
  started.onDidChangeState(({ newState }) => {
    if (newState === State.Starting) answered = false;
    if (newState === State.Running) answered = true;
  });
  client = started;
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<"silent">((resolve) => {
    timer = setTimeout(() => resolve("silent"), ANSWER_TIMEOUT_MS);
  });
  try {
    // A server that never answers `initialize` would hold every later restart behind this start.
    if ((await Promise.race([started.start(), silent])) === "silent") {
      reportFailure(`the server did not answer within ${ANSWER_TIMEOUT_MS / 1000} seconds and was stopped`);
      if (client === started) client = undefined;
      // Stopping a client that is still starting rejects, but ends the server's process.
      await started.stop().catch(() => undefined);
    }
  } catch (error) {
    if (client === started) client = undefined;
    reportFailure(`could not start the server (${message(error)})`);
  } finally {
    clearTimeout(timer);
  }
}

/** When the running client's server was started, whether it has answered, and whether its failure was already reported. */
let startedAt = 0;
let answered = false;
let reportedFailure = false;

/**
 * Says once per start, in a notification and in the output, that the server is not running and
 * why; never awaited, so that nothing waits for someone to dismiss it.
 */
function reportFailure(what: string): void {
  output?.error(what);
  if (reportedFailure) return;
  reportedFailure = true;
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>("server.path", "").trim();
  const hint =
    configured === ""
      ? "The Pi Session output shows what it printed."
      : `It was started from piSession.server.path (${configured}); clear that setting to use the server inside the extension.`;
  void vscode.window.showErrorMessage(`Pi Session: ${what}. ${hint}`, "Show Output", "Open Settings", "Restart Server").then((choice) => {
    if (choice === "Show Output") output?.show();
    if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "piSession.server.path");
    if (choice === "Restart Server") void vscode.commands.executeCommand("piSession.restartServer");
  });
}

/**
 * The language client notifies every failed start or restart itself ("couldn't create connection
 * to server"), once per attempt; those go to the output, and the user is told once, by
 * reportFailure, with what to do.
 */
class PiSessionClient extends LanguageClient {
  override error(text: string, data?: unknown, showNotification: boolean | "force" = true): void {
    if (showNotification !== "force") {
      super.error(text, data, showNotification);
      return;
    }
    // Logged with its detail (often only "write EPIPE": the server was gone before it could answer).
    super.error(text, data, false);
    reportFailure(
      Date.now() - startedAt < EARLY_STOP_MS
        ? EARLY_STOP
        : `the server could not be restarted (${text.replace(/^Pi Session client: /, "").replace(/\.$/, "")})`,
    );
  }
}

/**
 * The language client's own handler restarts a crashed server four times in three minutes. A
 * server that cannot start (a missing or old Node.js on PATH, a crash at start) would only crash
 * again, so this one restarts a server once, and only one that ran for a while.
 */
class StopOnRepeatedCrash implements ErrorHandler {
  private lastRestart = 0;

  error(_error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult {
    // A few unreadable messages are survivable; a stream of them means the connection is broken.
    if ((count ?? 0) <= 3) return { action: ErrorAction.Continue, handled: true };
    reportFailure("the connection to the server kept failing, so the server was stopped");
    return { action: ErrorAction.Shutdown, handled: true };
  }

  closed(): CloseHandlerResult {
    const now = Date.now();
    if (now - startedAt < EARLY_STOP_MS || !answered) {
      reportFailure(EARLY_STOP);
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    if (now - this.lastRestart < CRASH_WINDOW_MS) {
      reportFailure("the server stopped twice in three minutes and was not restarted");
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.lastRestart = now;
    startedAt = now;
    output?.warn("the server stopped; restarting it once");
    return { action: CloseAction.Restart, handled: true };
  }
}

/**
 * The files the server is started for: `.jsonl` files in Pi's sessions folders (under
 * `.pi/agent/sessions/`, and under `PI_CODING_AGENT_DIR`'s or `PI_CODING_AGENT_SESSION_DIR`'s
 * folder when VS Code was started with them), and every `.jsonl` with `piSession.allJsonl`.
 */
function sessionSelector(): Filter[] {
  const filters: Filter[] = [{ scheme: "file", pattern: SESSION_PATTERN }];
  const agentDir = process.env.PI_CODING_AGENT_DIR?.trim();
  const sessionDir = process.env.PI_CODING_AGENT_SESSION_DIR?.trim();
  for (const folder of [agentDir ? path.join(resolvePath(agentDir), "sessions") : "", sessionDir ? resolvePath(sessionDir) : ""]) {
    if (folder !== "" && path.isAbsolute(folder))
      filters.push({ scheme: "file", pattern: `${folder.replace(/\\/g, "/").replace(/[[\]{}*?]/g, "[$&]")}/**/*.jsonl` });
  }
  if (vscode.workspace.getConfiguration(SECTION).get<boolean>("allJsonl", false)) {
    filters.push({ scheme: "file", pattern: "**/*.jsonl" }, { scheme: "untitled", language: "jsonl" });
  }
  return filters;
}

/**
 * Applies the server's code action of `kind`: for the whole document (Fix all) or for the entry
 * under the cursor (resume from here, drop from the context, fork). The edit goes into the
 * editor's buffer, or creates the forked file; nothing is saved.
 */
async function applyServerAction(kind: string, where: "whole" | "cursor"): Promise<true | string> {
  // The reason nothing was applied is shown, and returned to whoever ran the command.
  const refuse = (reason: string, error = false): string => {
    void (error ? vscode.window.showErrorMessage : vscode.window.showInformationMessage)(`Pi Session: ${reason}`);
    return reason;
  };
  const editor = vscode.window.activeTextEditor;
  if (!editor || vscode.languages.match(selector, editor.document) === 0) return refuse("open a session file the server checks first.");
  if (!client?.isRunning()) return refuse("the server is not running (Pi Session: Restart Server starts it).");
  const document = editor.document;
  const range = where === "whole" ? new vscode.Range(0, 0, document.lineCount, 0) : editor.selection;
  const action = await serverAction(document.uri, range, kind);
  if (!action) {
    return refuse(
      where === "whole" ? "there is nothing Fix all can mend safely." : "the line under the cursor offers no such action (put the cursor on an entry).",
    );
  }
  if (action.disabled) return refuse(action.disabled.reason);
  if (action.edit && !(await vscode.workspace.applyEdit(action.edit))) return refuse(`VS Code did not apply "${action.title}".`, true);
  if (action.command) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  return true;
}

/** The settings the server reads, as `initializationOptions` (it reads them again by `workspace/configuration`). */
function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    maxSymbols: config.get<number>("maxSymbols"),
    fadeInactive: config.get<boolean>("fadeInactive"),
    severity: config.get<Record<string, string>>("severity"),
    workspaceDiagnostics: config.get<boolean>("workspaceDiagnostics"),
    workspaceDiagnosticsMaxFiles: config.get<number>("workspaceDiagnosticsMaxFiles"),
    workspaceDiagnosticsMaxMiB: config.get<number>("workspaceDiagnosticsMaxMiB"),
  };
}

/** How to start the server; the client appends `--stdio` (TransportKind.stdio). */
function serverOptions(config: vscode.WorkspaceConfiguration): ServerOptions {
  const configured = config.get<string>("server.path", "").trim();
  if (configured === "") return { module: path.join(extensionPath, BUNDLED_SERVER), transport: TransportKind.stdio };
  // On Windows, a command on PATH is often an npm `.cmd` shim, which only a shell can run.
  const shell = process.platform === "win32";
  const resolved = resolvePath(configured);
  output?.info(`starting the server from ${resolved}`);
  if (/\.[cm]?js$/i.test(resolved)) return { module: resolved, transport: TransportKind.stdio };
  return { command: shell && resolved.includes(" ") ? `"${resolved}"` : resolved, transport: TransportKind.stdio, options: { shell } };
}

/** `~` is the home directory, a relative path with a separator is relative to the first workspace folder, a bare name is looked up on PATH. */
function resolvePath(value: string): string {
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) return path.join(os.homedir(), value.slice(1));
  if (path.isAbsolute(value) || !/[\\/]/.test(value)) return value;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? path.join(folder.uri.fsPath, value) : path.resolve(value);
}

/**
 * The server's code action of `kind` on `range`, if it offers one. VS Code cancels such a request
 * when something else needs the editor meanwhile, and then hands back either an error or no
 * actions at all (the language client drops an answer whose request was canceled), which cannot
 * be told from "nothing to do". So the request is asked up to three times before the answer is
 * taken as no action.
 */
async function serverAction(uri: vscode.Uri, range: vscode.Range, kind: string): Promise<vscode.CodeAction | undefined> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      // The last argument asks VS Code to resolve the action's edit when the server left it for later.
      const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>("vscode.executeCodeActionProvider", uri, range, kind, 1);
      const action = actions?.find((a): a is vscode.CodeAction => "kind" in a && a.kind?.value === kind);
      if (action) return action;
    } catch (error) {
      if (attempt === 3 || !(error instanceof Error && error.name === "Canceled")) throw error;
    }
    output?.debug(`${kind}: no answer on attempt ${attempt}`);
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
  return undefined;
}

/** "Pi Session: Show Context": the context Pi resumes with, for the session in the active editor. */
async function showActiveContext(contexts: ContextDocuments): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document) {
    void vscode.window.showInformationMessage("Pi Session: open a session file first.");
    return;
  }
  await lifecycle;
  const running = client;
  if (!running || vscode.languages.match(selector, document) === 0) {
    void vscode.window.showInformationMessage(
      `Pi Session: ${path.basename(document.uri.path)} is not a session file the server checks (a .jsonl file under .pi/agent/sessions/, or any .jsonl with piSession.allJsonl).`,
    );
    return;
  }
  const uri = running.code2ProtocolConverter.asUri(document.uri);
  try {
    const answer = await running.sendRequest<BuildContextAnswer | null>(BUILD_CONTEXT_REQUEST, { uri, leafId: null, format: "markdown", context: false });
    if (typeof answer?.markdown === "string") await contexts.show(uri, null, answer.markdown);
  } catch (error) {
    void vscode.window.showErrorMessage(`Pi Session: ${message(error)}`);
  }
}

/**
 * Read-only documents holding a built context as Markdown, one per session and leaf:
 * `pi-context:/<session> (context from <id>).md?<session uri and leaf>`. Shown again, a document is
 * updated in place; one that VS Code restores without content is asked for again.
 */
class ContextDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly texts = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  async show(sessionUri: string, leafId: string | null, markdown: string): Promise<void> {
    const uri = contextUri(sessionUri, leafId);
    this.texts.set(uri.toString(), markdown);
    this.changed.fire(uri);
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== "markdown") document = await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const known = this.texts.get(uri.toString());
    if (known !== undefined) return known;
    const { session, leaf } = parseContextUri(uri);
    await lifecycle;
    if (!client || !session) return "# No context\n\nThe Pi session server is not running.\n";
    try {
      // Opening the session sends it to the server, which answers only for open documents.
      await vscode.workspace.openTextDocument(vscode.Uri.parse(session));
      const answer = await client.sendRequest<BuildContextAnswer | null>(BUILD_CONTEXT_REQUEST, {
        uri: session,
        leafId: leaf,
        format: "markdown",
        context: false,
      });
      const markdown = answer?.markdown ?? "# No context\n";
      this.texts.set(uri.toString(), markdown);
      return markdown;
    } catch (error) {
      return `# No context\n\n${message(error)}\n`;
    }
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

/**
 * Read-only documents holding a command's answer: a comparison of two branches as `diff` prints
 * it (`pi-compare:/<session> (compare <A> with <B>).txt`) or an export's Markdown
 * (`pi-export:/<session> (export of …).md`). One that VS Code restores without its text says to
 * run the command again: the answer is only made when asked for.
 */
class AnswerDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly texts = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  async show(scheme: string, sessionUri: string, title: string, text: string): Promise<void> {
    const name = path.posix.basename(vscode.Uri.parse(sessionUri).path).replace(/\.jsonl$/i, "");
    const markdown = scheme === EXPORT_SCHEME;
    const uri = vscode.Uri.from({ scheme, path: `/${name} (${title.replace(/[\\/]/g, "_")}).${markdown ? "md" : "txt"}` });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    let document = await vscode.workspace.openTextDocument(uri);
    if (markdown && document.languageId !== "markdown") document = await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This comparison is no longer held: click the branch\'s "compare with the active branch" lens again.\n';
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

const answers = new AnswerDocuments();

/**
 * The arguments of the server's export command after the session's uri: the branch Pi resumes
 * (`[null]`), or the whole tree (`[null, {all: true}]`, as `export --all`).
 */
function exportArguments(which: "branch" | "tree"): unknown[] {
  return which === "tree" ? [null, { all: true }] : [null];
}

/** "Pi Session: Export as Markdown" and "… the Whole Tree as Markdown", for the active editor's session. */
async function exportAsMarkdown(args: unknown[]): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  try {
    await vscode.commands.executeCommand(EXPORT_MARKDOWN_COMMAND, editor.document.uri.toString(), ...args);
  } catch (error) {
    void vscode.window.showErrorMessage(`Pi Session: ${message(error)}`);
  }
}

function contextUri(sessionUri: string, leafId: string | null): vscode.Uri {
  const name = path.posix.basename(vscode.Uri.parse(sessionUri).path).replace(/\.jsonl$/i, "");
  const which = leafId === null ? "context" : `context from ${leafId.replace(/[\\/]/g, "_")}`;
  return vscode.Uri.from({ scheme: CONTEXT_SCHEME, path: `/${name} (${which}).md`, query: JSON.stringify({ session: sessionUri, leaf: leafId }) });
}

function parseContextUri(uri: vscode.Uri): { session: string | undefined; leaf: string | null } {
  try {
    const parsed = JSON.parse(uri.query) as { session?: unknown; leaf?: unknown };
    return { session: typeof parsed.session === "string" ? parsed.session : undefined, leaf: typeof parsed.leaf === "string" ? parsed.leaf : null };
  } catch {
    return { session: undefined, leaf: null };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
