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
 * Unsafe fixes, offered as quick fixes only: deleting a malformed or cut-off line, or a line
 * holding an array or another non-object value (its text is lost), and re-linking a dangling
 * `parentId` (a guess that changes the context Pi builds). `check --fix` keeps the original as
 * FILE.bak in any case.
 */

import { fileURLToPath } from "node:url";
import type { Diagnostic, TextEdit } from "vscode-languageserver";
import type { Entry, SessionAnalysis } from "../core/analysis";
import type { SessionDocument } from "../core/document";
import { freshEntryId, uuidv7 } from "../core/ids";
import { CURRENT_VERSION } from "../core/schema";
import { DIAGNOSTIC_SOURCE, computeDiagnostics } from "./diagnostics";
import { migrationFix } from "./migration";

const MIGRATION_CODES: ReadonlySet<string> = new Set(["old-version", "invalid-version"]);

export interface FixOptions {
  /** The clock for header timestamps and UUIDv7 ids; default `new Date()`. */
  now?: () => Date;
  /** Randomness in [0, 1) for ids; default `Math.random`. */
  random?: () => number;
  /** Whether large edits (the v1/v2 migration) may be left for `codeAction/resolve`. */
  lazyEdits?: boolean;
  /** Codes the user turned off (`piSession.severity`): Fix all leaves their faults alone. */
  ignoredCodes?: ReadonlySet<string>;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** Whether `source.fixAll` and `check --fix` apply it (see the module comment). */
  safe: boolean;
}

/**
 * The cwd a session in this document's folder belongs to: Pi names a session folder after the
 * cwd, `/home/dev/p` → `--home-dev-p--`, so such a name is decoded back (every `-` inside becomes
 * `/`; a dash in a real folder name cannot be told apart, and the header can be edited after).
 * Otherwise the document's own folder, or "/" for a document that is not a file.
 */
export function cwdForDocument(uri: string): string {
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return "/";
  }
  const parts = path.split(/[\\/]/);
  parts.pop();
  const folder = parts[parts.length - 1] ?? "";
  if (folder.length > 4 && folder.startsWith("--") && folder.endsWith("--")) return `/${folder.slice(2, -2).replace(/-/g, "/")}`;
  const dir = parts.join("/");
  return dir === "" ? "/" : dir;
}

// ---- Shared helpers --------------------------------------------------------------------------

interface Context {
  doc: SessionDocument;
  a: SessionAnalysis;
  now: () => Date;
  random: () => number;
  /** Every id in use, for fresh ids; shared by the fixes of one request so they never collide. */
  taken: Set<unknown>;
  joins: Map<number, JoinRun> | undefined;
}

function makeContext(doc: SessionDocument, options: FixOptions): Context {
  const a = doc.analysis;
  const taken = new Set<unknown>(a.byId.keys());
  // Ids that malformed lines seem to declare are kept free too: joining or mending such a line
  // must not bring back a duplicate.
  doc.parsed.forEach((p, line) => {
    if (p.kind !== "malformed") return;
    for (const m of doc.lines[line]!.slice(0, 100_000).matchAll(/"id"\s*:\s*"([^"\\]*)"/g)) taken.add(m[1]!);
  });
  return { doc, a, now: options.now ?? (() => new Date()), random: options.random ?? Math.random, taken, joins: undefined };
}

function eolOf(doc: SessionDocument): string {
  return doc.eols.find((e) => e !== "") ?? "\n";
}

function describeEntry(entry: Entry): string {
  return `line ${entry.line + 1}${entry.id !== undefined ? `, "${entry.id.length > 24 ? `${entry.id.slice(0, 24)}…` : entry.id}"` : ""}`;
}

// ---- Pretty-printed entries --------------------------------------------------------------------

interface JoinRun {
  start: number;
  end: number;
  value: Record<string, unknown>;
}

/** Lines scanned at most for one pretty-printed entry. */
const MAX_JOIN_LINES = 100_000;

/**
 * Every run of lines that is one pretty-printed object: it starts with a malformed line that
 * begins with `{` (in its first column, as `JSON.stringify(value, null, 2)` writes it), runs over lines Pi cannot use as entries (malformed, blank, scalars), and its
 * braces close on a line after which only whitespace follows; the joined text must parse as an
 * object. Each line of a run maps to the run.
 */
