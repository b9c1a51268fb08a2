/**
 * A small LSP test client, in the style of Volar's and pytest-lsp's harnesses.
 *
 * `spawnServer()` starts the compiled server the way a user runs it (`node bin/pi-session-lsp.js
 * --stdio`); `startInProcess()` wires `startServer` to a pair of in-memory streams for fast protocol
 * tests. Both hand back an `LspTestClient` that:
 *
 * - answers the server's requests: `workspace/configuration` with one null per item,
 *   `client/registerCapability`, `client/unregisterCapability`, `window/workDoneProgress/create` and
 *   the refresh requests with null (each is recorded in `serverRequests`);
 * - records every `textDocument/publishDiagnostics` (`published`) and `window/logMessage` (`logs`);
 * - keeps a model of each document it opened (a `TextDocument`), so edits can be written as
 *   "replace this text" and the expected text is always known;
 * - never hangs: every wait has a hard timeout that fails with a message saying what was awaited and
 *   what arrived instead, and every wait races the server's exit, so a crash fails the test at once
 *   with the exit code and the end of stderr.
 */

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import {
  createConnection,
  createProtocolConnection,
  ProposedFeatures,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type DocumentDiagnosticReport,
  type InitializeParams,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver/node";
import { startServer } from "../../server/src/lsp/server";
import type { ServerOptions } from "../../server/src/lsp/state";
import { buildIsCurrent } from "../setup/build";
import { WAIT_MS } from "./limits";

export const REPO_ROOT = join(__dirname, "..", "..");
export const BIN = join(REPO_ROOT, "bin", "pi-session-lsp.js");

/**
 * How long a single wait may take before it fails the test: `WAIT_MS` (test/helpers/limits.ts),
 * minutes, so that only a hang fails it, and under vitest's testTimeout, so that it fails first with
 * what was awaited.
 */
export const DEFAULT_TIMEOUT_MS = WAIT_MS;

/** A client that has neither pull diagnostics nor anything else fancy: the server must push. */
export const PUSH_CAPABILITIES: ClientCapabilities = {
  workspace: { configuration: true },
  window: { workDoneProgress: true },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
  },
};

/** A client that pulls diagnostics (`textDocument/diagnostic`). */
export const PULL_CAPABILITIES: ClientCapabilities = {
  ...PUSH_CAPABILITIES,
  textDocument: { ...PUSH_CAPABILITIES.textDocument, diagnostic: {} },
};

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LogMessage {
  type: number;
  message: string;
}

/** What the client knows about the server process behind it (nothing, for an in-process server). */
interface ServerHandle {
  /** Resolves when the server process exits; never resolves for an in-process server. */
  exited: Promise<ServerExit>;
  /** The server's stderr so far. */
  stderr(): string;
  /** Stops the server if it is still running (kills the child process we started). */
  stop(): void;
  /** Writes bytes to the server's input as they are, bypassing the JSON-RPC writer (spawned servers only). */
  writeRaw?(bytes: string): void;
  /** Registers a callback for each piece of stderr the server writes (spawned servers only). */
  onStderr?(listener: () => void): void;
}

export class LspTestClient {
  /** Every publishDiagnostics notification, in arrival order. */
  readonly published: PublishDiagnosticsParams[] = [];
  /** Every window/logMessage (and window/showMessage) notification, in arrival order. */
  readonly logs: LogMessage[] = [];
  /** Every request the server sent to the client. */
  readonly serverRequests: { method: string; params: unknown }[] = [];
  /** Notifications the client has no handler for. */
  readonly otherNotifications: { method: string; params: unknown }[] = [];

  private readonly documents = new Map<string, TextDocument>();
  private readonly listeners = new Set<() => void>();
  /** The answers withheld by `hold`, by method: each request waits for its promise. */
  private readonly held = new Map<string, Promise<void>>();
  /** `published.length` when the last document notification was sent; the default start of a wait. */
  private lastSent = 0;

