/**
 * The proof `redact` gives of its copy, before writing it: the copy is the same session as the
 * original apart from the replaced strings. Each file is read into a `SessionDocument` as `check`
 * and the editor read it (streamed for a file on disk, so that a file of any size takes the memory
 * `check` takes), and summarised, one document at a time, into what the proof compares:
 *
 * - line by line: the same kind of line (blank, not JSON, a value), and for a value the same id,
 *   parent, type, role, link, tool call ids and tool result id (kept as two 32-bit hashes a line),
 *   so the tree and the pairing of tool calls and results are what they were;
 * - the same leaf, where Pi resumes;
 * - the same diagnostics, by line and code, apart from `secret` (past `MAX_PER_CODE` of a code,
 *   counted as `check` counts them);
 * - the context Pi 1.x builds from the leaf, and the provider request after it, as one digest per
 *   message: the original's taken with every secret in its strings replaced by its placeholder,
 *   the copy's as it is. Only the digests outlive the build, so the two contexts are never held
 *   at once.
 *
 * A difference is returned in words; none means the proof holds.
 */

import { createHash, type Hash } from "node:crypto";
import type { ParsedLine } from "../core/line/facts";
import { activeContext } from "../core/pi/activeContext";
import { buildProviderRequest } from "../core/pi/provider/request";
import { replaceInStrings, type RedactedSecret } from "../core/edits/redact";
import { SessionDocument } from "../core/session/document";
import { collectDiagnostics, MAX_PER_CODE } from "../features/api/diagnostics";
import { forgetValues, setValueBudget } from "../core/line/values";
import { readStreamedForCheck } from "../io/checkRead";

export interface ProofResult {
  /** What differs, in words; empty when the proof holds. */
  differences: string[];
  /** How many diagnostics other than `secret` both have, how many messages the context holds. */
  diagnostics: number;
  contextMessages: number;
  providerMessages: number;
}

/** What the proof compares of one file (see the module's comment). */
export interface ProofSummary {
  /** Per line, the index of its kind in `KINDS`. */
  kinds: Uint8Array;
  /** Per line, two hashes of a value's linking facts (0 for other lines). */
  facts: Int32Array;
  leaf: number | undefined;
  /** `line code` of each diagnostic but `secret`, sorted; then `code +n` for those past the cap. */
  diagnostics: string[];
  diagnosticCount: number;
  /** One digest per context message, or undefined when Pi builds no context. */
  context: string[] | undefined;
  request: RequestSummary | undefined;
}

type RequestSummary = { sent: false; reason: string } | { sent: true; messages: string[]; sources: string; placeholders: number; dropped: number };

const KINDS: readonly ParsedLine["kind"][] = ["blank", "malformed", "value"];

/** At most this many differences are listed. */
const MAX_DIFFERENCES = 20;

/** The proof for two texts held in memory (tests, and the editor's sized documents). */
export function proveRedaction(original: string, redacted: string, secrets: readonly RedactedSecret[]): ProofResult {
  const before = summariseForProof(new SessionDocument("file:///original.jsonl", "jsonl", 0, original), secrets);
  const after = summariseForProof(new SessionDocument("file:///redacted.jsonl", "jsonl", 0, redacted), []);
  return compareSummaries(before, after);
}

/**
 * What the proof compares of the UTF-8 session open at `fd` (its first `end` bytes), streamed as
 * `check` streams it. Throws what `readStreamedForCheck` throws.
 */
export function summariseFile(fd: number, uri: string, end: number | undefined, secrets: readonly RedactedSecret[]): ProofSummary {
  try {
    return summariseForProof(readStreamedForCheck(fd, uri, undefined, end).doc, secrets);
  } finally {
    forgetValues();
    setValueBudget(undefined);
  }
}

/**
 * What the proof compares of `doc`, with `secrets` replaced in the strings of its context and
 * request (the original's: pass none for the copy).
 */
export function summariseForProof(doc: SessionDocument, secrets: readonly RedactedSecret[]): ProofSummary {
  const transform = secrets.length === 0 ? (s: string) => s : (s: string) => replaceInStrings(s, secrets);
  const kinds = new Uint8Array(doc.lineCount);
  const facts = new Int32Array(doc.lineCount * 2);
  for (let line = 0; line < doc.lineCount; line++) {
    const p = doc.parsed[line]!;
    kinds[line] = KINDS.indexOf(p.kind);
    if (p.kind !== "value") continue;
    const key = [p.isObject, p.id, p.parentId, p.type, p.role, p.reference, p.toolResultId, ...(p.toolCallIds ?? [])].map(String).join("\u0000");
    facts[2 * line] = fnv1a(key, 0x811c9dc5);
    facts[2 * line + 1] = fnv1a(key, 0x01000193);
  }
  const found = collectDiagnostics(doc, MAX_PER_CODE);
  const diagnostics = found.diagnostics
    .filter((d) => d.code !== "secret")
    .map((d) => `${d.range.start.line + 1} ${String(d.code)}`)
    .sort();
  const diagnosticCount = diagnostics.length;
  for (const [code, n] of [...found.overflow].sort()) if (code !== "secret") diagnostics.push(`${code} +${n}`);
  const summary: ProofSummary = { kinds, facts, leaf: doc.analysis.leaf?.line, diagnostics, diagnosticCount, context: undefined, request: undefined };
  // The context the checks built already (memoised per analysis): the same as building it again, at no cost.
  const built = activeContext(doc.analysis);
  if (!built.ok) return summary;
  summary.context = built.build.context.messages.map((m) => digest(m, transform));
  const request = buildProviderRequest(built.build, { flavor: "1.x", now: () => 0 });
  summary.request = request.ok
    ? {
        sent: true,
        messages: request.request.messages.map((m) => digest(m, transform)),
        sources: request.request.sources.map((e) => (e ? e.line : -1)).join(","),
        placeholders: request.request.placeholders.length,
        dropped: request.request.dropped.length,
      }
    : { sent: false, reason: transform(request.reason) };
  return summary;
}