function joinRuns(ctx: Context): Map<number, JoinRun> {
  if (ctx.joins) return ctx.joins;
  const { doc } = ctx;
  const runs = new Map<number, JoinRun>();
  ctx.joins = runs;
  for (let line = 0; line < doc.lineCount; line++) {
    const p = doc.parsed[line]!;
    if (p.kind !== "malformed" || !doc.jsonText(line).startsWith("{")) continue;
    const end = closingLine(doc, line);
    if (end === undefined || end === line) continue;
    let text = "";
    for (let k = line; k <= end; k++) text += `${k === line ? doc.jsonText(k) : doc.lines[k]!}\n`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    const run = { start: line, end, value: value as Record<string, unknown> };
    for (let k = line; k <= end; k++) runs.set(k, run);
    line = end;
  }
  return runs;
}

/** The line on which the object opened on `start` closes, if the lines up to it may be joined. */
function closingLine(doc: SessionDocument, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let line = start; line < doc.lineCount && line - start < MAX_JOIN_LINES; line++) {
    const p = doc.parsed[line]!;
    if (line > start && p.kind === "value" && p.isObject) return undefined; // An entry of its own.
    const text = line === start ? doc.jsonText(line) : doc.lines[line]!;
    // Only the outermost brace of a pretty-printed entry stands at the start of a line, so a
    // second one starts another run. Each line is thus scanned for one run at most: linear overall.
    if (line > start && text.charCodeAt(0) === 123) return undefined;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) return text.slice(i + 1).trim() === "" ? line : undefined;
      }
    }
    // A string never spans lines in JSON.
    if (inString) return undefined;
  }
  return undefined;
}

function joinFix(ctx: Context, run: JoinRun): Fix {
  const { doc } = ctx;
  return {
    title: `Join lines ${run.start + 1}–${run.end + 1} into one entry`,
    edits: [{ range: doc.spanRange(run.start, doc.jsonOffset(run.start), run.end, doc.lines[run.end]!.length), newText: withoutWhitespace(doc, run) }],
    safe: true,
  };
}

/**
 * The run's text with the whitespace between its tokens dropped and every token's bytes kept:
 * `JSON.stringify` of the parsed value would round big numbers, turn 1e999 into null, write 1.50
 * as 1.5, reorder integer-like keys and drop a repeated key or a `__proto__` member.
 */
function withoutWhitespace(doc: SessionDocument, run: JoinRun): string {
  let joined = "";
  // A string is matched whole (no string spans a line in JSON), so only whitespace outside one goes.
  for (let k = run.start; k <= run.end; k++) joined += (k === run.start ? doc.jsonText(k) : doc.lines[k]!).replace(STRING_OR_SPACE, keepStrings);
  return joined;
}

const STRING_OR_SPACE = /"(?:[^"\\]|\\.)*"|[ \t\r]+/g;
const keepStrings = (match: string) => (match.charCodeAt(0) === 34 ? match : "");

// ---- Fixes per code --------------------------------------------------------------------------

function deleteLineFix(ctx: Context, line: number, title: string): Fix {
  const { doc } = ctx;
  // The line and its ending; the last line keeps the ending of the line above as the file's final newline.
  const r = line < doc.lineCount - 1 ? doc.spanRange(line, 0, line + 1, 0) : doc.spanRange(line, 0, line, doc.lines[line]!.length);
  return { title, edits: [{ range: r, newText: "" }], safe: false };
}

function headerFix(ctx: Context, wholeFile: boolean): Fix {
  const { doc } = ctx;
  const now = ctx.now();
  const cwd = cwdForDocument(doc.uri);
  const header = JSON.stringify({ type: "session", version: CURRENT_VERSION, id: uuidv7(now, ctx.random), timestamp: now.toISOString(), cwd });
  const eol = eolOf(doc);
  const last = doc.lineCount - 1;
  // A whitespace-only file is replaced; otherwise the header goes above everything, taking the
  // place of a byte order mark (which would make the next line unparsable for Pi 1.x).
  const r = wholeFile ? doc.spanRange(0, 0, last, doc.lines[last]!.length) : doc.spanRange(0, 0, 0, doc.jsonOffset(0));
  return { title: `Insert a session header (cwd ${cwd})`, edits: [{ range: r, newText: header + eol }], safe: true };
}

