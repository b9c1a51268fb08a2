/**
 * The doctor: one report of what Pi silently did with a session file and what its next request
 * carries that the provider refuses, for `/doctor` inside Pi and `pi-session-lsp doctor` alike.
 *
 * It is made from the diagnostics `check` prints (`collectDiagnostics`) and nothing else: each
 * code belongs to one group (`GROUP_OF`, a table over every code, so a new code must be placed),
 * each group says what to do, and the remedies (`doctorRemedies.ts`) are the entry actions and
 * fixes the editor and the CLI already make. No rule is worked out here a second time.
 */

import type { Diagnostic } from "vscode-languageserver";
import { CODES, type DiagnosticCode, REFUSED_CODES, REQUEST_FAILS_CODES } from "../core/base/codes";
import type { SessionFacts } from "../core/disk/facts";
import type { SessionDocument } from "../core/session/document";
import { plural } from "../core/base/text";
import { MAX_PER_CODE } from "./diagnosticCap";
import { collectDiagnostics } from "./diagnostics";
import { type DoctorRemedy, doctorRemedies } from "./doctorRemedies";

export type DoctorGroupId = "open" | "skipped" | "tree" | "request" | "fields" | "notes";

/** Where each code's findings go in the report: a table over every code, so that none is left out. */
const GROUP_OF: Record<DiagnosticCode, DoctorGroupId> = {
  "empty-file": "open",
  "missing-header": "open",
  "invalid-header": "open",
  bom: "open",
  utf16: "open",
  "oh-my-pi-session": "open",
  "misplaced-header": "open",
  "old-version": "open",
  "invalid-version": "open",
  "not-a-session": "open",
  "cwd-missing": "open",
  "malformed-json": "skipped",
  "truncated-line": "skipped",
  "not-an-object": "skipped",
  "second-header": "skipped",
  "no-final-newline": "skipped",
  "blank-line": "skipped",
  "parent-cycle": "tree",
  "self-parent": "tree",
  "dangling-parent": "tree",
  "duplicate-id": "tree",
  "leaf-hides-messages": "tree",
  "interleaved-writers": "tree",
  "dangling-target": "tree",
  "dangling-from": "tree",
  "dangling-first-kept": "tree",
  "first-kept-not-on-path": "tree",
  "timestamp-backwards": "tree",
  "orphaned-tool-result": "request",
  "request-throws": "request",
  "too-many-images": "request",
  "image-too-large": "request",
  "request-too-large": "request",
  "unmatched-tool-result": "request",
  "compaction-keeps-tool-result": "request",
  "context-over-window": "request",
  "missing-message": "request",
  "tool-call-without-result": "request",
  "image-not-sent": "request",
  "empty-user-message": "request",
  "hook-message-in-v3": "request",
  "unknown-role": "request",
  "invalid-reasoning-item": "request",
  "missing-field": "fields",
  "wrong-type": "fields",
  "invalid-timestamp": "fields",
  "unknown-entry-type": "fields",
  "unknown-usage-kind": "fields",
  "folder-mismatch": "notes",
  "check-failed": "notes",
  // A credential breaks nothing in Pi; the report lists it with the other notes (redact says what to do).
  secret: "notes",
};

/** Each group's title and what to do about its findings, in the report's order. */
const GROUPS: readonly { id: DoctorGroupId; title: string; advice: string }[] = [
  {
    id: "request",
    title: "What the next request carries",
    advice:
      "An error here fails every prompt until the message leaves the context: take the repaired copy (it drops the message with a context_edit entry and keeps it in the file), or /compact (Pi sends the conversation to the summariser as text), or go back in /tree to an entry before it.",
  },
  {
    id: "open",
    title: "What Pi does when it opens the file",
    advice:
      "Pi 1.x refuses a file whose header it cannot read, and rewrites an older version's whole file. Quit every Pi that holds the file, then run pi-session-lsp check --fix FILE (it keeps FILE.bak).",
  },
  {
    id: "skipped",
    title: "Lines Pi skipped",
    advice:
      "Pi reads around these lines: an entry whose parent was on one loses the history above it. The repaired copy recovers what check --fix recovers, in a new file.",
  },
  {
    id: "tree",
    title: "The tree Pi built",
    advice:
      "Pi keeps the later of two entries with one id, turns an entry with a missing parent into a root, and hangs on a cycle. The repaired copy mends what check --fix mends; a hidden branch is brought back by resuming from its newest message.",
  },
  {
    id: "fields",
    title: "Entries with missing or odd fields",
    advice: "Pi does not validate fields; each line says what breaks, and nothing needs doing unless it does.",
  },
  {
    id: "notes",
    title: "Notes",
    advice:
      "Nothing is lost; these are for a person reading the file. A credential (`secret`) goes to the provider and wherever the session is shared: `pi-session-lsp redact` writes a copy without it.",
  },
];

