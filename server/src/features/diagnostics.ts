/**
 * Diagnostics: every structural fault of a session, each on the token that causes it, each saying
 * what Pi does with it when it opens the file.
 *
 * Line-local findings come cached from the per-line parse; this module adds the findings that need
 * the whole session (header, duplicates, links, cycles) from the analysis. Severities come from the
 * table in `core/codes.ts` only. Ranges never run past their line: a range is either a located token
 * or, for a line that cannot be parsed, the line itself.
 */

import type { Diagnostic, DiagnosticRelatedInformation, Range } from "vscode-languageserver";
import type { Entry, SessionAnalysis } from "../core/analysis";
import { CODES, type DiagnosticCode, type Severity } from "../core/codes";
import type { SessionDocument } from "../core/document";
import { describeKey } from "../core/ids";
import type { JsonPath } from "../core/locate";
import { clip, describe } from "../core/parse";
import { CURRENT_VERSION, ENTRY_TYPES, jsonKind } from "../core/schema";

export const DIAGNOSTIC_SOURCE = "pi-session";

const LSP_SEVERITY: Record<Severity, 1 | 2 | 3 | 4> = { error: 1, warning: 2, information: 3, hint: 4 };

export function computeDiagnostics(doc: SessionDocument): Diagnostic[] {
  return new DiagnosticCollector(doc).collect();
}

/** A severity per diagnostic code; "off" drops the code. */
export type SeverityOverrides = Record<string, Severity | "off">;

/**
 * Applies a user's severity overrides (the `piSession.severity` setting) to diagnostics. Codes
 * without an override keep the severity of the table in `core/codes.ts`.
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

/** Text that marks an unparsable line as a damaged Pi line rather than foreign JSON. */
const PI_LIKE_TEXT = new RegExp(`"parentId"\\s*:|"type"\\s*:\\s*"(session|${ENTRY_TYPES.map((t) => t.type).join("|")})"`);

/** What Pi does when it walks a parent cycle, as observed with the real packages. */
const CYCLE_FATE =
  'Pi 0.73/0.74 hangs building the context, and Pi 1.x grows an array until it fails with "RangeError: Invalid array length" after seconds and gigabytes';

/** Fields that a v1 file lacks and Pi's migration adds. */
const V1_ADDED_FIELDS: ReadonlySet<string> = new Set(["id", "parentId", "firstKeptEntryId"]);

/** How far up a tool result's path its tool call is looked for before the full index is built. */
const NEAR_ANCESTORS = 64;

/** How many related locations a diagnostic lists at most (duplicates, cycle members). */
const MAX_RELATED = 10;

class DiagnosticCollector {
  private readonly out: Diagnostic[] = [];
  private readonly a: SessionAnalysis;

  constructor(private readonly doc: SessionDocument) {
    this.a = doc.analysis;
  }

  collect(): Diagnostic[] {
    const { a, doc } = this;
    if (a.headerState === "empty-file") {
      this.add(
        "empty-file",
        "The file is empty. Pi writes a fresh session header into an empty file when it opens it; until then it is not a session.",
        this.point(0, 0),
      );
      return this.out;
    }
    const allBlank = doc.parsed.every((p) => p.kind === "blank");
    if (allBlank) {
      this.add(
        "empty-file",
        'The file holds only whitespace. Pi 0.73/0.74 overwrites it with a fresh session header; Pi 1.x refuses to open it ("not a valid pi session").',
        this.lineRange(0),
      );
      return this.out;
    }
    if (!a.looksLikeSession && !this.malformedLooksLikePi()) {
      this.add(
        "not-a-session",
        "This file does not look like a Pi session: no line is a Pi header or entry. It is not checked further. (Pi 0.73/0.74 would overwrite it with a fresh header; Pi 1.x would refuse to open it.)",
        this.lineRange(this.firstNonBlankLine()),
      );
      return this.out;
    }
    this.checkBom();
    this.checkHeader();
    this.checkLines();
    // A v1 file has no tree yet: Pi gives every entry a fresh id and chains it to the line above
    // when it migrates the file, so links and ids in it mean nothing.
    if (!this.isV1()) {
      this.checkDuplicates();
      this.checkCycles();
      this.checkLinks();
      this.checkToolResults();
    }
    this.checkFinalNewline();
    // Reading order: by position, keeping the order of checks for diagnostics on the same token.
    return this.out.sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
  }

