/** What every completion list shares: the item kinds, how an item carries its text, and the documentation's Markdown. */

import type { CompletionItem, MarkupContent, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/analysis";
import type { Random } from "../../core/ids";
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
