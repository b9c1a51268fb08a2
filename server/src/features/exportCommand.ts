/**
 * "Export as Markdown" in the editor: the Markdown `export FILE --format markdown` prints, for the
 * branch Pi resumes, another entry's branch, or the whole tree, answered by the command
 * `piSession.exportMarkdown [uri, entryId | null, {all?}]`, which the client shows as a read-only
 * document (the server writes no file). The check's findings are the editor's diagnostics of the
 * buffer, capped as `check` caps them; the answer is bounded (`MAX_EDITOR_EXPORT_BYTES`).
 */

import type { SessionDocument } from "../core/session/document";
import type { Entry } from "../core/session/entry";
import { capDiagnostics } from "./diagnosticCap";
import { computeDiagnostics } from "./diagnostics";
import { exportSession } from "./export/exportSession";
import { exportPlan } from "./export/plan";
import { contextDocument } from "./migratedView";

export const EXPORT_MARKDOWN_COMMAND = "piSession.exportMarkdown";

/** At most this many bytes of Markdown are answered; the entries past them are counted at the end. */
export const MAX_EDITOR_EXPORT_BYTES = 16 * 1024 * 1024;

export interface MarkdownExport {
  markdown: string;
  /** A short name for the document that shows it. */
  title: string;
  /** Entries counted, not shown, past the bound. */
  cut: number;
}

export type MarkdownExportAnswer = { ok: true; result: MarkdownExport } | { ok: false; message: string };

/** Every control character but the line break and the tab, which Markdown's layout needs: shown as an escape, as the CLI shows them. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeOne = (c: string) => {
  const code = c.charCodeAt(0);
  if (c === "\r") return "\\r";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

export function computeMarkdownExport(doc: SessionDocument, args: readonly unknown[], maxBytes = MAX_EDITOR_EXPORT_BYTES): MarkdownExportAnswer {
  const leafId = args[1];
  if (leafId !== undefined && leafId !== null && typeof leafId !== "string") return { ok: false, message: "the second argument must be an entry id or null" };
  const options = args[2] !== null && typeof args[2] === "object" ? (args[2] as { all?: unknown }) : {};
  const all = options.all === true;
  const view = contextDocument(doc);
  const a = view.analysis;
  let leaf: Entry | undefined = a.leaf;
  if (typeof leafId === "string") {
    // Pi resumes from an id's `byId` entry: the last holder of a duplicated id.
    leaf = a.byId.get(leafId);
    if (!leaf) return { ok: false, message: `no entry has the id ${JSON.stringify(leafId.slice(0, 200))}` };
  }
  const plan = exportPlan(a, { leaf, all, flavor: "1.x" });
  if (typeof plan === "string") return { ok: false, message: plan };
  const diagnostics = capDiagnostics(computeDiagnostics(doc)).diagnostics;
  const chunks: string[] = [];
  const result = exportSession(view, { format: "markdown", flavor: "1.x", plan, diagnostics, maxBytes, scriptHash: "" }, (t) =>
    chunks.push(t.replace(CONTROLS, escapeOne)),
  );
  const which = all ? "the whole tree" : leaf === a.leaf ? "the resumed branch" : `the branch of ${String(leaf?.id).slice(0, 40)}`;
  return { ok: true, result: { markdown: chunks.join(""), title: `export of ${which.replace(CONTROLS, escapeOne)}`, cut: result.cut } };
}
