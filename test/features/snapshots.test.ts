/**
 * Fixture-and-snapshot cases for hover, completion and the outline: one file per case under
 * test/fixtures/<feature>/, the session with a `$0` cursor above `#### expected` and the rendered
 * output below it (see test/helpers/snapshot.ts for the format).
 *
 * `UPDATE_EXPECT=1 npx vitest run test/features/snapshots.test.ts` rewrites the expected parts.
 *
 * Besides the snapshot, every case checks what must hold whatever the output: each range lies on one
 * line of the document and inside it, a hover's range holds the cursor, an outline symbol's
 * selection lies inside its range and children inside their parent.
 */

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CompletionItem, CompletionItemKind, type DocumentSymbol, type Position, type Range, SymbolKind } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCompletion } from "../../server/src/features/completion";
import { computeHover } from "../../server/src/features/hover";
import { computeDocumentSymbols, DEFAULT_MAX_SYMBOLS } from "../../server/src/features/symbols";
import { readSnapshot, type SnapshotFixture, UPDATE, updateSnapshot } from "../helpers/snapshot";

const ROOT = join(__dirname, "../fixtures");

/** A feature's rendering of its answer; `problems` collects broken invariants. */
type Render = (doc: SessionDocument, fixture: SnapshotFixture, problems: string[]) => string;

const kindNames = (kinds: Record<string, number | unknown>) => new Map(Object.entries(kinds).map(([name, value]) => [value as number, name]));
const COMPLETION_KINDS = kindNames(CompletionItemKind);
const SYMBOL_KINDS = kindNames(SymbolKind);

/** The text a one-line range covers, checking that it lies on one line and inside it. */
function covered(doc: SessionDocument, range: Range, problems: string[], what: string): string {
  const line = doc.lines[range.start.line];
  if (line === undefined || range.end.line !== range.start.line) {
    problems.push(`${what}: range ${JSON.stringify(range)} is not on one line of the document`);
    return "";
  }
  if (range.start.character < 0 || range.start.character > range.end.character || range.end.character > line.length) {
    problems.push(`${what}: range ${JSON.stringify(range)} runs outside its line (${line.length} characters)`);
  }
  return line.slice(range.start.character, range.end.character);
}

const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
const inside = (outer: Range, inner: Range) => before(outer.start, inner.start) && before(inner.end, outer.end);

function cursorOf(fixture: SnapshotFixture): Position {
  if (!fixture.cursor) throw new Error("this fixture needs a $0 cursor");
  return fixture.cursor;
}

const renderHover: Render = (doc, fixture, problems) => {
  const cursor = cursorOf(fixture);
  const hover = computeHover(doc, cursor);
  if (!hover) return "no hover";
  const contents = hover.contents as { kind?: string; value?: string };
  if (contents.kind !== "markdown") problems.push(`hover contents are ${JSON.stringify(hover.contents).slice(0, 80)}, not Markdown`);
  let head = "hover without a range";
  if (hover.range) {
    head = `hover on ${JSON.stringify(covered(doc, hover.range, problems, "hover"))}`;
    if (!inside(hover.range, { start: cursor, end: cursor })) problems.push(`hover range ${JSON.stringify(hover.range)} does not hold the cursor`);
  }
  return `${head}\n${contents.value ?? ""}`;
};

/**
 * One item: its label, kind and detail; what it inserts where; the text a client filters on when
 * it is not the label; the first line of its documentation.
 */
function renderItem(doc: SessionDocument, item: CompletionItem, problems: string[]): string {
  const kind = item.kind === undefined ? "" : ` (${COMPLETION_KINDS.get(item.kind) ?? item.kind})`;
  const out = [`- ${item.label}${kind}${item.detail ? ` · ${item.detail}` : ""}${item.preselect ? " · preselected" : ""}`];
  const snippet = item.insertTextFormat === 2 ? "snippet " : "";
  const edit = item.textEdit;
  if (!edit) out.push(`    inserts ${snippet}${JSON.stringify(item.insertText ?? item.label)}`);
  else {
    const range = "range" in edit ? edit.range : edit.replace;
    const replaced = covered(doc, range, problems, `completion ${item.label}`);
    const where = replaced === "" ? `at line ${range.start.line + 1} character ${range.start.character}` : `replacing ${JSON.stringify(replaced)}`;
    out.push(`    ${where} with ${snippet}${JSON.stringify(edit.newText)}`);
  }
  if (item.filterText !== undefined && item.filterText !== item.label) out.push(`    filtered as ${JSON.stringify(item.filterText)}`);
  const docs = typeof item.documentation === "string" ? item.documentation : item.documentation?.value;
  // The first line of prose or code, past a code fence; long lines are clipped.
  const first = docs?.split("\n").find((line) => line.trim() !== "" && !line.startsWith("```"));
  if (first) out.push(`    docs: ${first.length > 120 ? `${first.slice(0, 120)}…` : first}`);
  return out.join("\n");
}

