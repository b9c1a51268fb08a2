/**
 * The doctor's remedies: what can be done about a session's faults while Pi holds the file, made
 * from actions that exist already, so that the doctor decides nothing new.
 *
 * - Resume from the newest message, for `leaf-hides-messages`: Pi's leaf moved there (inside Pi,
 *   through its own `navigateTree`; on the command line `resume-from`), and a "resume from here"
 *   marker appended so that Pi resumes there next time.
 * - A repaired copy, for what `check --fix` mends and the tool results a provider refuses: the safe
 *   fixes of `check --fix` (`applyFixes`), then one `context_edit` per `orphaned-tool-result`
 *   (`drop-from-context`'s line), under a fresh header whose `parentSession` names the file, as a
 *   new session in its folder. The file itself is never rewritten: Pi holds it and appends to it.
 */

import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { type DiagnosticCode, CODES } from "../core/base/codes";
import { appendedText, type EditClock } from "../core/edits/appendLine";
import { dropFromContextLine } from "../core/edits/dropFromContext";
import { forkHeader } from "../core/edits/fork";
import { SessionDocument } from "../core/session/document";
import { versionRules } from "../core/session/semantics/version";
import { clip, groupDigits, plural } from "../core/base/text";
import { collectDiagnostics } from "./diagnostics";
import { MAX_PER_CODE } from "./diagnosticCap";
import { applyFixes } from "./fixes/fixAll";
import { newestMessage } from "./sessionFaults";

/** The context edits one repaired copy appends at most (each one re-reads the copy). */
const MAX_DROPS = 20;

export interface ResumeNewest {
  kind: "resume-newest";
  title: string;
  description: string;
  /** The entry to resume from, and its 1-based line. */
  entryId: string;
  line: number;
}

export interface RepairedCopy {
  kind: "repaired-copy";
  title: string;
  description: string;
  /** The new file's whole text, its path (in the source's folder) and its session id. */
  text: string;
  path: string;
  sessionId: string;
  /** The codes `check --fix` fixed in it, with how many times each. */
  fixed: Map<string, number>;
  /** How many messages it drops from the context with a `context_edit` entry. */
  dropped: number;
  /** The error codes still found in the copy. */
  left: string[];
}

export type DoctorRemedy = ResumeNewest | RepairedCopy;

export interface RemedyOptions {
  path?: string;
  now?: Date;
  random?: () => number;
}

/** The remedies for the faults `diagnostics` (of `doc`) name; none when nothing would change. */
export function doctorRemedies(doc: SessionDocument, diagnostics: readonly Diagnostic[], options: RemedyOptions): DoctorRemedy[] {
  const out: DoctorRemedy[] = [];
  const codes = new Set(diagnostics.map((d) => String(d.code)));
  if (codes.has("leaf-hides-messages")) {
    const newest = newestMessage(doc.analysis);
    if (newest && typeof newest.id === "string")
      out.push({
        kind: "resume-newest",
        title: `Resume from the newest message (line ${newest.line + 1}, ${clip(newest.id)})`,
        description: `Moves Pi to line ${newest.line + 1} as /tree does, and appends a marker so that Pi resumes there next time; no line is rewritten. Outside Pi: pi-session-lsp resume-from FILE ${clip(newest.id)}.`,
        entryId: newest.id,
        line: newest.line + 1,
      });
  }
  const copy = options.path?.startsWith("/") ? repairedCopy(doc, options.path, { now: options.now ?? new Date(), random: options.random }) : undefined;
  if (copy) out.push(copy);
  return out;
}

/** The repaired copy of `doc` (read from `path`), or undefined when the fixes change nothing or the copy cannot be made. */
function repairedCopy(doc: SessionDocument, path: string, clock: EditClock): RepairedCopy | undefined {
  const uri = pathToFileURL(path).href;
  const fixedAll = applyFixes(doc, {});
  let copy = fixedAll.doc;
  let dropped = 0;
  for (; dropped < MAX_DROPS; dropped++) {
    const orphan = collectDiagnostics(copy, MAX_PER_CODE).diagnostics.find((d) => d.code === "orphaned-tool-result");
    const entry = orphan && copy.analysis.entryAtLine[orphan.range.start.line];
    if (!entry) break;
    const drop = dropFromContextLine(copy, entry, clock);
    if (!drop.ok) break;
    copy = new SessionDocument(uri, "jsonl", 0, copy.getText() + appendedText(copy, drop.line));
  }
  const a = copy.analysis;
  if (copy === doc || a.headerState !== "ok" || a.headerLine === undefined || !versionRules(a).current) return undefined;
  const made = forkHeader(copy, path, clock);
  const text = withLine(copy.getText(), a.headerLine, made.header);
  const left = errorCodes(new SessionDocument(pathToFileURL(made.path).href, "jsonl", 0, text));
  const fixed = [...fixedAll.fixed].map(([code, n]) => (n > 1 ? `${code} ×${groupDigits(n)}` : code));
  const parts = [
    ...(fixed.length > 0 ? [`fixes ${fixed.join(", ")} as check --fix does`] : []),
    ...(dropped > 0 ? [`drops ${plural(dropped, "tool result")} the provider refuses from the context (kept in the file)`] : []),
  ];
  const after = left.length === 0 ? "No error is left in it." : `Still left in it: ${left.join(", ")}.`;
  return {
    kind: "repaired-copy",
    title: "Fork a repaired copy and switch to it",
    description: `A new session next to this one (parentSession names this file) that ${parts.join(" and ")}; this file stays as it is, byte for byte. ${after} Outside Pi: pi-session-lsp doctor --fork FILE.`,
    text,
    path: made.path,
    sessionId: made.sessionId,
    fixed: fixedAll.fixed,
    dropped,
    left,
  };
}

/** `text` with its `line`th line (Pi's lines: split on "\n") replaced by `replacement`. */
function withLine(text: string, line: number, replacement: string): string {
  let start = 0;
  for (let i = 0; i < line; i++) start = text.indexOf("\n", start) + 1;
  const end = text.indexOf("\n", start);
  return text.slice(0, start) + replacement + (end < 0 ? "" : text.slice(end));
}

function errorCodes(doc: SessionDocument): string[] {
  const codes = new Set<string>();
  for (const d of collectDiagnostics(doc, MAX_PER_CODE).diagnostics) {
    const code = String(d.code);
    if (Object.hasOwn(CODES, code) && CODES[code as DiagnosticCode].severity === "error") codes.add(code);
  }
  return [...codes];
}
