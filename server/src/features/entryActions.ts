/**
 * Code actions on the entry under the cursor: "Resume from here", "Drop from the context" and
 * "Fork into a new session". The decisions are the core's (`core/edits/`); this file turns
 * them into LSP actions.
 *
 * Resume and drop append one line at the end of the document (a `TextEdit`), so nothing above it
 * changes. Fork creates a file: a `WorkspaceEdit` with a `CreateFile` and the text inserted into
 * it, which a client can apply only with `documentChanges` and the `create` resource operation;
 * without them the action is offered disabled with the reason (when the client shows disabled
 * actions) or not at all. The fork's text is as long as the path, so with clients that resolve an
 * action's edit later it is built only when the fork is chosen.
 */

import { pathToFileURL } from "node:url";
import type { CodeAction, Range, WorkspaceEdit } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { documentPath } from "../core/base/posixPath";
import type { Random } from "../core/base/ids";
import { appendedText, type EditClock } from "../core/edits/appendLine";
import { dropFromContextLine, isEditableTarget, OLD_PI_NOTE } from "../core/edits/dropFromContext";
import { forkBlocked, forkSession } from "../core/edits/fork";
import { resumeFromLine } from "../core/edits/resumeFrom";
import { entryTitle } from "./entryTitle";

export const RESUME_KIND = "refactor.piSession.resumeFrom";
export const DROP_KIND = "refactor.piSession.dropFromContext";
export const FORK_KIND = "refactor.extract.piSession.fork";
/** The kinds to announce besides the quick fixes. */
export const ENTRY_ACTION_KINDS = ["refactor", "refactor.extract"];

export interface EntryActionOptions {
  /** The clock for new entries' timestamps and the fork's id; default `new Date()`. */
  now?: () => Date;
  random?: Random;
  /** Whether the fork's edit may be left for `codeAction/resolve`. */
  lazyEdits?: boolean;
  /** Whether the client applies `CreateFile` operations in `documentChanges`. */
  createFiles?: boolean;
  /** Whether the client shows actions with `disabled` (else a refused fork is left out). */
  disabledSupport?: boolean;
}

/** What a lazily resolved fork carries in `data`, for `codeAction/resolve`. */
export interface ForkActionData {
  piSession: "fork";
  uri: string;
  version: number;
  /** The document's `revision` when the action was made: the line is that text's. */
  revision: number;
  line: number;
}

/** Whether an action of `kind` answers a request limited to `only` (kinds are hierarchical). */
function wanted(kind: string, only: readonly string[] | undefined): boolean {
  return !only || only.some((k) => k === "" || kind === k || kind.startsWith(`${k}.`));
}

function clockOf(options: EntryActionOptions): EditClock {
  return { now: options.now ? options.now() : new Date(), random: options.random };
}

/** The entry on the line where `range` starts, if that line is an entry. */
function entryAt(doc: SessionDocument, range: Range): Entry | undefined {
  return doc.analysis.entryAtLine[doc.toPi(range.start).line];
}

/** The actions on the entry under the cursor, limited to the kinds asked for. */
export function entryActions(doc: SessionDocument, range: Range, only: readonly string[] | undefined, options: EntryActionOptions = {}): CodeAction[] {
  const entry = entryAt(doc, range);
  if (!entry) return [];
  const actions: CodeAction[] = [];
  const clock = clockOf(options);
  const where = `line ${entry.line + 1}, ${entryTitle(entry)}`;
  if (wanted(RESUME_KIND, only)) {
    const resume = resumeFromLine(doc, entry, clock);
    if (resume.ok) {
      // A file only one Pi reads (a byte order mark: Pi 1.x refuses it) is resumed by that one alone: the title says which.
      const who = resume.warning ? `Pi ${resume.warning.only === "0.74" ? "0.73/0.74" : "1.x"} only; the other Pi refuses this file` : undefined;
      actions.push({
        title: `Resume from here (${where}): append a line Pi resumes from${who ? ` (${who})` : ""}`,
        kind: RESUME_KIND,
        edit: appendEdit(doc, resume.line),
      });
    }
  }
  if (wanted(DROP_KIND, only) && isEditableTarget(entry)) {
    const drop = dropFromContextLine(doc, entry, clock);
    if (drop.ok)
      actions.push({
        title: `Drop from the context, keeping the history (Pi 1.x; ${OLD_PI_NOTE})`,
        kind: DROP_KIND,
        edit: appendEdit(doc, drop.line),
      });
  }
  if (wanted(FORK_KIND, only)) {
    const fork = forkAction(doc, entry, where, options);
    if (fork) actions.push(fork);
  }
  return actions;
}

function appendEdit(doc: SessionDocument, line: string): WorkspaceEdit {
  const last = doc.lineCount - 1;
  const end = doc.position(last, doc.lines[last]!.length);
  return { changes: { [doc.uri]: [{ range: { start: end, end }, newText: appendedText(doc, line) }] } };
}

function sourcePath(doc: SessionDocument): string | undefined {
  return documentPath(doc.uri);
}

function forkAction(doc: SessionDocument, entry: Entry, where: string, options: EntryActionOptions): CodeAction | undefined {
  const title = `Fork into a new session up to here (${where})`;
  const source = sourcePath(doc);
  if (source === undefined) return undefined;
  if (!options.createFiles) {
    if (!options.disabledSupport) return undefined;
    return {
      title,
      kind: FORK_KIND,
      disabled: { reason: "this editor cannot create files from a code action (workspaceEdit.resourceOperations has no create)" },
    };
  }
  if (options.lazyEdits) {
    // Only the cheap checks here; the text is built on resolve.
    if (forkBlocked(doc, entry, source)) return undefined;
    const data: ForkActionData = { piSession: "fork", uri: doc.uri, version: doc.version, revision: doc.revision, line: entry.line };
    return { title, kind: FORK_KIND, data };
  }
  const edit = forkEdit(doc, entry, source, options);
  return edit ? { title, kind: FORK_KIND, edit } : undefined;
}

function forkEdit(doc: SessionDocument, entry: Entry, source: string, options: EntryActionOptions): WorkspaceEdit | undefined {
  const fork = forkSession(doc, entry, source, clockOf(options));
  if (!fork.ok) return undefined;
  const uri = pathToFileURL(fork.path).href;
  const start = { line: 0, character: 0 };
  return {
    documentChanges: [
      { kind: "create", uri, options: { overwrite: false, ignoreIfExists: false } },
      { textDocument: { uri, version: null }, edits: [{ range: { start, end: start }, newText: fork.text }] },
    ],
  };
}

export function isForkActionData(data: unknown): data is ForkActionData {
  return data !== null && typeof data === "object" && (data as ForkActionData).piSession === "fork";
}

/**
 * Fills in a lazy fork's edit; an action from another text of the document gets none. The
 * revision is compared, not the version: after a change that kept the version, or a close and a
 * reopen at the same version, the action's line may hold another entry, and the fork would stop
 * at an entry the user did not choose.
 */
export function resolveForkAction(doc: SessionDocument, action: CodeAction, options: EntryActionOptions = {}): CodeAction {
  const data = action.data;
  if (!isForkActionData(data) || data.uri !== doc.uri || data.revision !== doc.revision) return action;
  const entry = doc.analysis.entryAtLine[data.line];
  const source = sourcePath(doc);
  if (!entry || source === undefined) return action;
  const edit = forkEdit(doc, entry, source, options);
  return edit ? { ...action, edit } : action;
}