/** A fixed clock and a fixed random (the digits of "beefcafe", then zeros), so fresh ids and times are stable. */
function completionOptions() {
  const hex = "beefcafe";
  let i = 0;
  return { now: () => new Date("2026-11-29T14:00:00.000Z"), random: () => (i < hex.length ? parseInt(hex[i++]!, 16) / 16 : 0) };
}

const renderCompletion: Render = (doc, fixture, problems) => {
  const list = computeCompletion(doc, cursorOf(fixture), completionOptions());
  if (list.items.length === 0) return `no completion${list.isIncomplete ? " (incomplete)" : ""}`;
  // In the order a client shows them: by sortText, then label.
  const items = [...list.items].sort((x, y) => (x.sortText ?? x.label).localeCompare(y.sortText ?? y.label) || x.label.localeCompare(y.label));
  const head = `${items.length} item${items.length === 1 ? "" : "s"}${list.isIncomplete ? " (incomplete)" : ""}`;
  return [head, ...items.map((item) => renderItem(doc, item, problems))].join("\n");
};

function lines(range: Range): string {
  return range.start.line === range.end.line ? `line ${range.start.line + 1}` : `lines ${range.start.line + 1}–${range.end.line + 1}`;
}

const renderOutline: Render = (doc, fixture, problems) => {
  const max = Number(fixture.options.get("max-symbols") ?? DEFAULT_MAX_SYMBOLS);
  const { symbols, truncated } = computeDocumentSymbols(doc, { maxSymbols: max });
  const out: string[] = [];
  // Depth first, iteratively, with each symbol's parent for the containment check.
  const stack: { s: DocumentSymbol; depth: number; parent: DocumentSymbol | undefined }[] = symbols.map((s) => ({ s, depth: 0, parent: undefined })).reverse();
  while (stack.length > 0) {
    const { s, depth, parent } = stack.pop()!;
    const kind = SYMBOL_KINDS.get(s.kind) ?? String(s.kind);
    // The selection as it reads in the line (usually the quoted id), clipped on long lines.
    const selected = covered(doc, s.selectionRange, problems, `${s.name}'s selection`);
    const selection = selected.length > 60 ? `${selected.slice(0, 60)}…` : selected;
    out.push(`${"  ".repeat(depth)}${s.name}${s.detail ? ` — ${s.detail}` : ""}  [${kind}, ${lines(s.range)}, selects ${selection}]`);
    if (!inside(s.range, s.selectionRange)) problems.push(`${s.name}: selection ${JSON.stringify(s.selectionRange)} outside its range`);
    if (parent && !inside(parent.range, s.range)) problems.push(`${s.name}: range outside its parent ${parent.name}`);
    for (const bound of [s.range.start, s.range.end]) {
      const line = doc.lines[bound.line];
      if (line === undefined || bound.character > line.length) problems.push(`${s.name}: range ${JSON.stringify(s.range)} outside the document`);
    }
    for (let i = (s.children?.length ?? 0) - 1; i >= 0; i--) stack.push({ s: s.children![i]!, depth: depth + 1, parent: s });
  }
  if (truncated) out.push(`(truncated at ${max} symbols)`);
  return out.join("\n") || "no symbols";
};

const FEATURES: Record<string, Render> = { hover: renderHover, completion: renderCompletion, outline: renderOutline };

for (const [feature, render] of Object.entries(FEATURES)) {
  const dir = join(ROOT, feature);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort();

  describe(`${feature} fixtures`, () => {
    it("exist", () => {
      expect(files.length).toBeGreaterThan(5);
    });

    for (const file of files) {
      it(file.replace(/\.txt$/, ""), () => {
        const path = join(dir, file);
        const { source, fixture } = readSnapshot(path);
        const doc = new SessionDocument(`file:///fixtures/${feature}/${file.replace(/\.txt$/, ".jsonl")}`, "jsonl", 1, fixture.text);
        const problems: string[] = [];
        const actual = render(doc, fixture, problems);
        expect(problems).toEqual([]);
        if (UPDATE) {
          if (actual !== fixture.expected) expect(updateSnapshot(path, source, actual)).toContain(actual);
          else expect(fixture.expected).toBe(actual);
          return;
        }
        expect(fixture.expected, `${file} has no "#### expected" part yet: run with UPDATE_EXPECT=1`).toBeDefined();
        expect(actual).toBe(fixture.expected);
      });
    }
  });
}
