/**
 * The server's view of every session, not only the open ones: an index of the session files
 * under Pi's sessions folder and the workspace folders, built in the background after
 * `initialized` (on worker threads, reported with `$/progress`), kept current from file-system
 * events (`fs.watch` on the sessions folder, `workspace/didChangeWatchedFiles` for the workspace),
 * and read by requests without ever waiting for it.
 *
 * It answers, for `server.ts`:
 * - workspace symbols: session ids, names, labels and first messages of every indexed session,
 *   open documents answering from their current text;
 * - definition on a header's `parentSession` (the parent's header) and references on a header
 *   line (the sessions forked from it) or on its `parentSession` (the parent and its forks);
 * - the facts the diagnostics read beyond a document's text (`io/sessionFacts.ts`, gathered as
 *   `check` gathers them): where Pi keeps sessions, with the workspace folders, for `cwd-missing`
 *   and `folder-mismatch`, and the encoding of a file, read from its first bytes when it is opened.
 */

import { existsSync, type FSWatcher, watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type Connection,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type InitializeParams,
  type Location,
  type Position,
  type Range,
  type SymbolInformation,
  SymbolKind,
  type TextDocuments,
} from "vscode-languageserver/node";
import type { Encoded } from "../core/base/encoding";
import type { SessionDocument } from "../core/session/document";
import { documentPath } from "../core/base/posixPath";
import type { SessionFacts } from "../core/disk/facts";
import type { SessionLocation } from "../core/disk/location";
import { computeWorkspaceSymbols, DEFAULT_MAX_WORKSPACE_SYMBOLS, targetAt } from "../features/api";
import { fileEncoding, type FolderInputs, folderInputs, sessionFacts } from "../io/sessionFacts";
import { type IndexedSession, indexFiles, indexSessions } from "../io/workspaceIndexer";

export interface WorkspaceIndexHooks {
  initialize(params: InitializeParams): void;
  initialized(): void;
  symbols(query: string): SymbolInformation[];
  definition(doc: SessionDocument, position: Position): Location[] | undefined;
  references(doc: SessionDocument, position: Position, includeDeclaration: boolean): Location[] | undefined;
  /** What the diagnostics know of the document beyond its text, gathered as `check` gathers them. */
  facts(doc: SessionDocument): SessionFacts;
  /** The workspace folders the client named at `initialize`. */
  folders(): readonly string[];
  /** Calls `listener` when a session file changes on disk (the watchers' events, before the debounce). */
  onFilesChanged(listener: () => void): void;
  /** Resolves when the first full index is built (for tests and benchmarks). */
  ready(): Promise<void>;
  dispose(): void;
}

const UPDATE_DELAY_MS = 300;

const lineRange = (line: number, start: number, end: number): Range => ({ start: { line, character: start }, end: { line, character: end } });

/** Case-insensitive match rank, as `computeWorkspaceSymbols` ranks: 0 substring, 1 characters in order, -1 none. */
function matchRank(name: string, needle: string): number {
  if (needle === "" || name.includes(needle)) return 0;
  let i = 0;
  for (let k = 0; k < name.length && i < needle.length; k++) if (name.charCodeAt(k) === needle.charCodeAt(i)) i++;
  return i === needle.length ? 1 : -1;
}

/** The symbols of one indexed (closed) session, with its container name. */
function indexedSymbols(s: IndexedSession): { name: string; kind: SymbolKind; range: Range }[] {
  const out: { name: string; kind: SymbolKind; range: Range }[] = [];
  const sym = s.symbols;
  if (!sym) return out;
  if (sym.id) out.push({ name: `session ${sym.id.text}`, kind: SymbolKind.File, range: lineRange(sym.id.at.line, sym.id.at.start, sym.id.at.end) });
  if (sym.name) out.push({ name: sym.name.text, kind: SymbolKind.Module, range: lineRange(sym.name.at.line, sym.name.at.start, sym.name.at.end) });
  for (const label of sym.labels) out.push({ name: label.text, kind: SymbolKind.Key, range: lineRange(label.at.line, label.at.start, label.at.end) });
  if (sym.firstMessage)
    out.push({
      name: sym.firstMessage.text,
      kind: SymbolKind.String,
      range: lineRange(sym.firstMessage.at.line, sym.firstMessage.at.start, sym.firstMessage.at.end),
    });
  return out;
}

