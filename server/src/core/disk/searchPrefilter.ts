/**
 * `find TEXT`'s byte prefilter: what a session file's raw bytes must hold for `/resume`'s search
 * (`search.ts`) to match it, so that only the files that could match are parsed. A file the
 * prefilter passes over must never be one the exact match finds; the rules below are derived from
 * what the exact match reads, and `test/sessions/searchPrefilter.test.ts` checks them.
 *
 * Every token of a query must match, each in one of four fields: the header's `id` and `cwd`, the
 * name of a `session_info` entry, or the text of the user and assistant messages. A literal or
 * phrase token matches a field's text lowercased (a phrase with whitespace runs as one space), so
 * the token's longest run of ASCII letters and digits (its anchor) appears, in some case, inside
 * one JSON string of the file, since a run holds no whitespace and the texts Pi joins are joined
 * with a space or a comma. The string holds each character of the run as itself, as a `\uXXXX`
 * escape, or as one of the two characters outside ASCII that lowercase to ASCII letters (U+212A
 * KELVIN SIGN to "k", U+0130 to "i" and a combining dot). The prefilter treats a file holding such
 * an escape or character as one that could match. A text block whose `text` is not a string is
 * joined as JavaScript prints it (`1e2` as "100", an object as "[object Object]"), so an anchor
 * that such a print could make (only digits and "e", or a piece of "infinity" or "object") is not
 * used. A fuzzy token (a word outside quotes) may also match its characters scattered in the name
 * or the cwd, which the prefilter tests on the header's cwd and on every name in the file.
 */

import { fuzzyMatch, type ParsedSearchQuery } from "./search";

export interface PrefilterToken {
  /** What the file's bytes must hold, lowercase ASCII letters and digits; undefined when nothing safe can be asked. */
  anchor?: string;
  /** The token as typed, for a scattered match in the name or cwd, when it is a fuzzy token. */
  fuzzy?: string;
}

export interface PrefilterPlan {
  tokens: PrefilterToken[];
  /** Whether a file's names and cwd are needed for a fuzzy token. */
  wantsNames: boolean;
}

/** What the reader found in one file's bytes. */
export interface PrefilterFacts {
  /** Per token: its anchor occurs, in some ASCII case. */
  found: boolean[];
  /** The bytes hold a `\uXXXX` escape of a letter, digit or `_`, or a character that lowercases to an ASCII letter. */
  foldHazard: boolean;
  /** The header's `cwd` as Pi's list reads it, when the first line shows it plainly. */
  cwd?: string;
  /** Every name of a `session_info` entry in the file, when each was read plainly. */
  names?: string[];
}

/** Runs of letters and digits that JavaScript's printing of a number or an object can make. */
function printable(run: string): boolean {
  return /^[0-9e]+$/.test(run) || "infinity".includes(run) || "object".includes(run);
}

/** The longest run of lowercase ASCII letters and digits in a lowercased token that no non-string value can print. */
export function anchorOf(lowered: string): string | undefined {
  let best: string | undefined;
  for (const run of lowered.match(/[a-z0-9]+/g) ?? []) if (!printable(run) && (best === undefined || run.length > best.length)) best = run;
  return best;
}

/**
 * The prefilter for a parsed query, or undefined when it cannot rule out any file: a regular
 * expression (which may match anything), no tokens (every session matches), or no token with an
 * anchor.
 */
export function planPrefilter(query: ParsedSearchQuery): PrefilterPlan | undefined {
  if (query.mode !== "tokens" || query.error || query.tokens.length === 0) return undefined;
  const tokens = query.tokens.map((token): PrefilterToken => {
    const anchor = anchorOf(token.value.toLowerCase());
    return token.kind === "fuzzy" ? { anchor, fuzzy: token.value } : { anchor };
  });
  if (tokens.every((t) => t.anchor === undefined)) return undefined;
  return { tokens, wantsNames: tokens.some((t) => t.fuzzy !== undefined) };
}

/** Whether a token could match given what was found; `names` and `cwd` are consulted only for a fuzzy token whose anchor is absent. */
function tokenCould(token: PrefilterToken, found: boolean, facts: PrefilterFacts): boolean {
  if (token.anchor === undefined || found || facts.foldHazard) return true;
  if (token.fuzzy === undefined) return false;
  if (facts.cwd === undefined || facts.names === undefined) return true;
  const fuzzy = token.fuzzy;
  return fuzzyMatch(fuzzy, facts.cwd).matches || facts.names.some((name) => fuzzyMatch(fuzzy, name).matches);
}

/** Whether `/resume`'s search could match a file with these facts (false only when it cannot). */
export function couldMatch(plan: PrefilterPlan, facts: PrefilterFacts): boolean {
  return plan.tokens.every((token, i) => tokenCould(token, facts.found[i]!, facts));
}

/** Whether a fuzzy token's answer waits on the names and cwd: its anchor is absent and nothing else settles the file. */
export function wantsNamesFor(plan: PrefilterPlan, found: readonly boolean[], foldHazard: boolean): boolean {
  return !foldHazard && plan.tokens.some((t, i) => t.fuzzy !== undefined && t.anchor !== undefined && !found[i]);
}

/**
 * A name as Pi's list takes it from a `session_info` entry parsed from a line (`listedName`), or
 * undefined when the entry gives none; the caller treats an entry it cannot read as unknown.
 */
export function nameOf(entry: { name?: unknown }): string | undefined {
  return typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
}
