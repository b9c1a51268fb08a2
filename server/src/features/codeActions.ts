/**
 * Code actions: a quick fix for each diagnostic that has one, attached to that diagnostic,
 * `source.fixAll.piSession`, every safe fix at once (see `fixes.ts` for which fixes are safe), and
 * `source.piSession.fixAllUnsafe`, the unsafe fixes too (`check --fix --unsafe-fixes`).
 *
 * Every action carries its `WorkspaceEdit` on the document; the server writes nothing. Fix all is
 * computed only when the client asks for a `source` kind, since it re-checks the document once per
 * round of fixes.
 */

import type { CodeAction, Diagnostic, Range } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import { editsBetween } from "../core/edits/diff";
import { computeDiagnostics } from "./diagnostics";
import { ENTRY_ACTION_KINDS, type EntryActionOptions, entryActions } from "./entryActions";
import { quickFixes } from "./fixes";
import { applyFixes, applySafeFixes } from "./fixes/fixAll";
import type { FixOptions } from "./fixes/fixContext";
import { migrationAction } from "./migration";
import { editorRedactionKey, redactAllEdits } from "./fixes/secretFix";

export const QUICK_FIX_KIND = "quickfix";
export const FIX_ALL_KIND = "source.fixAll.piSession";
/**
 * Outside `source.fixAll` on purpose: editors apply every `source.fixAll` action on save
 * (VS Code's `codeActionsOnSave`), and the unsafe fixes guess. A request for `source` lists it.
 */
export const UNSAFE_FIX_ALL_KIND = "source.piSession.fixAllUnsafe";
/** Redacting every credential of the buffer: a source action, asked for explicitly, never applied on save. */
export const REDACT_ALL_KIND = "source.piSession.redactSecrets";
/** The kinds to announce in `codeActionProvider.codeActionKinds`. */
export const CODE_ACTION_KINDS = [QUICK_FIX_KIND, FIX_ALL_KIND, UNSAFE_FIX_ALL_KIND, REDACT_ALL_KIND, ...ENTRY_ACTION_KINDS];

export interface CodeActionRequestContext {
  diagnostics: Diagnostic[];
  only?: string[];
}

/** Whether an action of `kind` answers a request limited to `only` (LSP kinds are hierarchical). */
function wanted(kind: string, only: readonly string[] | undefined): boolean {
  if (!only) return true;
  return only.some((k) => k === "" || kind === k || kind.startsWith(`${k}.`));
}

export function computeCodeActions(
  doc: SessionDocument,
  range: Range,
  context: CodeActionRequestContext,
  options: FixOptions = {},
  entryOptions: EntryActionOptions = {},
): CodeAction[] {
  const actions: CodeAction[] = [];
  if (wanted(QUICK_FIX_KIND, context.only)) {
    for (const { diagnostic, fixes } of quickFixes(doc, withEmptyFile(doc, context.diagnostics), options)) {
      // A mend that keeps every character is preferred where no safe fix is offered: it comes before deleting the line.
      const mend = fixes.some((f) => f.safe) ? undefined : fixes.find((f) => f.preferred);
      for (const fix of fixes) {
        actions.push({
          title: fix.title,
          kind: QUICK_FIX_KIND,
          diagnostics: [diagnostic],
          ...(fix.safe || fix === mend ? { isPreferred: true } : {}),
          edit: { changes: { [doc.uri]: fix.edits } },
        });
      }
    }
  }
  // Migrating a v1/v2 file rewrites every line, so with clients that can resolve an action's edit
  // later the edit is only computed when the fix is chosen.
  if (wanted(QUICK_FIX_KIND, context.only)) {
    for (const diagnostic of context.diagnostics) {
      const action = migrationAction(doc, diagnostic, { lazy: options.lazyEdits === true });
      if (action) actions.push(action);
    }
  }
  // Only on explicit request: editors ask for quick fixes on every cursor move.
  if (context.only && wanted(FIX_ALL_KIND, context.only)) {
    const action = fixAllAction(doc, options);
    if (action) actions.push(action);
  }
  if (context.only && wanted(UNSAFE_FIX_ALL_KIND, context.only)) {
    const action = unsafeFixAllAction(doc, options);
    if (action) actions.push(action);
  }
  if (context.only && wanted(REDACT_ALL_KIND, context.only)) {
    const action = redactAllAction(doc, options);
    if (action) actions.push(action);
  }
  // Resume from, drop from the context and fork, on the entry under the cursor (entryActions.ts).
  actions.push(...entryActions(doc, range, context.only, { now: options.now, random: options.random, lazyEdits: options.lazyEdits, ...entryOptions }));
  return actions;
}

/**
 * The diagnostics of the request, plus an empty or whitespace-only file's `empty-file` when the
 * client left it out: its range is at the very start, and Eglot (Flymake) drops a zero-width
 * diagnostic in an empty buffer, so the "insert a session header" fix is offered for any range.
 */
function withEmptyFile(doc: SessionDocument, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  if (!doc.parsed.every((p) => p.kind === "blank") || diagnostics.some((d) => d.code === "empty-file")) return [...diagnostics];
  return [...diagnostics, ...computeDiagnostics(doc).filter((d) => d.code === "empty-file")];
}

/** `source.fixAll.piSession`: one edit of non-overlapping changes on the current text, or none. */
export function fixAllAction(doc: SessionDocument, options: FixOptions = {}): CodeAction | undefined {
  const { doc: fixed, fixed: codes } = applySafeFixes(doc, options);
  if (fixed === doc) return undefined;
  const edits = editsBetween(doc, fixed);
  if (edits.length === 0) return undefined;
  const what = [...codes.keys()].join(", ");
  return { title: `Fix all safe problems (${what})`, kind: FIX_ALL_KIND, edit: { changes: { [doc.uri]: edits } } };
}

/** `source.piSession.fixAllUnsafe`: Fix all with the unsafe fixes too; offered only when there is an unsafe fix to apply. */
export function unsafeFixAllAction(doc: SessionDocument, options: FixOptions = {}): CodeAction | undefined {
  const { doc: fixed, fixed: codes, unsafe } = applyFixes(doc, { ...options, unsafe: true });
  if (fixed === doc || unsafe.length === 0) return undefined;
  const edits = editsBetween(doc, fixed);
  if (edits.length === 0) return undefined;
  const what = [...codes.keys()].join(", ");
  return {
    title: `Fix all, including unsafe fixes (${what}; they guess, and may lose text)`,
    kind: UNSAFE_FIX_ALL_KIND,
    edit: { changes: { [doc.uri]: edits } },
  };
}

/** `source.piSession.redactSecrets`: every credential of the buffer replaced as `redact` replaces it; offered when there is one. */
export function redactAllAction(doc: SessionDocument, options: FixOptions = {}): CodeAction | undefined {
  const { edits, secrets } = redactAllEdits(doc, options.redactionKey ?? editorRedactionKey());
  if (edits.length === 0) return undefined;
  return {
    title: `Redact every credential in this file (${secrets === 1 ? "1 secret" : `${secrets} secrets`}; changes what the model saw)`,
    kind: REDACT_ALL_KIND,
    edit: { changes: { [doc.uri]: edits } },
  };
}
