/**
 * Old files as Pi reads them: Pi migrates a v1 or v2 session to v3 in memory when it opens it
 * (and rewrites the file), so the context it builds, and what it sends the provider, come from the
 * migrated entries. The context views (CLI `context`, the lenses, `piSession/buildContext`) build
 * from the same migration here (`migration.ts`), applied to a copy of the document: line numbers
 * stay, unchanged lines are shared, and the ids a v1 migration invents (content-derived here,
 * random in Pi) appear in no message, so the messages equal Pi's.
 *
 * The copy is memoised per analysis of the original, so it is made once per version.
 */

import type { SessionAnalysis } from "../core/session/analysis";
import type { SessionDocument } from "../core/session/document";
import { versionRules } from "../core/session/semantics/version";
import { migrationEdits, needsMigration } from "./migration";

const migrated = new WeakMap<SessionAnalysis, SessionDocument>();

/** The document the context views build from: the migrated copy of a v1/v2 file, or the document itself. */
export function contextDocument(doc: SessionDocument): SessionDocument {
  const a = doc.analysis;
  if (!needsMigration(doc)) return doc;
  let copy = migrated.get(a);
  if (!copy) {
    copy = doc.clone();
    // Last line first, so that each edit's position still holds when it is applied.
    const edits = migrationEdits(doc).reverse();
    copy.update(
      edits.map((e) => ({ range: e.range, text: e.newText })),
      doc.version,
    );
    migrated.set(a, copy);
  }
  return copy;
}

/** What the views say about a file Pi migrates, or undefined for a current one. */
export function migrationNote(doc: SessionDocument): string | undefined {
  if (!needsMigration(doc)) return undefined;
  const version = doc.analysis.header?.version;
  const v1 = versionRules(doc.analysis).v1;
  return `the file is ${version === undefined ? "version 1 (no version)" : `version ${JSON.stringify(version)}`}: Pi migrates it to version 3 when it opens it and rewrites the file${v1 ? ", giving every entry a new random id" : ""}. This is the context Pi builds from the migrated entries.`;
}
