/**
 * `slim`'s proof: the context Pi resumes with and the provider request after it, built by the
 * core (`contextOfPath`, `buildProviderRequest`) for Pi 1.x and Pi 0.73/0.74 from a file on disk, as
 * digests to compare between the file before and after slimming.
 *
 * A file of any size is read in bounded memory: one streaming pass learns the tree
 * (`readSkeleton`), then only the lines on the path up from the leaf are read back and parsed.
 * Of those, only the ones the plan says Pi selects keep their values; the others keep the facts the
 * build reads of every path entry (type, model, thinking level, whether the message is missing)
 * and throw if the build asks for more, which makes the proof fail instead of reading a value
 * this reader let go. The context and request are serialised, hashed and dropped, one at a time.
 */

import { createHash } from "node:crypto";
import type { PiVersion } from "../core/disk/location";
import type { Skeleton } from "../core/disk/skeleton";
import { Placement, resumedPath, slimPlan } from "../core/disk/slimPlan";
import type { ValueLine } from "../core/line/facts";
import { parseLineWith } from "../core/line/parse";
import { contextOfPath, type PiFlavor } from "../core/pi/buildContext";
import { buildProviderRequest, providerViewJson } from "../core/pi/provider/request";
import { Entry } from "../core/session/entry";
import { type ReadOptions, LineFile } from "../io/lineReader";
import { readSkeleton } from "../io/skeletonReader";

/** What one Pi builds from one file: digests to compare, and counts to report. */
export interface ContextDigest {
  flavor: PiFlavor;
  /** The entries on the path (their line numbers), root first, hashed. */
  path: string;
  /** sha256 of `JSON.stringify` of the context, or what stopped the build. */
  context: string;
  /** sha256 of the provider request's JSON, or what stopped the pipeline. */
  request: string;
  messages: number;
  /** Whether the build succeeded and both were hashed: only then can a digest prove anything. */
  complete: boolean;
}

export const PROVED_FLAVORS: readonly PiFlavor[] = ["1.x", "0.74"];

/** A line whose value was let go: its facts answer, its value throws. */
class FactsOnly implements ValueLine {
  readonly kind = "value";
  readonly falsy: boolean;
  readonly isObject: boolean;
  readonly model: ValueLine["model"];
  readonly thinkingLevel: unknown;
  readonly noMessage: boolean;
  readonly type: string | undefined;
  readonly id: string | undefined;
  readonly parentId: string | null | undefined;
  readonly idKey: ValueLine["idKey"];
  readonly parentKey: ValueLine["parentKey"];
  readonly time: number | undefined;
  readonly toolCallIds: string[] | undefined;
  readonly toolResultId: string | undefined;
  readonly role: string | undefined;
  readonly reference: ValueLine["reference"];
  readonly looksLikePi: boolean;

  constructor(p: ValueLine) {
    this.falsy = p.falsy;
    this.isObject = p.isObject;
    this.model = p.model;
    this.thinkingLevel = p.thinkingLevel;
    this.noMessage = p.noMessage;
    this.type = p.type;
    this.id = p.id;
    this.parentId = p.parentId;
    this.idKey = p.idKey;
    this.parentKey = p.parentKey;
    this.time = p.time;
    this.toolCallIds = p.toolCallIds;
    this.toolResultId = p.toolResultId;
    this.role = p.role;
    this.reference = p.reference;
    this.looksLikePi = p.looksLikePi;
  }

  get value(): unknown {
    throw new Error("the build read an entry the plan says Pi does not send");
  }
  get object(): Record<string, unknown> | undefined {
    throw new Error("the build read an entry the plan says Pi does not send");
  }
  get findings(): ValueLine["findings"] {
    return [];
  }
}

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function failed(error: unknown): string {
  return `failed: ${error instanceof Error ? error.message : "unknown"}`;
}

