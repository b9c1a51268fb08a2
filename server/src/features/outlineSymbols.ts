/**
 * The symbols of the outline (`symbols.ts`): what each one says (name, detail, kind) and the ranges
 * it covers, for the header, an entry, a branch container and the parent-cycle group. Kept apart
 * from the walk that decides where each symbol goes, so that the outline's shape and its wording
 * can be read, and changed, one without the other. Every symbol that reads a line's text registers
 * in `patches` how to compute it again after an edit of that line (`keptAnswers.ts`).
 */

import type { DocumentSymbol, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { sessionName } from "../core/session/semantics/sessionName";
import { groupDigits, singleLine } from "../core/base/text";
import { entryKind, entryTitle, NAME_CODE_POINTS, SYMBOL } from "./entryTitle";
import { LinePatches } from "./keptAnswers";

export class OutlineSymbols {
  private readonly a: SessionAnalysis;

  constructor(
    private readonly doc: SessionDocument,
    /** Where each symbol that reads a line's text says how to compute it again. */
    private readonly patches = new LinePatches(),
  ) {
    this.a = doc.analysis;
  }

  /** The header's symbol (`session`, or `session: <name>`), or undefined when there is no header to show. */
  header(): DocumentSymbol | undefined {
    const a = this.a;
    const line = a.headerLine;
    if (line === undefined || (a.headerState !== "ok" && a.headerState !== "invalid")) return undefined;
    const range = this.doc.lineRange(line);
    if (a.headerState === "invalid") return { name: "session (invalid header)", kind: SYMBOL.File, range, selectionRange: range };
    const h = a.header!;
    const named = sessionName(a).name;
    const name = named === undefined ? undefined : singleLine(named, NAME_CODE_POINTS) || undefined;
    const details = [typeof h.id === "string" ? singleLine(h.id, NAME_CODE_POINTS) : ""];
    if (typeof h.cwd === "string" && h.cwd) details.push(singleLine(h.cwd, NAME_CODE_POINTS));
    return {
      name: name ? `session: ${name}` : "session",
      detail: details.filter(Boolean).join(" · "),
      kind: SYMBOL.File,
      range,
      selectionRange: this.doc.idRange(line),
    };
  }

  /** An entry's symbol: its title, and a detail of its id, `leaf`, the walk's `notes` and a duplicate id. */
  entry(entry: Entry, notes: string[] | undefined): DocumentSymbol {
    const a = this.a;
    const doc = this.doc;
    let detail = entry.id === undefined ? "(no id)" : singleLine(entry.id, NAME_CODE_POINTS);
    if (entry === a.leaf) detail += " · leaf";
    if (notes) for (const note of notes) detail += ` · ${note}`;
    if (entry.id !== undefined && a.duplicates.size > 0 && a.duplicates.has(entry.id)) {
      const winner = a.byId.get(entry.id)!;
      detail += winner === entry ? " · duplicate id" : ` · duplicate id, shadowed by line ${winner.line + 1}`;
    }
    const line = entry.line;
    const selection = (): Range => (entry.id === undefined ? doc.lineRange(line) : doc.idRange(line));
    const symbol: DocumentSymbol = { name: entryTitle(entry), detail, kind: entryKind(entry), range: doc.lineRange(line), selectionRange: selection() };
    this.patches.on(line, () => {
      symbol.name = entryTitle(entry);
      symbol.range = doc.lineRange(line);
      symbol.selectionRange = selection();
    });
    return symbol;
  }

  /**
   * The container of side branch `i` of `of`, which starts at `first` and holds `size` entries on
   * lines `from` to `to`; its children are added by the walk.
   */
  branch(first: Entry, i: number, of: number, size: number, from: number, to: number): DocumentSymbol {
    const k = first.index;
    const notes = [`${groupDigits(size)} ${size === 1 ? "entry" : "entries"}`];
    if (this.a.activePath.length > 0) notes.push(this.a.onActivePath[k] ? "on the active path" : "off the active path");
    const symbol: DocumentSymbol = {
      name: `branch ${i + 1} of ${of}: ${entryTitle(first)}`,
      detail: notes.join(" · "),
      kind: SYMBOL.Namespace,
      range: this.spanRange(from, to),
      selectionRange: this.doc.idRange(first.line),
      children: [],
    };
    this.patches.on(first.line, () => {
      symbol.name = `branch ${i + 1} of ${of}: ${entryTitle(first)}`;
      symbol.selectionRange = this.doc.idRange(first.line);
    });
    this.patches.on(to, () => (symbol.range = this.spanRange(from, to)));
    return symbol;
  }

  /** The `parent cycle (N entries)` symbol over `members` (every entry no root reaches), holding `children`. */
  cycleGroup(members: Entry[], children: DocumentSymbol[]): DocumentSymbol {
    const firstLine = members[0]!.line;
    const lastLine = members[members.length - 1]!.line;
    const group: DocumentSymbol = {
      name: `parent cycle (${groupDigits(members.length)} ${members.length === 1 ? "entry" : "entries"})`,
      detail: "not reachable from any root; walking up from them, Pi 0.74 hangs and Pi 1.x fails",
      kind: SYMBOL.Array,
      range: this.spanRange(firstLine, lastLine),
      selectionRange: this.doc.idRange(firstLine),
      children,
    };
    this.patches.on(firstLine, () => (group.selectionRange = this.doc.idRange(firstLine)));
    this.patches.on(lastLine, () => (group.range = this.spanRange(firstLine, lastLine)));
    return group;
  }

  /** From the start of line `first` to the end of line `last`. */
  private spanRange(first: number, last: number): Range {
    return this.doc.spanRange(first, 0, last, this.doc.lines[last]?.length ?? 0);
  }
}
