/**
 * What every check writes to: the diagnostics found so far, the ranges they point at, and the facts
 * several checks share (ids that malformed lines seem to declare, which line is cut off), each
 * computed once per collection.
 */

import type { Diagnostic, DiagnosticRelatedInformation, DiagnosticTag, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { respliceOf } from "../../core/session/resplice";
import { type DiagnosticCode, type PresentationCode, type Severity, severityOf } from "../../core/base/codes";
import type { SessionDocument } from "../../core/session/document";
import type { JsonPath } from "../../core/line/locate";
import { describe } from "../../core/line/findings";
import { versionRules } from "../../core/session/semantics/version";
import { clip } from "../../core/base/text";

export const DIAGNOSTIC_SOURCE = "pi-session";

export const LSP_SEVERITY: Record<Severity, 1 | 2 | 3 | 4> = { error: 1, warning: 2, information: 3, hint: 4 };

/** How many related locations a diagnostic lists at most (duplicates, cycle members). */
export const MAX_RELATED = 10;

/**
 * What Pi 0.73/0.74 does with a file it finds no valid header in. It takes the first line it can
 * parse for the header and reads its `type`: a `null` there throws a TypeError (the file is left as
 * it is, and Pi does not start); anything else makes it overwrite the file with a fresh header.
 */
export function olderRefusal(doc: SessionDocument): string {
  const first = doc.parsed.findIndex((p) => p.kind === "value");
  const p = first < 0 ? undefined : doc.parsed[first];
  return p?.kind === "value" && p.falsy && p.value === null
    ? `throws a TypeError on the null on line ${first + 1} and leaves the file as it is`
    : "overwrites the whole file with a fresh header, losing every entry";
}

/**
 * The only constructor of a diagnostic: its severity is always the one `core/base/codes.ts` gives
 * its code, so that the editor and `check` cannot disagree on it (a user's overrides are applied
 * afterwards, by `applySeverityOverrides` alone). Checks report through `Report.add`; the rule
 * modules whose findings are kept across edits build theirs here and hand them to `Report.add`.
 */
export function diagnostic(
  code: DiagnosticCode | PresentationCode,
  message: string,
  range: Range,
  extra?: { related?: DiagnosticRelatedInformation[] | undefined; tags?: DiagnosticTag[] },
): Diagnostic {
  const severity = LSP_SEVERITY[severityOf(code)];
  const d: Diagnostic = extra?.tags
    ? { range, severity, tags: extra.tags, code, source: DIAGNOSTIC_SOURCE, message }
    : { range, severity, code, source: DIAGNOSTIC_SOURCE, message };
  if (extra?.related) d.relatedInformation = extra.related;
  return d;
}

/** A severity per diagnostic code; "off" drops the code. */
export type SeverityOverrides = Record<string, Severity | "off">;

/**
 * Applies a user's severity overrides (the `piSession.severity` setting) to diagnostics: the one
 * place a severity other than the table's is given. Codes without an override keep the severity of
 * the table in `core/base/codes.ts`.
 */
export function applySeverityOverrides(diagnostics: Diagnostic[], overrides: SeverityOverrides): Diagnostic[] {
  if (Object.keys(overrides).length === 0) return diagnostics;
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const level = Object.hasOwn(overrides, String(d.code)) ? overrides[String(d.code)] : undefined;
    if (level === "off") continue;
    out.push(level === undefined ? d : { ...d, severity: LSP_SEVERITY[level] });
  }
  return out;
}

/** Per structure, which lines are malformed (`sameStructure` keeps every line's kind). */
const malformedLinesMemo = new WeakMap<object, number[]>();

/**
 * The malformed lines of a structure made by an edit of the tree from the previous analysis
 * (`respliceOf`), from the replaced structure's: those outside the edited lines moved with them, and
 * the edited lines looked at again, rather than every line (2 ms on the 45 MB session). Undefined
 * when the replaced structure's are not known.
 */