function invalidHeaderFix(ctx: Context): Fix | undefined {
  const { doc, a } = ctx;
  const line = a.headerLine;
  if (line === undefined) return undefined;
  const p = doc.parsed[line]!;
  if (p.kind !== "value" || !p.object) return undefined;
  const old = p.object.id;
  const id = typeof old === "number" && Number.isFinite(old) ? String(old) : uuidv7(ctx.now(), ctx.random);
  const what = old === undefined ? "a fresh id" : typeof old === "number" ? `the id "${id}" (the number as a string)` : "a fresh id";
  // Only the id's token is replaced (or one member inserted after the type's), so every other
  // byte of the header stays as it is, as in the join above.
  const at = old === undefined ? doc.rangeOf(line, ["type"]) : doc.rangeOf(line, ["id"]);
  if (!at) return undefined;
  const edit =
    old === undefined ? { range: { start: at.end, end: at.end }, newText: `,"id":${JSON.stringify(id)}` } : { range: at, newText: JSON.stringify(id) };
  return { title: `Give the header ${what}`, edits: [edit], safe: true };
}

function duplicateIdFix(ctx: Context, entry: Entry): Fix | undefined {
  const { doc, a } = ctx;
  if (entry.id === undefined) return undefined;
  const holders = a.duplicates.get(entry.id);
  if (!holders || holders[holders.length - 1] === entry) return undefined; // The winner keeps its id.
  const r = doc.rangeOf(entry.line, ["id"]);
  if (!r) return undefined;
  const id = freshEntryId((candidate) => ctx.taken.has(candidate), ctx.random);
  ctx.taken.add(id);
  return {
    title: `Give this entry a fresh id ("${id}"); Pi resolves "${entry.id}" to line ${holders[holders.length - 1]!.line + 1}`,
    edits: [{ range: r, newText: JSON.stringify(id) }],
    safe: true,
  };
}

/** The nearest entry above `entry` that `accept`s and that Pi finds by its id. */
function nearestAbove(a: SessionAnalysis, entry: Entry, accept: (candidate: Entry) => boolean): Entry | undefined {
  for (let i = entry.index - 1; i >= 0; i--) {
    const candidate = a.entries[i]!;
    if (candidate.id === undefined || candidate.id === "" || a.byId.get(candidate.id) !== candidate) continue;
    if (accept(candidate)) return candidate;
  }
  return undefined;
}

function relinkFix(ctx: Context, entry: Entry, target: Entry | undefined, title: (to: string) => string, safe: boolean): Fix | undefined {
  const r = ctx.doc.rangeOf(entry.line, ["parentId"]);
  if (!r) return undefined;
  const to = target ? `the entry above (${describeEntry(target)})` : "null (a root)";
  return { title: title(to), edits: [{ range: r, newText: target ? JSON.stringify(target.id) : "null" }], safe };
}

function danglingParentFix(ctx: Context, entry: Entry): Fix | undefined {
  const { a } = ctx;
  if (a.parent[entry.index] !== undefined || typeof entry.parentId !== "string" || entry.parentId === "") return undefined;
  // A dangling entry is a root: an entry above it may still hang below it, and must not become its parent.
  const target = nearestAbove(a, entry, (c) => !a.reachesCycle[c.index] && !a.isAncestor(entry, c));
  return relinkFix(ctx, entry, target, (to) => `Re-link parentId to ${to}`, false);
}

function cycleFix(ctx: Context, entry: Entry): Fix | undefined {
  const { a } = ctx;
  if (a.cycleOf[entry.index]! < 0) return undefined;
  // Entries below the cycle reach it too, so "does not reach a cycle" also rules out every
  // entry that would hang below this one once it is re-linked.
  const target = nearestAbove(a, entry, (c) => !a.reachesCycle[c.index]);
  return relinkFix(ctx, entry, target, (to) => `Break the cycle: re-link parentId to ${to}`, true);
}

/** The member of a cycle that `source.fixAll` re-links: the first whose parent lies below it in the file. */
function cycleBreakPoint(a: SessionAnalysis, cycle: readonly Entry[]): Entry {
  let best: Entry | undefined;
  for (const e of cycle) {
    const p = a.parent[e.index];
    if (p && p.line > e.line && (!best || e.line < best.line)) best = e;
  }
  return best ?? cycle.reduce((x, y) => (y.line < x.line ? y : x));
}

function isOurs(d: Diagnostic): boolean {
  return d.source === undefined || d.source === DIAGNOSTIC_SOURCE;
}

