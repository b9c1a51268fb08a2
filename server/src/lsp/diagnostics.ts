/**
 * Diagnostics over the protocol: pulled (`textDocument/diagnostic`) when the client supports it,
 * pushed (`textDocument/publishDiagnostics`) otherwise (Neovim before 0.10, Vim/ALE, Eglot, Helix).
 *
 * The edit loop has no fixed delay. After a change the work waits only for the messages already
 * queued: a check is deferred twice through `setImmediate`, which lets the JSON-RPC library handle
 * every change it has already read (it handles one message per tick); when the document is still
 * at the revision the check was scheduled for (`SessionDocument.revision`, which every change
 * raises, whatever the version does), the burst is over and the diagnostics are computed once. A
 * single edit is therefore answered at once and fast typing computes once per pause.
 *
 * Nothing unchanged is sent again. Each document keeps the last list it computed: a push is skipped
 * when the new list equals it, and a pull whose `previousResultId` names it is answered
 * "unchanged". Result ids are drawn from one counter, never derived from the version (versions
 * restart when a document is reopened, and a client may send a smaller one).
 *
 * A large session is answered in two parts when it is opened (`STAGED_OPEN_CHARS`): first its
 * structural diagnostics (`collectStructuralDiagnostics`: malformed lines, the header, ids,
 * duplicates, dangling parents, cycles), which need only the parsed lines and the analysis; then,
 * computed as steps a slice at a time so that requests are answered in between, the complete list,
 * which a pushing client gets as a second publish and a pulling client is asked to pull again
 * (`workspace/diagnostic/refresh`, as VS Code's own servers do). A pulling client that cannot be
 * asked again gets the complete list at once, as does every small session, whose checks are fast.
 *
 * So is an edit after the idle release (`memory.ts`) on a line the released contexts read, the
 * newest messages, which would otherwise build both Pi versions' contexts and requests again before
 * its answer (270 ms pushed on the 45 MB session): it is answered at once with the provider
 * request's findings the edit leaves standing and every other check made anew
 * (`DiagnosticsSource.provisional`), and the complete list follows in the same way, sent only when
 * it differs.
 */

import { type Connection, type Diagnostic, DocumentDiagnosticReportKind, type DocumentDiagnosticReport } from "vscode-languageserver";
import type { Steps } from "../core/base/steps";
import type { SessionDocument } from "../core/session/document";
import { REDERIVE_QUIET_MS } from "./memory";

/**
 * From this many UTF-16 code units a document's first diagnostics are its structural ones, and the
 * rest follow. On a 45 MB session the checks beyond the structure (both Pi versions' context and
 * provider request, the tool results, the fading hints) cost as much again as parsing its lines;
 * below a few megabytes they take tens of milliseconds, not worth a second answer.
 */
export const STAGED_OPEN_CHARS = 2_000_000;

/**
 * The size from which an open is answered in two parts: `STAGED_OPEN_CHARS`, or the number in
 * `$PI_SESSION_LSP_STAGED_OPEN_CHARS` (the tests set 0, to hold small fixtures to the same rules).
 */
export function stagedOpenChars(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.PI_SESSION_LSP_STAGED_OPEN_CHARS);
  return env.PI_SESSION_LSP_STAGED_OPEN_CHARS !== undefined && env.PI_SESSION_LSP_STAGED_OPEN_CHARS !== "" && Number.isInteger(asked) && asked >= 0
    ? asked
    : STAGED_OPEN_CHARS;
}

/**
 * How long after an edit answered with a provisional list, with no edit since, its complete list is
 * computed: the time `memory.ts` waits before deriving again what the idle release let go, which
 * kept keystrokes 150 ms apart from waiting for that work (measured over stdio on the 45 MB session).
 */
export const COMPLETE_AFTER_QUIET_MS = REDERIVE_QUIET_MS;

export interface DiagnosticsSource {
  /** What the editor shows for a document: the checker's diagnostics, fading hints and settings applied. */
  compute(document: SessionDocument): Diagnostic[];
  /**
   * `compute`'s list at once, for an edit after the idle release that `compute` would answer by
   * building again what the release let go (`collectProvisionalDiagnostics`): the provider
   * request's findings those lines leave standing, until the complete list replaces them.
   * Undefined when `compute` needs nothing built again.
   */
  provisional(document: SessionDocument): Diagnostic[] | undefined;
  /** The structural diagnostics alone, settings applied: a large session's first answer. */
  structural(document: SessionDocument): Diagnostic[];
  /** `compute` as steps. */
  steps(document: SessionDocument): Steps<Diagnostic[]>;
  /** Runs steps a slice at a time, letting other messages in; rejects once `stillValid` is false. */
  drive(steps: Steps<Diagnostic[]>, stillValid: () => boolean): Promise<Diagnostic[]>;
  /** The open document of a URI, if any. */
  get(uri: string): SessionDocument | undefined;
  /** Every open document. */
  all(): SessionDocument[];
  /** Logs a failure. */
  error(message: string): void;
}