function carriedMalformedLines(a: SessionAnalysis, parsed: SessionDocument["parsed"]): number[] | undefined {
  const resplice = respliceOf(a);
  const before = resplice && malformedLinesMemo.get(resplice.previousStructure);
  if (!before) return undefined;
  const { start, end, delta } = resplice.splice;
  const lines: number[] = [];
  let k = 0;
  for (; k < before.length && before[k]! < start; k++) lines.push(before[k]!);
  for (let line = start; line < end; line++) if (parsed[line]!.kind === "malformed") lines.push(line);
  for (; k < before.length; k++) if (before[k]! >= end - delta) lines.push(before[k]! + delta);
  return lines;
}

export class Report {
  readonly out: Diagnostic[] = [];
  readonly a: SessionAnalysis;
  /** Per code, how many diagnostics were found past `limitPerCode` and not built. */
  readonly overflow = new Map<string, number>();
  private readonly counts = new Map<string, number>();

  constructor(
    readonly doc: SessionDocument,
    /** At most this many diagnostics of one code are built; the rest are only counted. */
    private readonly limitPerCode = Number.POSITIVE_INFINITY,
    /**
     * Whether the line check reads the lines that are objects: their own findings
     * (`ParsedLine.findings`), the timestamp order, the roles. A large open's first answer, the
     * structure alone, reads only the lines that are blank, not JSON or not objects, and leaves the
     * rest to the complete list: reading the findings makes a large document find its lines'
     * credentials (`core/line/deferredSecrets.ts`).
     */
    readonly lineFindings = true,
  ) {
    this.a = doc.analysis;
  }

  /**
   * Adds a diagnostic. The message and range may be given as functions, for the checks that report
   * one per line: past `limitPerCode` they are never made.
   */
  add(code: DiagnosticCode, message: string | (() => string), range: Range | (() => Range), relatedInformation?: DiagnosticRelatedInformation[]): void {
    if (this.limitPerCode !== Number.POSITIVE_INFINITY) {
      const n = (this.counts.get(code) ?? 0) + 1;
      this.counts.set(code, n);
      if (n > this.limitPerCode) {
        this.overflow.set(code, (this.overflow.get(code) ?? 0) + 1);
        return;
      }
    }
    if (typeof message === "function") message = message();
    if (typeof range === "function") range = range();
    this.out.push(diagnostic(code, message, range, { related: relatedInformation }));
  }

  // ---- Ranges --------------------------------------------------------------------------------------

  point(line: number, character: number): Range {
    const position = this.doc.position(line, character);
    return { start: position, end: position };
  }

  span(line: number, start: number, end: number): Range {
    return this.doc.range(line, start, end);
  }

  lineRange(line: number): Range {
    return this.doc.lineRange(line);
  }

  /** The range of the value at `path` in `line`, or the whole line when it cannot be located. */
  valueRange(line: number, path: JsonPath): Range {
    return this.doc.valueRange(line, path);
  }

  related(entries: readonly Entry[], what: string): DiagnosticRelatedInformation[] | undefined {
    if (entries.length === 0) return undefined;
    return entries.slice(0, MAX_RELATED).map((e) => ({
      location: { uri: this.doc.uri, range: this.valueRange(e.line, ["id"]) },
      message: `Line ${e.line + 1}: ${what}`,
    }));
  }

  // ---- Shared facts ----------------------------------------------------------------------------------

  /** Whether Pi migrates this file as v1: its entries have no tree yet, so links and ids mean nothing. */
  get isV1(): boolean {
    return versionRules(this.a).v1;
  }

  private malformedIdsCache: Map<number, string> | undefined;

