/**
 * What `find TEXT` shows of a session whose messages matched: the first message that holds a token,
 * where it is, and the match in a short snippet, so that the next step (`tree`, `context --leaf`)
 * has an entry to start from. The snippet is session text: the command line escapes it.
 */

import { isLowSurrogate } from "../base/text";

/** Where a message is, for a search hit: its line (0-based, as Pi splits the file), its entry's id and its role. */
export interface MessagePlace {
  line: number;
  id: unknown;
  role: string;
}

/** The first message a token was found in, with the match in a short snippet. */
export interface SearchHit {
  /** 1-based line of the file. */
  line: number;
  /** The entry's id, when it is a string. */
  id?: string;
  role: string;
  /** The text around the match, whitespace runs as one space, "…" where it was cut. */
  snippet: string;
}

/** Characters of a snippet kept before a match, and after its start. */
const SNIPPET_BEFORE = 30;
const SNIPPET_AFTER = 50;

/** The text around `at` (`length` characters), clipped on code point boundaries, with "…" where it was cut. */
export function snippetOf(text: string, at: number, length: number): string {
  let start = Math.max(0, at - SNIPPET_BEFORE);
  let end = Math.min(text.length, at + Math.max(length, SNIPPET_AFTER));
  // Never half a surrogate pair at either end.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  const body = text.slice(start, end).replace(/\s+/g, " ");
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}
