/**
 * Searching sessions as Pi 1.x's `/resume` does (`session-selector-search.ts`, with `fuzzyMatch`
 * from `pi-tui`): the query is split into tokens (`"quoted phrases"`, or `re:<pattern>`), every
 * token must match the session's name, id, message text or cwd, and matches are ranked by tier
 * (name, then id/messages/cwd, then a scattered fuzzy match in the name or cwd) and fuzzy score.
 *
 * Pi holds every session's whole message text (`allMessagesText`) in memory; a folder of 2 GB of
 * sessions does not fit, so here the message text is fed piece by piece (`SessionSearch.addMessage`)
 * and matched as a stream with the same result: a token must appear in the messages joined by " ",
 * lowercased, or for a phrase with whitespace runs collapsed. Only a regular expression needs the
 * whole text; it is kept up to `MAX_REGEX_TEXT` characters, beyond which each message is tested on
 * its own (a match spanning two messages is then missed; the result says so).
 */

import { looseString } from "../base/loose";
import { RegexMessages, type SearchRegex } from "./regexMessages";
import { type MessagePlace, type SearchHit, snippetOf } from "./searchHit";

export interface ParsedSearchQuery {
  mode: "tokens" | "regex";
  tokens: { kind: "fuzzy" | "phrase"; value: string }[];
  regex: SearchRegex | null;
  /** Set when the query cannot match anything (an empty or invalid regular expression). */
  error?: string;
}

export type MatchTier = "name" | "text" | "fuzzy";

export interface SearchMatch {
  /** Lower is better, as Pi ranks. */
  score: number;
  /** The best tier any token reached. */
  tier: MatchTier;
  /** Which fields the tokens were found in. */
  fields: ("name" | "id" | "messages" | "cwd")[];
  /** A regular expression was tested message by message because the text was too long to hold. */
  approximate?: boolean;
  /** When the messages matched: the first message that holds a token (or matches a `re:` pattern) on its own. */
  entry?: SearchHit;
}

const TIER_NAME = 0;
const TIER_TEXT = 1;
const TIER_FUZZY = 2;
const TIER_WEIGHT = 1_000_000;

// ---- pi-tui fuzzyMatch, ported --------------------------------------------------------------------

function scorePositions(textLower: string, positions: number[]): number {
  let score = 0;
  let lastMatchIndex = -1;
  let consecutiveMatches = 0;
  for (const i of positions) {
    if (lastMatchIndex === i - 1) {
      consecutiveMatches++;
      score -= consecutiveMatches * 5;
    } else {
      consecutiveMatches = 0;
      if (lastMatchIndex >= 0) score += (i - lastMatchIndex - 1) * 2;
    }
    if (i === 0 || /[\s\-_./:]/.test(textLower[i - 1]!)) score -= 10;
    score += i * 0.1;
    lastMatchIndex = i;
  }
  return score;
}

function matchQuery(query: string, textLower: string): { matches: boolean; score: number } {
  if (query.length === 0) return { matches: true, score: 0 };
  if (query.length > textLower.length) return { matches: false, score: 0 };
  const positions: number[] = [];
  let lastMatchIndex = -1;
  for (let q = 0; q < query.length; q++) {
    const i = textLower.indexOf(query[q]!, lastMatchIndex + 1);
    if (i === -1) return { matches: false, score: 0 };
    positions.push(i);
    lastMatchIndex = i;
  }
  let score = scorePositions(textLower, positions);
  for (let start = textLower.indexOf(query); start !== -1; start = textLower.indexOf(query, start + 1)) {
    for (let k = 0; k < positions.length; k++) positions[k] = start + k;
    score = Math.min(score, scorePositions(textLower, positions));
  }
  if (query === textLower) score -= 100;
  return { matches: true, score };
}

/** `fuzzyMatch(query, text)` of pi-tui 1.6: all query characters in order; lower score is better. */
export function fuzzyMatch(query: string, text: string): { matches: boolean; score: number } {
  const queryLower = query.toLowerCase();
  const textLower = text.toLowerCase();
  const primary = matchQuery(queryLower, textLower);
  if (primary.matches) return primary;
  const alphaNumeric = queryLower.match(/^(?<letters>[a-z]+)(?<digits>[0-9]+)$/);
  const numericAlpha = queryLower.match(/^(?<digits>[0-9]+)(?<letters>[a-z]+)$/);
  const swapped = alphaNumeric
    ? `${alphaNumeric.groups?.digits ?? ""}${alphaNumeric.groups?.letters ?? ""}`
    : numericAlpha
      ? `${numericAlpha.groups?.letters ?? ""}${numericAlpha.groups?.digits ?? ""}`
      : "";
  if (!swapped) return primary;
  const swappedMatch = matchQuery(swapped, textLower);
  return swappedMatch.matches ? { matches: true, score: swappedMatch.score + 5 } : primary;
}

// ---- the query ------------------------------------------------------------------------------------