  /** Ids that malformed lines appear to declare, by line (the first `"id":"..."` in the line). */
  malformedIds(): Map<number, string> {
    if (this.malformedIdsCache) return this.malformedIdsCache;
    const ids = new Map<number, string>();
    this.malformedIdsCache = ids;
    for (const line of this.malformedLines()) {
      const match = /"id"\s*:\s*"([^"\\]*)"/.exec(this.doc.lines[line]!.slice(0, 2000));
      if (match) ids.set(line, match[1]!);
    }
    return ids;
  }

  /** The lines that are not JSON, ascending: which lines they are is structural, so it is kept for the structure (their text is not). */
  malformedLines(): readonly number[] {
    let lines = malformedLinesMemo.get(this.a.structure);
    if (!lines) {
      const parsed = this.doc.parsed;
      lines = carriedMalformedLines(this.a, parsed);
      if (!lines) {
        lines = [];
        for (let line = 0; line < parsed.length; line++) if (parsed[line]!.kind === "malformed") lines.push(line);
      }
      malformedLinesMemo.set(this.a.structure, lines);
    }
    return lines;
  }

  /** The line of each id that a malformed line seems to declare. */
  malformedIdLines(): Map<string, number> {
    const lines = new Map<string, number>();
    for (const [line, id] of this.malformedIds()) lines.set(id, line);
    return lines;
  }

  /** ", and the N entries whose parentId names it become roots..." for a malformed line's id. */
  orphansOf(id: string | undefined): string {
    if (!id || this.a.byId.has(id)) return "";
    // An entry whose parentId names no entry is a root: the orphans are found among the roots, not
    // in the index of every reference, which a line broken (a new structure) would build again.
    let orphans = 0;
    for (const root of this.a.roots) if (root.parentKey === id) orphans++;
    if (orphans === 0) return "";
    return orphans === 1
      ? `, and the entry whose parentId is "${clip(id)}" becomes a root, cut off from the history above`
      : `, and the ${orphans} entries whose parentId is "${clip(id)}" become roots, cut off from the history above`;
  }

  /** Whether `line` is a malformed last line that looks cut off: a prefix of a JSON object. */
  isTruncatedLine(line: number): boolean {
    const { doc } = this;
    const p = doc.parsed[line];
    if (p?.kind !== "malformed" || doc.eols.at(line) !== "") return false;
    const text = doc.jsonText(line).trimEnd();
    if (!text.trimStart().startsWith("{")) return false;
    // A prefix of valid JSON fails at its very end: "Unexpected end of JSON input", "Unterminated
    // string", or an "Expected …" error positioned at the last character.
    const position = /at position (\d+)/.exec(p.error);
    return /end of JSON input|Unterminated/i.test(p.error) || (position !== null && Number(position[1]) >= text.length);
  }

  /** "a user message entry", "an object without a type", "not JSON": what a line is, in words. */
  describeLine(line: number): string {
    const p = this.doc.parsed[line]!;
    if (p.kind !== "value") return "not JSON";
    if (!p.isObject) return describe(p.value);
    if (p.type === "message") return p.role !== undefined ? `a ${clip(p.role)} message entry` : "a message entry";
    return p.type ? `a ${clip(p.type)} entry` : "an object without a type";
  }

  private lastValueLineCache: number | undefined;

  /** The last line that parses to a value other than a header: the last entry Pi 0.73/0.74 keeps. */
  lastValueLine(): number {
    if (this.lastValueLineCache === undefined) {
      let line = this.doc.lineCount - 1;
      for (; line >= 0; line--) {
        const p = this.doc.parsed[line]!;
        if (p.kind === "value" && p.type !== "session") break;
      }
      this.lastValueLineCache = line;
    }
    return this.lastValueLineCache;
  }

  firstNonBlankLine(): number {
    const i = this.doc.parsed.findIndex((p) => p.kind !== "blank");
    return Math.max(i, 0);
  }

  lastNonBlankLine(): number {
    for (let i = this.doc.lineCount - 1; i >= 0; i--) if (this.doc.parsed[i]!.kind !== "blank") return i;
    return -1;
  }
}