interface Published {
  /** The document object and revision (`SessionDocument.revision`) the list was computed from. */
  document: SessionDocument;
  revision: number;
  /** The settings generation it was computed with. */
  generation: number;
  items: Diagnostic[];
  resultId: string;
  /**
   * A part of the list, while the complete list is computed: a large open's structural diagnostics
   * (always followed by the complete list, which its client waits for), or an edit's provisional
   * list (followed by the complete list only when it differs).
   */
  partial?: "first part" | "provisional";
}

export class DiagnosticsService {
  private readonly last = new Map<string, Published>();
  private readonly scheduled = new Map<string, number>();
  private nextResultId = 1;
  /** Bumped when a setting changes what diagnostics contain. */
  private generation = 0;

  constructor(
    private readonly connection: Connection,
    private readonly source: DiagnosticsSource,
    readonly pull: boolean,
    /** The client re-pulls when asked (`workspace.diagnostics.refreshSupport`). */
    private readonly refreshSupport = false,
    private readonly stagedFrom = stagedOpenChars(),
  ) {}

  /** A document was opened or changed: pushed diagnostics follow once the queued messages are handled. */
  changed(document: SessionDocument): void {
    if (this.pull) return;
    const uri = document.uri;
    // The revision, not the version: a change that keeps the version still changes the text.
    const revision = document.revision;
    if (this.scheduled.get(uri) === revision) return;
    this.scheduled.set(uri, revision);
    // Twice deferred: the first `setImmediate` runs before the library's next queued message, the
    // second after it.
    setImmediate(() => setImmediate(() => this.settle(uri, revision)));
  }

  private settle(uri: string, revision: number): void {
    const document = this.source.get(uri);
    if (!document || this.scheduled.get(uri) !== revision) return;
    if (document.revision !== revision) {
      // More changes came in meanwhile; wait for them to end.
      this.scheduled.delete(uri);
      this.changed(document);
      return;
    }
    this.scheduled.delete(uri);
    this.push(document);
  }

