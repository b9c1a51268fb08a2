/**
 * `workspace/diagnostic` (LSP 3.17's workspace pull): the problems of the session files that are
 * not open, so that an editor's problem list shows which sessions Pi will refuse, hang on or fail
 * to send without opening them. The files are those of Pi's folder for each workspace folder (the
 * project's sessions, as `check` with no path finds them) and the `*.jsonl` files of the workspace
 * folders themselves (as the index finds them). Open documents are left out: they answer through
 * `textDocument/diagnostic`, which the specification prefers for an open document.
 *
 * Each file's report is what `check FILE` says of it (`fileCheck.ts`, the same facade), with the
 * user's severity overrides applied as they are to open documents. An unchanged file costs a
 * `stat`: its result id is made of what `lstat` tells (device, inode, size, modification and
 * change times, in nanoseconds) and of what else decides the answer (the server's version, the
 * overrides), so that a file whose id the client sends back is answered `unchanged` without being
 * read. The files to check are checked on worker threads (`io/scanPool.ts`, even a single one, so
 * that the server's thread answers the editor meanwhile), newest first, and each report is sent as
 * a partial result as soon as it is known when the client gave a `partialResultToken`.
 *
 * The work is bounded: at most `maxFiles` files are listed, at most `maxMiB` of them are read in one
 * pull (the others wait for the next pull, which a client such as VS Code sends every few seconds),
 * a file larger than that alone is never read (and said so, once, in the log), and only regular
 * files are read: a link or a FIFO named `x.jsonl` is skipped (a FIFO would block a read, a link
 * may lead anywhere).
 */

import { type BigIntStats, lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type CancellationToken,
  type Connection,
  DocumentDiagnosticReportKind,
  LSPErrorCodes,
  ResponseError,
  type TextDocuments,
  WorkDoneProgress,
  WorkspaceDiagnosticRequest,
  type WorkspaceDiagnosticParams,
  type WorkspaceDiagnosticReport,
  type WorkspaceDocumentDiagnosticReport,
} from "vscode-languageserver";
import { documentPath } from "../core/base/posixPath";
import { groupDigits } from "../core/base/text";
import type { SessionDocument } from "../core/session/document";
import { applySeverityOverrides } from "../features/api/diagnostics";
import { kindOf } from "../io/lineReader";
import { probeHeader } from "../io/scanFile";
import { defaultThreads } from "../io/poolThreads";
import { runPool } from "../io/scanPool";
import { jsonlFiles } from "../io/workspaceIndexer";
import { checkFile, type FileCheckResult, type FileCheckTask } from "./fileCheck";
import type { Settings } from "./settings";
import { piFolderFiles, resultPrefix } from "./workspaceFiles";

/** What the service reads of the server: its connection, documents, settings and folders. */
export interface WorkspaceDiagnosticsHost {
  readonly connection: Connection;
  readonly documents: TextDocuments<SessionDocument>;
  settings(): Settings;
  /** The workspace folders the client named at `initialize`. */
  folders(): readonly string[];
  /** Whether the client takes `workspace/diagnostic/refresh`. */
  refreshSupport(): boolean;
}

/** A session file found for the pull, with what its result id is made of. */
interface Candidate {
  path: string;
  /** Whether it lies in Pi's folder (else in the workspace, where only files with a session header are checked). */
  inPiFolder: boolean;
  uri: string;
  size: number;
  mtimeMs: number;
  resultId: string;
}

/** How deep the workspace folders are searched, as the index searches them. */
const WORKSPACE_DEPTH = 12;
const WORKER_SCRIPT = join(__dirname, "fileCheckWorker.js");
/** How long file events are gathered before the client is asked to pull again. */
const REFRESH_DELAY_MS = 500;
/** At most this many paths are remembered as told (skipped, too large), so that each is logged once. */
const MAX_TOLD = 10_000;

const MIB = 1024 * 1024;
/** Partial results are sent at most this often, or once this many reports wait. */
const BATCH_MS = 100;
const BATCH_ITEMS = 500;
/**
 * One pull sends at most about this many diagnostics: a folder of small files each broken on every
 * line (a thousand diagnostics from 2 KB) would otherwise fill the client and the server's memory.
 * The files not yet reported are checked by the next pull.
 */