/** The digests of the context and request each proved Pi builds from `file`. */
export function contextDigests(file: string, options: ReadOptions = {}, skeleton1x?: Skeleton): ContextDigest[] {
  return PROVED_FLAVORS.map((flavor) => {
    const version: PiVersion = flavor === "0.74" ? "0.74" : "1.x";
    const sk = version === "1.x" && skeleton1x ? skeleton1x : readSkeleton(file, version, [], options);
    return digestOf(file, sk, flavor);
  });
}

function digestOf(file: string, sk: Skeleton, flavor: PiFlavor): ContextDigest {
  const incomplete = (why: string): ContextDigest => ({ flavor, path: "", context: why, request: why, messages: 0, complete: false });
  if (sk.load !== "ok") return incomplete(`not opened: ${sk.loadMessage ?? sk.load}`);
  const plan = slimPlan(sk);
  if (!plan.ok) return incomplete(plan.reason);
  const resumed = resumedPath(sk, flavor === "0.74" ? "0.74" : "1.x");
  if (!resumed) return incomplete("parent cycle");
  const reader = new LineFile(file);
  const path: Entry[] = [];
  const lines: number[] = [];
  try {
    for (const i of resumed) {
      const text = reader.text(sk.starts[i]!, sk.byteLengths[i]!);
      const parsed = text === undefined ? undefined : parseLineWith(text, undefined, false);
      if (parsed?.kind !== "value") return incomplete(`line ${sk.lines[i]! + 1} no longer parses`);
      const kept = plan.placement[i] === Placement.Sent ? parsed : new FactsOnly(parsed);
      path.push(new Entry(path.length, sk.lines[i]!, kept));
      lines.push(sk.lines[i]!);
    }
  } finally {
    reader.close();
  }
  const digest = { flavor, path: sha(lines.join(",")), context: "", request: "", messages: 0, complete: false };
  try {
    const result = contextOfPath(path, flavor);
    if (!result.ok) return { ...digest, context: `fails: ${result.failure.kind} at line ${result.failure.entry.line + 1}`, request: "" };
    digest.messages = result.build.context.messages.length;
    digest.context = sha(JSON.stringify(result.build.context));
    // Pi dates the tool results it makes up for unanswered calls when it sends the request; one
    // fixed time for both files leaves only what the files decide.
    const request = buildProviderRequest(result.build, { flavor, now: () => 0 });
    if (!request.ok) return { ...digest, request: `fails: ${request.reason}` };
    digest.request = sha(providerViewJson(request.request));
    digest.complete = true;
    return digest;
  } catch (error) {
    return { ...digest, context: digest.context || failed(error), request: failed(error) };
  }
}

/** Why the digests of the file before and after differ, or undefined when every one is complete and equal. */
export function proofFailure(before: readonly ContextDigest[], after: readonly ContextDigest[]): string | undefined {
  for (let k = 0; k < before.length; k++) {
    const b = before[k]!;
    const a = after[k];
    const pi = b.flavor === "0.74" ? "Pi 0.74" : "Pi 1.x";
    if (!b.complete) {
      // Pi failing on both files alike (it does not open them, or its build or pipeline throws at
      // the same line) is the same behaviour; any other gap in the proof is a refusal.
      const sameFailure = a !== undefined && !a.complete && a.path === b.path && a.context === b.context && a.request === b.request;
      if (sameFailure && (b.context.startsWith("not opened") || b.context.startsWith("fails:") || b.request.startsWith("fails:"))) continue;
      return `${pi}'s context of the original could not be built to compare (${b.context}; ${b.request})`;
    }
    if (!a?.complete) return `${pi}'s context of the slimmed file could not be built (${a?.context ?? "missing"})`;
    if (a.path !== b.path) return `${pi} resumes along another path in the slimmed file`;
    if (a.context !== b.context) return `${pi}'s context differs in the slimmed file`;
    if (a.request !== b.request) return `${pi}'s provider request differs in the slimmed file`;
  }
  return undefined;
}
