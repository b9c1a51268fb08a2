/**
 * A session document: Pi's lines, each with its cached parse, and the exact map to LSP positions.
 *
 * The stock `TextDocument` keeps one string and recomputes line offsets on every edit, which costs
 * tens of milliseconds per keystroke on a 40 MB session. Here an incremental edit splices only the
 * lines it touches and re-parses only those; every other line keeps its `ParsedLine` object. The
 * analysis (`analyze`) is derived lazily from the parsed lines and memoised until the next edit.
 *
 * Lines are Pi's lines (split on "\n"), because a line's parse must depend on that line alone. LSP
 * positions count a lone "\r" as a line break too; `PositionMap` converts, and every position that
 * enters or leaves the document goes through `toPi` or the range builders below, so that no feature
 * converts, or applies the byte order mark's offset, by itself.
 *
 * This module is pure: it knows LSP's change events as plain data but nothing of connections.
 */

import type { TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import type { Position, Range } from "vscode-languageserver";
import { analyze, type SessionAnalysis } from "./analysis";
import { reanalyze } from "./reanalyze";
import { type LineSplice, respliceAnalysis, widenSplice } from "./resplice";
import { replacedAnalysis } from "./semantics/memo";
import { detachLines, LineEnds, type SplitText, splitLines } from "../line/split";
import { CachedValueLine } from "../line/record";
import { locate, locateIdFast, type JsonPath } from "../line/locate";
import type { LineParses } from "../line/packed";
import { parseLine } from "../line/parse";
import { parseLineDeferringSecrets, type SecretsToFind } from "../line/deferredSecrets";
import type { ParsedLine } from "../line/facts";
import { type PiPosition, PositionMap } from "../line/positions";
import { keepsValues, parseWithoutKeeping, valueBudget } from "../line/values";
import { parseHoldingPath } from "../line/heldValues";

/** The next `SessionDocument.revision`, shared by every document so that no two texts share one. */
let nextRevision = 1;

export class SessionDocument {
  lines: string[];
  eols: LineEnds;
  parsed: ParsedLine[];
  private positions: PositionMap;
  private analysisCache: SessionAnalysis | undefined;
  /** The analysis of the version before the pending edits, which `reanalyze` may reuse. */
  private previousAnalysis: SessionAnalysis | undefined;
  /** Lines edited in place since `previousAnalysis`, with the parse it saw; undefined after an edit that added or removed lines. */
  private editedLines: Map<number, ParsedLine> | undefined = new Map();
  /** The lines edited since `previousAnalysis` as one span, or null when the whole text was replaced. */
  private lineSplice: LineSplice | null | undefined;
  /**
   * Whether a line may still have its credentials to find (`deferredSecrets.ts`); shared with the
   * clones, which share the lines. Optional, so that a document made another way (the streamed
   * check's, whose lines are parsed whole) cannot miss it: absent, none is pending.
   */
  readonly secretsToFind?: SecretsToFind;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    public version: number,
    text: string,
    /**
     * `splitLines(text)`, when the transport has already split it (the lines are then the
     * document's own), and the lines' parses when another thread made them meanwhile.
     */
    lines?: SplitText & { parses?: LineParses },
  ) {
    const split = lines ?? splitLines(text);
    if (!lines) detachLines(text, split.lines);
    this.lines = split.lines;
    this.eols = LineEnds.of(split.eols);
    // Parses made elsewhere keep no values: they are taken only for a text that would keep none.
    let parses = lines?.parses;
    if (parses && keepsValues(text.length)) {
      parses.dispose();
      parses = undefined;
    }
    // A text too large for the value cache keeps no values while it is parsed (see values.ts), and
    // leaves its lines' credentials to be found when their findings are first read: the first
    // diagnostics of a large open read none (`deferredSecrets.ts`).
    const deferSecrets = !keepsValues(text.length);
    this.secretsToFind = { pending: deferSecrets };
    this.parsed = parseWithoutKeeping(
      text.length,
      () =>
        parses?.take(this.lines, deferSecrets ? deferringSecrets : parseDocumentLine) ??
        // The lines Pi resumes from keep the values parsed here, for the complete diagnostics to read.
        (deferSecrets ? parseHoldingPath(this.lines, deferringSecrets, valueBudget()) : this.lines.map((line, i) => parseDocumentLine(line, i))),
    );
    this.positions = PositionMap.of(this.lines);
  }

  /** A copy that shares the cached line parses; editing either leaves the other as it was. */
  clone(): SessionDocument {
    const copy = Object.create(SessionDocument.prototype) as SessionDocument;
    // The copy analyses itself from scratch: the entry objects of an analysis are this document's.
    Object.assign(copy, this, {
      lines: this.lines.slice(),
      eols: this.eols.clone(),
      parsed: this.parsed.slice(),
      analysisCache: undefined,
      previousAnalysis: undefined,
      editedLines: undefined,
      lineSplice: null,
    });
    copy.positions = this.positions.clone();
    return copy;
  }

  /**
   * Puts `text`, the characters of line `line` stored another way (`lsp/lineStorage.ts` keeps an
   * idle server's two-byte lines as ropes of one-byte pieces), in place of its text, in the line
   * and in its parse, so that the old string is let go; the caller guarantees the characters are the
   * same (comparing them would undo the rope). False, and nothing changed, when the parse does not
   * hold the line's text as it is (line 0 after a byte order mark, a line that is not a value). The
   * parse is marked (`textStored`), so that the line is not looked at again.
   */
  storeLineAs(line: number, text: string): boolean {
    const old = this.lines[line];
    const parsed = this.parsed[line];
    if (old === undefined || old.length !== text.length || parsed?.kind !== "value") return false;
    // A line of this document keeps its text in a field of its parse (`ParsedValueLine`).
    const field = Object.getOwnPropertyDescriptor(parsed, "text");
    if (!field?.writable || field.value !== old) return false;
    this.lines[line] = text;
    (parsed as unknown as { text: string }).text = text;
    if (parsed instanceof CachedValueLine) parsed.markTextStored();
    return true;
  }

  /** Whether the document starts with a UTF-8 byte order mark. */
  get hasBom(): boolean {
    return this.lines[0]!.charCodeAt(0) === 0xfeff;
  }

  /** The JSON text of a line as it is parsed: line 0 without a byte order mark. */
  jsonText(line: number): string {
    const text = this.lines[line] ?? "";
    return line === 0 && this.hasBom ? text.slice(1) : text;
  }

  /** Where `jsonText(line)` starts within the line: 1 after a byte order mark, else 0. */
  jsonOffset(line: number): number {
    return line === 0 && this.hasBom ? 1 : 0;
  }

  /**
   * Where an edit that replaces the line's text ends: the end of the line, or before a lone "\r"
   * that ends the last line, which an editor reads as that line's ending and keeps.
   */
  replaceableEnd(line: number): number {
    const text = this.lines[line] ?? "";
    return this.eols.at(line) === "" && text.endsWith("\r") ? text.length - 1 : text.length;
  }

  /** The range an edit that replaces the line's JSON text covers: after a byte order mark, up to `replaceableEnd`. */
  jsonTextRange(line: number): Range {
    return this.range(line, this.jsonOffset(line), this.replaceableEnd(line));
  }

  /** The number of Pi lines (split on "\n" only). */
  get lineCount(): number {
    return this.lines.length;
  }

  /** The number of lines as an LSP client counts them ("\n", "\r\n" and a lone "\r" end a line). */
  get lspLineCount(): number {
    return this.positions.lspLineCount(this.lines.length);
  }

  /** The length of the text in UTF-16 code units, line endings left out. */
  textLength(): number {
    if (this.knownLength !== undefined) return this.knownLength;
    let chars = 0;
    for (const line of this.lines) chars += line.length;
    this.knownLength = chars;
    return chars;
  }

  /** `textLength()` of this version, once asked (the server's memory accounting and the request-size check both ask after an edit). */
  private knownLength: number | undefined;

  getText(): string {
    let text = "";
    for (let i = 0; i < this.lines.length; i++) text += this.lines[i]! + this.eols.at(i)!;
    return text;
  }

  /**
   * The memoised analysis of the current version. After edits that kept every line's place in the
   * tree (typing inside a message), the previous analysis is reused in O(edited lines).
   */
  get analysis(): SessionAnalysis {
    if (this.analysisCache) return this.analysisCache;
    const input = { parsed: this.parsed, isEmpty: this.lines.length === 1 && this.lines[0] === "", endsWithNewline: this.lines[this.lines.length - 1] === "" };
    const edited = this.editedLines;
    const reused = this.previousAnalysis && edited ? reanalyze(this.previousAnalysis, input, [...edited.keys()], [...edited.values()]) : undefined;
    const splice = this.lineSplice;
    this.analysisCache = reused ?? (this.previousAnalysis && splice && respliceAnalysis(this.previousAnalysis, input, splice)) ?? analyze(input);
    this.lineSplice = undefined;
    // A new structure: what was kept for the analysis it replaces may be carried over (`memo.ts`).
    if (!reused && this.previousAnalysis) replacedAnalysis(this.analysisCache, this.previousAnalysis, splice ?? undefined);
    this.previousAnalysis = undefined;
    this.editedLines = new Map();
    return this.analysisCache;
  }

  // ---- Positions ---------------------------------------------------------------------------------

  /** The Pi position of a client's position, clamped as the client's own text model clamps. */
  toPi(position: Position): PiPosition {
    return this.positions.toPi(position, this.lines.length, (line) => this.lines[line]!.length);
  }

  /**
   * The Pi position of a position a request names, or undefined when its line is not in the
   * document; the character is clamped to the end of its LSP line.
   */
  piPosition(position: Position): PiPosition | undefined {
    if (position.line < 0 || position.line >= this.lspLineCount) return undefined;
    return this.toPi(position);
  }

  /** The LSP position of offset `character` (clamped to the line) on Pi line `line`. */
  position(line: number, character: number): Position {
    const length = this.lines[line]?.length ?? 0;
    return this.positions.toLsp(line, character < 0 ? 0 : Math.min(character, length));
  }

  /** The LSP line on which Pi line `line` starts. */
  lspLine(line: number): number {
    return this.positions.lspLine(line);
  }

  /** The LSP line on which Pi line `line` ends. */
  lspEndLine(line: number): number {
    return this.positions.toLsp(line, this.lines[line]?.length ?? 0).line;
  }

  /** The range from offset `start` to offset `end` of Pi line `line`, clamped to the line. */
  range(line: number, start: number, end: number): Range {
    const length = this.lines[line]?.length ?? 0;
    const s = start < 0 ? 0 : Math.min(start, length);
    const e = end < s ? s : Math.min(end, length);
    return { start: this.positions.toLsp(line, s), end: this.positions.toLsp(line, e) };
  }

  /** The range from a Pi position to another, each clamped to its line. */
  spanRange(startLine: number, startCharacter: number, endLine: number, endCharacter: number): Range {
    return { start: this.position(startLine, startCharacter), end: this.position(endLine, endCharacter) };
  }

  /** The whole text of Pi line `line`, without its line ending. */
  lineRange(line: number): Range {
    return this.range(line, 0, this.lines[line]?.length ?? 0);
  }

  /** The range of an offset span of `jsonText(line)` (the byte order mark's offset added). */
  jsonRange(line: number, start: number, end: number): Range {
    const offset = this.jsonOffset(line);
    return this.range(line, start + offset, end + offset);
  }

  /** The range of the value at `path` on `line`, or undefined when it cannot be located. */
  rangeOf(line: number, path: JsonPath): Range | undefined {
    const found = locate(this.jsonText(line), path);
    return found ? this.jsonRange(line, found.value.start, found.value.end) : undefined;
  }

  /**
   * The range of the line's top-level `id` value, or of the whole line when it cannot be located:
   * found with one `indexOf` on a line written the way Pi writes it, so that listing 50,000 entries
   * does not walk 50,000 lines.
   */
  idRange(line: number): Range {
    const text = this.jsonText(line);
    const parsed = this.parsed[line];
    const id = parsed?.kind === "value" ? parsed.id : undefined;
    const span = (id === undefined ? undefined : locateIdFast(text, id)) ?? locate(text, ["id"])?.value;
    return span ? this.jsonRange(line, span.start, span.end) : this.lineRange(line);
  }

  /** The range of the value at `path` on `line`, or of the whole line when it cannot be located. */
  valueRange(line: number, path: JsonPath): Range {
    return this.rangeOf(line, path) ?? this.lineRange(line);
  }

  // ---- Edits -------------------------------------------------------------------------------------

  /**
   * Which text this is: a number no other document or text of this process has had, drawn anew by
   * every update. A result computed from the text is tied to this, not to `version`: a client may
   * send a change without raising the version (or bring it back to an earlier number), and reopens
   * a closed document at version 1 again, and a result of the earlier text must not pass for one of
   * this text. (A `clone` keeps it: it holds the same text until it is edited.)
   */
  revision = nextRevision++;

  /** Applies LSP content changes in order (incremental or full) and sets the new version. */
  update(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    this.revision = nextRevision++;
    // What is derived from the lines is let go before the first change, not after the last: a
    // malformed change (a null range) throws after the changes before it were applied, and the
    // analysis of the old text must not then be read over the new lines (an outline past the end).
    this.version = version;
    if (this.analysisCache) {
      this.previousAnalysis = this.analysisCache;
      this.analysisCache = undefined;
      this.lineSplice = undefined;
    }
    for (const change of changes) {
      if ("range" in change) this.applyRangeChange(change.range, change.text);
      else this.replaceAll(change.text);
    }
  }

  private replaceAll(text: string): void {
    // Clients that sync whole documents still benefit from the per-line cache: unchanged lines are
    // looked up by their text.
    const previous = new Map<string, ParsedLine>();
    // Line 0 is left out when it starts with a byte order mark: it was parsed without the mark,
    // which is right only for the first line.
    for (let i = this.hasBom ? 1 : 0; i < this.lines.length; i++) previous.set(this.lines[i]!, this.parsed[i]!);
    const split = splitLines(text);
    this.lines = split.lines;
    this.eols = LineEnds.of(split.eols);
    this.parsed = this.lines.map((line, i) => (i > 0 && previous.get(line)) || parseDocumentLine(line, i));
    this.positions = PositionMap.of(this.lines);
    this.editedLines = undefined;
    this.lineSplice = null;
    this.knownLength = undefined;
  }

  private applyRangeChange(range: Range, text: string): void {
    // As the client's text model does: a reversed range is swapped first, then each end is clamped.
    const reversed = range.start.line > range.end.line || (range.start.line === range.end.line && range.start.character > range.end.character);
    const start = this.toPi(reversed ? range.end : range.start);
    const end = this.toPi(reversed ? range.start : range.end);
    const startLine = start.line;
    const endLine = end.line;
    const prefix = this.lines[startLine]!.slice(0, start.character);
    const suffix = this.lines[endLine]!.slice(end.character);
    const endEol = this.eols.at(endLine)!;
    const split = splitLines(prefix + text + suffix);
    const newLines = split.lines;
    const newEols = split.eols;
    const lastNew = newLines.length - 1;
    // The last new piece inherits the ending of the last replaced line; an inserted "\r" right
    // before an existing "\n" turns that ending into "\r\n".
    if (endEol === "\n" && newLines[lastNew]!.endsWith("\r")) {
      newLines[lastNew] = newLines[lastNew]!.slice(0, -1);
      newEols[lastNew] = "\r\n";
    } else {
      newEols[lastNew] = endEol;
    }
    const count = endLine - startLine + 1;
    const newParsed = newLines.map((line, i) =>
      i < count && this.lines[startLine + i] === line ? this.parsed[startLine + i]! : parseDocumentLine(line, startLine + i),
    );
    if (this.lineSplice !== null) this.lineSplice = widenSplice(this.lineSplice, startLine, count, newLines.length);
    // What the analysis may reuse: lines edited in place keep their numbers; anything else does not.
    if (newLines.length !== count) this.editedLines = undefined;
    else if (this.editedLines) {
      for (let i = 0; i < count; i++) {
        const line = startLine + i;
        if (newParsed[i] !== this.parsed[line] && !this.editedLines.has(line)) this.editedLines.set(line, this.parsed[line]!);
      }
    }
    // The length is kept up to date rather than summed again over 50,000 lines after every edit.
    if (this.knownLength !== undefined) {
      for (let i = 0; i < count; i++) this.knownLength -= this.lines[startLine + i]!.length;
      for (const line of newLines) this.knownLength += line.length;
    }
    this.lines = splice(this.lines, startLine, count, newLines);
    this.eols.splice(startLine, count, newEols);
    this.parsed = splice(this.parsed, startLine, count, newParsed);
    this.positions.splice(startLine, count, newLines);
  }
}

/** `Array.prototype.splice` without spreading a possibly huge argument list onto the stack. */
function splice<T>(array: T[], start: number, count: number, items: T[]): T[] {
  if (items.length < 10_000) {
    array.splice(start, count, ...items);
    return array;
  }
  return array.slice(0, start).concat(items, array.slice(start + count));
}

/**
 * Parses line `line`. Pi 0.73/0.74 trims the whole file before splitting it, which drops a byte
 * order mark, so the first line is parsed without one; Pi 1.x does not, and the diagnostics say so.
 * With `deferSecrets`, the line's credentials are found when its findings are first read.
 */
function parseDocumentLine(text: string, line: number, deferSecrets = false): ParsedLine {
  const parse = deferSecrets ? parseLineDeferringSecrets : parseLine;
  return line === 0 && text.charCodeAt(0) === 0xfeff ? parse(text.slice(1)) : parse(text);
}

/** `parseDocumentLine` of a line whose credentials are found when its findings are first read. */
const deferringSecrets = (text: string, line: number): ParsedLine => parseDocumentLine(text, line, true);