/** The line a diagnostic is on, when it is still inside the document. */
function lineOf(ctx: Context, d: Diagnostic): number | undefined {
  const { line } = ctx.doc.toPi(d.range.start);
  return d.range.start.line >= 0 && d.range.start.line < ctx.doc.lspLineCount ? line : undefined;
}

function fixesIn(ctx: Context, d: Diagnostic): Fix[] {
  if (!isOurs(d)) return [];
  const { doc, a } = ctx;
  const line = lineOf(ctx, d);
  if (line === undefined) return [];
  const p = doc.parsed[line]!;
  const entry = a.entryAtLine[line];
  const out: (Fix | undefined)[] = [];
  switch (String(d.code)) {
    case "malformed-json": {
      if (p.kind !== "malformed") break;
      const run = joinRuns(ctx).get(line);
      if (run) out.push(joinFix(ctx, run));
      out.push(deleteLineFix(ctx, line, `Delete line ${line + 1} (its text is lost)`));
      break;
    }
    case "not-an-object": {
      if (p.kind !== "value" || p.isObject) break;
      const run = joinRuns(ctx).get(line);
      if (run) {
        out.push(joinFix(ctx, run));
      } else {
        // `null`, `false`, `0` and `""` hold nothing to lose; an array or another scalar might.
        const empty = !p.value;
        const fix = deleteLineFix(ctx, line, `Delete line ${line + 1} (${empty ? `a bare ${JSON.stringify(p.value)}` : "its value is lost"})`);
        out.push({ ...fix, safe: empty });
      }
      break;
    }
    case "truncated-line": {
      if (p.kind !== "malformed") break;
      if (doc.eols[line] === "")
        out.push({
          title: "End the cut-off line with a newline (keeps its text; Pi skips it)",
          edits: [{ range: doc.spanRange(line, doc.lines[line]!.length, line, doc.lines[line]!.length), newText: eolOf(doc) }],
          safe: true,
        });
      out.push(deleteLineFix(ctx, line, "Delete the cut-off last line (its text is lost)"));
      break;
    }
    case "empty-file":
      if (a.headerState === "empty-file" || doc.parsed.every((q) => q.kind === "blank")) out.push(headerFix(ctx, true));
      break;
    case "missing-header":
      if (a.headerState === "missing" || a.headerState === "no-entries") out.push(headerFix(ctx, false));
      break;
    case "invalid-header":
      if (a.headerState === "invalid") out.push(invalidHeaderFix(ctx));
      break;
    case "bom":
      if (doc.hasBom) out.push({ title: "Remove the byte order mark", edits: [{ range: doc.spanRange(0, 0, 0, 1), newText: "" }], safe: true });
      break;
    case "duplicate-id":
      if (entry) out.push(duplicateIdFix(ctx, entry));
      break;
    case "dangling-parent":
      if (entry) out.push(danglingParentFix(ctx, entry));
      break;
    case "parent-cycle":
    case "self-parent":
      if (entry) out.push(cycleFix(ctx, entry));
      break;
    case "no-final-newline": {
      const last = doc.lineCount - 1;
      if (!a.endsWithNewline)
        out.push({
          title: "Add a final newline",
          edits: [{ range: doc.spanRange(last, doc.lines[last]!.length, last, doc.lines[last]!.length), newText: eolOf(doc) }],
          safe: true,
        });
      break;
    }
  }
  return out.filter((f): f is Fix => f !== undefined);
}

/** The quick fixes for each of `diagnostics`, in order; fresh ids never collide across them. */
export function quickFixes(doc: SessionDocument, diagnostics: readonly Diagnostic[], options: FixOptions = {}): { diagnostic: Diagnostic; fixes: Fix[] }[] {
  if (diagnostics.length === 0) return [];
  const ctx = makeContext(doc, options);
  return diagnostics.map((diagnostic) => ({ diagnostic, fixes: fixesIn(ctx, diagnostic) }));
}

// ---- All safe fixes ------------------------------------------------------------------------------

/**
 * Fixes that depend on one another are applied in rounds, each on the result of the one before:
 * the text's shape first (a pretty-printed header must be joined before a missing header is
 * inserted), then the header, then the v1/v2 migration (which gives a v1 file its ids), then ids
 * (a fresh id can dissolve a cycle), then cycles.
 */
