/**
 * Inlay hints, only for the requested range:
 *
 * - PARENT PREVIEW, right after the value of an entry's `parentId`: `← user: "Fix the failing…"`,
 *   the parent's one-line title (`entryTitle`), with the parent's line in the tooltip. The parent
 *   is the entry Pi resolves (`byId`, so the last holder of a duplicated id). A `parentId` that
 *   names no entry gets `← (no such entry)`: Pi treats the entry as a root, which is easy to miss
 *   when diagnostics are filtered. A self-parent gets `← itself (a parent cycle)`. `null`, `""`
 *   (a root to Pi) and a `parentId` that is not a string get nothing. Previews are also shown in
 *   files with parent cycles: each one is one lookup, no walk.
 *
 * - CONTEXT TOKENS, at the end of the line of every entry that contributes a message to the context
 *   Pi builds when it resumes (Pi 1.x's `buildSessionContext` from the last entry: messages, custom
 *   messages, branch summaries, the last compaction's summary): the role of its (last) message and
 *   the estimated context size up to and including that message, in context order, e.g.
 *   `assistant · ~12k tokens`. The estimate is Pi's `estimateContextTokens` applied to that prefix
 *   of the context: the last usable assistant `usage` in the prefix, plus characters / 4 for every
 *   message after it (`core/pi/tokens.ts`). The compaction's summary comes first in the context, so its
 *   line shows a small number and the kept entries above it in the file continue from there.
 *   Lines of entries that contribute no message (off the active path, compacted away, removed by a
 *   context edit, settings, labels) get no token hint: fading already marks the ones out of the
 *   context, and the role is in the text. When Pi cannot build the context (the leaf runs into a
 *   parent cycle, or a selected entry makes it throw) there are no token hints.
 *
 * Token hints follow fading: none where Pi does not resume the file as it stands (no header it
 * accepts, a v1 file it re-chains, a leaf whose path runs into a parent cycle).
 *
 * Cost: the context is built once per analysis and memoised (`WeakMap`), and only when the range
 * holds an entry Pi selects (the memoised `contextSelection`, shared with fading). The cumulative
 * sums are filled lazily, from the nearest known sum or usage before a message, and cached, so over
 * a document version each message is estimated at most once, and a viewport request costs O(lines
 * in the range) plus the messages between the viewport and the last assistant usage before it.
 * Only `parentId` is located, on lines in the range. Positions are UTF-16 offsets into the line
 * text (a CRLF's "\r" is not part of it). At most `maxHints` hints (default 10,000) are returned,
 * in position order, for clients that ask for the whole document at once.
 */

