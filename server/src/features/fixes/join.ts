/**
 * Pretty-printed entries: an object written over several lines (`JSON.stringify(value, null, 2)`)
 * is one entry Pi cannot read, and joining its lines back into one keeps every token.
 */

import type { SessionDocument } from "../../core/session/document";
import type { Context, Fix, JoinRun } from "./fixContext";

/** Lines scanned at most for one pretty-printed entry. */
const MAX_JOIN_LINES = 100_000;

/**
 * Every run of lines that is one pretty-printed object: it starts with a malformed line that
 * begins with `{` (in its first column, as `JSON.stringify(value, null, 2)` writes it), runs over lines Pi cannot use as entries (malformed, blank, scalars), and its
 * braces close on a line after which only whitespace follows; the joined text must parse as an
 * object. Each line of a run maps to the run.
 */
export function joinRuns(ctx: Context): Map<number, JoinRun> {
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

export function joinFix(ctx: Context, run: JoinRun): Fix {
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