  // ---- File-level checks -------------------------------------------------------------------

  private checkBom(): void {
    // Only a mark in front of a line Pi can parse matters: "\uFEFF" alone is blank to both versions,
    // and a line that is malformed anyway is skipped by both.
    if (!this.doc.hasBom || this.doc.parsed[0]!.kind !== "value") return;
    this.add(
      "bom",
      'The file starts with a UTF-8 byte order mark. Pi 0.73/0.74 strips it, but Pi 1.x cannot parse the header line and refuses to open the file ("not a valid pi session").',
      this.span(0, 0, 1),
    );
  }

  private checkHeader(): void {
    const { a } = this;
    const line = a.headerLine;
    const refusal =
      'Pi 0.73/0.74 treats the whole file as invalid and overwrites it with a fresh header, losing every entry; Pi 1.x refuses to open it ("not a valid pi session").';
    if (a.headerState === "no-entries") {
      this.add("missing-header", `No line of this file can be parsed, so it has no session header. ${refusal}`, this.lineRange(this.firstNonBlankLine()));
      return;
    }
    if (line === undefined) return;
    if (a.headerState === "missing") {
      const laterHeader = this.doc.parsed.findIndex((p) => p.kind === "value" && p.type === "session");
      const where = laterHeader >= 0 ? ` The header is on line ${laterHeader + 1}; it must be the first line Pi can parse.` : "";
      const what = this.describeLine(line);
      this.add("missing-header", `The first line Pi can parse is ${what}, not a session header.${where} ${refusal}`, this.valueRange(line, ["type"]));
      return;
    }
    if (a.headerState === "invalid") {
      const p = this.doc.parsed[line]!;
      const id = p.kind === "value" ? p.object?.id : undefined;
      const problem = id === undefined ? "has no `id`" : `has ${describe(id)} as its \`id\``;
      this.add(
        "invalid-header",
        `The session header ${problem}; Pi requires a string id. ${refusal}`,
        id === undefined ? this.valueRange(line, ["type"]) : this.valueRange(line, ["id"]),
      );
      return;
    }
    this.checkVersion(line);
    for (const extra of a.extraHeaderLines) {
      this.add(
        "second-header",
        `A second session header (the first is on line ${line + 1}). Pi ignores every header after the first; Pi 0.73 wrote one when it re-saved a session that had no assistant reply yet.`,
        this.valueRange(extra, ["type"]),
      );
    }
  }

  private checkVersion(line: number): void {
    const header = this.a.header!;
    const present = "version" in header;
    // Pi compares with JavaScript's loose operators (`version ?? 1`, `>= 3`, `< 2`, `< 3`); the
    // same operators here predict exactly which migration steps run for any JSON value.
    const version = (header.version ?? 1) as number;
    const current = version >= CURRENT_VERSION;
    const v1 = version < 2;
    const v2 = version < 3;
    const range = present ? this.valueRange(line, ["version"]) : this.valueRange(line, ["type"]);
    const rewrite = "rewrites the whole file (dropping blank lines and lines it cannot parse)";
    const steps = v1
      ? `migrates it as a v1 file and ${rewrite}: every entry gets a new random id and is chained to the line above it, so branches are flattened and ids in other files no longer match`
      : v2
        ? `migrates it from v2 to v3 (\`hookMessage\` roles become \`custom\`) and ${rewrite}`
        : `applies no migration step but still ${rewrite}`;
    if (!present || (typeof header.version === "number" && header.version <= CURRENT_VERSION)) {
      if (current) return;
      const which = present ? `version ${String(header.version)}` : "no version (v1)";
      this.add("old-version", `This header has ${which}. When Pi opens the file it ${steps}.`, range);
      return;
    }
    const what = describe(header.version);
    if (current) {
      this.add("invalid-version", `\`version\` should be a number up to ${CURRENT_VERSION}, not ${what}. Pi treats it as current and migrates nothing.`, range);
    } else {
      this.add("invalid-version", `\`version\` should be a number up to ${CURRENT_VERSION}, not ${what}. Pi compares it as a number and ${steps}.`, range);
    }
  }

