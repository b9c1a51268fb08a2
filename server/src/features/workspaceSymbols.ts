/**
 * Workspace symbols over the open sessions: what a person would search a set of sessions by.
 *
 * For each open session:
 * - `session <id>`, on the header's `id`;
 * - the session's name as Pi shows it (`getSessionName`: the last `session_info` in file order,
 *   trimmed; an empty or missing name clears it), on that entry's `name`;
 * - every label as Pi holds it (`_buildIndex`: the last `label` entry per `targetId` wins, and one
 *   with an empty or missing `label` clears it), named by its text and placed on the labelled
 *   entry's `id`, or on the label entry itself when its target does not exist.
 *
 * The candidates of a session are gathered in one pass over its entries and memoised per analysis
 * (so per document version); a query only filters them and locates the ranges of what it returns.
 */

import type { SymbolInformation, SymbolKind } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import type { JsonPath } from "../core/line/locate";
import { labels } from "../core/session/semantics/labels";
import { perAnalysis } from "../core/session/semantics/memo";
import { sessionName } from "../core/session/semantics/sessionName";
import { shortValue, singleLine } from "../core/base/text";
import { SYMBOL } from "./entryTitle";

export const DEFAULT_MAX_WORKSPACE_SYMBOLS = 1000;

/** Longest symbol name, in code points: labels and names are free text. */
const MAX_NAME_LENGTH = 200;

interface Candidate {
  name: string;
  kind: SymbolKind;
  line: number;
  /** The value the symbol's range covers. */
  path: JsonPath;
}

interface SessionSymbols {
  /** The container name every symbol of the session shows: its name, else `session <id>`. */
  container: string | undefined;
  candidates: Candidate[];
}

/**
 * The symbols of the open sessions whose name matches `query` (case-insensitive; a substring match
 * ranks before a match of the query's characters in order, e.g. `chk1` for `checkpoint-1`), at most
 * `max` of them. An empty query lists every symbol, up to `max`.
 */
export function computeWorkspaceSymbols(docs: Iterable<SessionDocument>, query: string, max = DEFAULT_MAX_WORKSPACE_SYMBOLS): SymbolInformation[] {
  const needle = query.trim().toLowerCase();
  const limit = Math.max(0, Math.floor(max));
  const matches: { doc: SessionDocument; session: SessionSymbols; candidate: Candidate; rank: number; order: number }[] = [];
  let order = 0;
  let exactCount = 0;
  for (const doc of docs) {
    // Substring matches come first and are in document order, so once `limit` of them are found
    // no later candidate can make the cut.
    if (exactCount >= limit) break;
    const session = sessionSymbols(doc.analysis);
    for (const candidate of session.candidates) {
      const rank = matchRank(candidate.name.toLowerCase(), needle);
      if (rank < 0) continue;
      matches.push({ doc, session, candidate, rank, order: order++ });
      if (rank === 0) exactCount++;
    }
  }
  matches.sort((x, y) => x.rank - y.rank || x.order - y.order);
  const out: SymbolInformation[] = [];
  for (const { doc, session, candidate } of matches.slice(0, limit)) {
    const symbol: SymbolInformation = {
      name: candidate.name,
      kind: candidate.kind,
      location: { uri: doc.uri, range: doc.valueRange(candidate.line, candidate.path) },
    };
    const container = session.container ?? fileName(doc.uri);
    if (container !== undefined && container !== candidate.name) symbol.containerName = container;
    out.push(symbol);
  }
  return out;
}

/** 0 for a substring match (or an empty query), 1 for the query's characters in order, -1 for no match. */
function matchRank(name: string, needle: string): number {
  if (needle === "" || name.includes(needle)) return 0;
  let i = 0;
  for (let k = 0; k < name.length && i < needle.length; k++) if (name.charCodeAt(k) === needle.charCodeAt(i)) i++;
  return i === needle.length ? 1 : -1;
}

/** The candidates of one session: its id, Pi's session name and labels, memoised per analysis. */
const sessionSymbols = perAnalysis((a): SessionSymbols => {
  const candidates: Candidate[] = [];
  const headerId = a.headerState === "ok" && typeof a.header?.id === "string" ? a.header.id : undefined;
  if (headerId !== undefined && a.headerLine !== undefined) {
    candidates.push({ name: `session ${clean(headerId)}`, kind: SYMBOL.File, line: a.headerLine, path: ["id"] });
  }
  const named = sessionName(a);
  const name = named.name === undefined ? undefined : clean(named.name) || undefined;
  if (named.entry && name) candidates.push({ name, kind: SYMBOL.Module, line: named.entry.line, path: ["name"] });
  // Labels come out in the order of their winning label entries, as Pi's `labelsById` holds them.
  for (const [target, label] of labels(a).byTarget) {
    const text = clean(shortValue(label.value));
    if (!text) continue;
    const entry = a.byId.get(target);
    candidates.push(
      entry ? { name: text, kind: SYMBOL.Key, line: entry.line, path: ["id"] } : { name: text, kind: SYMBOL.Key, line: label.entry.line, path: ["label"] },
    );
  }
  return { container: name ?? (headerId !== undefined ? `session ${clean(headerId)}` : undefined), candidates };
});

/** Free text as a symbol name: one line, trimmed, bounded. */
function clean(text: string): string {
  return singleLine(text, MAX_NAME_LENGTH);
}

function fileName(uri: string): string | undefined {
  const last = uri.slice(uri.lastIndexOf("/") + 1);
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
