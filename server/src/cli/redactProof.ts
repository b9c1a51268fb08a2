/**
 * The proof `redact` gives of its copy, before writing it: the copy is the same session as the
 * original apart from the replaced strings. Both texts are read into `SessionDocument`s, as
 * `check` and the editor read them, and compared:
 *
 * - line by line: the same kind of line (blank, not JSON, a value), and for a value the same id,
 *   parent, type, role, link, tool call ids and tool result id, so the tree and the pairing of tool
 *   calls and results are what they were;
 * - the same leaf, where Pi resumes;
 * - the same diagnostics, by line and code, apart from `secret`;
 * - the context Pi 1.x builds from the leaf, and the provider request after it, equal to the
 *   original's once every secret in the original's strings is replaced by its placeholder.
 *
 * A difference is returned in words; none means the proof holds.
 */

import { buildContext } from "../core/pi/buildContext";
import { buildProviderRequest } from "../core/pi/provider/request";
import type { ProviderResult } from "../core/pi/provider/types";
import { replaceInStrings, type RedactedSecret } from "../core/edits/redact";
import { SessionDocument } from "../core/session/document";
import { collectDiagnostics } from "../features/api/diagnostics";

export interface ProofResult {
  /** What differs, in words; empty when the proof holds. */
  differences: string[];
  /** How many diagnostics other than `secret` both have, how many messages the context holds. */
  diagnostics: number;
  contextMessages: number;
  providerMessages: number;
}

/** At most this many differences are listed. */
const MAX_DIFFERENCES = 20;

export function proveRedaction(original: string, redacted: string, secrets: readonly RedactedSecret[]): ProofResult {
  const a = new SessionDocument("file:///original.jsonl", "jsonl", 0, original);
  const b = new SessionDocument("file:///redacted.jsonl", "jsonl", 0, redacted);
  const differences: string[] = [];
  const differ = (what: string) => {
    if (differences.length < MAX_DIFFERENCES) differences.push(what);
  };
  compareLines(a, b, differ);
  const leafA = a.analysis.leaf?.line;
  const leafB = b.analysis.leaf?.line;
  if (leafA !== leafB) differ(`the leaf moved from line ${lineName(leafA)} to line ${lineName(leafB)}`);
  const diagnostics = compareDiagnostics(a, b, differ);
  const transform = (s: string) => replaceInStrings(s, secrets);
  const builtA = buildContext(a.analysis, { flavor: "1.x" });
  const builtB = buildContext(b.analysis, { flavor: "1.x" });
  let contextMessages = 0;
  let providerMessages = 0;
  if (builtA.ok !== builtB.ok) differ("Pi builds a context from one file and not from the other");
  else if (builtA.ok && builtB.ok) {
    contextMessages = builtA.build.context.messages.length;
    const where = sameValue(builtA.build.context, builtB.build.context, transform);
    if (where !== undefined) differ(`the context differs at ${where}`);
    const requestA = buildProviderRequest(builtA.build, { flavor: "1.x", now: () => 0 });
    const requestB = buildProviderRequest(builtB.build, { flavor: "1.x", now: () => 0 });
    providerMessages = requestA.ok ? requestA.request.messages.length : 0;
    const requestWhere = sameRequest(requestA, requestB, transform);
    if (requestWhere !== undefined) differ(`the provider request differs at ${requestWhere}`);
  }
  return { differences, diagnostics, contextMessages, providerMessages };
}

function lineName(line: number | undefined): string {
  return line === undefined ? "(none)" : String(line + 1);
}

function compareLines(a: SessionDocument, b: SessionDocument, differ: (what: string) => void): void {
  if (a.lineCount !== b.lineCount) {
    differ(`${a.lineCount} lines became ${b.lineCount}`);
    return;
  }
  for (let line = 0; line < a.lineCount; line++) {
    const p = a.parsed[line]!;
    const q = b.parsed[line]!;
    if (p.kind !== q.kind) {
      differ(`line ${line + 1} was ${p.kind} and is now ${q.kind}`);
      continue;
    }
    if (p.kind !== "value" || q.kind !== "value") continue;
    const facts = (x: typeof p) => [x.id, x.parentId, x.type, x.role, x.reference, x.toolResultId, ...(x.toolCallIds ?? [])].map(String).join("\u0000");
    if (p.isObject !== q.isObject || facts(p) !== facts(q)) differ(`line ${line + 1}'s id, parent, type, role, link or tool call ids changed`);
  }
}

function compareDiagnostics(a: SessionDocument, b: SessionDocument, differ: (what: string) => void): number {
  const keys = (doc: SessionDocument) =>
    collectDiagnostics(doc)
      .diagnostics.filter((d) => d.code !== "secret")
      .map((d) => `${d.range.start.line + 1} ${String(d.code)}`)
      .sort();
  const before = keys(a);
  const after = keys(b);
  if (before.join("\n") !== after.join("\n")) {
    const gone = before.filter((k) => !after.includes(k));
    const added = after.filter((k) => !before.includes(k));
    differ(`the diagnostics differ (gone: ${gone.slice(0, 5).join(", ") || "none"}; new: ${added.slice(0, 5).join(", ") || "none"})`);
  }
  return before.length;
}

function sameRequest(x: ProviderResult, y: ProviderResult, transform: (s: string) => string): string | undefined {
  if (x.ok !== y.ok) return "whether it is sent";
  if (!x.ok || !y.ok) return x.ok === y.ok && !x.ok && !y.ok && transform(x.reason) !== y.reason ? "why it fails" : undefined;
  const where = sameValue(x.request.messages, y.request.messages, transform);
  if (where !== undefined) return `messages${where}`;
  const lines = (r: typeof x.request) => r.sources.map((e) => (e ? e.line : -1)).join(",");
  if (lines(x.request) !== lines(y.request)) return "the entries its messages come from";
  if (x.request.placeholders.length !== y.request.placeholders.length || x.request.dropped.length !== y.request.dropped.length)
    return "the tool results Pi adds or the turns it drops";
  return undefined;
}

/**
 * Whether `y` equals `x` with `transform` applied to each string of `x` (keys too), compared
 * without recursion (a value nested deep is walked on an explicit stack); where they first differ,
 * as a path, or undefined when they are equal.
 */
export function sameValue(x: unknown, y: unknown, transform: (s: string) => string): string | undefined {
  const stack: [unknown, unknown, string][] = [[x, y, ""]];
  while (stack.length > 0) {
    const [u, v, path] = stack.pop()!;
    if (typeof u === "string") {
      if (typeof v !== "string" || transform(u) !== v) return path || "(root)";
      continue;
    }
    if (u === null || typeof u !== "object") {
      if (!Object.is(u, v)) return path || "(root)";
      continue;
    }
    if (v === null || typeof v !== "object" || Array.isArray(u) !== Array.isArray(v)) return path || "(root)";
    if (Array.isArray(u)) {
      const w = v as unknown[];
      if (u.length !== w.length) return `${path}.length`;
      for (let i = 0; i < u.length; i++) stack.push([u[i], w[i], `${path}[${i}]`]);
      continue;
    }
    const uo = u as Record<string, unknown>;
    const vo = v as Record<string, unknown>;
    const uk = Object.keys(uo);
    if (uk.length !== Object.keys(vo).length) return `${path} (its fields)`;
    for (const k of uk) {
      const tk = transform(k);
      if (!Object.hasOwn(vo, tk)) return `${path}.${k.length > 40 ? `${k.slice(0, 40)}…` : k}`;
      stack.push([uo[k], vo[tk], `${path}.${tk}`]);
    }
  }
  return undefined;
}