  private checkFinalNewline(): void {
    const { doc, a } = this;
    if (a.endsWithNewline) return;
    const last = doc.lineCount - 1;
    // A blank last line is harmless: what Pi appends after it still parses.
    if (doc.parsed[last]!.kind === "blank") return;
    if (this.isTruncatedLine(last)) return; // Reported as truncated-line, which says the same.
    const text = doc.lines[last]!;
    const length = text.endsWith("\r") ? text.length - 1 : text.length;
    this.add(
      "no-final-newline",
      "The file does not end with a newline. Pi 1.x appends one when it opens the file; Pi 0.73/0.74 appends its next entry to this same line, so both this entry and the next become one line it cannot parse.",
      this.span(last, Math.max(0, length - 1), length),
    );
  }

  // ---- Line checks ----------------------------------------------------------------------------

  private checkLines(): void {
    const { doc, a } = this;
    const last = doc.lineCount - 1;
    const lastNonBlank = this.lastNonBlankLine();
    const malformedIds = this.malformedIds();
    const v1 = this.isV1();
    for (let line = 0; line < doc.lineCount; line++) {
      const p = doc.parsed[line]!;
      if (p.kind === "blank") {
        if (line === last && doc.lines[line] === "") continue; // The empty piece after the final newline.
        this.add("blank-line", "Blank line. Pi skips it.", this.lineRange(line));
        continue;
      }
      if (p.kind === "malformed") {
        const orphans = this.orphansOf(malformedIds.get(line));
        if (line === lastNonBlank && this.isTruncatedLine(line)) {
          this.add(
            "truncated-line",
            `The last line is cut off (${p.error}), as when Pi is stopped while appending. Pi skips it${orphans}. Pi 1.x appends a newline after it when it opens the file; Pi 0.73/0.74 writes its next entry onto this same line, so that entry is lost too.`,
            this.lineRange(line),
          );
        } else {
          this.add("malformed-json", `This line is not valid JSON (${p.error}). Pi skips it when it opens the file${orphans}.`, this.lineRange(line));
        }
        continue;
      }
      if (!p.object) {
        this.add("not-an-object", this.notAnObjectMessage(line, p.value), this.lineRange(line));
        continue;
      }
      const entry = a.entryAtLine[line];
      for (const finding of p.findings) {
        if (v1 && finding.code === "missing-field" && V1_ADDED_FIELDS.has(finding.field ?? "")) continue;
        let message = finding.message;
        if (finding.code === "missing-message" && entry && a.onActivePath[entry.index]) {
          message += " It is on the path from the last line, so Pi fails as soon as it resumes this session.";
        }
        if (finding.field === "id" && entry && entry === a.entries[a.entries.length - 1]) message += this.lastEntryIdNote(entry);
        this.add(finding.code, message, doc.jsonRange(line, finding.span.start, finding.span.end));
      }
      if (!entry || v1) continue;
      this.checkTimestampOrder(entry);
      if (entry.type === "message") this.checkHookMessage(entry);
    }
  }

  private notAnObjectMessage(line: number, value: unknown): string {
    const what = `This line is JSON (${describe(value)}) but not an object.`;
    const beforeHeader = this.a.headerLine === undefined || line < this.a.headerLine;
    if (line === this.a.headerLine) {
      return `${what} Pi takes it for the header: Pi 0.73/0.74 overwrites the whole file with a fresh header, and Pi 1.x refuses to open it.`;
    }
    if (value === null) {
      return beforeHeader
        ? `${what} Pi 0.73/0.74 takes it for the header and throws a TypeError when it opens the file; Pi 1.x skips it.`
        : `${what} Pi 0.73/0.74 throws a TypeError when it opens the file; Pi 1.x skips it.`;
    }
    // Whether this is the last line Pi 0.73/0.74 keeps as an entry (it keeps falsy values too).
    const lastKept = line === this.lastValueLine();
    const resumes = lastKept ? " It is the last entry, so the session resumes from it with an empty context." : "";
    if (!value) {
      return beforeHeader
        ? `${what} Pi 1.x skips it; Pi 0.73/0.74 takes it for an invalid header and overwrites the whole file with a fresh one.`
        : `${what} Pi 1.x skips it; Pi 0.73/0.74 keeps it as an entry without an id.${lastKept ? " It is the last entry there, so Pi 0.73/0.74 resumes from it with an empty context." : ""}`;
    }
    return `${what} Pi keeps it as an entry without an id: nothing can refer to it.${resumes}`;
  }