  private push(document: SessionDocument): void {
    const items = this.current(document);
    if (!items.fresh) return;
    void this.connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: items.items });
  }

  /** The document's diagnostics, and whether they differ from the last list sent or answered. */
  private current(document: SessionDocument): { items: Diagnostic[]; fresh: boolean; resultId: string } {
    const previous = this.last.get(document.uri);
    // Keyed on the revision: a client that sends a change without raising the version (or with an
    // earlier one) must not be answered with the list of the text before it.
    if (previous && previous.document === document && previous.revision === document.revision && previous.generation === this.generation) {
      return { items: previous.items, fresh: false, resultId: previous.resultId };
    }
    if (!previous && this.staged(document)) return this.answerFirst(document);
    const provisional = previous && this.takesRest() ? this.provisionalOf(document) : undefined;
    if (provisional) return this.answerPartly(document, provisional, previous);
    let items: Diagnostic[];
    try {
      items = this.source.compute(document);
    } catch (error) {
      this.failed(error);
      items = previous?.items ?? [];
    }
    return this.remember(document, previous, items);
  }

  /** Keeps `items` as the document's list, with a new result id unless they equal the last list. */
  private remember(document: SessionDocument, previous: Published | undefined, items: Diagnostic[]): { items: Diagnostic[]; fresh: boolean; resultId: string } {
    const same = previous !== undefined && !previous.partial && sameDiagnostics(previous.items, items);
    const resultId = same ? previous.resultId : String(this.nextResultId++);
    this.last.set(document.uri, { document, revision: document.revision, generation: this.generation, items: same ? previous.items : items, resultId });
    return { items, fresh: !same, resultId };
  }

  /** Whether a just opened document gets its structural diagnostics first: a large one, and a client that will take the rest. */
  private staged(document: SessionDocument): boolean {
    return document.textLength() >= this.stagedFrom && this.takesRest();
  }

  /** Whether the client takes a list that follows the answer: a pushing client, or a pulling one that can be asked to pull again. */
  private takesRest(): boolean {
    return !this.pull || this.refreshSupport;
  }

  /** The structural diagnostics as the first answer, and the complete list started in the background. */
  private answerFirst(document: SessionDocument): { items: Diagnostic[]; fresh: boolean; resultId: string } {
    let items: Diagnostic[];
    try {
      items = this.source.structural(document);
    } catch (error) {
      // Without a first part the complete list is computed now, as for a small document.
      this.failed(error);
      return this.remember(document, undefined, this.source.compute(document));
    }
    return this.answerPartly(document, items);
  }

  /** The source's provisional list of an edited document, if it has one; a failure leaves the complete list to be computed now. */
  private provisionalOf(document: SessionDocument): Diagnostic[] | undefined {
    try {
      return this.source.provisional(document);
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  /**
   * `items` as the answer for now, and the complete list started in the background: at once for an
   * open's first part (no `previous`), after `COMPLETE_AFTER_QUIET_MS` without an edit for an edit's
   * provisional list. A provisional list equal to `previous` keeps its result id and is not sent again.
   */
  private answerPartly(document: SessionDocument, items: Diagnostic[], previous?: Published): { items: Diagnostic[]; fresh: boolean; resultId: string } {
    const same = previous !== undefined && sameDiagnostics(previous.items, items);
    const resultId = same ? previous.resultId : String(this.nextResultId++);
    this.last.set(document.uri, {
      document,
      revision: document.revision,
      generation: this.generation,
      items: same ? previous.items : items,
      resultId,
      partial: previous ? "provisional" : "first part",
    });
    // For the text and settings of this answer, so that an edit or a setting handled meanwhile ends it.
    const { revision } = document;
    const generation = this.generation;
    const complete = () => void this.complete(document, revision, generation);
    if (previous) {
      // Once typing pauses: each slice of the work holds the thread for up to a context's building
      // (about 100 ms on the 45 MB session), which the next keystroke of a burst would wait for.
      setTimeout(complete, COMPLETE_AFTER_QUIET_MS).unref?.();
    } else {
      // Once this answer is on its way, so that the first slice does not hold it back. The library
      // writes an answer or a notification from a `setImmediate` of its own, queued after this one
      // returns: one turn more lets it go first (with one, the answer waited for a slice).
      setImmediate(() => setImmediate(complete));
    }
    return { items, fresh: !same, resultId };
  }

  /**
   * Computes the complete list a slice at a time, then publishes it or asks the client to pull it.
   * An edit, a close or a setting that changes the list meanwhile ends the work: the next push or
   * pull then computes the list of the new text as for any edit.
   */
  private async complete(document: SessionDocument, revision: number, generation: number): Promise<void> {
    const { uri } = document;
    const stillValid = () => this.source.get(uri) === document && document.revision === revision && this.generation === generation;
    // A close, an edit or a setting handled before this turn ends the work before its first slice
    // (the driver asks only between slices, and the first builds a large session's contexts).
    if (!stillValid()) return;
    let items: Diagnostic[];
    try {
      items = await this.source.drive(this.source.steps(document), stillValid);
    } catch (error) {
      // Ended because the document changed, or failed: the first part stays the answer.
      if (!stillValid()) return;
      this.failed(error);
      items = this.last.get(uri)?.items ?? [];
    }
    if (!stillValid()) return;
    const partial = this.last.get(uri);
    // The provisional list the client holds was complete after all (typing that changed no
    // provider request's finding): it is marked so, with its result id, and not sent again.
    if (partial?.partial === "provisional" && sameDiagnostics(partial.items, items)) {
      partial.partial = undefined;
      return;
    }
    this.remember(document, partial, items);
    if (this.pull) void this.connection.languages.diagnostics.refresh();
    else void this.connection.sendDiagnostics({ uri, version: document.version, diagnostics: items });
  }

  private failed(error: unknown): void {
    this.source.error(`computing diagnostics failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  /** Whether the complete list of the document as it is now was made (not only a large open's first part). */
  isComplete(document: SessionDocument): boolean {
    const last = this.last.get(document.uri);
    return last !== undefined && !last.partial && last.document === document && last.revision === document.revision;
  }

  /** Answers `textDocument/diagnostic`. */
  report(uri: string, previousResultId: string | undefined): DocumentDiagnosticReport {
    const document = this.source.get(uri);
    if (!document) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const { items, resultId } = this.current(document);
    // A client that already holds this list is told it is unchanged instead of receiving it again.
    if (previousResultId !== undefined && previousResultId === resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
    return { kind: DocumentDiagnosticReportKind.Full, resultId, items };
  }

  /** A setting changed what diagnostics contain: every open document's are redone. */
  settingsChanged(refreshSupport: boolean): void {
    this.generation++;
    if (this.pull) {
      if (refreshSupport) void this.connection.languages.diagnostics.refresh();
      return;
    }
    for (const document of this.source.all()) this.changed(document);
  }

  closed(uri: string): void {
    this.last.delete(uri);
    this.scheduled.delete(uri);
    if (!this.pull) void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}

/** Whether two diagnostic lists are equal, member by member (lists are in reading order). */
export function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    // Kept findings and hints are the same objects from one version to the next.
    if (x === y) continue;
    if (
      x.message !== y.message ||
      x.code !== y.code ||
      x.severity !== y.severity ||
      !sameRange(x.range, y.range) ||
      !sameTags(x.tags, y.tags) ||
      !sameRelated(x.relatedInformation, y.relatedInformation)
    )
      return false;
  }
  return true;
}

function sameRange(x: Diagnostic["range"], y: Diagnostic["range"]): boolean {
  return x.start.line === y.start.line && x.start.character === y.start.character && x.end.line === y.end.line && x.end.character === y.end.character;
}

function sameTags(x: readonly number[] | undefined, y: readonly number[] | undefined): boolean {
  if (x === y) return true;
  if (!x || !y || x.length !== y.length) return false;
  return x.every((t, i) => t === y[i]);
}

function sameRelated(x: Diagnostic["relatedInformation"], y: Diagnostic["relatedInformation"]): boolean {
  if (x === y) return true;
  if (!x || !y || x.length !== y.length) return false;
  return x.every((r, i) => r.message === y[i]!.message && r.location.uri === y[i]!.location.uri && sameRange(r.location.range, y[i]!.location.range));
}
