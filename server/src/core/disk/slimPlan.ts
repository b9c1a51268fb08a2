/**
 * Which entries of a session Pi no longer sends to the model: those `slim` may shrink.
 *
 * Pi resumes from its leaf (the last entry) and sends what `buildSessionContext` selects on the
 * path up from it: without a compaction, the whole path; with one, the last compaction's summary,
 * the path entries from its `firstKeptEntryId` up to it, and every entry after it. So the entries
 * off that path (branches Pi does not resume), and those before the kept range on it, are never
 * sent. The selection is computed here on the skeleton (`core/disk/skeleton.ts`, the tree without
 * the values) for Pi 1.x and Pi 0.73/0.74 both, and an entry either selects counts as sent; the
 * two differ where duplicate ids make the compaction found again by id an earlier entry.
 *
 * This is the plan, not the proof: `slim` builds both contexts again from the files before and
 * after and compares them, so a rule missed here is a refusal, never a changed context.
 */

import { type Skeleton, skeletonIndex, walkUp } from "./skeleton";

export enum Placement {
  /** Off the path Pi resumes: a branch it does not resume. */
  OffPath = 0,
  /** On the path, before what the last compaction keeps. */
  BehindCompaction = 1,
  /** Sent to the model (or read by the build): never changed. */
  Sent = 2,
}

export type SlimPlan = { ok: true; placement: Uint8Array; pathLength: number; offPath: number; behindCompaction: number } | { ok: false; reason: string };

/**
 * The path Pi resumes along (root first): from Pi 1.x's leaf (the last entry, none when its id is
 * `null`) or Pi 0.74's (the last entry either way). Empty for no leaf; undefined on a parent cycle.
 */
export function resumedPath(sk: Skeleton, flavor: "1.x" | "0.74"): number[] | undefined {
  const index = skeletonIndex(sk);
  const leaf = flavor === "0.74" ? index.last : index.leaf;
  return walkUp(sk, index, leaf)?.reverse();
}

/** Where each entry of `sk` stands for the leaf Pi 1.x and Pi 0.74 resume from. */
export function slimPlan(sk: Skeleton): SlimPlan {
  if (sk.load !== "ok") return { ok: false, reason: sk.loadMessage ?? "Pi does not open this file" };
  if (sk.migrates > 0)
    return { ok: false, reason: `${sk.loadMessage ?? "Pi migrates this file"}; open it in Pi once (it rewrites the file as version 3), then slim it` };
  if (sk.unreadLines.length > 0) return { ok: false, reason: `line ${sk.unreadLines[0]! + 1} is too long to read, so the tree cannot be known` };
  const placement = new Uint8Array(sk.n);
  let pathLength = 0;
  for (const flavor of ["1.x", "0.74"] as const) {
    const path = resumedPath(sk, flavor);
    if (!path) return { ok: false, reason: "the walk up from the leaf runs into a parent cycle, so Pi cannot resume this session" };
    pathLength = Math.max(pathLength, path.length);
    for (const i of path) placement[i] = Math.max(placement[i]!, Placement.BehindCompaction);
    for (const k of selectedPositions(sk, path, flavor)) placement[path[k]!] = Placement.Sent;
  }
  let offPath = 0;
  let behindCompaction = 0;
  for (let i = 0; i < sk.n; i++) {
    if (placement[i] === Placement.OffPath) offPath++;
    else if (placement[i] === Placement.BehindCompaction) behindCompaction++;
  }
  return { ok: true, placement, pathLength, offPath, behindCompaction };
}

/**
 * The positions on `path` (root first) that Pi's `buildContextEntries` selects, as
 * `core/pi/buildContext.ts`'s `selectEntries` does on parsed entries: the last compaction, the
 * entries before it from the one whose key is its `firstKeptEntryId`, and all after it.
 */
function selectedPositions(sk: Skeleton, path: readonly number[], flavor: "1.x" | "0.74"): number[] {
  let ci = -1;
  for (let k = path.length - 1; k >= 0; k--) {
    if (sk.types[path[k]!] === "compaction") {
      ci = k;
      break;
    }
  }
  if (ci < 0) return path.map((_, k) => k);
  const key = sk.keys[path[ci]!];
  // Pi looks the compaction up again by id: with duplicate ids that can be an earlier entry.
  let at = path.findIndex((i) => (flavor === "0.74" ? sk.types[i] === "compaction" : true) && sk.keys[i] === key);
  if (at < 0) at = ci;
  const firstKept = sk.firstKept.get(path[ci]!);
  const selected = [ci];
  let kept = false;
  for (let k = 0; k < at; k++) {
    if (!kept && sk.keys[path[k]!] === firstKept) kept = true;
    if (kept) selected.push(k);
  }
  for (let k = at + 1; k < path.length; k++) selected.push(k);
  return selected;
}
