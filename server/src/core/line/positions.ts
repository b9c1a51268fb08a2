/**
 * The two ways of counting lines in one session text, and the exact map between them.
 *
 * Pi splits a session on "\n" only; LSP clients split on "\n", "\r\n" and a lone "\r". The document
 * keeps Pi's lines (each line's parse depends on that line alone), so a lone "\r" stays inside a Pi
 * line, where `JSON.parse` reads it as whitespace or fails on it inside a string. Every position the
 * server sends or receives is an LSP position, so this module maps between a Pi position (Pi line,
 * UTF-16 offset in that line's text) and an LSP position (LSP line, UTF-16 offset in that line).
 *
 * A lone "\r" is any "\r" inside a stored line text: the "\r" of a "\r\n" ending is stored apart
 * with the ending. Session files practically never hold one, so the map keeps only the Pi lines that
 * do; with none, every conversion is the identity and costs one comparison.
 */

export interface PiPosition {
  line: number;
  character: number;
}

/** Offsets of every "\r" in `text`, or undefined when there is none (the usual case). */
export function carriageReturns(text: string): number[] | undefined {
  let at = text.indexOf("\r");
  if (at < 0) return undefined;
  const offsets: number[] = [];
  while (at >= 0) {
    offsets.push(at);
    at = text.indexOf("\r", at + 1);
  }
  return offsets;
}

export class PositionMap {
  /** Pi lines holding a lone "\r", ascending. */
  private crLines: number[] = [];
  /** For each of `crLines`, the offsets of its "\r"s. */
  private crOffsets: number[][] = [];
  /** For each of `crLines`, how many lone "\r"s all earlier Pi lines hold (extra LSP lines before it). */
  private before: number[] = [];
  private total = 0;

  /** Builds the map of a whole document. */
  static of(lines: readonly string[]): PositionMap {
    const map = new PositionMap();
    for (let i = 0; i < lines.length; i++) {
      const offsets = carriageReturns(lines[i]!);
      if (offsets) {
        map.crLines.push(i);
        map.crOffsets.push(offsets);
      }
    }
    map.recount();
    return map;
  }

  clone(): PositionMap {
    const copy = new PositionMap();
    copy.crLines = this.crLines.slice();
    copy.crOffsets = this.crOffsets.slice();
    copy.before = this.before.slice();
    copy.total = this.total;
    return copy;
  }

  /** Whether Pi's lines and LSP's lines are the same. */
  get isIdentity(): boolean {
    return this.crLines.length === 0;
  }

  /** How many LSP lines a document of `piLineCount` Pi lines has. */
  lspLineCount(piLineCount: number): number {
    return piLineCount + this.total;
  }

  /**
   * Records that Pi lines `start .. start + removed` were replaced by `inserted` (their new texts).
   * Costs nothing when neither the old nor the new lines hold a lone "\r", beyond looking at the new lines.
   */
  splice(start: number, removed: number, inserted: readonly string[]): void {
    const added: { line: number; offsets: number[] }[] = [];
    for (let i = 0; i < inserted.length; i++) {
      const offsets = carriageReturns(inserted[i]!);
      if (offsets) added.push({ line: start + i, offsets });
    }
    if (this.crLines.length === 0 && added.length === 0) return;
    const delta = inserted.length - removed;
    const lines: number[] = [];
    const offsets: number[][] = [];
    let k = 0;
    for (; k < this.crLines.length && this.crLines[k]! < start; k++) {
      lines.push(this.crLines[k]!);
      offsets.push(this.crOffsets[k]!);
    }
    for (const a of added) {
      lines.push(a.line);
      offsets.push(a.offsets);
    }
    for (; k < this.crLines.length; k++) {
      const line = this.crLines[k]!;
      if (line < start + removed) continue;
      lines.push(line + delta);
      offsets.push(this.crOffsets[k]!);
    }
    this.crLines = lines;
    this.crOffsets = offsets;
    this.recount();
  }

  private recount(): void {
    this.before = new Array(this.crLines.length);
    let total = 0;
    for (let k = 0; k < this.crLines.length; k++) {
      this.before[k] = total;
      total += this.crOffsets[k]!.length;
    }
    this.total = total;
  }

  /** How many of `crLines` are below `line`. */
  private rank(line: number): number {
    let low = 0;
    let high = this.crLines.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.crLines[mid]! < line) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The LSP position of a Pi position. */
  toLsp(line: number, character: number): { line: number; character: number } {
    if (this.crLines.length === 0) return { line, character };
    const k = this.rank(line);
    const extra = k < this.crLines.length ? this.before[k]! : this.total;
    if (this.crLines[k] !== line) return { line: line + extra, character };
    const offsets = this.crOffsets[k]!;
    // A "\r" at offset o ends its LSP line: a position up to o is before it, o + 1 starts the next line.
    let j = 0;
    while (j < offsets.length && offsets[j]! < character) j++;
    return { line: line + extra + j, character: j === 0 ? character : character - offsets[j - 1]! - 1 };
  }

  /** The LSP line on which Pi line `line` starts. */
  lspLine(line: number): number {
    if (this.crLines.length === 0) return line;
    const k = this.rank(line);
    return line + (k < this.crLines.length ? this.before[k]! : this.total);
  }

  /**
   * The Pi position of an LSP position, clamped the way `vscode-languageserver-textdocument` clamps
   * (`offsetAt`): a line past the end is the end of the text, a character past the end of its LSP
   * line is the end of that line (before its line break). `lineLength(piLine)` gives a Pi line's text length.
   */
  toPi(position: { line: number; character: number }, piLineCount: number, lineLength: (line: number) => number): PiPosition {
    const lspCount = this.lspLineCount(piLineCount);
    if (position.line >= lspCount) {
      const last = piLineCount - 1;
      return { line: last, character: lineLength(last) };
    }
    if (position.line < 0) return { line: 0, character: 0 };
    const wanted = Math.max(0, position.character);
    if (this.crLines.length === 0) return { line: position.line, character: Math.min(wanted, lineLength(position.line)) };
    // The last CR line starting at or before the wanted LSP line.
    let low = 0;
    let high = this.crLines.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.crLines[mid]! + this.before[mid]! <= position.line) low = mid + 1;
      else high = mid;
    }
    const k = low - 1;
    if (k >= 0) {
      const piLine = this.crLines[k]!;
      const first = piLine + this.before[k]!;
      const offsets = this.crOffsets[k]!;
      const segment = position.line - first;
      if (segment <= offsets.length) {
        const start = segment === 0 ? 0 : offsets[segment - 1]! + 1;
        const end = segment < offsets.length ? offsets[segment]! : lineLength(piLine);
        return { line: piLine, character: start + Math.min(wanted, end - start) };
      }
      const piLineOf = position.line - this.before[k]! - offsets.length;
      return { line: piLineOf, character: Math.min(wanted, lineLength(piLineOf)) };
    }
    return { line: position.line, character: Math.min(wanted, lineLength(position.line)) };
  }
}
