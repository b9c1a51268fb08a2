/**
 * Migrating a v1 or v2 session to v3 the way Pi does when it opens one (`migrateToCurrentVersion`
 * in Pi's `session-manager.ts`), as a `WorkspaceEdit` the editor applies.
 *
 * Pi's steps, over the lines it parses (the header first; blank and unparsable lines, and in Pi 1.x
 * falsy values, are not among them):
 * - v1 → v2: every header line gets `version`; every other entry gets an `id` and
 *   `parentId` = the previous entry's id (null for the first), so the file becomes one chain; a
 *   compaction's `firstKeptEntryIndex` (an index into those parsed lines, the header being 0)
 *   becomes `firstKeptEntryId` = the id of that line when it is not a header, and the index is
 *   deleted either way.
 * - v2 → v3: every header line gets `version: 3`; a message with role `hookMessage` gets `custom`.
 * Pi mutates the parsed objects in place (a new key goes last, an existing one keeps its place) and
 * rewrites the file with `JSON.stringify`; a changed line here is written the same way.
 *
 * Two differences, both to lose nothing and to be reproducible:
 * - Pi's new ids are random. Here each is the first 8 hex digits of the SHA-256 of the line's text
 *   and its ordinal, made unique in the file, so the same file always migrates to the same text.
 * - Pi's rewrite drops every line it cannot parse, blank lines and falsy values; here they stay as
 *   they are (other quick fixes delete them), and a line the migration does not change is not
 *   touched. A v1 line that is JSON but not an object (an array, a number, a string) gets no id and
 *   the chain skips it: Pi 1.x throws on a number or string there and chains the next entry to an
 *   id an array cannot hold.
 */

import type { CodeAction, Diagnostic, TextEdit, WorkspaceEdit } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import { contentId } from "../core/base/ids";
import { CURRENT_VERSION } from "../core/line/schema";
import { versionRules } from "../core/session/semantics/version";

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Whether Pi runs a migration step on this file when it opens it (v1 → v2, v2 → v3): the header's
 * version compared as loosely as Pi compares it (`versionRules`), without coercing the value, so
 * that a version Pi's comparison throws on (arrays nested thousands deep) is not migrated here
 * either. A version that compares as NaN (`"abc"`) makes Pi rewrite the file without running any
 * step, so there is nothing to migrate.
 */
export function needsMigration(doc: SessionDocument): boolean {
  const rules = versionRules(doc.analysis);
  return doc.analysis.headerState === "ok" && (rules.v1 || rules.v2);
}

/** The migrated text of each line Pi's migration changes, by line. */
export function migratedLines(doc: SessionDocument): Map<number, string> {
  const out = new Map<number, string>();
  if (!needsMigration(doc)) return out;
  const fromV1 = versionRules(doc.analysis).v1;
  const a = doc.analysis;
  // The lines Pi parses, in file order, from the header on: what Pi's `entries` array holds.
  const piLines: number[] = [];
  for (let line = a.headerLine!; line < doc.lineCount; line++) {
    const p = doc.parsed[line]!;
    if (p.kind === "value" && p.value) piLines.push(line);
  }
  const migrated = new Map<number, JsonObject>();
  const copy = (line: number): JsonObject | undefined => {
    let o = migrated.get(line);
    if (o) return o;
    const p = doc.parsed[line]!;
    if (p.kind !== "value" || !isObject(p.value)) return undefined;
    o = { ...p.value };
    migrated.set(line, o);
    return o;
  };

  if (fromV1) {
    const used = new Set<string>();
    const newIds = new Map<number, string>();
    let previous: string | null = null;
    piLines.forEach((line, ordinal) => {
      const p = doc.parsed[line]!;
      if (p.kind !== "value" || !isObject(p.value)) return;
      const entry = copy(line)!;
      if (entry.type === "session") {
        entry.version = 2;
        return;
      }
      const id = contentId(doc.jsonText(line), ordinal, used);
      newIds.set(line, id);
      entry.id = id;
      entry.parentId = previous;
      previous = id;
      if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
        const index = entry.firstKeptEntryIndex;
        const targetLine = Number.isInteger(index) && index >= 0 ? piLines[index] : undefined;
        if (targetLine !== undefined) {
          const target = doc.parsed[targetLine]!;
          const targetValue = target.kind === "value" ? target.value : undefined;
          if (isObject(targetValue) && targetValue.type !== "session") {
            // Pi reads the target's id as it is at this moment: the new one for a line already
            // migrated (or this very line), the old one (usually none) for a later line.
            entry.firstKeptEntryId = newIds.get(targetLine) ?? targetValue.id;
          }
        }
        delete entry.firstKeptEntryIndex;
      }
    });
  }

  // v2 → v3 runs for every version that compares as below 3, which `needsMigration` checked.
  for (const line of piLines) {
    const p = doc.parsed[line]!;
    if (p.kind !== "value" || !isObject(p.value)) continue;
    if (p.value.type === "session") {
      copy(line)!.version = CURRENT_VERSION;
      continue;
    }
    const message = p.value.type === "message" ? p.value.message : undefined;
    if (isObject(message) && message.role === "hookMessage") {
      copy(line)!.message = { ...message, role: "custom" };
    }
  }

  for (const [line, entry] of migrated) {
    const text = JSON.stringify(entry);
    if (text !== doc.jsonText(line)) out.set(line, text);
  }
  return out;
}