const TIERS: readonly (readonly string[])[] = [
  ["bom", "malformed-json", "not-an-object", "truncated-line", "no-final-newline"],
  ["empty-file", "missing-header", "invalid-header"],
  ["old-version", "invalid-version"],
  ["duplicate-id"],
  ["parent-cycle", "self-parent"],
];

const MAX_ROUNDS = 12;

export interface FixAllResult {
  /** The repaired copy (the input document is not changed); the same object when nothing changed. */
  doc: SessionDocument;
  /** The codes fixed, with how many times each. */
  fixed: Map<string, number>;
}

/** A copy of `doc` that shares its cached line parses. */
function copyOf(doc: SessionDocument): SessionDocument {
  return doc.clone();
}

function compare(x: { line: number; character: number }, y: { line: number; character: number }): number {
  return x.line - y.line || x.character - y.character;
}

/** One round: the safe edits of the first tier that has any, without overlaps. */
function safeRound(doc: SessionDocument, options: FixOptions): { edits: TextEdit[]; codes: string[] } {
  const diagnostics = computeDiagnostics(doc);
  const ctx = makeContext(doc, options);
  for (const tier of TIERS) {
    const picked = diagnostics.filter((d) => tier.includes(String(d.code)) && !options.ignoredCodes?.has(String(d.code)));
    if (picked.length === 0) continue;
    const candidates: { edit: TextEdit; code: string }[] = [];
    const cyclesDone = new Set<number>();
    for (const d of picked) {
      const code = String(d.code);
      if (code === "parent-cycle" || code === "self-parent") {
        const entry = ctx.a.entryAtLine[doc.toPi(d.range.start).line];
        if (!entry) continue;
        const cycle = ctx.a.cycleOf[entry.index]!;
        if (cycle < 0 || cyclesDone.has(cycle) || cycleBreakPoint(ctx.a, ctx.a.cycles[cycle]!) !== entry) continue;
        cyclesDone.add(cycle);
      }
      // The migration is one edit for the whole file, whichever diagnostic asks for it; its quick
      // fix is offered by codeActions.ts, so it is not among `fixesIn`'s.
      const fix = MIGRATION_CODES.has(code) ? migrationFix(doc) : fixesIn(ctx, d).find((f) => f.safe);
      if (!fix) continue;
      for (const edit of fix.edits) candidates.push({ edit, code });
    }
    // In document order, dropping an edit that overlaps or repeats one kept before it (a join
    // covers every line of its run, and the run's other lines offer the same edit); what is
    // dropped is offered again in the next round.
    candidates.sort((x, y) => compare(x.edit.range.start, y.edit.range.start) || compare(x.edit.range.end, y.edit.range.end));
    const edits: TextEdit[] = [];
    const codes: string[] = [];
    for (const { edit, code } of candidates) {
      const last = edits[edits.length - 1];
      if (
        last &&
        (compare(edit.range.start, last.range.end) < 0 || (compare(edit.range.start, last.range.start) === 0 && compare(edit.range.end, last.range.end) === 0))
      )
        continue;
      edits.push(edit);
      codes.push(code);
    }
    if (edits.length > 0) return { edits, codes };
  }
  return { edits: [], codes: [] };
}

/** Applies every safe fix to a copy of `doc`, round after round, until none is left. */
export function applySafeFixes(doc: SessionDocument, options: FixOptions = {}): FixAllResult {
  const fixed = new Map<string, number>();
  let current = doc;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { edits, codes } = safeRound(current, options);
    if (edits.length === 0) break;
    if (current === doc) current = copyOf(doc);
    // From the end backwards, so that every range still names the text it was computed on.
    const order = edits
      .map((_, i) => i)
      .sort((i, j) => compare(edits[j]!.range.start, edits[i]!.range.start) || compare(edits[j]!.range.end, edits[i]!.range.end));
    current.update(
      order.map((i) => ({ range: edits[i]!.range, text: edits[i]!.newText })),
      current.version,
    );
    for (const code of codes) fixed.set(code, (fixed.get(code) ?? 0) + 1);
  }
  return { doc: current, fixed };
}

// ---- Line diff ----------------------------------------------------------------------------------

/** The document as lines with their endings; no empty piece after a final newline. */
export function unitsOf(doc: SessionDocument): string[] {
  const units: string[] = [];
  for (let i = 0; i < doc.lineCount; i++) units.push(doc.lines[i]! + doc.eols[i]!);
  if (units.length > 0 && units[units.length - 1] === "") units.pop();
  return units;
}