/** What differs between the summaries of the original and of the copy. */
export function compareSummaries(a: ProofSummary, b: ProofSummary): ProofResult {
  const differences: string[] = [];
  const differ = (what: string) => {
    if (differences.length < MAX_DIFFERENCES) differences.push(what);
  };
  compareLines(a, b, differ);
  if (a.leaf !== b.leaf) differ(`the leaf moved from line ${lineName(a.leaf)} to line ${lineName(b.leaf)}`);
  if (a.diagnostics.join("\n") !== b.diagnostics.join("\n")) {
    const after = new Set(b.diagnostics);
    const before = new Set(a.diagnostics);
    const gone = a.diagnostics.filter((k) => !after.has(k));
    const added = b.diagnostics.filter((k) => !before.has(k));
    differ(`the diagnostics differ (gone: ${gone.slice(0, 5).join(", ") || "none"}; new: ${added.slice(0, 5).join(", ") || "none"})`);
  }
  if ((a.context === undefined) !== (b.context === undefined)) differ("Pi builds a context from one file and not from the other");
  else if (a.context && b.context) {
    const where = firstDifference(a.context, b.context);
    if (where !== undefined) differ(`the context differs at ${where}`);
    const requestWhere = sameRequest(a.request, b.request);
    if (requestWhere !== undefined) differ(`the provider request differs at ${requestWhere}`);
  }
  const providerMessages = a.request?.sent ? a.request.messages.length : 0;
  return { differences, diagnostics: a.diagnosticCount, contextMessages: a.context?.length ?? 0, providerMessages };
}

function lineName(line: number | undefined): string {
  return line === undefined ? "(none)" : String(line + 1);
}

function compareLines(a: ProofSummary, b: ProofSummary, differ: (what: string) => void): void {
  if (a.kinds.length !== b.kinds.length) {
    differ(`${a.kinds.length} lines became ${b.kinds.length}`);
    return;
  }
  for (let line = 0; line < a.kinds.length; line++) {
    if (a.kinds[line] !== b.kinds[line]) differ(`line ${line + 1} was ${KINDS[a.kinds[line]!]} and is now ${KINDS[b.kinds[line]!]}`);
    else if (a.facts[2 * line] !== b.facts[2 * line] || a.facts[2 * line + 1] !== b.facts[2 * line + 1])
      differ(`line ${line + 1}'s id, parent, type, role, link or tool call ids changed`);
  }
}

function firstDifference(x: readonly string[], y: readonly string[]): string | undefined {
  if (x.length !== y.length) return `.length (${x.length} messages, now ${y.length})`;
  const at = x.findIndex((d, i) => d !== y[i]);
  return at < 0 ? undefined : `[${at}]`;
}

function sameRequest(x: RequestSummary | undefined, y: RequestSummary | undefined): string | undefined {
  if (x === undefined || y === undefined) return x === y ? undefined : "whether it is built";
  if (x.sent !== y.sent) return "whether it is sent";
  if (!x.sent || !y.sent) return !x.sent && !y.sent && x.reason !== y.reason ? "why it fails" : undefined;
  const where = firstDifference(x.messages, y.messages);
  if (where !== undefined) return `messages${where}`;
  if (x.sources !== y.sources) return "the entries its messages come from";
  if (x.placeholders !== y.placeholders || x.dropped !== y.dropped) return "the tool results Pi adds or the turns it drops";
  return undefined;
}

/** FNV-1a of a string's UTF-16 units, from `seed`. */
function fnv1a(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * The sha256 of a value with `transform` applied to each of its strings (keys too), walked on an
 * explicit stack (a value nested deep does not overflow the call stack). Each piece is written with
 * its type and length, so two values have the same digest only when they are equal.
 */
export function digest(value: unknown, transform: (s: string) => string): string {
  const hash = createHash("sha256");
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") writeString(hash, "s", transform(v));
    else if (v instanceof Key) writeString(hash, "k", transform(v.name));
    else if (v === null || typeof v !== "object") hash.update(`${typeof v}:${Object.is(v, -0) ? "-0" : String(v)};`);
    else if (Array.isArray(v)) {
      hash.update(`a${v.length};`);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else {
      const keys = Object.keys(v);
      hash.update(`o${keys.length};`);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((v as Record<string, unknown>)[keys[i]!]);
        stack.push(new Key(keys[i]!));
      }
    }
  }
  return hash.digest("hex");
}

/** A key on `digest`'s stack, told apart from a string value. */
class Key {
  constructor(readonly name: string) {}
}

function writeString(hash: Hash, tag: string, text: string): void {
  hash.update(`${tag}${text.length};`);
  hash.update(text);
}