  /** What the id of the last entry does to the next entry Pi appends, when it is not a string. */
  private lastEntryIdNote(entry: Entry): string {
    if (entry.key === null)
      return " It is the last entry: Pi resumes from no entry at all (an empty context), and the next entry it appends starts a new root.";
    if (entry.key === undefined) return " It is the last entry: the next entry Pi appends gets no parentId and starts a new root.";
    return " It is the last entry: the next entry Pi appends names it by this value as its parentId.";
  }

  private checkTimestampOrder(entry: Entry): void {
    const parent = this.a.parent[entry.index];
    const time = entry.parsed.time;
    const parentTime = parent?.parsed.time;
    if (time === undefined || parentTime === undefined || time >= parentTime) return;
    this.add(
      "timestamp-backwards",
      `This entry's timestamp is earlier than its parent's (line ${parent!.line + 1}, ${String(parent!.parsed.object?.timestamp)}). Pi does not mind, but it orders sibling branches by timestamp.`,
      this.valueRange(entry.line, ["timestamp"]),
    );
  }

  private checkHookMessage(entry: Entry): void {
    const message = entry.parsed.object?.message;
    if (jsonKind(message) !== "object" || (message as Record<string, unknown>).role !== "hookMessage") return;
    const version = (this.a.header?.version ?? 1) as number;
    if (!(version >= CURRENT_VERSION)) return; // Pi renames it while migrating the file.
    this.add(
      "hook-message-in-v3",
      "`hookMessage` is the v2 name of the `custom` role. Pi renames it only when it migrates a v2 file; in a v3 file the role is unknown and the message never reaches the model.",
      this.valueRange(entry.line, ["message", "role"]),
    );
  }

  // ---- Cross-line checks ----------------------------------------------------------------------

  private checkDuplicates(): void {
    const { a } = this;
    const loop = a.treeLoops ? " These duplicates also make Pi's session tree loop forever, so /tree hangs." : "";
    for (const [id, holders] of a.duplicates) {
      const winner = holders[holders.length - 1]!;
      for (const holder of holders) {
        // Only the first few other holders are named, so an id held 50,000 times stays linear.
        const others = holders
          .slice(0, MAX_RELATED + 1)
          .filter((h) => h !== holder)
          .slice(0, MAX_RELATED);
        const more = holders.length - 1 - others.length;
        const named = others.map((h) => h.line + 1).join(", ") + (more > 0 ? ` and ${more} more` : "");
        const lines = holders.length === 2 ? `line ${named}` : `lines ${named}`;
        const fate =
          holder === winner
            ? `Pi keeps this entry under the id and ignores the one${holders.length > 2 ? "s" : ""} on ${lines}.`
            : `Pi keeps only the last entry with this id (line ${winner.line + 1}): children and references resolve to that one, so this entry is cut off from the tree.`;
        const shown = typeof id === "string" ? `"${clip(id)}"` : describeKey(id);
        this.add(
          "duplicate-id",
          `Duplicate id ${shown}, also on ${lines}. ${fate}${loop}`,
          this.valueRange(holder.line, ["id"]),
          this.related(others, `the same id ${shown}`),
        );
      }
    }
  }