export interface Hunk {
  /** Replaced units: a[aStart, aEnd) becomes b[bStart, bEnd). */
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Edit distance beyond which the differing middle is reported as one hunk. */
const MAX_DIFF_D = 1000;

/** The changed ranges between two line lists (Myers' O(ND) diff after trimming the common ends). */
export function lineDiff(a: readonly string[], b: readonly string[]): Hunk[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const n = a.length - prefix - suffix;
  const m = b.length - prefix - suffix;
  if (n === 0 && m === 0) return [];
  const whole: Hunk[] = [{ aStart: prefix, aEnd: prefix + n, bStart: prefix, bEnd: prefix + m }];
  if (n === 0 || m === 0) return whole;
  const max = Math.min(n + m, MAX_DIFF_D);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[prefix + x] === b[prefix + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return whole;
  // Walk back through the trace, collecting the edit steps, then merge them into hunks.
  const steps: { x: number; y: number; del: boolean }[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (prevK === k + 1)
      steps.push({ x: prevX, y: prevY, del: false }); // insertion of b[prevY]
    else steps.push({ x: prevX, y: prevY, del: true }); // deletion of a[prevX]
    x = prevX;
    y = prevY;
  }
  steps.reverse();
  const hunks: Hunk[] = [];
  for (const step of steps) {
    const aStart = prefix + step.x;
    const bStart = prefix + step.y;
    const h: Hunk = step.del ? { aStart, aEnd: aStart + 1, bStart, bEnd: bStart } : { aStart, aEnd: aStart, bStart, bEnd: bStart + 1 };
    const last = hunks[hunks.length - 1];
    if (last && last.aEnd === h.aStart && last.bEnd === h.bStart) {
      last.aEnd = h.aEnd;
      last.bEnd = h.bEnd;
    } else {
      hunks.push(h);
    }
  }
  return hunks;
}

/** Non-overlapping edits, on `from`'s text, that turn it into `to`. */
export function editsBetween(from: SessionDocument, to: SessionDocument): TextEdit[] {
  const a = unitsOf(from);
  const b = unitsOf(to);
  const last = from.lineCount - 1;
  const end = from.position(last, from.lines[last]!.length);
  const at = (i: number) => (i < a.length ? from.position(i, 0) : end);
  return lineDiff(a, b).map((h) => ({ range: { start: at(h.aStart), end: at(h.aEnd) }, newText: b.slice(h.bStart, h.bEnd).join("") }));
}

/** A unified diff (3 lines of context) between two texts given as units; "" when equal. */
export function unifiedDiff(a: readonly string[], b: readonly string[], oldName: string, newName: string): string {
  const hunks = lineDiff(a, b);
  if (hunks.length === 0) return "";
  const context = 3;
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  const show = (prefix: string, unit: string) => {
    const text = unit.endsWith("\n") ? unit.slice(0, -1) : unit;
    out.push(prefix + text);
    if (!unit.endsWith("\n")) out.push("\\ No newline at end of file");
  };
  let i = 0;
  while (i < hunks.length) {
    // Hunks closer than twice the context are printed together.
    let j = i;
    while (j + 1 < hunks.length && hunks[j + 1]!.aStart - hunks[j]!.aEnd <= 2 * context) j++;
    const aFrom = Math.max(0, hunks[i]!.aStart - context);
    const aTo = Math.min(a.length, hunks[j]!.aEnd + context);
    const bFrom = hunks[i]!.bStart - (hunks[i]!.aStart - aFrom);
    const bTo = hunks[j]!.bEnd + (aTo - hunks[j]!.aEnd);
    const range = (from: number, to: number) => `${to - from === 0 ? from : from + 1},${to - from}`;
    out.push(`@@ -${range(aFrom, aTo)} +${range(bFrom, bTo)} @@`);
    let k = aFrom;
    for (let h = i; h <= j; h++) {
      const hunk = hunks[h]!;
      for (; k < hunk.aStart; k++) show(" ", a[k]!);
      for (let x = hunk.aStart; x < hunk.aEnd; x++) show("-", a[x]!);
      for (let y = hunk.bStart; y < hunk.bEnd; y++) show("+", b[y]!);
      k = hunk.aEnd;
    }
    for (; k < aTo; k++) show(" ", a[k]!);
    i = j + 1;
  }
  return `${out.join("\n")}\n`;
}
