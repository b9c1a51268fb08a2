/**
 * The quick fixes of one diagnostic, per code (which of them are safe is said in `../fixes.ts`).
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { freshEntryId, uuidv7 } from "../../core/base/ids";
import { CURRENT_VERSION } from "../../core/line/schema";
import { plural, shortValue, singleLine } from "../../core/base/text";
import { cwdForDocument } from "../../core/disk/location";
import { type Context, describeEntry, eolOf, type Fix, isOurs, lineOf } from "./fixContext";
import { joinFix, joinRuns } from "./join";
import { repairFix, splitFix } from "./mend";
import { recoverFix } from "./recover";
import { editorRedactionKey, secretFix } from "./secretFix";

/** What deleting a line loses, for the fix's title: its length and its first characters. */
function lostText(ctx: Context, line: number): string {
  const text = ctx.doc.jsonText(line);
  return `its text is lost: ${plural(text.length, "character")}, ${singleLine(text, 48)}`;
}

function deleteLineFix(ctx: Context, line: number, title: string): Fix {
  const { doc } = ctx;
  // The line and its ending; the last line keeps the ending of the line above as the file's final newline.
  const r = line < doc.lineCount - 1 ? doc.spanRange(line, 0, line + 1, 0) : doc.spanRange(line, 0, line, doc.lines[line]!.length);
  return { title, edits: [{ range: r, newText: "" }], safe: false, summary: `deleted the line (${lostText(ctx, line)})` };
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
  // byte of the header stays as it is, as in the join of pretty-printed entries.
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
  const summary = `re-linked parentId ${shortValue(entry.parentId)} to ${target ? shortValue(target.id) : "null (a root)"}`;
  return { title: title(to), edits: [{ range: r, newText: target ? JSON.stringify(target.id) : "null" }], safe, summary };
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
export function cycleBreakPoint(a: SessionAnalysis, cycle: readonly Entry[]): Entry {
  let best: Entry | undefined;
  for (const e of cycle) {
    const p = a.parent[e.index];
    if (p && p.line > e.line && (!best || e.line < best.line)) best = e;
  }
  return best ?? cycle.reduce((x, y) => (y.line < x.line ? y : x));
}

export function fixesIn(ctx: Context, d: Diagnostic): Fix[] {
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
      // Mends first, each keeping every character of what it mends; deleting the line comes last.
      out.push(splitFix(ctx, line));
      const recovered = recoverFix(ctx, line);
      out.push(recovered ?? repairFix(ctx, line));
      out.push(deleteLineFix(ctx, line, `Delete line ${line + 1} (${lostText(ctx, line)})`));
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
      if (doc.eols.at(line) === "")
        out.push({
          title: "End the cut-off line with a newline (keeps its text; Pi skips it)",
          edits: [{ range: doc.spanRange(line, doc.lines[line]!.length, line, doc.lines[line]!.length), newText: eolOf(doc) }],
          safe: true,
        });
      out.push(splitFix(ctx, line));
      const recovered = recoverFix(ctx, line);
      out.push(recovered ?? repairFix(ctx, line));
      out.push(deleteLineFix(ctx, line, `Delete the cut-off last line (${lostText(ctx, line)})`));
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
    case "secret":
      out.push(secretFix(doc, line, d, ctx.redactionKey ?? editorRedactionKey()));
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
