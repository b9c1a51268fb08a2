/**
 * Repairs: the quick fixes of single diagnostics, the safe fixes applied all at once
 * (`source.fixAll` and `check --fix`), and a line diff that turns a repaired copy back into
 * non-overlapping `TextEdit`s or a unified diff.
 *
 * Pure: no file system, no clock or randomness of its own (both are injected), no LSP connection.
 *
 * A fix is *safe* when it keeps every entry Pi can parse and every byte of their content, only
 * adding text or changing what Pi cannot use anyway:
 * - `bom`: removes the invisible byte order mark (Pi 0.73/0.74 strips it too);
 * - `no-final-newline`, `truncated-line`: add the final "\n" (Pi 1.x does so on open); the cut-off
 *   line itself is kept, and becomes an ordinary malformed line;
 * - `malformed-json` / `not-an-object` on a pretty-printed entry: join its lines back into one
 *   (only whitespace between tokens changes);
 * - `not-an-object` on a line holding only `null`, `false`, `0` or `""`: deletes it (Pi 1.x skips
 *   it; Pi 0.73/0.74 throws on `null` or resumes from the bare value as the last entry);
 * - `empty-file`, `missing-header`: insert a fresh header above everything; `invalid-header`: give
 *   the header a string id (a number keeps its digits, anything else gets a fresh UUIDv7);
 * - `duplicate-id`: a fresh id for every holder but the last (Pi's `byId` keeps the last one, so
 *   every reference still resolves to the entry it resolves to now);
 * - `parent-cycle`, `self-parent`: one link per cycle is re-linked to the nearest entry above that
 *   does not lead into a cycle (or made a root), since Pi cannot follow a cycle at all.
 * Unsafe fixes, offered as quick fixes only: mending a malformed line (splitting entries joined
 * without a newline, recovering a cut-off entry, taking jsonrepair's repair when it only inserts;
 * `fixes/mend.ts`, `fixes/recover.ts`), deleting a malformed or cut-off line that cannot be mended,
 * or a line holding an array or another non-object value (its text is lost, and the title says
 * what), and re-linking a dangling `parentId` (a guess that changes the context Pi builds).
 * `check --fix` keeps the original as FILE.bak in any case.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import { type Fix, type FixOptions, makeContext } from "./fixes/fixContext";
import { fixesIn } from "./fixes/perCode";

/** The quick fixes for each of `diagnostics`, in order; fresh ids never collide across them. */
export function quickFixes(doc: SessionDocument, diagnostics: readonly Diagnostic[], options: FixOptions = {}): { diagnostic: Diagnostic; fixes: Fix[] }[] {
  if (diagnostics.length === 0) return [];
  const ctx = makeContext(doc, options);
  return diagnostics.map((diagnostic) => ({ diagnostic, fixes: fixesIn(ctx, diagnostic) }));
}