  private checkCycles(): void {
    const { a } = this;
    const leafCycle = this.leafCycle();
    for (const [index, cycle] of a.cycles.entries()) {
      const leafReaches = index === leafCycle;
      const consequence = leafReaches
        ? `The last line leads into this cycle, so resuming this session never works: ${CYCLE_FATE}.`
        : `Resuming from any entry in or below this cycle fails: ${CYCLE_FATE}.`;
      if (cycle.length === 1 && cycle[0]!.parentId === cycle[0]!.id) {
        const entry = cycle[0]!;
        this.add("self-parent", `This entry is its own parent. ${consequence}`, this.valueRange(entry.line, ["parentId"]));
        continue;
      }
      const ids = cycle.map((e) => `"${clip(e.id ?? "?", 12)}"`);
      const chain = cycle.length > 8 ? `${ids.slice(0, 8).join(" → ")} → … (${cycle.length} entries)` : `${ids.join(" → ")} → ${ids[0]}`;
      const viaDuplicate = cycle.some((e) => e.id !== undefined && a.duplicates.has(e.id))
        ? " The loop runs through a duplicated id: Pi follows the last entry with that id."
        : "";
      for (const entry of cycle) {
        // Only the first few members are related, so a 50,000-entry cycle stays linear.
        const others = cycle.slice(0, MAX_RELATED + 1).filter((e) => e !== entry);
        this.add(
          "parent-cycle",
          `parentId cycle: ${chain}.${viaDuplicate} ${consequence}`,
          this.valueRange(entry.line, ["parentId"]),
          this.related(others, "in the same cycle"),
        );
      }
    }
  }

  /** The index of the cycle the leaf's walk runs into, or -1. */
  private leafCycle(): number {
    const { a } = this;
    if (!a.leaf || !a.reachesCycle[a.leaf.index]) return -1;
    // The walk meets a cycle member within as many steps as there are entries.
    let current: Entry | undefined = a.leaf;
    for (let steps = 0; current && steps <= a.entries.length; steps++) {
      if (a.cycleOf[current.index]! >= 0) return a.cycleOf[current.index]!;
      current = a.parent[current.index];
    }
    return -1;
  }

  private checkLinks(): void {
    const { a } = this;
    const malformed = this.malformedIdLines();
    for (const entry of a.entries) {
      const o = entry.parsed.object;
      if (!o) continue;
      // The analysis already resolved every parent: a named parent that did not resolve dangles.
      if (typeof entry.parentId === "string" && entry.parentId !== "" && a.parent[entry.index] === undefined) {
        const where = malformed.get(entry.parentId);
        const cause = where !== undefined ? ` (the entry with this id is on line ${where + 1}, which Pi cannot parse)` : "";
        const above = "Pi treats this entry as a root: a context built through it stops here and loses everything above.";
        this.add("dangling-parent", `parentId "${clip(entry.parentId)}" names no entry${cause}. ${above}`, this.valueRange(entry.line, ["parentId"]));
      } else if (entry.parentId === "") {
        // Pi's writers put null on a root; an empty string is read the same way, as no parent.
        this.add(
          "dangling-parent",
          "parentId is the empty string, which Pi reads as no parent. Pi treats this entry as a root: a context built through it stops here and loses everything above.",
          this.valueRange(entry.line, ["parentId"]),
        );
      }
      switch (entry.type) {
        case "label":
        case "context_edit": {
          const target = o.targetId;
          if (typeof target === "string" && !a.byId.has(target)) {
            const effect = entry.type === "label" ? "Pi keeps the label, but it marks no entry in the tree." : "Pi 1.x applies the edit to no message.";
            this.add("dangling-target", `targetId "${clip(target)}" names no entry. ${effect}`, this.valueRange(entry.line, ["targetId"]));
          }
          break;
        }
        case "branch_summary": {
          const from = o.fromId;
          if (typeof from === "string" && from !== "root" && !a.byId.has(from)) {
            this.add(
              "dangling-from",
              `fromId "${clip(from)}" names no entry (only "root" may name none). Pi still shows the summary to the model, but the branch it summarises cannot be found.`,
              this.valueRange(entry.line, ["fromId"]),
            );
          }
          break;
        }
        case "compaction":
          this.checkFirstKept(entry, o.firstKeptEntryId);
          break;
      }
    }
  }