  constructor(
    readonly connection: ProtocolConnection,
    private readonly server: ServerHandle,
  ) {
    // Every message from the server, and every piece of its stderr, wakes the waits, so that a
    // test waits on what it expects to arrive instead of polling against a clock.
    const answerNull = (method: string) =>
      connection.onRequest(method, async (params: unknown) => {
        this.serverRequests.push({ method, params });
        this.notify();
        await this.held.get(method);
        return null;
      });
    connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) => {
      this.serverRequests.push({ method: "workspace/configuration", params });
      this.notify();
      return (params.items ?? []).map(() => null);
    });
    for (const method of [
      "client/registerCapability",
      "client/unregisterCapability",
      "window/workDoneProgress/create",
      "workspace/diagnostic/refresh",
      "workspace/semanticTokens/refresh",
      "workspace/inlayHint/refresh",
      "workspace/codeLens/refresh",
      "workspace/inlineValue/refresh",
    ]) {
      answerNull(method);
    }
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      this.published.push(params);
      this.notify();
    });
    for (const method of ["window/logMessage", "window/showMessage"]) {
      connection.onNotification(method, (params: LogMessage) => {
        this.logs.push(params);
        this.notify();
      });
    }
    connection.onUnhandledNotification((message) => {
      this.otherNotifications.push({ method: message.method, params: message.params });
      this.notify();
    });
    server.onStderr?.(() => this.notify());
    // Errors of the transport show up as a failed wait; keep them from becoming unhandled.
    connection.onError(() => undefined);
    connection.listen();
  }

  // ---- Lifecycle -------------------------------------------------------------------------------

  /**
   * Withholds the answers to the server's `method` requests (one of those answered with null) until
   * the returned function is called: a test holds the server at a known point, such as before an
   * index that waits for its progress token, instead of racing it for time.
   */
  hold(method: string): () => void {
    let release = () => {};
    this.held.set(
      method,
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    return () => {
      this.held.delete(method);
      release();
    };
  }

  /** Sends `initialize` with the given client capabilities, then `initialized`. */
  async initialize(capabilities: ClientCapabilities, extra: Partial<InitializeParams> = {}): Promise<InitializeResult> {
    const params: InitializeParams = {
      // No process id: the server must not start its parent-process watchdog in tests.
      processId: null,
      rootUri: null,
      capabilities,
      clientInfo: { name: "pi-session-lsp-tests" },
      ...extra,
    };
    const result = await this.request<InitializeResult>("initialize", params);
    await this.connection.sendNotification("initialized", {});
    return result;
  }

  /** `shutdown`, then `exit`; resolves with how the server process ended. */
  async shutdownAndExit(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServerExit> {
    await this.request("shutdown", undefined, timeoutMs);
    return this.exitWithoutShutdown(timeoutMs);
  }

  /** Sends `exit` (whatever came before) and waits for the process to end. */
  async exitWithoutShutdown(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServerExit> {
    await this.connection.sendNotification("exit").catch(() => undefined);
    return this.waitForExit(timeoutMs);
  }

  /** Waits for the server process to end. */
  waitForExit(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServerExit> {
    return withTimeout(this.server.exited, timeoutMs, () => `Timed out after ${timeoutMs} ms waiting for the server to exit.${this.context()}`);
  }

  /** Closes the connection and stops the server if it still runs. Safe to call twice. */
  dispose(): void {
    this.listeners.clear();
    try {
      this.connection.dispose();
    } catch {
      // Already disposed.
    }
    this.server.stop();
  }

  // ---- Documents -------------------------------------------------------------------------------

  /** `textDocument/didOpen`; the client keeps a model of the text for later edits. */
  async open(uri: string, text: string, languageId = "jsonl", version = 1): Promise<void> {
    this.documents.set(uri, TextDocument.create(uri, languageId, version, text));
    await this.notifyServer("textDocument/didOpen", { textDocument: { uri, languageId, version, text } });
  }

  /**
   * `textDocument/didChange` with the given content changes (applied in order, as LSP specifies),
   * also applied to the client's model. The version defaults to the model's version + 1.
   */
  async change(uri: string, changes: TextDocumentContentChangeEvent[], version?: number): Promise<number> {
    const model = this.model(uri);
    const next = version ?? model.version + 1;
    this.documents.set(uri, TextDocument.update(model, changes, next));
    await this.notifyServer("textDocument/didChange", { textDocument: { uri, version: next }, contentChanges: changes });
    return next;
  }

  /** An incremental change that replaces the `occurrence`-th `search` in the document with `replacement`. */
  async replace(uri: string, search: string, replacement: string, occurrence = 1, version?: number): Promise<number> {
    return this.change(uri, [this.replacementOf(uri, search, replacement, occurrence)], version);
  }

  /**
   * `count` didChange notifications written to the server's input in one piece (spawned servers
   * only), so that they arrive together however busy the machine is: sent one by one, a test
   * process that the machine leaves waiting between two of them lets the server's debounce run
   * out, and a count of publishes would measure the machine instead of the server. Each change is
   * made by `makeChange` from the client's model as the previous ones left it; resolves with the
   * last version.
   */
  changeAtOnce(uri: string, count: number, makeChange: () => TextDocumentContentChangeEvent): number {
    let bytes = "";
    for (let n = 0; n < count; n++) {
      const change = makeChange();
      const model = this.model(uri);
      const version = model.version + 1;
      this.documents.set(uri, TextDocument.update(model, [change], version));
      const body = JSON.stringify({ jsonrpc: "2.0", method: "textDocument/didChange", params: { textDocument: { uri, version }, contentChanges: [change] } });
      bytes += `Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`;
    }
    this.lastSent = this.published.length;
    this.writeRaw(bytes);
    return this.model(uri).version;
  }

  /** The incremental change event that would replace the `occurrence`-th `search` with `replacement`. */
  replacementOf(uri: string, search: string, replacement: string, occurrence = 1): TextDocumentContentChangeEvent {
    const model = this.model(uri);
    const text = model.getText();
    let index = -1;
    for (let n = 0; n < occurrence; n++) {
      index = text.indexOf(search, index + 1);
      if (index < 0) throw new Error(`replace: ${JSON.stringify(search)} (occurrence ${occurrence}) is not in ${uri}`);
    }
    return { range: { start: model.positionAt(index), end: model.positionAt(index + search.length) }, text: replacement };
  }

  async close(uri: string): Promise<void> {
    this.documents.delete(uri);
    await this.notifyServer("textDocument/didClose", { textDocument: { uri } });
  }

  /** Sends any notification as is, e.g. a didChange for a document that was never opened. */
  /** Writes bytes to the server's input as they are (spawned servers only). */
  writeRaw(bytes: string): void {
    if (!this.server.writeRaw) throw new Error("writeRaw needs a spawned server");
    this.server.writeRaw(bytes);
  }

  /** The server's stderr so far. */
  stderr(): string {
    return this.server.stderr();
  }

  async notifyServer(method: string, params: unknown): Promise<void> {
    this.lastSent = this.published.length;
    await this.connection.sendNotification(method, params);
  }

  /** The client's model of an open document (live: `TextDocument.update` mutates it, so copy before editing). */
  model(uri: string): TextDocument {
    const model = this.documents.get(uri);
    if (!model) throw new Error(`${uri} is not open in the test client`);
    return model;
  }

  text(uri: string): string {
    return this.model(uri).getText();
  }

  // ---- Diagnostics -----------------------------------------------------------------------------

  /** A mark in the publish history, for `waitForDiagnostics({ since })`. */
  mark(): number {
    return this.published.length;
  }

  /**
   * Waits for a publishDiagnostics for `uri` that satisfies `predicate`, among those that arrived
   * since `since` (by default, since the last document notification this client sent).
   */
  waitForDiagnostics(
    uri: string,
    predicate: (p: PublishDiagnosticsParams) => boolean = () => true,
    options: { since?: number; timeoutMs?: number; what?: string } = {},
  ): Promise<PublishDiagnosticsParams> {
    const since = options.since ?? this.lastSent;
    const what = options.what ?? "a matching publishDiagnostics";
    return this.waitUntil(
      () => this.published.slice(since).find((p) => p.uri === uri && predicate(p)),
      `${what} for ${uri}`,
      options.timeoutMs,
      () => `\nPublished since the wait began:\n${describePublished(this.published.slice(since)) || "  (nothing)"}`,
    );
  }

  /** `textDocument/diagnostic`. */
  pullDiagnostics(uri: string, previousResultId?: string, timeoutMs?: number): Promise<DocumentDiagnosticReport> {
    return this.request<DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri }, ...(previousResultId !== undefined ? { previousResultId } : {}) },
      timeoutMs,
    );
  }

  /** Pulls and expects a full report; returns its items. */
  async pullItems(uri: string, timeoutMs?: number): Promise<Diagnostic[]> {
    const report = await this.pullDiagnostics(uri, undefined, timeoutMs);
    if (report.kind !== "full") throw new Error(`expected a full diagnostic report for ${uri}, got ${JSON.stringify(report)}`);
    return report.items;
  }

  /** Log messages of type Error (1): the server logs a handler that failed. */
  errorLogs(): string[] {
    return this.logs.filter((l) => l.type === 1).map((l) => l.message);
  }

  // ---- Requests and waits ----------------------------------------------------------------------

  /** Sends a request; fails on timeout or if the server exits first. */
  request<R>(method: string, params: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<R> {
    const response = params === undefined ? this.connection.sendRequest<R>(method) : this.connection.sendRequest<R>(method, params);
    return this.guard(response, `the response to ${method}`, timeoutMs);
  }

  /** Waits until `probe` returns a value, re-checking whenever a message arrives. */
  waitUntil<T>(probe: () => T | undefined, what: string, timeoutMs = DEFAULT_TIMEOUT_MS, detail: () => string = () => ""): Promise<T> {
    const found = probe();
    if (found !== undefined) return Promise.resolve(found);
    let listener: (() => void) | undefined;
    const arrived = new Promise<T>((resolve) => {
      listener = () => {
        const value = probe();
        if (value !== undefined) resolve(value);
      };
      this.listeners.add(listener);
    });
    return this.guard(arrived, what, timeoutMs, detail).finally(() => {
      if (listener) this.listeners.delete(listener);
    });
  }

  /** Races `work` against a timeout and against the server's exit. */
  private guard<T>(work: Promise<T>, what: string, timeoutMs: number, detail: () => string = () => ""): Promise<T> {
    const exitError = (exit: ServerExit, cause = "") =>
      new Error(`The server exited (code ${exit.code}, signal ${exit.signal}) while the test was waiting for ${what}.${cause}${detail()}${this.context()}`);
    const crashed = this.server.exited.then((exit) => {
      throw exitError(exit);
    });
    // A request on a connection that the dying server closed fails with "Connection is closed";
    // when the process exits shortly after, say so instead. Errors the server sent (ResponseError)
    // pass through unchanged so tests can check their code.
    const settled = work.catch(async (error: unknown) => {
      if (error instanceof ResponseError) throw error;
      const exit = await Promise.race([this.server.exited, sleep(250).then(() => undefined)]);
      const message = error instanceof Error ? error.message : String(error);
      if (exit) throw exitError(exit, ` (${message})`);
      throw new Error(`Waiting for ${what} failed: ${message}${detail()}${this.context()}`);
    });
    return withTimeout(Promise.race([settled, crashed]), timeoutMs, () => `Timed out after ${timeoutMs} ms waiting for ${what}.${detail()}${this.context()}`);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** The tail of the server's logs and stderr, for failure messages. */
  private context(): string {
    const logs = this.logs
      .slice(-5)
      .map((l) => `  [${l.type}] ${l.message.slice(0, 500)}`)
      .join("\n");
    const stderr = this.server.stderr().slice(-2000).trim();
    return `${logs ? `\nLast server log messages:\n${logs}` : ""}${stderr ? `\nServer stderr (end):\n${stderr}` : ""}`;
  }
}

// ---- Servers ---------------------------------------------------------------------------------------

/** An empty folder for servers' HOME, so that no test reads the Pi sessions of the machine it runs on. */
let emptyHome: string | undefined;

/**
 * Starts the compiled server as a user would (`node bin/pi-session-lsp.js --stdio`) and connects a
 * client to it. Call `ensureBuilt()` first (once per file) so `out/` matches `server/src`. `bin`
 * runs another build of the same server (such as the one inside the VS Code extension). The
 * server's HOME is an empty folder unless `env` gives one: it indexes Pi's sessions folder there.
 * `command` runs another executable instead (an installed `pi-session-lsp`), from `cwd`.
 */
export function spawnServer(
  args: readonly string[] = ["--stdio"],
  options: { env?: NodeJS.ProcessEnv; bin?: string; command?: string; cwd?: string } = {},
): LspTestClient {
  emptyHome ??= mkdtempSync(join(tmpdir(), "lsp-test-home-"));
  const env = { ...process.env, HOME: emptyHome, PI_CODING_AGENT_DIR: undefined, PI_CODING_AGENT_SESSION_DIR: undefined, ...options.env };
  const [file, fileArgs] = options.command === undefined ? [process.execPath, [options.bin ?? BIN, ...args]] : [options.command, [...args]];
  const child: ChildProcessWithoutNullStreams = spawn(file, fileArgs, { cwd: options.cwd ?? REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let exit: ServerExit | undefined;
  let stderrListener = () => {};
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
    stderrListener();
  });
  // Writing to a server that has died fails with EPIPE; the waits report the exit instead.
  child.stdin.on("error", () => undefined);
  const exited = new Promise<ServerExit>((resolve) => {
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
    child.on("error", (error) => {
      stderr += `\n[spawn error] ${error.message}`;
      exit = { code: null, signal: null };
      resolve(exit);
    });
  });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  return new LspTestClient(connection, {
    exited,
    stderr: () => stderr,
    stop: () => {
      if (exit === undefined) child.kill();
    },
    writeRaw: (bytes) => child.stdin.write(bytes),
    onStderr: (listener) => {
      stderrListener = listener;
    },
  });
}

/**
 * Runs `startServer` in this process over a pair of in-memory streams and connects a client to it.
 *
 * The server side is given message readers/writers rather than the raw streams: for raw streams,
 * `vscode-languageserver/node` calls `process.exit` when the input ends or closes, which would kill
 * the test worker when the test disposes the connection. For the same reason, never send `exit`
 * to an in-process server; `dispose()` the client instead. `options` start the server with another
 * slice budget, for a test that must know where a long request lets messages in.
 */
export function startInProcess(options: ServerOptions = {}): LspTestClient {
  const clientToServer = new PassThrough();
  const serverToClient = new PassThrough();
  const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(clientToServer), new StreamMessageWriter(serverToClient));
  startServer(serverConnection, options);
  const connection = createProtocolConnection(new StreamMessageReader(serverToClient), new StreamMessageWriter(clientToServer));
  return new LspTestClient(connection, {
    exited: new Promise<ServerExit>(() => undefined),
    stderr: () => "",
    stop: () => serverConnection.dispose(),
  });
}

/**
 * Fails unless `out/` is current: vitest's global setup (test/setup/build.ts) builds it once before
 * any test runs, so that the end-to-end tests never run a stale server. It only checks, and does not
 * build, because forty-odd files each compiling in their `beforeAll` raced a compiler against the
 * hook's time limit on a busy machine. Async, as the files' hooks await it.
 */
export async function ensureBuilt(): Promise<void> {
  if (!buildIsCurrent()) throw new Error("out/ is older than server/src: vitest's global setup builds it; run `npm run build` in a watch session.");
}

// ---- Formatting ------------------------------------------------------------------------------------

/** A diagnostic as one comparable line: `L3 45-56 error dangling-parent`. */
export function describeDiagnostic(d: Diagnostic): string {
  const { start, end } = d.range;
  const where =
    start.line === end.line
      ? `L${start.line + 1} ${start.character}-${end.character}`
      : `L${start.line + 1}:${start.character}-L${end.line + 1}:${end.character}`;
  const severity = ["?", "error", "warning", "information", "hint"][d.severity ?? 0] ?? String(d.severity);
  return `${where} ${severity} ${String(d.code)}`;
}

export function describeDiagnostics(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map(describeDiagnostic);
}

function describePublished(list: readonly PublishDiagnosticsParams[]): string {
  return list.map((p) => `  ${p.uri} version=${p.version ?? "-"}: [${describeDiagnostics(p.diagnostics).join("; ")}]`).join("\n");
}

/** Diagnostics with every URI in them replaced, for comparing two documents' results. */
export function withUri(diagnostics: readonly Diagnostic[], uri: string): Diagnostic[] {
  return diagnostics.map((d) =>
    d.relatedInformation ? { ...d, relatedInformation: d.relatedInformation.map((r) => ({ ...r, location: { ...r.location, uri } })) } : d,
  );
}

/** Rejects with `message()` after `ms` unless `work` settles first; always clears its timer. */
export function withTimeout<T>(work: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- Deterministic randomness ------------------------------------------------------------------------

/** mulberry32: a tiny seeded PRNG, so random tests are reproducible from their seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
