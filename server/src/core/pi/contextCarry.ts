/**
 * The context Pi resumes with, carried over an edit that changed the tree somewhere else (a line
 * added, removed, broken or mended, a parent changed off the resumed branch) instead of built again
 * over the whole path.
 *
 * Such an edit makes a new analysis with new entry objects, so nothing kept for the old structure
 * applies as it is. But the build is a function of the resumed path's parses alone, in order
 * (`contextOfPath`): when the new path holds the same parse objects in the same order, Pi builds
 * the same context, and only the entries it names move (to other lines, other indexes). So the old
 * build is mapped onto the new path's entries, position by position, in O(path), and the provider
 * request made from it is mapped the same way (`provider/request.ts`, through `contextCarry`).
 */

import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";
import type { ContextBuild, ContextResult } from "./buildContext";

/** A build carried from `from`: the same context, its entries mapped by `entryOf` onto the new path. */
export interface ContextCarry {
  from: ContextBuild;
  /** The new path's entry at the old entry's place on the path, or undefined for an entry off it. */
  entryOf: (old: Entry) => Entry | undefined;
}

/** Only the last step is kept, as for `contextSplice`: a carried build's link goes once it is carried again. */
const carries = new WeakMap<ContextBuild, ContextCarry>();

/** How `build` was carried from an earlier structure's build, if it was. */
export function contextCarry(build: ContextBuild): ContextCarry | undefined {
  return carries.get(build);
}

/**
 * The context of `a` (built from its leaf) made from `previous`, the context of the analysis `a`
 * replaced, or undefined when the resumed path is not the same parses in the same order (the caller
 * then builds it afresh). A failed build is never carried: it is rare, and cheap to find again.
 */
export function carryContext(a: SessionAnalysis, previous: ContextResult): ContextResult | undefined {
  if (!previous.ok) return undefined;
  const old = previous.build;
  // `activePath` is the walk from `a.leaf`, empty when there is none or it reaches a cycle: the
  // cases `buildContext` answers without a path are built afresh.
  const path = a.activePath;
  if (path.length === 0 || path.length !== old.path.length) return undefined;
  let top = 0;
  for (let i = 0; i < path.length; i++) {
    if (path[i]!.parsed !== old.path[i]!.parsed) return undefined;
    top = Math.max(top, old.path[i]!.index);
  }
  // Where each old entry is on the path, by its old index: one typed array instead of a map of 50,000 entries.
  const place = new Int32Array(top + 1).fill(-1);
  for (let i = 0; i < old.path.length; i++) place[old.path[i]!.index] = i;
  const entryOf = (e: Entry): Entry | undefined => {
    const k = e.index < place.length ? place[e.index]! : -1;
    return k >= 0 && old.path[k] === e ? path[k] : undefined;
  };
  const selected = mapAll(old.selected, entryOf);
  const sources = mapAll(old.sources, entryOf);
  const compaction = old.compaction && entryOf(old.compaction);
  if (!selected || !sources || (old.compaction && !compaction)) return undefined;
  const build: ContextBuild = { context: old.context, path: path.slice(), selected, compaction, sources };
  carries.delete(old);
  carries.set(build, { from: old, entryOf });
  return { ok: true, build };
}

/** Every entry mapped, or undefined when one has no place on the new path. */
export function mapAll(entries: readonly Entry[], entryOf: (old: Entry) => Entry | undefined): Entry[] | undefined {
  const out: Entry[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entryOf(entries[i]!);
    if (!e) return undefined;
    out[i] = e;
  }
  return out;
}
