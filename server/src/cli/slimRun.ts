/**
 * `slim` from start to end, apart from its command line: plan (one streaming pass: the tree and
 * which entries hold something to slim), rewrite (a second pass into a new file), prove (the
 * contexts and provider requests of both files equal), then put the result in place
 * (`slimCommit.ts`) or leave it at `--out`. A failed proof removes what was written.
 */

import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";
import { mightSlim } from "../core/edits/slim";
import { Placement, type SlimPlan, slimPlan } from "../core/disk/slimPlan";
import type { ReadOptions } from "../io/lineReader";
import { readSkeleton } from "../io/skeletonReader";
import { openRegularFile } from "./files";
import { FileChanged, FixRefused, removeQuietly } from "./replace";
import { commitSlimmed } from "./slimCommit";
import { FULL_PROOF_MAX_BYTES, fullProofFailure } from "./slimFullProof";
import { compareDiagnostics, diagnosticCounts } from "./slimDiagnostics";
import { type ContextDigest, contextDigests, proofFailure } from "./slimProof";
import { emptyTotals, type SlimTarget, type SlimTotals, writeSlimmed } from "./slimWrite";

export interface SlimOptions {
  /** Write the slimmed session here (a new file) instead of replacing FILE. */
  out?: string;
  dryRun?: boolean;
  minBytes: number;
  /** The longest line read (tests lower it); longer lines make the run refuse. */
  maxLineBytes?: number;
  /** Called once the copy is proved, before it replaces FILE: tests append to FILE here, as Pi would. */
  beforeCommit?: () => void;
}

type PlanCounts = Extract<SlimPlan, { ok: true }>;

export type SlimOutcome =
  | { status: "refused"; reason: string }
  /** Nothing Pi no longer sends is large enough to slim: nothing written. */
  | { status: "nothing"; plan: PlanCounts; totals: SlimTotals }
  | { status: "dry-run"; plan: PlanCounts; totals: SlimTotals }
  | {
      status: "slimmed";
      plan: PlanCounts;
      totals: SlimTotals;
      proof: ContextDigest[];
      /** Diagnostics of the original that the slimmed file no longer has (none is added, or it is refused). */
      diagnosticsRemoved: number;
      /** The file written: FILE itself (in place) or `--out`. */
      written: string;
      backup?: string;
      history?: string;
      carried: number;
      recovered: number;
    };

/** Creates a new file for the slimmed copy: `--out` as given, else a temporary name beside `target`. */
function createOutput(target: string, options: SlimOptions, like: nodeFs.Stats): { path: string; fd: number } {
  if (options.out !== undefined) return { path: options.out, fd: nodeFs.openSync(options.out, "wx", like.mode & 0o777) };
  for (let n = 0; ; n++) {
    const path = join(dirname(target), `.${basename(target)}.${process.pid}.${n}.slim`);
    try {
      const fd = nodeFs.openSync(path, "wx", 0o600);
      try {
        if (like.uid !== process.getuid?.() || like.gid !== process.getgid?.()) nodeFs.fchownSync(fd, like.uid, like.gid);
        nodeFs.fchmodSync(fd, like.mode & 0o7777);
      } catch (error) {
        nodeFs.closeSync(fd);
        removeQuietly(nodeFs, path);
        throw new FixRefused(`the slimmed file could not be given the session's owner or mode (${(error as Error).message}); run as its owner`);
      }
      return { path, fd };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || n >= 1000) throw error;
    }
  }
}

/** The first pass: the 1.x skeleton, the plan, and the lines holding something to slim that Pi does not send. */
function planOf(file: string, size: number, read: ReadOptions) {
  const candidates: number[] = [];
  const sk = readSkeleton(file, "1.x", [(entry, i) => (mightSlim(entry) ? candidates.push(i) : 0)], { ...read, end: size });
  const plan = slimPlan(sk);
  const targets: SlimTarget[] = [];
  if (plan.ok) {
    for (const i of candidates) {
      if (plan.placement[i] !== Placement.Sent) targets.push({ line: sk.lines[i]!, start: sk.starts[i]!, bytes: sk.byteLengths[i]!, type: sk.types[i]! });
    }
  }
  return { sk, plan, targets };
}

export function slimSession(file: string, options: SlimOptions): SlimOutcome {
  const read: ReadOptions = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  const { fd, stat } = openRegularFile(file);
  try {
    const inPlace = options.out === undefined && !options.dryRun;
    if (inPlace && stat.nlink > 1)
      return { status: "refused", reason: `it has ${stat.nlink} hard links: replacing it would leave the other names on the original; slim a copy (--out)` };
    const size = stat.size;
    const { sk, plan, targets } = planOf(file, size, read);
    if (!plan.ok) return { status: "refused", reason: plan.reason };
    const hash = createHash("sha256");
    if (options.dryRun) return { status: "dry-run", plan, totals: writeSlimmed(fd, size, targets, undefined, options.minBytes, hash) };
    if (targets.length === 0) return { status: "nothing", plan, totals: { ...emptyTotals(), bytesIn: size, bytesOut: size } };
    const target = nodeFs.realpathSync(file);
    const output = createOutput(target, options, stat);
    let keep = false;
    try {
      let totals: SlimTotals;
      try {
        totals = writeSlimmed(fd, size, targets, output.fd, options.minBytes, hash);
        nodeFs.fsyncSync(output.fd);
      } finally {
        nodeFs.closeSync(output.fd);
      }
      // Nothing large enough: the copy is the original, and is not kept.
      if (totals.linesChanged === 0) return { status: "nothing", plan, totals };
      const before = contextDigests(file, { ...read, end: size }, sk);
      const after = contextDigests(output.path, read);
      // A file small enough to hold is proved the full way too (the document every command uses).
      const failure = proofFailure(before, after) ?? (size <= FULL_PROOF_MAX_BYTES ? fullProofFailure(file, size, output.path) : undefined);
      if (failure) return { status: "refused", reason: `the proof failed: ${failure}` };
      const diagnostics = compareDiagnostics(diagnosticCounts(file), diagnosticCounts(output.path), new Set(totals.changedLines));
      if (diagnostics.added.length > 0)
        return { status: "refused", reason: `the slimmed file has diagnostics the original has not: ${diagnostics.added.slice(0, 3).join(", ")}` };
      if (diagnostics.lost.length > 0)
        return { status: "refused", reason: `diagnostics of lines it did not change are gone: ${diagnostics.lost.slice(0, 3).join(", ")}` };
      const done = { status: "slimmed" as const, plan, totals, proof: after, diagnosticsRemoved: diagnostics.removed, carried: 0, recovered: 0 };
      if (!inPlace) {
        keep = true;
        return { ...done, written: output.path };
      }
      options.beforeCommit?.();
      const reprove = (end: number) =>
        proofFailure(contextDigests(file, { ...read, end }), contextDigests(output.path, read)) ??
        (end <= FULL_PROOF_MAX_BYTES ? fullProofFailure(file, end, output.path) : undefined);
      const committed = commitSlimmed({ target, fd, stat, size, prefixHash: hash.digest("hex"), temp: output.path, reprove });
      keep = true;
      return { ...done, ...committed, written: file };
    } catch (error) {
      if (error instanceof FileChanged || error instanceof FixRefused) return { status: "refused", reason: error.message };
      throw error;
    } finally {
      if (!keep) removeQuietly(nodeFs, output.path);
    }
  } finally {
    nodeFs.closeSync(fd);
  }
}