  private checkFirstKept(entry: Entry, firstKept: unknown): void {
    const { a } = this;
    // Pi 1.x stores the compaction's own id when it keeps nothing from before it.
    if (typeof firstKept !== "string" || firstKept === entry.id) return;
    const target = a.byId.get(firstKept);
    if (!target) {
      this.add(
        "dangling-first-kept",
        `firstKeptEntryId "${clip(firstKept)}" names no entry. Pi keeps nothing from before this compaction: the model sees only the summary and what follows it.`,
        this.valueRange(entry.line, ["firstKeptEntryId"]),
      );
      return;
    }
    if (a.reachesCycle[entry.index]) return; // The path is undefined; the cycle is reported instead.
    if (!a.isAncestor(target, entry)) {
      this.add(
        "first-kept-not-on-path",
        `firstKeptEntryId "${clip(firstKept)}" (line ${target.line + 1}) is not on the path above this compaction. Pi keeps nothing from before the compaction: the model sees only the summary and what follows it.`,
        this.valueRange(entry.line, ["firstKeptEntryId"]),
        this.related([target], "the entry it names"),
      );
    }
  }

  private checkToolResults(): void {
    const { a } = this;
    let calls: Map<string, Entry[]> | undefined;
    for (const entry of a.entries) {
      const id = entry.parsed.toolResultId;
      if (id === undefined || a.reachesCycle[entry.index]) continue;
      // The call is almost always a few entries up: look there first, so that a well-formed
      // session never pays for the index of every tool call below.
      let ancestor = a.parent[entry.index];
      let found = false;
      for (let steps = 0; ancestor && steps < NEAR_ANCESTORS && !found; steps++) {
        found = ancestor.parsed.toolCallIds?.includes(id) ?? false;
        ancestor = a.parent[ancestor.index];
      }
      if (found) continue;
      calls ??= this.toolCallIndex();
      const holders = calls.get(id) ?? [];
      if (holders.some((h) => a.isAncestor(h, entry))) continue;
      const elsewhere = holders.length > 0 ? ` (a tool call with this id is on line ${holders[0]!.line + 1}, on another branch)` : "";
      this.add(
        "unmatched-tool-result",
        `No assistant message on this entry's path has a tool call with id "${clip(id)}"${elsewhere}. Pi sends the result anyway; most providers reject a tool result without its tool call.`,
        this.valueRange(entry.line, ["message", "toolCallId"]),
      );
    }
  }

  /** Tool call ids of assistant messages, to the entries that hold them. */
  private toolCallIndex(): Map<string, Entry[]> {
    const calls = new Map<string, Entry[]>();
    for (const entry of this.a.entries) {
      for (const id of entry.parsed.toolCallIds ?? []) {
        const list = calls.get(id);
        if (list) list.push(entry);
        else calls.set(id, [entry]);
      }
    }
    return calls;
  }

  // ---- Helpers ---------------------------------------------------------------------------------

  /** Whether Pi migrates this file as v1 (`version ?? 1` below 2, compared as Pi does). */
  private isV1(): boolean {
    const header = this.a.header;
    return header !== undefined && ((header.version ?? 1) as number) < 2;
  }

  private malformedLooksLikePi(): boolean {
    return this.doc.parsed.some((p, line) => p.kind === "malformed" && PI_LIKE_TEXT.test(this.doc.lines[line]!.slice(0, 2000)));
  }

  private malformedIdsCache: Map<number, string> | undefined;

