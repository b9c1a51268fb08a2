/**
 * Diagnostics: every structural fault of a session, each on the token that causes it, each saying
 * what Pi does with it when it opens the file.
 *
 * Line-local findings come cached from the per-line parse; the checks in `diagnostics/` add what
 * needs the whole session (header, duplicates, links, cycles) from the analysis and the semantic
 * layer. Severities come from the table in `core/base/codes.ts` only. Ranges never run past their line:
 * a range is either a located token or, for a line that cannot be parsed, the line itself.
 *
 * Each check runs on its own: should one throw (a value no check foresaw), the others' findings
 * stay, and a `check-failed` note says which findings are missing.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { DiagnosticCode } from "../core/base/codes";
import type { SessionFacts } from "../core/disk/facts";
import type { SessionDocument } from "../core/session/document";
import { runToEnd, type Steps } from "../core/base/steps";
import { clip } from "../core/base/text";
import { findDeferredSecrets } from "../core/line/deferredSecrets";
import { checkEncoding } from "./diagnostics/encodingChecks";
import { checkBom, checkFinalNewline, checkHeader, checkNotASession } from "./diagnostics/fileChecks";
import { checkLines } from "./diagnostics/lineChecks";
import { checkFolder } from "./diagnostics/folderChecks";
import { checkLinks, checkToolResults } from "./diagnostics/linkChecks";
import { Report } from "./diagnostics/report";
import { checkCycles, checkDuplicates } from "./diagnostics/treeChecks";
import { provisionalRequestDiagnostics, requestDiagnosticsSteps } from "./requestDiagnostics";
import { ohMyPiSession, sessionFaultDiagnostics } from "./sessionFaults";

/** A check adds its findings to the report, at once or as steps (`core/base/steps.ts`). */
type Check = (r: Report, facts: SessionFacts) => unknown;

/** The checks in order, with the name a `check-failed` note gives them. */
const CHECKS: readonly [string, Check][] = [
  ["byte order mark", checkBom],
  ["header", checkHeader],
  ["session folder", (r, facts) => checkFolder(r, facts.folder)],
  [
    "line",
    function* (r) {
      // A large document's credentials are found first, in steps (`deferredSecrets.ts`).
      if (r.lineFindings) yield* findDeferredSecrets(r.doc.parsed, r.doc.secretsToFind);
      checkLines(r);
    },
  ],
  ["duplicate id", (r) => r.isV1 || checkDuplicates(r)],
  ["parent cycle", (r) => r.isV1 || checkCycles(r)],
  ["link", (r) => r.isV1 || checkLinks(r)],
  ["tool result", (r) => r.isV1 || checkToolResults(r)],
  ["final newline", checkFinalNewline],
  ["session fault", (r) => addAll(r, sessionFaultDiagnostics(r.doc))],
  [
    "provider request",
    function* (r) {
      addAll(r, yield* requestDiagnosticsSteps(r.doc));
    },
  ],
];

/**
 * The checks of the session's structure, which read only the text and the analysis: every line that
 * is not JSON, the header (a misplaced one is a session fault), ids, duplicates, dangling parents
 * and cycles. The server's first answer on opening a large session holds these, and the rest
 * follows (`lsp/diagnostics.ts`).
 */
const STRUCTURAL_CHECKS: ReadonlySet<string> = new Set([
  "byte order mark",
  "header",
  "line",
  "duplicate id",
  "parent cycle",
  "link",
  "final newline",
  "session fault",
]);

/** The diagnostics of a document; `facts` are what the file system says of it (none: nothing is known beyond the text). */
export function computeDiagnostics(doc: SessionDocument, facts?: SessionFacts): Diagnostic[] {
  return collectDiagnostics(doc, undefined, facts).diagnostics;
}

export interface CollectedDiagnostics {
  diagnostics: Diagnostic[];
  /** Per code, how many more were found past `limitPerCode` and not built. */
  overflow: Map<string, number>;
}

/**
 * The diagnostics, building at most `limitPerCode` of each code (a file of 3,000,000 broken lines
 * costs 3,000,000 counts, not 3,000,000 objects); `capDiagnostics` takes the counts of the rest.
 * `facts` (`io/sessionFacts.ts`) are what `check` and the editor know of the file beyond its text:
 * both pass the same, so both report the same codes.
 */
export function collectDiagnostics(doc: SessionDocument, limitPerCode?: number, facts: SessionFacts = {}): CollectedDiagnostics {
  return runToEnd(collectDiagnosticsSteps(doc, limitPerCode, facts));
}