const MAX_PULL_DIAGNOSTICS = 100_000;
/** How long the workspace folders' listing is kept when no file event says it changed. */
const LISTING_TTL_MS = 60_000;

export class WorkspaceDiagnostics {
  private readonly told = new Set<string>();
  /** Whether a large file of the workspace is a session, by result id (`hasHeader`). */
  private readonly headers = new Map<string, boolean>();
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The `*.jsonl` files of the workspace folders, listed again after a file event or `LISTING_TTL_MS`. */
  private listing: { key: string; paths: string[]; at: number } | undefined;

  constructor(private readonly host: WorkspaceDiagnosticsHost) {}

  /** Files changed on disk: the client is asked to pull again, once the burst of events is over. */
  filesChanged(): void {
    this.listing = undefined;
    if (!this.host.refreshSupport()) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.host.connection.languages.diagnostics.refresh().catch(() => undefined);
    }, REFRESH_DELAY_MS);
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
  }

  /** Answers `workspace/diagnostic`. */
  async pull(params: WorkspaceDiagnosticParams, token: CancellationToken): Promise<WorkspaceDiagnosticReport> {
    const settings = this.host.settings();
    if (!settings.workspaceDiagnostics) return { items: [] };
    const progress = this.progress(params.workDoneToken);
    progress.begin();
    const cancelled = () => new ResponseError(LSPErrorCodes.RequestCancelled, "the request was cancelled");
    try {
      const prefix = resultPrefix(settings);
      const listed = await this.list(settings.workspaceDiagnosticsMaxFiles, prefix);
      if (token.isCancellationRequested) throw cancelled();
      const plan = this.plan(listed.files, params.previousResultIds, settings.workspaceDiagnosticsMaxMiB * MIB);
      const out = this.output(params.partialResultToken);
      out.send(plan.ready);
      const checked = await this.check(plan.toCheck, token, settings, (done) => {
        out.send([done]);
        progress.report(plan.toCheck.length);
      });
      if (!checked) throw cancelled();
      const summary = this.summary(listed, plan, checked);
      progress.end(summary);
      if (plan.toCheck.length > 0 || plan.deferred > 0 || listed.cut > 0) this.host.connection.console.log(`workspace diagnostics: ${summary}`);
      return { items: out.final() };
    } catch (error) {
      progress.end(token.isCancellationRequested ? "cancelled" : "failed");
      if (token.isCancellationRequested) throw cancelled();
      throw error;
    }
  }

  /** The session files of the workspace's Pi folders and of the workspace itself, regular files only, each once. */
  private async list(max: number, prefix: string): Promise<{ files: Candidate[]; cut: number }> {
    const paths: string[] = [];
    const seen = new Set<string>();
    const inPi = new Set<string>();
    const add = (path: string) => {
      if (seen.has(path)) return;
      seen.add(path);
      paths.push(path);
    };
    for (const folder of this.host.folders()) for (const path of piFolderFiles(folder)) add(path);
    for (const path of paths) inPi.add(path);
    for (const path of await this.workspaceFiles(max)) add(path);
    const files: Candidate[] = [];
    const inodes = new Set<string>();
    for (const path of paths) {
      if (files.length >= max) break;
      let stat: BigIntStats;
      try {
        stat = lstatSync(path, { bigint: true });
      } catch {
        continue; // Removed since it was listed.
      }
      if (!stat.isFile()) {
        this.tell(path, `not checked: ${path} is ${kindOf(stat as unknown as Stats)}, not a regular file (links and FIFOs are not followed)`);
        continue;
      }
      const inode = `${stat.dev}:${stat.ino}`;
      if (inodes.has(inode)) continue;
      inodes.add(inode);
      const resultId = `${prefix}:${inode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
      files.push({ path, inPiFolder: inPi.has(path), uri: pathToFileURL(path).href, size: Number(stat.size), mtimeMs: Number(stat.mtimeMs), resultId });
    }
    return { files, cut: Math.max(0, paths.length - files.length) };
  }

  /**
   * The `*.jsonl` files of the workspace folders (regular files only), kept between pulls: a client
   * such as VS Code pulls every few seconds, and a large workspace is not walked each time. The
   * index's watchers drop the list when a session file changes (`filesChanged`).
   */
  private async workspaceFiles(max: number): Promise<string[]> {
    const folders = this.host.folders();
    const key = JSON.stringify([folders, max]);
    const now = performance.now();
    if (this.listing?.key === key && now - this.listing.at < LISTING_TTL_MS) return this.listing.paths;
    const paths: string[] = [];
    for (const folder of folders) paths.push(...(await jsonlFiles(folder, WORKSPACE_DEPTH, max + 1)));
    this.listing = { key, paths, at: now };
    return paths;
  }

  /** Which files are answered at once (unchanged, gone) and which are read, within the byte budget. */
  private plan(files: Candidate[], previousResultIds: WorkspaceDiagnosticParams["previousResultIds"], budget: number) {
    const previous = new Map(previousResultIds.map((p) => [p.uri, p.value]));
    const open = new Set(this.host.documents.all().map((d) => d.uri));
    const openPaths = new Set(this.host.documents.all().flatMap((d) => documentPath(d.uri) ?? []));
    const ready: WorkspaceDocumentDiagnosticReport[] = [];
    const changed: Candidate[] = [];
    const listed = new Set<string>();
    for (const file of files) {
      listed.add(file.uri);
      if (openPaths.has(file.path)) continue;
      if (previous.get(file.uri) === file.resultId)
        ready.push({ kind: DocumentDiagnosticReportKind.Unchanged, uri: file.uri, resultId: file.resultId, version: null });
      else changed.push(file);
    }
    const unchanged = ready.length;
    // A file the client holds problems for that is gone (or no longer a session here): its list is emptied.
    for (const uri of previous.keys())
      if (!listed.has(uri) && !open.has(uri)) ready.push({ kind: DocumentDiagnosticReportKind.Full, uri, items: [], version: null });
    changed.sort((a, b) => b.mtimeMs - a.mtimeMs);
    const toCheck: Candidate[] = [];
    let left = budget;
    let deferred = 0;
    let tooLarge = 0;
    for (const file of changed) {
      if (file.size > budget) {
        // A large `*.jsonl` of the workspace is as likely a data set: it is said too large only when it is a session.
        if (!file.inPiFolder && !this.hasHeader(file)) continue;
        tooLarge++;
        this.tell(
          file.path,
          `not checked: ${file.path} is ${mib(file.size)}, more than the ${mib(budget)} read in one pull (piSession.workspaceDiagnosticsMaxMiB); run pi-session-lsp check on it`,
        );
      } else if (file.size <= left) {
        toCheck.push(file);
        left -= file.size;
      } else deferred++;
    }
    return { ready, toCheck, unchanged, deferred, tooLarge };
  }

  /**
   * Checks the files on the pool, handing each report over as it arrives; undefined once cancelled.
   * Past `MAX_PULL_DIAGNOSTICS` the pool is stopped and the files not reported wait for the next pull.
   */
  private async check(
    files: Candidate[],
    token: CancellationToken,
    settings: Settings,
    done: (report: WorkspaceDocumentDiagnosticReport) => void,
  ): Promise<{ reported: Candidate[]; stopped: boolean } | undefined> {
    const reported: Candidate[] = [];
    if (files.length === 0) return { reported, stopped: false };
    const folders = this.host.folders();
    const tasks: FileCheckTask[] = files.map((f) => ({ path: f.path, cwd: folders[0] ?? process.cwd(), folders, sessionsOnly: !f.inPiFolder }));
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    const wanted = defaultThreads();
    let diagnostics = 0;
    let stopped = false;
    const onResult = (index: number, result: FileCheckResult) => {
      if (token.isCancellationRequested || stopped) return;
      const file = files[index]!;
      if (result.error) this.host.connection.console.warn(`workspace diagnostics: ${file.path}: ${result.error}`);
      const items = applySeverityOverrides(result.diagnostics, settings.severity);
      reported.push(file);
      diagnostics += items.length;
      done({ kind: DocumentDiagnosticReportKind.Full, uri: file.uri, resultId: file.resultId, version: null, items });
      if (diagnostics >= MAX_PULL_DIAGNOSTICS && reported.length < files.length) {
        stopped = true;
        abort.abort();
      }
    };
    try {
      // One thread fewer than the cores, leaving one to the editor's requests; on workers even for
      // one file; the results are taken as they come, not kept.
      const threads = wanted <= 1 ? wanted : wanted - 1;
      await runPool(
        tasks,
        { script: WORKER_SCRIPT, here: checkFile, onResult },
        { threads, sizes: files.map((f) => f.size), signal: abort.signal, offThread: true, keepResults: false },
      );
    } catch (error) {
      if (!stopped && !token.isCancellationRequested) throw error;
    } finally {
      listener.dispose();
    }
    return token.isCancellationRequested ? undefined : { reported, stopped };
  }

  private summary(
    listed: { files: Candidate[]; cut: number },
    plan: ReturnType<WorkspaceDiagnostics["plan"]>,
    checked: { reported: Candidate[]; stopped: boolean },
  ): string {
    const bytes = checked.reported.reduce((n, f) => n + f.size, 0);
    const parts = [`${listed.files.length} files`, `${plan.unchanged} unchanged`, `${checked.reported.length} checked (${groupDigits(bytes)} bytes read)`];
    if (checked.stopped)
      parts.push(
        `${plan.toCheck.length - checked.reported.length} left for the next pull (one pull sends about ${groupDigits(MAX_PULL_DIAGNOSTICS)} diagnostics)`,
      );
    if (plan.deferred > 0) parts.push(`${plan.deferred} left for the next pull (piSession.workspaceDiagnosticsMaxMiB)`);
    if (plan.tooLarge > 0) parts.push(`${plan.tooLarge} too large to check in the background`);
    if (listed.cut > 0) parts.push(`${listed.cut} left out (piSession.workspaceDiagnosticsMaxFiles)`);
    return parts.join(", ");
  }

  /** Whether a file starts with a session header, read once per version of the file (its result id). */
  private hasHeader(file: Candidate): boolean {
    let known = this.headers.get(file.resultId);
    if (known === undefined) {
      if (this.headers.size >= MAX_TOLD) this.headers.clear();
      known = probeHeader(file.path, file.size).header !== undefined;
      this.headers.set(file.resultId, known);
    }
    return known;
  }

  /** Logs a note on a path once. */
  private tell(path: string, message: string): void {
    if (this.told.has(path) || this.told.size >= MAX_TOLD) return;
    this.told.add(path);
    this.host.connection.console.info(`workspace diagnostics: ${message}`);
  }

  /**
   * Where reports go: as partial results when the client gave a token (the final answer then
   * empty), else gathered. Partial results go in batches (the first at once, so that the editor
   * shows something early; then every `BATCH_MS` or `BATCH_ITEMS`), so that a folder of thousands of
   * small sessions is not thousands of messages.
   */
  private output(partialResultToken: WorkspaceDiagnosticParams["partialResultToken"]) {
    const gathered: WorkspaceDocumentDiagnosticReport[] = [];
    const queue: WorkspaceDocumentDiagnosticReport[] = [];
    const { connection } = this.host;
    let flushed: number | undefined;
    const flush = () => {
      if (queue.length === 0) return;
      flushed = performance.now();
      const items = queue.splice(0);
      if (partialResultToken === undefined) gathered.push(...items);
      else void connection.sendProgress(WorkspaceDiagnosticRequest.partialResult, partialResultToken, { items }).catch(() => undefined);
    };
    return {
      send: (items: WorkspaceDocumentDiagnosticReport[]) => {
        queue.push(...items);
        if (flushed === undefined || queue.length >= BATCH_ITEMS || performance.now() - flushed >= BATCH_MS) flush();
      },
      final: () => {
        flush();
        return gathered;
      },
    };
  }

  /** The client's work-done progress for this pull, when it gave a token. */
  private progress(workDoneToken: WorkspaceDiagnosticParams["workDoneToken"]) {
    const { connection } = this.host;
    const send = (value: Parameters<typeof connection.sendProgress<unknown>>[2]) => {
      if (workDoneToken !== undefined) void connection.sendProgress(WorkDoneProgress.type, workDoneToken, value as never).catch(() => undefined);
    };
    let done = 0;
    return {
      begin: () => send({ kind: "begin", title: "Checking Pi sessions", cancellable: true, percentage: 0 }),
      report: (total: number) => {
        done++;
        send({ kind: "report", message: `${done}/${total} files checked`, percentage: Math.round((100 * done) / Math.max(1, total)) });
      },
      end: (message: string) => send({ kind: "end", message }),
    };
  }
}

function mib(bytes: number): string {
  return `${groupDigits(Math.round(bytes / MIB))} MiB`;
}