/** The folders the client names at `initialize`: its workspace folders, else its root. */
function workspaceFolders(params: InitializeParams): string[] {
  const folders: string[] = [];
  for (const f of params.workspaceFolders ?? []) {
    const path = documentPath(f.uri);
    if (path) folders.push(path);
  }
  if (folders.length === 0 && params.rootUri) {
    const path = documentPath(params.rootUri);
    if (path) folders.push(path);
  }
  return folders;
}

/** The index and its upkeep: what is indexed, the watchers, the pending re-reads. */
class WorkspaceIndex {
  readonly index = new Map<string, IndexedSession>();
  readonly folders: string[] = [];
  private readonly watchers: FSWatcher[] = [];
  private readonly pending = new Map<string, NodeJS.Timeout>();
  location: SessionLocation | undefined;
  inputs: FolderInputs | undefined;
  watchedFilesRegistration = false;
  private disposed = false;
  private markReady: () => void = () => undefined;
  /** Told of every change the watchers see (the workspace's diagnostics ask the client to pull again). */
  changed: () => void = () => undefined;
  readonly readyPromise = new Promise<void>((r) => (this.markReady = r));

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<SessionDocument>,
  ) {}

  openPaths(): Set<string> {
    return new Set(this.documents.all().flatMap((d) => documentPath(d.uri) ?? []));
  }

  /** Re-reads changed files (a debounce per file, as Pi appends line by line). */
  schedule(path: string): void {
    if (this.disposed || !path.endsWith(".jsonl")) return;
    this.changed();
    clearTimeout(this.pending.get(path));
    this.pending.set(
      path,
      setTimeout(() => {
        this.pending.delete(path);
        if (!existsSync(path)) {
          this.index.delete(path);
          return;
        }
        indexFiles([path], "1.x", { threads: 1 })
          .then(([entry]) => {
            if (this.disposed) return;
            if (entry) this.index.set(path, entry);
            else this.index.delete(path);
          })
          .catch((error: unknown) => this.tell(() => this.connection.console.warn(`indexing ${path} failed: ${String(error)}`)));
      }, UPDATE_DELAY_MS),
    );
  }

  watchFolder(dir: string): void {
    if (!existsSync(dir)) return;
    try {
      const watcher = watch(dir, { recursive: true }, (_event, name) => {
        if (name) this.schedule(join(dir, name.toString()));
      });
      watcher.on("error", () => undefined);
      this.watchers.push(watcher);
    } catch (error) {
      this.connection.console.warn(`cannot watch ${dir}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Calls the client, ignoring a connection that closed meanwhile (the index outlives no one). */
  tell(send: () => unknown): void {
    if (this.disposed) return;
    try {
      const sent = send();
      if (sent instanceof Promise) sent.catch(() => undefined);
    } catch {
      // The connection is gone: the server is stopping.
    }
  }

  async build(): Promise<void> {
    const { connection } = this;
    let progress: Awaited<ReturnType<typeof connection.window.createWorkDoneProgress>> | undefined;
    try {
      progress = await connection.window.createWorkDoneProgress();
    } catch {
      // No progress when the client refuses it or the connection closed.
    }
    this.tell(() => progress?.begin("Indexing Pi sessions", 0, "finding session files", false));
    try {
      const { location } = this;
      const sessionRoots = location ? [location.sessionsRoot, ...(location.all.kind === "flat" ? [location.all.dir] : [])] : [];
      let last = 0;
      const built = await indexSessions({
        roots: this.folders,
        sessionRoots,
        pool: {
          onProgress: (p) => {
            const now = Date.now();
            if (now - last < 200 && p.files < p.totalFiles) return;
            last = now;
            const share = p.totalBytes > 0 ? p.bytes / p.totalBytes : p.files / Math.max(1, p.totalFiles);
            this.tell(() => progress?.report(Math.min(100, Math.round(100 * share)), `${p.files}/${p.totalFiles} files`));
          },
        },
      });
      if (this.disposed) return;
      for (const [path, entry] of built.byPath) this.index.set(path, entry);
      this.tell(() =>
        connection.console.info(`indexed ${built.sessions} sessions (${built.symbols} symbols)${built.cut > 0 ? `; ${built.cut} files left out` : ""}`),
      );
    } catch (error) {
      this.tell(() => connection.console.error(`indexing sessions failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    } finally {
      this.tell(() => progress?.done());
      this.markReady();
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers) w.close();
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }
}

