/**
 * Code actions: a quick fix for each diagnostic that has one, attached to that diagnostic, and
 * `source.fixAll.piSession`, every safe fix at once (see `fixes.ts` for which fixes are safe).
 *
 * Every action carries its `WorkspaceEdit` on the document; the server writes nothing. Fix all is
 * computed only when the client asks for a `source` kind, since it re-checks the document once per
 * round of fixes.
 */

import type { CodeAction, Diagnostic, Range } from "vscode-languageserver";
import type { SessionDocument } from "../core/document";
import { editsBetween } from "../core/diff";
import { ENTRY_ACTION_KINDS, type EntryActionOptions, entryActions } from "./entryActions";
import { applySafeFixes, quickFixes, type FixOptions } from "./fixes";
import { migrationAction } from "./migration";

export const QUICK_FIX_KIND = "quickfix";
export const FIX_ALL_KIND = "source.fixAll.piSession";
/** The kinds to announce in `codeActionProvider.codeActionKinds`. */
export const CODE_ACTION_KINDS = [QUICK_FIX_KIND, FIX_ALL_KIND, ...ENTRY_ACTION_KINDS];

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
    for (const { diagnostic, fixes } of quickFixes(doc, context.diagnostics, options)) {
      for (const fix of fixes) {
        actions.push({
          title: fix.title,
          kind: QUICK_FIX_KIND,
          diagnostics: [diagnostic],
          ...(fix.safe ? { isPreferred: true } : {}),
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
  // Resume from, drop from the context and fork, on the entry under the cursor (entryActions.ts).
  actions.push(...entryActions(doc, range, context.only, { now: options.now, random: options.random, lazyEdits: options.lazyEdits, ...entryOptions }));
  return actions;
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