  /** Ids that malformed lines appear to declare, by line (the first `"id":"…"` in the line). */
  private malformedIds(): Map<number, string> {
    if (this.malformedIdsCache) return this.malformedIdsCache;
    const ids = new Map<number, string>();
    this.malformedIdsCache = ids;
    this.doc.parsed.forEach((p, line) => {
      if (p.kind !== "malformed") return;
      const match = /"id"\s*:\s*"([^"\\]*)"/.exec(this.doc.lines[line]!.slice(0, 2000));
      if (match) ids.set(line, match[1]!);
    });
    return ids;
  }

  private malformedIdLines(): Map<string, number> {
    const lines = new Map<string, number>();
    for (const [line, id] of this.malformedIds()) lines.set(id, line);
    return lines;
  }

  /** ", and the N entries whose parentId names it become roots…" for a malformed line's id. */
  private orphansOf(id: string | undefined): string {
    if (id === undefined || this.a.byId.has(id)) return "";
    const orphans = this.childCounts().get(id) ?? 0;
    if (orphans === 0) return "";
    return orphans === 1
      ? `, and the entry whose parentId is "${clip(id)}" becomes a root, cut off from the history above`
      : `, and the ${orphans} entries whose parentId is "${clip(id)}" become roots, cut off from the history above`;
  }

  private childCountCache: Map<string, number> | undefined;

  /** How many entries name each parent id, built once per collection. */
  private childCounts(): Map<string, number> {
    if (!this.childCountCache) {
      this.childCountCache = new Map();
      for (const e of this.a.entries) {
        if (typeof e.parentId === "string") this.childCountCache.set(e.parentId, (this.childCountCache.get(e.parentId) ?? 0) + 1);
      }
    }
    return this.childCountCache;
  }

  private isTruncatedLine(line: number): boolean {
    const { doc } = this;
    const p = doc.parsed[line];
    if (p?.kind !== "malformed" || doc.eols[line] !== "") return false;
    const text = doc.jsonText(line).trimEnd();
    if (!text.trimStart().startsWith("{")) return false;
    // A prefix of valid JSON fails at its very end: "Unexpected end of JSON input", "Unterminated
    // string", or an "Expected …" error positioned at the last character.
    const position = /at position (\d+)/.exec(p.error);
    return /end of JSON input|Unterminated/i.test(p.error) || (position !== null && Number(position[1]) >= text.length);
  }

  private describeLine(line: number): string {
    const p = this.doc.parsed[line]!;
    if (p.kind !== "value") return "not JSON";
    if (!p.object) return describe(p.value);
    if (p.type === "message") {
      const role = (p.object.message as Record<string, unknown> | undefined)?.role;
      return typeof role === "string" ? `a ${role} message entry` : "a message entry";
    }
    return p.type ? `a ${p.type} entry` : "an object without a type";
  }

  private lastValueLineCache: number | undefined;

  /** The last line that parses to a value other than a header: the last entry Pi 0.73/0.74 keeps. */
  private lastValueLine(): number {
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

  private firstNonBlankLine(): number {
    const i = this.doc.parsed.findIndex((p) => p.kind !== "blank");
    return Math.max(i, 0);
  }

  private lastNonBlankLine(): number {
    for (let i = this.doc.lineCount - 1; i >= 0; i--) if (this.doc.parsed[i]!.kind !== "blank") return i;
    return -1;
  }

  private related(entries: readonly Entry[], what: string): DiagnosticRelatedInformation[] | undefined {
    if (entries.length === 0) return undefined;
    return entries.slice(0, MAX_RELATED).map((e) => ({
      location: { uri: this.doc.uri, range: this.valueRange(e.line, ["id"]) },
      message: `Line ${e.line + 1}: ${what}`,
    }));
  }

  private point(line: number, character: number): Range {
    const position = this.doc.position(line, character);
    return { start: position, end: position };
  }

  private span(line: number, start: number, end: number): Range {
    return this.doc.range(line, start, end);
  }

  private lineRange(line: number): Range {
    return this.doc.lineRange(line);
  }

  /** The range of the value at `path` in `line`, or the whole line when it cannot be located. */
  private valueRange(line: number, path: JsonPath): Range {
    return this.doc.valueRange(line, path);
  }

  private add(code: DiagnosticCode, message: string, range: Range, relatedInformation?: DiagnosticRelatedInformation[]): void {
    const diagnostic: Diagnostic = { range, severity: LSP_SEVERITY[CODES[code].severity], code, source: DIAGNOSTIC_SOURCE, message };
    if (relatedInformation) diagnostic.relatedInformation = relatedInformation;
    this.out.push(diagnostic);
  }
}
