/**
 * Text a completion inserts, written once and rendered for what the client supports: an LSP
 * snippet with placeholders (a choice too: its default, see `toSnippet`), or plain text with every placeholder's default filled in.
 *
 * Clients that declare `snippetSupport: false` (Eglot without yasnippet, ALE) insert `insertText`
 * as it is, so `${1:text}` would land in the file; each piece here is therefore plain JSON text, a
 * placeholder with its default (already JSON: `"text"`, `0`, `null`), a choice whose first option is
 * the default, or the final cursor stop. Either rendering of a whole snippet is valid JSON.
 */

export type Piece =
  /** Literal text, inserted as it is. */
  | string
  /** A tab stop with a default; `quoted` puts the placeholder inside the quotes of a JSON string. */
  | { placeholder: string; quoted?: boolean }
  /** A choice of JSON texts; the first is the default, and the one inserted (see `toSnippet`). */
  | { choice: readonly string[]; quoted?: boolean }
  /** Where the cursor ends. */
  | { final: true };

/** Literal text inside a snippet: `$`, `}` and `\` escaped. */
export function escapeSnippet(text: string): string {
  return text.replace(/[$}\\]/g, "\\$&");
}

export class Snippet {
  constructor(readonly pieces: readonly Piece[]) {}

  /** As an LSP snippet (`insertTextFormat` 2), tab stops numbered in order. */
  toSnippet(): string {
    let n = 0;
    let out = "";
    for (const piece of this.pieces) {
      if (typeof piece === "string") out += escapeSnippet(piece);
      else if ("final" in piece) out += "$0";
      else {
        const quote = piece.quoted ? '"' : "";
        const stop = ++n;
        // A choice is sent as a placeholder holding its default: Neovim 0.10+ inserts nothing for a
        // choice until one is picked (`"type":""` when the user leaves it), and completion inside
        // the value lists the others anyway.
        const text = "placeholder" in piece ? piece.placeholder : (piece.choice[0] ?? "");
        const body = text === "" ? `$${stop}` : `\${${stop}:${escapeSnippet(text)}}`;
        out += `${quote}${body}${quote}`;
      }
    }
    return out;
  }

  /** As plain text (`insertTextFormat` 1): every default filled in. */
  toPlain(): string {
    let out = "";
    for (const piece of this.pieces) {
      if (typeof piece === "string") out += piece;
      else if ("final" in piece) continue;
      else {
        const quote = piece.quoted ? '"' : "";
        out += `${quote}${"placeholder" in piece ? piece.placeholder : (piece.choice[0] ?? "")}${quote}`;
      }
    }
    return out;
  }

  /** Whether it has anything a plain text cannot show (a tab stop or a choice). */
  get hasStops(): boolean {
    return this.pieces.some((p) => typeof p !== "string");
  }
}

/** A string's JSON form without the quotes: what goes between the quotes of a JSON string. */
export function jsonContent(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
