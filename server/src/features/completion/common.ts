/** What every completion list shares: the item kinds, how an item carries its text, and the documentation's Markdown. */

import type { CompletionItem, CompletionList, MarkupContent, Position, Range, TextEdit } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import type { Random } from "../../core/base/ids";
import type { Snippet } from "./snippet";

/** The LSP constants used here (the enums are type-only imports). */
export const KIND = { Text: 1, Field: 5, Reference: 18, EnumMember: 20, Snippet: 15, Value: 12 } as const;
const SNIPPET_FORMAT = 2;
const PLAIN_FORMAT = 1;

/** At most this many id or tool call candidates; the list says `isIncomplete` when cut. */
export const MAX_ID_ITEMS = 200;

/** What the completion functions need to know besides the document. */
export interface CompletionContext {
  a: SessionAnalysis;
  now: Date;
  random: Random | undefined;
  /** Whether the client takes snippets (`completionItem.snippetSupport`); plain text otherwise. */
  snippets: boolean;
}

export function markdown(value: string): MarkupContent {
  return { kind: "markdown", value };
}

export function rank(n: number): string {
  return n.toString().padStart(5, "0");
}

/**
 * The text fields of an item that inserts `text` over `range`: a snippet for clients that take
 * them, else its plain rendering; `insertText` repeats it for clients that ignore `textEdit`.
 */
export function insertion(
  c: CompletionContext,
  range: Range,
  text: Snippet | string,
  suffix = "",
): Pick<CompletionItem, "textEdit" | "insertText" | "insertTextFormat"> {
  if (typeof text === "string" || !text.hasStops) {
    const plain = (typeof text === "string" ? text : text.toPlain()) + suffix;
    return { insertTextFormat: PLAIN_FORMAT, textEdit: { range, newText: plain }, insertText: plain };
  }
  if (!c.snippets) {
    const plain = text.toPlain() + suffix;
    return { insertTextFormat: PLAIN_FORMAT, textEdit: { range, newText: plain }, insertText: plain };
  }
  const snippet = text.toSnippet() + suffix;
  return { insertTextFormat: SNIPPET_FORMAT, textEdit: { range, newText: snippet }, insertText: snippet };
}

/** The characters of a word, as Vim's default 'iskeyword' counts them (letters, digits, `_`). */
const WORD_TAIL = /[\p{L}\p{N}_]*$/u;

/** Where the word that ends at `cursor` starts in `text` (the cursor when no word character is before it). */
export function wordStart(text: string, cursor: number): number {
  return cursor - WORD_TAIL.exec(text.slice(0, cursor))![0].length;
}

/**
 * The items of `list`, whose edits start at `start`, made to start at the word before the cursor
 * instead (`word`, at `wordPosition`) when `typed` (the text from `start` to that word, already in
 * the line) begins their text: the edit then inserts the rest only.
 *
 * Vim's omni completion, Neovim 0.7's and ALE ignore where an item's edit starts: they replace the
 * word before the cursor (Vim's `\k*`) with the item's text and keep only items whose text starts
 * with that word. An edit that starts at a key's opening quote would leave that quote doubled
 * (`""timestamp"`), and would be filtered out as soon as a letter is typed. Clients that honour the
 * edit's range insert the same text either way.
 */
export function startAtWord(list: CompletionList, typed: string, wordPosition: Position): CompletionList {
  if (typed === "" || /[$}\\]/.test(typed)) return list;
  const cut = (text: string | undefined): string | undefined => (text?.startsWith(typed) ? text.slice(typed.length) : text);
  const items = list.items.map((item): CompletionItem => {
    const edit = item.textEdit as TextEdit | undefined;
    if (!edit?.newText.startsWith(typed)) return item;
    return {
      ...item,
      filterText: cut(item.filterText),
      textEdit: { range: { start: wordPosition, end: edit.range.end }, newText: edit.newText.slice(typed.length) },
      insertText: cut(item.insertText),
    };
  });
  return { ...list, items };
}
