/**
 * A `re:` search over a session's messages, as Pi's `matchSession` tests `allMessagesText`: the
 * messages joined with " " while they fit in `MAX_REGEX_TEXT`, past that each message on its own
 * (an approximation: a match across two messages is then missed), in batches.
 */

import { type MessagePlace, type SearchHit, snippetOf } from "./searchHit";

/**
 * What the search asks of a regular expression. A `RegExp` is one; the command line gives one
 * whose time is bounded (`io/boundedRegex.ts`), since a pattern can backtrack for hours on a
 * few dozen characters and the core cannot stop it.
 */
export interface SearchRegex {
  test(text: string): boolean;
  /** Whether any of `texts` matches: one call for many messages, where each call has a cost of its own. */
  testAny?(texts: readonly string[]): boolean;
}

/** Longest message text kept whole for a regular expression, in UTF-16 code units. */
export const MAX_REGEX_TEXT = 64 * 1024 * 1024;

/** Messages past `MAX_REGEX_TEXT` are tested in batches of about this many characters. */
const REGEX_BATCH = 1 << 20;

function anyMatches(regex: SearchRegex, texts: readonly string[]): boolean {
  if (texts.length === 0) return false;
  return regex.testAny ? regex.testAny(texts) : texts.some((t) => regex.test(t));
}

export class RegexMessages {
  /** The messages while they fit, with where each is; undefined once they no longer do. */
  private texts: string[] | undefined = [];
  private places: (MessagePlace | undefined)[] = [];
  private length = 0;
  private matched = false;
  /** Messages past `MAX_REGEX_TEXT` not tested yet, each to be tested on its own. */
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(private readonly regex: SearchRegex) {}

  /** The next message (`first` for the session's first). */
  add(text: string, first: boolean, place: MessagePlace | undefined): void {
    if (this.texts) {
      this.texts.push(text);
      this.places.push(place);
      this.length += text.length + (first ? 0 : 1);
      if (this.length <= MAX_REGEX_TEXT) return;
      // Too long to hold: test what was kept, then each further message alone.
      this.matched = anyMatches(this.regex, this.texts);
      this.texts = undefined;
      this.places = [];
      return;
    }
    if (this.matched) return;
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= REGEX_BATCH) this.testPending();
  }

  /** Whether the messages match, and whether that was only approximated message by message. */
  finish(): { hit: boolean; approximate: boolean; first: () => SearchHit | undefined } {
    this.testPending();
    const texts = this.texts;
    return {
      hit: texts ? this.regex.test(texts.join(" ")) : this.matched,
      approximate: texts === undefined,
      first: () => (texts ? this.firstHit(texts) : undefined),
    };
  }

  /**
   * The first message the pattern matches on its own, found by halving (`testAny` on the first
   * half, then on the half of that which holds it), so that thousands of messages cost a few dozen
   * calls of the bounded regex, not one each. The regex only says whether it matched, so the
   * snippet is the start of the message. Undefined when only the joined text matches.
   */
  private firstHit(texts: readonly string[]): SearchHit | undefined {
    let from = 0;
    let to = texts.length;
    if (!anyMatches(this.regex, texts)) return undefined;
    while (to - from > 1) {
      const mid = from + ((to - from) >> 1);
      if (anyMatches(this.regex, texts.slice(from, mid))) to = mid;
      else from = mid;
    }
    const place = this.places[from];
    if (!place) return undefined;
    const id = typeof place.id === "string" ? place.id : undefined;
    return { line: place.line + 1, ...(id !== undefined ? { id } : {}), role: place.role, snippet: snippetOf(texts[from]!, 0, 0) };
  }

  private testPending(): void {
    if (!this.matched) this.matched = anyMatches(this.regex, this.pending);
    this.pending = [];
    this.pendingLength = 0;
  }
}