/** The header of a session as a location: the open document's, else the index's. */
function headerLocation(ix: WorkspaceIndex, documents: TextDocuments<SessionDocument>, path: string): Location | undefined {
  const uri = pathToFileURL(path).href;
  const open = documents.all().find((d) => documentPath(d.uri) === path);
  if (open) {
    const line = open.analysis.headerLine;
    return line === undefined ? undefined : { uri: open.uri, range: open.valueRange(line, ["id"]) };
  }
  const at = ix.index.get(path)?.symbols?.id?.at;
  return at ? { uri, range: lineRange(at.line, at.start, at.end) } : existsSync(path) ? { uri, range: lineRange(0, 0, 0) } : undefined;
}

/** Where each session forked from `parent` names it: the `parentSession` value of its header. */
function forksOf(ix: WorkspaceIndex, documents: TextDocuments<SessionDocument>, parent: string): Location[] {
  const out: Location[] = [];
  const open = new Map(documents.all().flatMap((d) => (documentPath(d.uri) ? [[documentPath(d.uri)!, d] as const] : [])));
  for (const [path, d] of open) {
    const ps = d.analysis.header?.parentSession;
    const line = d.analysis.headerLine;
    if (typeof ps === "string" && ps !== "" && line !== undefined && resolve(dirname(path), ps) === parent)
      out.push({ uri: d.uri, range: d.valueRange(line, ["parentSession"]) });
  }
  for (const s of ix.index.values()) {
    if (s.parentSession !== parent || open.has(s.path)) continue;
    const at = s.symbols?.parentSession;
    out.push({ uri: pathToFileURL(s.path).href, range: at ? lineRange(at.line, at.start, at.end) : lineRange(0, 0, 0) });
  }
  return out.sort((a, b) => a.uri.localeCompare(b.uri));
}

/** `initialized`: find where Pi keeps sessions, watch it and the workspace, and index in the background. */
function startIndexing(ix: WorkspaceIndex, connection: Connection): void {
  try {
    ix.inputs = folderInputs({ version: "1.x", cwd: ix.folders[0] ?? process.cwd() }, ix.folders);
    ix.location = ix.inputs.location;
  } catch (error) {
    connection.console.warn(`cannot tell where Pi keeps sessions: ${String(error)}`);
  }
  const { location } = ix;
  if (location) {
    ix.watchFolder(location.sessionsRoot);
    if (location.all.kind === "flat") ix.watchFolder(location.all.dir);
  }
  if (ix.watchedFilesRegistration && ix.folders.length > 0) {
    ix.tell(() => connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: "**/*.jsonl" }] }));
  }
  connection.onDidChangeWatchedFiles((params) => {
    for (const change of params.changes) {
      const path = documentPath(change.uri);
      if (!path) continue;
      if (change.type === FileChangeType.Deleted) {
        ix.index.delete(path);
        ix.changed();
      } else ix.schedule(path);
    }
  });
  // In the background: requests answer from whatever is indexed so far.
  void ix.build();
}