/**
 * The structural diagnostics alone (`STRUCTURAL_CHECKS`, without the lines' own findings), with no
 * facts from the file system: each is one of `collectDiagnostics`' own, made by the same check on
 * the same document.
 */
export function collectStructuralDiagnostics(doc: SessionDocument, limitPerCode?: number): CollectedDiagnostics {
  return runToEnd(collectDiagnosticsSteps(doc, limitPerCode, {}, STRUCTURAL_CHECKS));
}

/**
 * The complete list's diagnostics at once for an edit after the idle release that would otherwise
 * build the released contexts and provider requests again (a keystroke in the newest messages): the
 * provider request's are the ones kept through the release that the edit leaves standing
 * (`provisionalRequestDiagnostics`), every other check's are made as `collectDiagnostics` makes
 * them. Undefined when the provider request's diagnostics are cheap to make, or nothing was kept:
 * `collectDiagnostics` answers then. `facts` are asked for only when this answers (they look at
 * the disk). The server answers with this list and builds the complete one meanwhile
 * (`lsp/diagnostics.ts`).
 */
export function collectProvisionalDiagnostics(
  doc: SessionDocument,
  limitPerCode?: number,
  facts: () => SessionFacts = () => ({}),
): CollectedDiagnostics | undefined {
  const requests = provisionalRequestDiagnostics(doc);
  if (!requests) return undefined;
  return runToEnd(collectDiagnosticsSteps(doc, limitPerCode, facts(), undefined, new Map([["provider request", (r: Report) => addAll(r, requests)]])));
}

/**
 * `collectDiagnostics` as steps: it yields between two checks, and within the provider request's
 * checks, so that the server can let requests in while it completes a large session's diagnostics.
 * With `only`, just the checks of those names run, and the encoding's and the lines' own findings
 * are left out.
 */
export function* collectDiagnosticsSteps(
  doc: SessionDocument,
  limitPerCode?: number,
  facts: SessionFacts = {},
  only?: ReadonlySet<string>,
  /** Checks run instead of the ones of those names. */
  instead?: ReadonlyMap<string, Check>,
): Steps<CollectedDiagnostics> {
  const r = new Report(doc, limitPerCode, only === undefined);
  // The encoding comes first: the text every other check reads is the one decoded from it.
  if (!only) guarded(r, "encoding", (r) => checkEncoding(r, facts.encoding));
  // An oh-my-pi file gets one diagnostic instead of a cascade about a format it does not follow.
  const ohMyPi = ohMyPiSession(doc);
  if (ohMyPi) {
    addAll(r, [ohMyPi]);
    return { diagnostics: r.out, overflow: r.overflow };
  }
  if (!guarded(r, "file", checkNotASession)) {
    // A v1 file has no tree yet: Pi gives every entry a fresh id and chains it to the line above
    // when it migrates the file, so links and ids in it mean nothing (`r.isV1` skips those checks).
    for (const [name, check] of CHECKS) {
      if (only && !only.has(name)) continue;
      yield;
      const run = instead?.get(name) ?? check;
      yield* guardedSteps(r, name, () => run(r, facts));
    }
  }
  // Reading order: by position, keeping the order of checks for diagnostics on the same token.
  r.out.sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
  return { diagnostics: r.out, overflow: r.overflow };
}

/** Adds diagnostics a rule module built, through the report's cap per code. */
function addAll(r: Report, diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) r.add(d.code as DiagnosticCode, String(d.message), d.range, d.relatedInformation);
}

/** Runs one check; a throw costs that check's findings only, and says so. */
function guarded<T>(r: Report, name: string, check: (r: Report) => T): T | undefined {
  try {
    return check(r);
  } catch (error) {
    checkFailed(r, name, error);
    return undefined;
  }
}

/** `guarded` for a check that may be written as steps: a throw from any of its steps costs its findings only. */
function* guardedSteps(r: Report, name: string, check: () => unknown): Steps<void> {
  try {
    const result = check();
    if (isSteps(result)) yield* result;
  } catch (error) {
    checkFailed(r, name, error);
  }
}

function isSteps(value: unknown): value is Steps<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { next?: unknown }).next === "function";
}

function checkFailed(r: Report, name: string, error: unknown): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : "an unknown error";
  r.add("check-failed", `pi-session-lsp could not finish its ${name} checks on this file (${clip(reason, 200)}); their findings are missing.`, r.point(0, 0));
}