/** The edits that migrate the file to v3, one per changed line (each keeps its line ending). */
export function migrationEdits(doc: SessionDocument): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const [line, text] of migratedLines(doc)) edits.push({ range: doc.jsonTextRange(line), newText: text });
  return edits.sort((x, y) => x.range.start.line - y.range.start.line);
}

/** The migration as a workspace edit, or undefined when the file is current (or not a session Pi opens). */
export function computeMigration(doc: SessionDocument): WorkspaceEdit | undefined {
  if (!needsMigration(doc)) return undefined;
  const edits = migrationEdits(doc);
  return edits.length > 0 ? { changes: { [doc.uri]: edits } } : undefined;
}

/**
 * The migration in the shape of the quick-fix table (`fixes.ts`'s `Fix`): safe, because Pi applies
 * the same steps whenever it opens the file, and this edit keeps every line Pi's rewrite drops.
 */
export function migrationFix(doc: SessionDocument): { title: string; edits: TextEdit[]; safe: boolean } | undefined {
  if (!needsMigration(doc)) return undefined;
  const edits = migrationEdits(doc);
  return edits.length > 0 ? { title: MIGRATION_TITLE, edits, safe: true } : undefined;
}

/** Diagnostic codes the migration mends: an old version, or a version Pi compares as old. */
const MIGRATION_CODES: ReadonlySet<string> = new Set(["old-version", "invalid-version"]);

export const MIGRATION_TITLE = "Migrate to session format v3 as Pi does (stable ids)";

/** What a lazily resolved migration action carries in `data`, for `codeAction/resolve`. */
export interface MigrationActionData {
  piSession: "migrate";
  uri: string;
  version: number;
  /** The document's `revision` when the action was made. */
  revision: number;
}

/**
 * The quick fix for an `old-version` diagnostic (or an `invalid-version` one Pi would migrate).
 * With `lazy`, the action carries no edit but `data` for `codeAction/resolve` (see
 * `resolveMigrationAction`), so that listing actions on a 40 MB v1 file costs nothing.
 */
export function migrationAction(doc: SessionDocument, diagnostic: Diagnostic, options: { lazy?: boolean } = {}): CodeAction | undefined {
  if (!MIGRATION_CODES.has(String(diagnostic.code))) return undefined;
  if (options.lazy) {
    if (!needsMigration(doc)) return undefined;
    const data: MigrationActionData = { piSession: "migrate", uri: doc.uri, version: doc.version, revision: doc.revision };
    return { title: MIGRATION_TITLE, kind: "quickfix", diagnostics: [diagnostic], isPreferred: true, data };
  }
  const edit = computeMigration(doc);
  if (!edit) return undefined;
  return { title: MIGRATION_TITLE, kind: "quickfix", diagnostics: [diagnostic], isPreferred: true, edit };
}

export function isMigrationActionData(data: unknown): data is MigrationActionData {
  return data !== null && typeof data === "object" && (data as MigrationActionData).piSession === "migrate";
}

/**
 * Fills in the edit of a lazy migration action. An action from another text of the document (its
 * `revision`, which a change that keeps the version or a reopen at the same version changes too)
 * gets no edit (the client then applies nothing), since its line numbers may no longer hold.
 */
export function resolveMigrationAction(doc: SessionDocument, action: CodeAction): CodeAction {
  if (!isMigrationActionData(action.data) || action.data.uri !== doc.uri || action.data.revision !== doc.revision) return action;
  const edit = computeMigration(doc);
  return edit ? { ...action, edit } : action;
}