import type { InlayHint, Position, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../core/session/analysis";
import type { Entry } from "../core/session/entry";
import { activeContext, contextSelection, ContextState } from "../core/pi/activeContext";
import type { SessionDocument } from "../core/session/document";
import { estimateTokens, formatTokens, usableUsage } from "../core/pi/tokens";
import { resumesAsIs } from "./fading";
import { groupDigits, singleLine } from "../core/base/text";
import { entryTitle, NAME_CODE_POINTS } from "./entryTitle";

export const DEFAULT_MAX_INLAY_HINTS = 10_000;

export interface InlayHintOptions {
  /** The most hints to return (default 10,000). */
  maxHints?: number;
}

export function computeInlayHints(doc: SessionDocument, range: Range, options: InlayHintOptions = {}): InlayHint[] {
  const wanted = options.maxHints ?? DEFAULT_MAX_INLAY_HINTS;
  const max = Number.isNaN(wanted) ? DEFAULT_MAX_INLAY_HINTS : Math.max(0, Math.floor(wanted));
  const out: InlayHint[] = [];
  if (max === 0 || doc.lineCount === 0) return out;
  const a = doc.analysis;
  // The requested range is in the client's lines; Pi's lines are walked.
  const first = doc.toPi(range.start).line;
  const last = doc.toPi(range.end).line;
  let tokens: ContextTokens | null | undefined;
  let selection: Uint8Array | undefined;
  for (let line = first; line <= last && out.length < max; line++) {
    const entry = a.entryAtLine[line];
    if (!entry) continue;
    const parent = parentHint(doc, a, entry);
    if (parent && within(parent.position, range)) out.push(parent);
    if (out.length >= max) break;
    // Only entries Pi selects can contribute a message; the context is built on the first one.
    if (selection === undefined) selection = contextSelection(a).state;
    if (selection[entry.index] !== ContextState.Selected) continue;
    tokens ??= contextTokens(a);
    if (!tokens) continue;
    const hint = tokenHint(doc, tokens, entry);
    if (hint && within(hint.position, range)) out.push(hint);
  }
  return out;
}

// ---- Parent previews -----------------------------------------------------------------------------

function parentHint(doc: SessionDocument, a: SessionAnalysis, entry: Entry): InlayHint | undefined {
  const parentId = entry.parentId;
  if (typeof parentId !== "string" || parentId === "") return undefined;
  const found = doc.rangeOf(entry.line, ["parentId"]);
  if (!found) return undefined;
  const position = found.end;
  const parent = a.parent[entry.index];
  let label: string;
  let tooltip: string;
  if (!parent) {
    label = "← (no such entry)";
    tooltip = "No entry has this id: Pi treats this entry as a root, and the context built through it stops here.";
  } else if (parent === entry) {
    label = "← itself (a parent cycle)";
    tooltip = "This entry names itself as its parent: Pi cannot build a context through it.";
  } else {
    label = `← ${entryTitle(parent)}`;
    tooltip = `Parent: line ${parent.line + 1}`;
  }
  return { position, label, paddingLeft: true, tooltip };
}

// ---- Context tokens ------------------------------------------------------------------------------

/** The built context of an analysis with lazily filled cumulative token estimates. */
interface ContextTokens {
  messages: readonly unknown[];
  /** For each entry (by index): 1 + the index of the last message it contributes, or 0. */
  lastMessageOf: Int32Array;
  /** For each message: the estimate of the context up to and including it, or NaN until computed. */
  cumulative: Float64Array;
}

const memo = new WeakMap<SessionAnalysis, ContextTokens | null>();

/** The context Pi 1.x builds from the leaf, with the message → entry map; null when Pi cannot build one. */
function contextTokens(a: SessionAnalysis): ContextTokens | null {
  const known = memo.get(a);
  if (known !== undefined) return known;
  let tokens: ContextTokens | null = null;
  if (resumesAsIs(a)) {
    const result = activeContext(a);
    if (result.ok) {
      const { sources } = result.build;
      const lastMessageOf = new Int32Array(a.entries.length);
      for (let i = 0; i < sources.length; i++) lastMessageOf[sources[i]!.index] = i + 1;
      tokens = { messages: result.build.context.messages, lastMessageOf, cumulative: new Float64Array(sources.length).fill(Number.NaN) };
    }
  }
  memo.set(a, tokens);
  return tokens;
}

/**
 * Pi's estimate of the context up to and including message `k`: the last usable assistant usage at
 * or before `k`, plus the per-message estimates after it. Walks back only to the nearest message
 * whose sum is known or that carries a usage, and caches every sum it passes.
 */
function cumulativeTokens(t: ContextTokens, k: number): number {
  const { cumulative, messages } = t;
  const cached = cumulative[k]!;
  if (!Number.isNaN(cached)) return cached;
  let j = k;
  let sum = 0;
  for (; j >= 0; j--) {
    const known = cumulative[j]!;
    if (!Number.isNaN(known)) {
      sum = known;
      break;
    }
    const usage = usableUsage(messages[j]);
    if (usage !== undefined) {
      sum = usage;
      cumulative[j] = usage;
      break;
    }
  }
  for (let i = j + 1; i <= k; i++) {
    sum += estimateTokens(messages[i]);
    cumulative[i] = sum;
  }
  return cumulative[k]!;
}

function tokenHint(doc: SessionDocument, t: ContextTokens, entry: Entry): InlayHint | undefined {
  const k = t.lastMessageOf[entry.index]! - 1;
  if (k < 0) return undefined;
  const tokens = cumulativeTokens(t, k);
  const role = roleOf(t.messages[k]);
  const line = entry.line;
  return {
    position: doc.position(line, doc.lines[line]?.length ?? 0),
    label: `${role} · ~${formatTokens(tokens)} ${tokens === 1 ? "token" : "tokens"}`,
    paddingLeft: true,
    tooltip: `Message ${groupDigits(k + 1)} of ${groupDigits(t.messages.length)} in the context Pi builds when it resumes. Context up to and including it: about ${groupDigits(tokens)} tokens (Pi's estimate: the last assistant usage so far, plus characters / 4 for each message after it).`,
  };
}

function roleOf(message: unknown): string {
  const role = message !== null && typeof message === "object" ? (message as Record<string, unknown>).role : undefined;
  return typeof role === "string" ? singleLine(role, NAME_CODE_POINTS) || '""' : "message";
}

function within(p: Position, range: Range): boolean {
  const { start, end } = range;
  if (p.line < start.line || (p.line === start.line && p.character < start.character)) return false;
  return !(p.line > end.line || (p.line === end.line && p.character > end.character));
}