/** Workspace symbols: the open documents' first, then the indexed (closed) sessions' by match rank. */
function workspaceSymbols(ix: WorkspaceIndex, documents: TextDocuments<SessionDocument>, query: string): SymbolInformation[] {
  const needle = query.trim().toLowerCase();
  const max = DEFAULT_MAX_WORKSPACE_SYMBOLS;
  const fromOpen = computeWorkspaceSymbols(documents.all(), query, max);
  const open = ix.openPaths();
  const more: { symbol: SymbolInformation; rank: number }[] = [];
  for (const s of ix.index.values()) {
    if (open.has(s.path)) continue;
    const container = s.name ?? (s.id !== undefined ? `session ${s.symbols?.id?.text ?? s.id}` : basename(s.path));
    for (const c of indexedSymbols(s)) {
      const rank = matchRank(c.name.toLowerCase(), needle);
      if (rank < 0) continue;
      const symbol: SymbolInformation = { name: c.name, kind: c.kind, location: { uri: pathToFileURL(s.path).href, range: c.range } };
      if (container !== c.name) symbol.containerName = container;
      more.push({ symbol, rank });
      if (more.length >= 4 * max) break;
    }
  }
  more.sort((a, b) => a.rank - b.rank);
  return fromOpen.concat(more.map((m) => m.symbol)).slice(0, max);
}

export function attachWorkspaceIndex(connection: Connection, documents: TextDocuments<SessionDocument>): WorkspaceIndexHooks {
  const ix = new WorkspaceIndex(connection, documents);
  /** Per open document, its file's encoding, read from its first bytes once when it is first checked. */
  const encodings = new Map<string, Encoded | undefined>();
  documents.onDidClose((event) => encodings.delete(event.document.uri));

  return {
    initialize(params) {
      ix.folders.push(...workspaceFolders(params));
      ix.watchedFilesRegistration = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    },

    initialized() {
      startIndexing(ix, connection);
    },

    symbols(query) {
      return workspaceSymbols(ix, documents, query);
    },

    definition(doc, position) {
      const target = targetAt(doc, position);
      const path = documentPath(doc.uri);
      if (target?.kind !== "parent-session" || !path) return undefined;
      const parent = headerLocation(ix, documents, resolve(dirname(path), target.path));
      return parent ? [parent] : undefined;
    },

    references(doc, position, includeDeclaration) {
      const target = targetAt(doc, position);
      const path = documentPath(doc.uri);
      // The header's line is a Pi line, the position an LSP one: the two differ after a lone "\r"
      // (one inside the header's JSON whitespace, or on a line before it), so the position is mapped.
      if (!path || doc.piPosition(position)?.line !== doc.analysis.headerLine || !target) return undefined;
      if (target.kind !== "parent-session") {
        // The sessions forked from this one.
        const self = headerLocation(ix, documents, path);
        return [...(includeDeclaration && self ? [self] : []), ...forksOf(ix, documents, path)];
      }
      // On parentSession: the parent and every session forked from it, this one included.
      const parentPath = resolve(dirname(path), target.path);
      const parent = headerLocation(ix, documents, parentPath);
      return [...(includeDeclaration && parent ? [parent] : []), ...forksOf(ix, documents, parentPath)];
    },

    facts(doc) {
      // The editor sends the text it decoded, which cannot tell that the file was UTF-16: the
      // file's first bytes can, read once per opening (a file re-saved as UTF-8 is told at its next opening).
      if (!encodings.has(doc.uri)) {
        const path = documentPath(doc.uri);
        encodings.set(doc.uri, path ? fileEncoding(path) : undefined);
      }
      return sessionFacts(doc, ix.inputs, encodings.get(doc.uri));
    },

    folders: () => ix.folders,

    onFilesChanged(listener) {
      ix.changed = listener;
    },

    ready: () => ix.readyPromise,

    dispose() {
      ix.dispose();
    },
  };
}
