/**
 * What every fix is computed with: the document, its analysis, the injected clock and randomness,
 * and the ids in use, shared by the fixes of one request so that fresh ids never collide.
 */

import type { Diagnostic, TextEdit } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import type { SessionDocument } from "../../core/session/document";
import { DIAGNOSTIC_SOURCE } from "../diagnostics/report";

export interface FixOptions {
  /** The clock for header timestamps and UUIDv7 ids; default `new Date()`. */
  now?: () => Date;
  /** Randomness in [0, 1) for ids; default `Math.random`. */
  random?: () => number;
  /** Whether large edits (the v1/v2 migration) may be left for `codeAction/resolve`. */
  lazyEdits?: boolean;
  /** The key of the `secret` fix's placeholders; default the server process's own (`secretFix.ts`). */
  redactionKey?: Uint8Array;
  /** Codes the user turned off (`piSession.severity`): Fix all leaves their faults alone. */
  ignoredCodes?: ReadonlySet<string>;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** Whether `source.fixAll` and `check --fix` apply it (see `../fixes.ts`). */
  safe: boolean;
  /**
   * For an unsafe fix that keeps every character of the text it mends, whether the editor marks it
   * preferred when the diagnostic has no safe fix (so that it comes before deleting the line).
   */
  preferred?: boolean;
  /** For an unsafe fix, what it did in a few words without line numbers, as `check --unsafe-fixes` lists it. */
  summary?: string;
}

/**
 * Lines `start` to `end` (both included) that are one pretty-printed object, `value` (`joinRuns`
 * in join.ts finds them). It is defined here, beside the context that caches the runs, so that
 * join.ts can use the context without this file importing join.ts back.
 */
export interface JoinRun {
  start: number;
  end: number;
  value: Record<string, unknown>;
}

export interface Context {
  doc: SessionDocument;
  a: SessionAnalysis;
  now: () => Date;
  random: () => number;
  /** The key of the `secret` fix's placeholders, when one was given (else the process's own). */
  redactionKey: Uint8Array | undefined;
  /**
   * Every id in use, for fresh ids; shared by the fixes of one request so they never collide. Made
   * when a fix first asks for it: most fixes make no id, and the set of a 50,000-entry session's ids
   * cost `check` 9 ms each time it only asked which of its diagnostics can be fixed.
   */
  readonly taken: Set<unknown>;
  joins: Map<number, JoinRun> | undefined;
  /** How many entries hang from each id no entry holds (`mend.ts`), computed once per request. */
  dangling?: Map<string, number>;
}

export function makeContext(doc: SessionDocument, options: FixOptions): Context {
  const a = doc.analysis;
  let taken: Set<unknown> | undefined;
  return {
    doc,
    a,
    now: options.now ?? (() => new Date()),
    random: options.random ?? Math.random,
    redactionKey: options.redactionKey,
    get taken() {
      taken ??= idsInUse(doc, a);
      return taken;
    },
    joins: undefined,
  };
}

/** The ids of the analysis, and those that malformed lines seem to declare. */
function idsInUse(doc: SessionDocument, a: SessionAnalysis): Set<unknown> {
  const taken = new Set<unknown>(a.byId.keys());
  // Ids that malformed lines seem to declare are kept free too: joining or mending such a line
  // must not bring back a duplicate.
  doc.parsed.forEach((p, line) => {
    if (p.kind !== "malformed") return;
    for (const m of doc.lines[line]!.slice(0, 100_000).matchAll(/"id"\s*:\s*"([^"\\]*)"/g)) taken.add(m[1]!);
  });
  return taken;
}

/** The line break a fix writes: the file's first, so that a fix keeps a "\r\n" file "\r\n". */
export function eolOf(doc: SessionDocument): string {
  for (let line = 0; line < doc.eols.length; line++) {
    const eol = doc.eols.at(line);
    if (eol) return eol;
  }
  return "\n";
}

export function describeEntry(entry: Entry): string {
  return `line ${entry.line + 1}${entry.id !== undefined ? `, "${entry.id.length > 24 ? `${entry.id.slice(0, 24)}…` : entry.id}"` : ""}`;
}

export function isOurs(d: Diagnostic): boolean {
  return d.source === undefined || d.source === DIAGNOSTIC_SOURCE;
}

/** The line a diagnostic is on, when it is still inside the document. */
export function lineOf(ctx: Context, d: Diagnostic): number | undefined {
  const { line } = ctx.doc.toPi(d.range.start);
  return d.range.start.line >= 0 && d.range.start.line < ctx.doc.lspLineCount ? line : undefined;
}