/** Findings shown per group; the rest are counted (check lists them all). */
const SHOWN_PER_GROUP = 5;

export interface DoctorFinding {
  code: DiagnosticCode;
  /** 1 error … 4 hint, as the diagnostic's. */
  severity: number;
  /** 1-based, as check prints it. */
  line: number;
  message: string;
  /** The id of the entry on that line, when it has a string id (Pi's branch names entries by it). */
  entryId?: string;
}

export interface DoctorGroup {
  id: DoctorGroupId;
  title: string;
  advice: string;
  /** The first findings, in the file's order. */
  findings: DoctorFinding[];
  /** How many findings of the group there are, shown or not. */
  total: number;
}

export type DoctorVerdict = "healthy" | "notes" | "faults" | "bricked" | "refused";

export interface DoctorReport {
  verdict: DoctorVerdict;
  /** One sentence on the whole session (the resume notice and the CLI's first line). */
  summary: string;
  groups: DoctorGroup[];
  remedies: DoctorRemedy[];
}

export interface DoctorOptions {
  /** What the file system says of the file (`io/sessionFacts.ts`); none: only the text is known. */
  facts?: SessionFacts;
  /** The file's absolute path, where a repaired copy's folder and `parentSession` come from. */
  path?: string;
  /** The time and randomness a repaired copy is made with. */
  now?: Date;
  random?: () => number;
}

/** The doctor's report on `doc`. */
export function doctorReport(doc: SessionDocument, options: DoctorOptions = {}): DoctorReport {
  const found = collectDiagnostics(doc, MAX_PER_CODE, options.facts ?? {});
  const groups = groupFindings(found.diagnostics, found.overflow, (line) => doc.analysis.entryAtLine[line]?.id);
  const codes = new Set(found.diagnostics.map((d) => String(d.code)));
  for (const code of found.overflow.keys()) codes.add(code);
  const verdict = verdictOf(codes);
  const remedies = verdict === "healthy" || verdict === "notes" ? [] : doctorRemedies(doc, found.diagnostics, options);
  return { verdict, summary: summaryOf(verdict, groups), groups, remedies };
}

function groupFindings(diagnostics: readonly Diagnostic[], overflow: ReadonlyMap<string, number>, idAt: (line: number) => string | undefined): DoctorGroup[] {
  const byId = new Map<DoctorGroupId, DoctorGroup>();
  for (const g of GROUPS) byId.set(g.id, { ...g, findings: [], total: 0 });
  for (const d of diagnostics) {
    const code = String(d.code) as DiagnosticCode;
    const group = byId.get(GROUP_OF[code] ?? "notes")!;
    group.total++;
    if (group.findings.length < SHOWN_PER_GROUP) {
      const entryId = idAt(d.range.start.line);
      group.findings.push({
        code,
        severity: d.severity ?? 1,
        line: d.range.start.line + 1,
        message: String(d.message),
        ...(entryId === undefined ? {} : { entryId }),
      });
    }
  }
  for (const [code, n] of overflow) byId.get(GROUP_OF[code as DiagnosticCode] ?? "notes")!.total += n;
  return [...byId.values()].filter((g) => g.total > 0);
}

function verdictOf(codes: ReadonlySet<string>): DoctorVerdict {
  const severities = [...codes].map((c) => (Object.hasOwn(CODES, c) ? CODES[c as DiagnosticCode].severity : "error"));
  if ([...codes].some((c) => REFUSED_CODES.has(c as DiagnosticCode))) return "refused";
  if ([...codes].some((c) => REQUEST_FAILS_CODES.has(c as DiagnosticCode))) return "bricked";
  if (severities.some((s) => s === "error" || s === "warning")) return "faults";
  return codes.size > 0 ? "notes" : "healthy";
}

function summaryOf(verdict: DoctorVerdict, groups: readonly DoctorGroup[]): string {
  const count = groups.reduce((n, g) => n + g.total, 0);
  const findings = plural(count, "finding");
  switch (verdict) {
    case "healthy":
      return "Healthy: Pi reads every line of this session as written, and its next request breaks no provider rule pi-session-lsp knows.";
    case "notes":
      return `Nothing is lost: ${findings} for a person reading the file.`;
    case "refused":
      return `Pi 1.x refuses to open this file as it is (${findings}).`;
    case "bricked":
      return `Pi's next request from this session will fail: the provider refuses it, or Pi cannot build it (${findings}).`;
    default:
      return `Pi reads this session, but not as written (${findings}).`;
  }
}