function normalizeWhitespaceLower(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/** `parseSearchQuery` of Pi 1.6, unchanged. */
export function parseSearchQuery(query: string): ParsedSearchQuery {
  const trimmed = query.trim();
  if (!trimmed) return { mode: "tokens", tokens: [], regex: null };
  if (trimmed.startsWith("re:")) {
    const pattern = trimmed.slice(3).trim();
    if (!pattern) return { mode: "regex", tokens: [], regex: null, error: "Empty regex" };
    try {
      return { mode: "regex", tokens: [], regex: new RegExp(pattern, "i") };
    } catch (err) {
      return { mode: "regex", tokens: [], regex: null, error: err instanceof Error ? err.message : String(err) };
    }
  }
  const tokens: { kind: "fuzzy" | "phrase"; value: string }[] = [];
  let buf = "";
  let inQuote = false;
  const flush = (kind: "fuzzy" | "phrase"): void => {
    const v = buf.trim();
    buf = "";
    if (v) tokens.push({ kind, value: v });
  };
  for (let i = 0; i < trimmed.length; i++) {
    const ch = trimmed[i]!;
    if (ch === '"') {
      if (inQuote) {
        flush("phrase");
        inQuote = false;
      } else {
        flush("fuzzy");
        inQuote = true;
      }
      continue;
    }
    if (!inQuote && /\s/.test(ch)) {
      flush("fuzzy");
      continue;
    }
    buf += ch;
  }
  if (inQuote) {
    return {
      mode: "tokens",
      tokens: trimmed
        .split(/\s+/)
        .filter((t) => t.length > 0)
        .map((t) => ({ kind: "fuzzy" as const, value: t })),
      regex: null,
    };
  }
  flush("fuzzy");
  return { mode: "tokens", tokens, regex: null };
}

// ---- streaming substring search -------------------------------------------------------------------

/** Whether `needle` occurs in the concatenation of the pieces fed so far, holding only a short tail. */
class StreamIncludes {
  found = false;
  private carry = "";
  constructor(readonly needle: string) {}

  feed(piece: string): void {
    if (this.found || piece.length === 0) return;
    const text = this.carry + piece;
    if (text.includes(this.needle)) {
      this.found = true;
      this.carry = "";
      return;
    }
    const keep = this.needle.length - 1;
    this.carry = keep > 0 ? text.slice(-keep) : "";
  }
}

export interface SearchSubject {
  id: unknown;
  name: string | undefined;
  cwd: string;
}

/**
 * One session's match against a parsed query, fed the session's user and assistant message
 * texts in file order (`addMessage`), then `finish`ed with its name, id and cwd.
 */
export class SessionSearch {
  private readonly literal = new Map<string, StreamIncludes>();
  private readonly phrase = new Map<string, StreamIncludes>();
  private messages = 0;
  private spaceEnded = true;
  private readonly regexMessages: RegexMessages | undefined;
  /** The first message a token was found in on its own. */
  private hit: SearchHit | undefined;

  constructor(readonly query: ParsedSearchQuery) {
    if (query.mode === "regex" && query.regex) this.regexMessages = new RegexMessages(query.regex);
    for (const token of query.tokens) {
      if (token.kind === "phrase") {
        const phrase = normalizeWhitespaceLower(token.value);
        if (phrase) this.phrase.set(phrase, new StreamIncludes(phrase));
      } else {
        const value = token.value.toLowerCase();
        this.literal.set(value, new StreamIncludes(value));
      }
    }
  }

  /** One entry of Pi's `allMessages` (a non-empty user or assistant text), in file order, and where it is. */
  addMessage(text: string, place?: MessagePlace): void {
    const first = this.messages++ === 0;
    if (this.query.mode === "regex") {
      this.regexMessages?.add(text, first, place);
      return;
    }
    if (this.literal.size > 0) {
      const lower = text.toLowerCase();
      for (const s of this.literal.values()) {
        if (!first) s.feed(" ");
        s.feed(lower);
      }
    }
    if (this.phrase.size > 0) {
      // The collapsed text of `allMessagesText.toLowerCase().replace(/\s+/g, " ")`, built piece by
      // piece: a run of whitespace across the " " between two messages is still one space, also
      // when the message before ended in whitespace and this one starts with some.
      let piece = (first ? "" : " ") + text.toLowerCase().replace(/\s+/g, " ");
      if (this.spaceEnded) piece = piece.replace(/^ +/, "");
      else if (piece.startsWith("  ")) piece = piece.slice(1);
      if (piece.length === 0) return;
      this.spaceEnded = piece.endsWith(" ");
      for (const s of this.phrase.values()) s.feed(piece);
    }
    if (place && !this.hit) this.findHit(text, place);
  }

  /**
   * Records the first message that holds a token whole, cut from the text as written unless
   * lowercasing changed its length (then from the lowercased text, where the match was found).
   * Each message costs one more search per token until a hit is found, and none after.
   */
  private findHit(text: string, place: MessagePlace): void {
    const id = typeof place.id === "string" ? place.id : undefined;
    const found = (shown: string, at: number, length: number) => {
      this.hit = { line: place.line + 1, ...(id !== undefined ? { id } : {}), role: place.role, snippet: snippetOf(shown, at, length) };
    };
    if (this.literal.size > 0) {
      const lower = text.toLowerCase();
      for (const value of this.literal.keys()) {
        const at = value === "" ? -1 : lower.indexOf(value);
        if (at < 0) continue;
        found(lower.length === text.length ? text : lower, at, value.length);
        return;
      }
    }
    if (this.phrase.size > 0) {
      // A phrase is matched with whitespace runs collapsed, so it is shown from that text.
      const collapsed = normalizeWhitespaceLower(text);
      for (const phrase of this.phrase.keys()) {
        const at = collapsed.indexOf(phrase);
        if (at < 0) continue;
        found(collapsed, at, phrase.length);
        return;
      }
    }
  }

  /** The match as Pi's `matchSession` scores it, or undefined when the session does not match. */
  finish(subject: SearchSubject): SearchMatch | undefined {
    const { query } = this;
    // Pi reads the header's id as it is: `regex.test(session.id)` converts it to a string (which
    // throws past a few thousand nested arrays), `session.id.toLowerCase()` throws a TypeError for
    // anything but a string. Neither is done to the value here; an id Pi cannot read matches nothing.
    const idText = looseString(subject.id);
    const id = typeof subject.id === "string" ? subject.id : undefined;
    const name = subject.name;
    if (query.mode === "regex") {
      const regex = query.regex;
      if (!regex) return undefined;
      if (name && regex.test(name)) return { score: TIER_NAME * TIER_WEIGHT, tier: "name", fields: ["name"] };
      if (typeof idText !== "string") return undefined;
      const messages = this.regexMessages!.finish();
      const approximate = messages.approximate;
      const fields: SearchMatch["fields"] = regex.test(idText) ? ["id"] : messages.hit ? ["messages"] : regex.test(subject.cwd) ? ["cwd"] : [];
      if (fields.length === 0) return undefined;
      const hit = fields[0] === "messages" ? messages.first() : undefined;
      if (hit) return { score: TIER_TEXT * TIER_WEIGHT, tier: "text", fields, entry: hit };
      return approximate ? { score: TIER_TEXT * TIER_WEIGHT, tier: "text", fields, approximate } : { score: TIER_TEXT * TIER_WEIGHT, tier: "text", fields };
    }
    let total = 0;
    let best = TIER_FUZZY;
    const fields = new Set<SearchMatch["fields"][number]>();
    for (const token of query.tokens) {
      let score: number | undefined;
      if (token.kind === "phrase") {
        const phrase = normalizeWhitespaceLower(token.value);
        if (!phrase) continue;
        score = this.matchLiteral(id, normalizeWhitespaceLower(name ?? ""), phrase, this.phrase.get(phrase)!, normalizeWhitespaceLower(subject.cwd), fields);
      } else {
        const value = token.value.toLowerCase();
        score = this.matchLiteral(id, name?.toLowerCase() ?? "", value, this.literal.get(value)!, subject.cwd.toLowerCase(), fields);
        if (score === undefined) {
          // `matchFuzzyToken`: a scattered match in the name or the cwd, the best of the two.
          for (const [field, text] of [
            ["name", name ?? ""],
            ["cwd", subject.cwd],
          ] as const) {
            const m = fuzzyMatch(token.value, text);
            if (m.matches && (score === undefined || TIER_FUZZY * TIER_WEIGHT + m.score < score)) {
              score = TIER_FUZZY * TIER_WEIGHT + m.score;
              fields.add(field);
            }
          }
        }
      }
      if (score === undefined) return undefined;
      best = Math.min(best, Math.floor((score + TIER_WEIGHT / 2) / TIER_WEIGHT));
      total += score;
    }
    const tier = best <= TIER_NAME ? "name" : best === TIER_TEXT ? "text" : "fuzzy";
    if (fields.has("messages") && this.hit) return { score: total, tier, fields: [...fields], entry: this.hit };
    return { score: total, tier, fields: [...fields] };
  }

  /** `matchLiteralToken` / `matchPhraseToken`: the name, then the id, the messages and the cwd. */
  private matchLiteral(
    id: string | undefined,
    nameText: string,
    value: string,
    stream: StreamIncludes,
    cwdText: string,
    fields: Set<SearchMatch["fields"][number]>,
  ): number | undefined {
    if (nameText.includes(value)) {
      fields.add("name");
      return TIER_NAME * TIER_WEIGHT + fuzzyMatch(value, nameText).score;
    }
    if (id === undefined) return undefined; // Pi's `session.id.toLowerCase()` throws.
    const found = id.toLowerCase().includes(value) ? "id" : stream.found ? "messages" : cwdText.includes(value) ? "cwd" : undefined;
    if (!found) return undefined;
    fields.add(found);
    return TIER_TEXT * TIER_WEIGHT;
  }
}
