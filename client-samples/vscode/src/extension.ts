/**
 * pi-session-lsp in VS Code: starts the server for Pi session files, forwards the `piSession`
 * settings, and shows the context a lens stands for in a read-only Markdown document beside the
 * session.
 *
 * - The server is `pi-session-lsp --stdio` from PATH, or what `piSession.server.path` names: a
 *   `.js` file (a checkout's `bin/pi-session-lsp.js`), run with the Node.js built into VS Code, or
 *   any other command. `--stdio` is added by the client.
 * - Session files are `.jsonl` files under `.pi/agent/sessions/`; with `piSession.allJsonl`, every
 *   `.jsonl` file. Changing either setting restarts the client with the new selector.
 * - `piSession.maxSymbols`, `piSession.fadeInactive` and `piSession.severity` reach the server three
 *   ways: `initializationOptions` at start, `workspace/configuration` (which the server asks for),
 *   and a `workspace/didChangeConfiguration` nudge when they change.
 * - Clicking a context lens runs the server's command `piSession.showContext [uri, entryId|null]`;
 *   a middleware adds `{format: "markdown"}` to it and opens the answer's Markdown as a `pi-context:`
 *   document. "Pi Session: Show Context" does the same for the active editor, from where Pi resumes.
 */

import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

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

/** The part of a document selector this extension uses; it fits both VS Code's and the client's types. */
type Filter = { scheme: string; pattern?: string; language?: string };

interface BuildContextAnswer {
  markdown?: string;
}

let client: LanguageClient | undefined;
let selector: Filter[] = [];
let output: vscode.LogOutputChannel | undefined;
/** Starts and stops run one after the other, however fast the settings change. */
let lifecycle: Promise<void> = Promise.resolve();

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel("Pi Session", { log: true });
  const contexts = new ContextDocuments();
  context.subscriptions.push(
    output,
    contexts,
    vscode.workspace.registerTextDocumentContentProvider(CONTEXT_SCHEME, contexts),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === CONTEXT_SCHEME) contexts.forget(document.uri);
    }),
    vscode.commands.registerCommand("piSession.showActiveContext", () => showActiveContext(contexts)),
    vscode.commands.registerCommand("piSession.restartServer", () => restart(contexts)),
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
  selector = [{ scheme: "file", pattern: SESSION_PATTERN }];
  if (config.get<boolean>("allJsonl", false)) {
    selector.push({ scheme: "file", pattern: "**/*.jsonl" }, { scheme: "untitled", language: "jsonl" });
  }

  const clientOptions: LanguageClientOptions = {
    documentSelector: selector,
    outputChannel: output,
    synchronize: { configurationSection: SECTION },
    // A function, so that every (re)start sends the settings as they are then.
    initializationOptions: () => ({ [SECTION]: serverSettings() }),
    middleware: {
      executeCommand: async (command, args, next) => {
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

  const started = new LanguageClient("piSession", "Pi Session", serverOptions(config), clientOptions);
  started.onNotification(RESULT_LIMIT_NOTIFICATION, (params: { uri?: string; feature?: string; limit?: number }) => {
    output?.info(`${params.feature ?? "a list"} of ${params.uri ?? "a document"} was cut at ${String(params.limit)} (piSession.maxSymbols)`);
  });
  client = started;
  try {
    await started.start();
  } catch (error) {
    if (client === started) client = undefined;
    // Not awaited: the next start or stop must not wait for someone to dismiss the message.
    void vscode.window
      .showErrorMessage(
        `Pi Session: could not start the server (${message(error)}). Install it with \`npm install -g\` from a checkout of pi-session-lsp, or set piSession.server.path.`,
        "Open Settings",
        "Show Output",
      )
      .then((choice) => {
        if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "piSession.server.path");
        if (choice === "Show Output") output?.show();
      });
  }
}

/** The settings the server reads, as `initializationOptions` (it reads them again by `workspace/configuration`). */
function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    maxSymbols: config.get<number>("maxSymbols"),
    fadeInactive: config.get<boolean>("fadeInactive"),
    severity: config.get<Record<string, string>>("severity"),
  };
}

/** How to start the server; the client appends `--stdio` (TransportKind.stdio). */
function serverOptions(config: vscode.WorkspaceConfiguration): ServerOptions {
  // On Windows, `pi-session-lsp` on PATH is an npm `.cmd` shim, which only a shell can run.
  const shell = process.platform === "win32";
  const configured = config.get<string>("server.path", "").trim();
  if (configured === "") return { command: "pi-session-lsp", transport: TransportKind.stdio, options: { shell } };
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
